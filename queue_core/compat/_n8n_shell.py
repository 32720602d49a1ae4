"""n8n's SSH, Execute Command, Read Binary File and Read/Write Files from Disk nodes: provider calls, items as n8n's.

The command or the read is a provider call (``queue_core.gateway.ssh``: ``ctx.call(provider,
"SSH", "/command", json={"command", "cwd"})``; ``queue_core.gateway.exec``: ``"EXEC", "/command"``
or ``"/read"``), so live it runs, and shadow and dry-run answer it from the recording (never run).
What each node outputs (n8n 1.123.81's source, ``n8n-nodes-base/nodes/…``):

- SSH v1, Execute (``resource`` command): per item ``{"code", "signal", "stdout", "stderr"}``, the
  output trimmed (node-ssh trims it); ``cwd`` is ``/`` by default, a ``~`` not followed by ``/``
  fails with n8n's message. A non-zero exit is an item too, not a failure.
- Execute Command v1: ``{"exitCode": 0, "stderr", "stdout"}`` trimmed, for the first item only
  when Execute Once (the default) is on; a command that exits non-zero (or is killed) fails the
  node with Node's message, ``Command failed: <command>`` and the standard error.
- Read Binary File v1: the item (its json, its binary copied) with the file's bytes as binary
  property ``dataPropertyName`` (``data``), the entry ``prepareBinaryData(stream, filePath)`` makes.
- Read/Write Files from Disk v1: read, one ``/glob`` call then one ``/read`` per file found
  (``read_files``); write, one ``/write`` per item (``write_files``).

An answer without the transport's header (``X-Cutover-Ssh`` / ``X-Cutover-Exec``) is a recording
(shadow, dry-run): the node's output items as n8n's execution kept them (json only: an export
keeps no file bytes), returned as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import NodeFailed
from ..gateway.exec import EXEC_HEADER
from ..gateway.ssh import SSH_HEADER
from ._n8n_binary import bounded, entry
from ._n8n_records import recorded_items

Items = list[dict[str, Any]]
Per = Callable[[dict[str, Any], int], Any]


def _recorded(response: Any, header: str) -> Items | None:
    """The node's recorded output items when ``response`` is a recording (no transport header), else None."""
    headers = getattr(response, "headers", None)
    return None if headers is None or header in headers else recorded_items(response.json())


def _answer(response: Any, node: str) -> dict[str, Any]:
    body = response.json()
    if not isinstance(body, dict):
        raise NodeFailed(f"{node}: the provider answered {body!r}, not a command's outcome")
    error = body.get("error")
    if isinstance(error, dict):
        raise NodeFailed(f"{node}: {error.get('message')}")
    return body


def _text(value: Any) -> str:
    return "" if value is None else str(value)


async def ssh_command(ctx: Any, provider: str, node: str, items: Items, command: Per, cwd: Per, step: str) -> Items:
    """Run SSH's Execute for every item on the provider's host; return n8n's items."""
    out: Items = []
    for i, item in enumerate(items):
        where = _text(cwd(item, i))
        if where.startswith("~") and not where.startswith("~/"):
            raise NodeFailed(f'{node}: Invalid path. Replace "~" with home directory or "~/"')
        response = await ctx.call(provider, "SSH", "/command", json={"command": _text(command(item, i)), "cwd": where},
                                  step=step)
        if (recorded := _recorded(response, SSH_HEADER)) is not None:
            return recorded
        done = _answer(response, node)
        out.append({"json": {"code": done.get("code"), "signal": done.get("signal"),
                             "stdout": _text(done.get("stdout")).strip(), "stderr": _text(done.get("stderr")).strip()},
                    "pairedItem": {"item": i}})
    return out


async def exec_command(ctx: Any, provider: str, node: str, items: Items, command: Per, step: str, *,
                       execute_once: bool = True) -> Items:
    """Run Execute Command for every item (the first only with Execute Once) on the worker's host."""
    out: Items = []
    for i, item in enumerate(items[:1] if execute_once else items):
        text = _text(command(item, i))
        response = await ctx.call(provider, "EXEC", "/command", json={"command": text, "cwd": None}, step=step)
        if (recorded := _recorded(response, EXEC_HEADER)) is not None:
            return recorded
        done = _answer(response, node)
        if done.get("code") not in (0, None) or done.get("signal"):
            raise NodeFailed(f"{node}: Command failed: {text}\n{_text(done.get('stderr'))}")
        out.append({"json": {"exitCode": 0, "stderr": _text(done.get("stderr")).strip(),
                             "stdout": _text(done.get("stdout")).strip()}, "pairedItem": {"item": i}})
    return out


async def read_binary_file(ctx: Any, provider: str, node: str, items: Items, path: Per, step: str,
                           prop: str = "data") -> Items:
    """Read Binary File: each item with the file at ``path`` as its binary property ``prop``."""
    import base64

    out: Items = []
    for i, item in enumerate(items):
        file_path = _text(path(item, i))
        response = await ctx.call(provider, "EXEC", "/read", json={"path": file_path}, step=step)
        if (recorded := _recorded(response, EXEC_HEADER)) is not None:
            return recorded
        done = _answer(response, node)
        data = base64.b64decode(_text(done.get("data")))
        binary = {**(item.get("binary") or {}), prop: entry(data, file_path=file_path)}
        out.append(bounded({"json": item.get("json", {}), "binary": binary, "pairedItem": {"item": i}}, node))
    return out


async def read_files(ctx: Any, provider: str, node: str, items: Items, selector: Per, step: str,
                     options: Per | None = None) -> Items:
    """Read/Write Files from Disk, read: per item, one item per file the selector (a glob) matches.

    Each is ``{"json": {mimeType, fileType, fileName, fileExtension, fileSize}, "binary": {prop: entry}}``
    (a key n8n leaves undefined left out), the options' File Name, File Extension and MIME type put
    over the entry's; a selector that matches nothing gives no item, as n8n's fast-glob does.
    """
    import base64

    out: Items = []
    for i, item in enumerate(items):
        pattern = _text(selector(item, i))
        chosen = (options(item, i) if options else None) or {}
        listed = await ctx.call(provider, "EXEC", "/glob", json={"pattern": pattern}, step=step)
        if (recorded := _recorded(listed, EXEC_HEADER)) is not None:
            return recorded
        for path in _answer(listed, node).get("paths") or []:
            done = _answer(await ctx.call(provider, "EXEC", "/read", json={"path": path}, step=step), node)
            binary = entry(base64.b64decode(_text(done.get("data"))), file_path=str(path))
            binary.update({key: chosen[opt] for opt, key in (("fileName", "fileName"), ("fileExtension", "fileExtension"),
                                                              ("mimeType", "mimeType")) if chosen.get(opt) not in (None, "")})
            shown = {k: binary[k] for k in ("mimeType", "fileType", "fileName", "fileExtension", "fileSize") if k in binary}
            prop = str(chosen.get("dataPropertyName") or "data")
            out.append(bounded({"json": shown, "binary": {prop: binary}, "pairedItem": {"item": i}}, node))
    return out


async def write_files(ctx: Any, provider: str, node: str, items: Items, file_name: Per, step: str,
                      prop: Per, append: Per | None = None) -> Items:
    """Read/Write Files from Disk, write: each item's binary property written to its file name; the item, with ``fileName``."""
    out: Items = []
    for i, item in enumerate(items):
        name, key = _text(file_name(item, i)), _text(prop(item, i))
        data = (item.get("binary") or {}).get(key)
        if not isinstance(data, dict):
            raise NodeFailed(f"{node}: This operation expects the node's input data to contain a binary file '{key}', "
                             f"but none was found [item {i}]")
        body = {"path": name, "data": _text(data.get("data")), "append": bool(append(item, i)) if append else False}
        response = await ctx.call(provider, "EXEC", "/write", json=body, step=step)
        if (recorded := _recorded(response, EXEC_HEADER)) is not None:
            return recorded
        _answer(response, node)
        written: dict[str, Any] = {"json": {**item.get("json", {}), "fileName": name}, "pairedItem": {"item": i}}
        if item.get("binary") is not None:
            written["binary"] = dict(item["binary"])
        out.append(written)
    return out
