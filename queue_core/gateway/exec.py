"""The host transport: an ``exec`` provider's calls run a command, or read a file, on the worker's host.

A provider with ``kind = "exec"`` (``base_url`` ``exec://<name>``; no secret) is called like any
other: ``ctx.call(provider, "EXEC", "/command", json={"command": text, "cwd": dir or null})`` or
``ctx.call(provider, "EXEC", "/read", json={"path": path})`` go through budgets, the ledger,
redaction and the modes. Only a live call reaches this transport (mounted on the gateway's live
client for the provider's ``exec://`` origin); shadow and dry-run calls are answered offline (the
recording, else a synthetic answer), so nothing of those modes ever runs a command or opens a file.

``/glob`` (``{"pattern"}``) answers ``{"paths": [...]}``, the files (not folders, no hidden entry unless the
pattern names it) a glob matches, in the order the folders list them, as fast-glob gives n8n's
Read/Write Files from Disk; ``/write`` (``{"path", "data": base64, "append": bool}``) writes or
appends the bytes and answers ``{"path", "size"}``.

``/command`` runs the text with ``/bin/sh -c`` (what Node's ``child_process.exec`` runs, so n8n's
Execute Command node) in ``cwd`` (the worker's directory when null), standard input closed, and
answers 200 ``{"code": exit status, "signal": name or null, "stdout", "stderr"}`` — the output
untrimmed, decoded as UTF-8; a command still running after the provider's ``timeout`` is killed
and the call raises ``httpx.ReadTimeout`` (retryable). ``/read`` answers 200 ``{"path", "size",
"data": base64}``, or 404 ``{"error": {"code": "ENOENT" | "EISDIR" | "EACCES", "message"}}`` with
Node's wording (``ENOENT: no such file or directory, stat '<path>'``, as n8n reports it).
"""

from __future__ import annotations

import asyncio
import base64
import glob
import json
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from ..errors import ConfigError
from ..provider import ProviderConfig, ProviderKind

EXEC_HEADER = "X-Cutover-Exec"
SHELL = "/bin/sh"


def mounts(providers: Mapping[str, ProviderConfig], environ: Mapping[str, str]) -> dict[str, httpx.AsyncBaseTransport]:
    """Return the transports to mount on the live client: one per exec provider, on its ``exec://`` origin."""
    return {config.base_url: ExecTransport(config) for config in providers.values() if config.kind is ProviderKind.EXEC}


def signal_name(code: int | None) -> str | None:
    """Return a negative return code's signal as Node names it (``SIGTERM``), else None."""
    if code is None or code >= 0:
        return None
    try:
        return signal.Signals(-code).name
    except ValueError:
        return None


async def run_command(command: str, cwd: str | None, timeout: float) -> dict[str, Any]:
    """Run ``command`` with ``/bin/sh -c`` in ``cwd``; return code, signal, stdout and stderr (untrimmed)."""
    process = await asyncio.create_subprocess_exec(SHELL, "-c", command, cwd=cwd or None, stdin=asyncio.subprocess.DEVNULL,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    code = process.returncode
    return {"code": code if code is not None and code >= 0 else None, "signal": signal_name(code),
            "stdout": out.decode("utf-8", "replace"), "stderr": err.decode("utf-8", "replace")}


def read_file(path: str) -> tuple[int, dict[str, Any]]:
    """Read the file at ``path``; return 200 and its bytes (base64), or 404 and Node's error."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return 404, {"error": {"code": "ENOENT", "message": f"ENOENT: no such file or directory, stat '{path}'"}}
    except IsADirectoryError:
        return 404, {"error": {"code": "EISDIR", "message": "EISDIR: illegal operation on a directory, read"}}
    except PermissionError:
        return 404, {"error": {"code": "EACCES", "message": f"EACCES: permission denied, open '{path}'"}}
    return 200, {"path": path, "size": len(data), "data": base64.b64encode(data).decode()}


def glob_files(pattern: str) -> tuple[int, dict[str, Any]]:
    """Return 200 and the files ``pattern`` matches (``**`` any depth), or 400 for braces, which are not read."""
    if "{" in pattern:
        return 400, {"error": {"code": "EGLOB", "message": f"the pattern {pattern!r} has braces, which are not expanded"}}
    return 200, {"paths": [p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p)]}


def write_file(path: str, data: str, append: bool) -> tuple[int, dict[str, Any]]:
    """Write (or append) the base64 ``data`` at ``path``; return 200 and its size, or 404 and Node's error."""
    content = base64.b64decode(data)
    try:
        with open(path, "ab" if append else "wb") as out:
            out.write(content)
    except FileNotFoundError:
        return 404, {"error": {"code": "ENOENT", "message": f"ENOENT: no such file or directory, open '{path}'"}}
    except IsADirectoryError:
        return 404, {"error": {"code": "EISDIR", "message": f"EISDIR: illegal operation on a directory, open '{path}'"}}
    except PermissionError:
        return 404, {"error": {"code": "EACCES", "message": f"EACCES: permission denied, open '{path}'"}}
    return 200, {"path": path, "size": len(content)}


def _body(config: ProviderConfig, raw: bytes, operation: str) -> dict[str, Any]:
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        body = None
    wanted = {"/command": "command", "/read": "path", "/glob": "pattern", "/write": "path"}.get(operation)
    if wanted is None or not isinstance(body, dict) or not isinstance(body.get(wanted), str):
        raise ConfigError(f"provider {config.name!r} runs commands on this host: call it with "
                          "'EXEC', '/command', json={'command': …, 'cwd': …}, '/read' or '/write', json={'path': …}, "
                          "'/glob', json={'pattern': …}",
                          field=f"tool.cutover.providers.{config.name}")
    return body


class ExecTransport(httpx.AsyncBaseTransport):
    """Run an exec provider's calls on the worker's host: a command per call, or a file read."""

    def __init__(self, config: ProviderConfig) -> None:
        self._config = config

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        operation = request.url.path
        body = _body(self._config, await request.aread(), operation)
        if operation == "/read":
            status, answer = await asyncio.to_thread(read_file, body["path"])
        elif operation == "/glob":
            status, answer = await asyncio.to_thread(glob_files, body["pattern"])
        elif operation == "/write":
            status, answer = await asyncio.to_thread(write_file, body["path"], str(body.get("data") or ""),
                                                     body.get("append") is True)
        else:
            cwd = body.get("cwd") if isinstance(body.get("cwd"), str) else None
            try:
                status, answer = 200, await run_command(body["command"], cwd, self._config.timeout)
            except TimeoutError:
                raise httpx.ReadTimeout(f"the command of provider {self._config.name!r} ran past its timeout",
                                        request=request) from None
            except OSError as exc:  # a cwd that is not there: what Node's spawn says
                status, answer = 404, {"error": {"code": "ENOENT", "message": f"spawn {SHELL} ENOENT: {exc.strerror}"}}
        return httpx.Response(status, json=answer, headers={EXEC_HEADER: operation}, request=request)
