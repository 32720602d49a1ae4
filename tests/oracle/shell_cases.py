"""Execute Command, Read Binary File and SSH against the real n8n: the same commands, files and host on both sides.

n8n runs Execute Command and Read Binary File on its own host, which is this one: each case's
workflow runs in ``n8n execute-batch`` (``runner.run``), then the scaffold's module runs with a
context whose calls go to the gateway's live transports (``queue_core.gateway.exec``,
``queue_core.gateway.ssh``), classified as the gateway classifies them. The files read are
written first into a temporary folder. SSH needs a host: an SSH server started here on a free
loopback port (``tests.support.ssh_server``: asyncssh's server, a host key made for the run, one
user with a password) runs each command with ``/bin/sh -c``; n8n's SSH node logs in to it with an imported ``sshPassword``
credential, the scaffold's ``ssh`` provider with the same login in its ``dsn_env`` URL.

Compared: the node's output items (json), for the file reads each item's binary entry, and the files
the writes of Read/Write Files from Disk leave (n8n runs first, the folder is laid out again, then the scaffold).
The runs are not cached (``runner.run``, not ``cached_run``): a command's output is the host's.
"""

from __future__ import annotations

import json
import random
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx

from queue_core.classify import Kind, classify_response
from queue_core.errors import RetryableError, TerminalError
from queue_core.gateway.kinds import live_mounts
from queue_core.provider import parse_providers

from tests.oracle import runner
from tests.oracle.outcome import Outcome, differences
from tests.oracle.scaffolded import run_with
from tests.oracle.workflow import UNDER_TEST, Case, workflow
from tests.support.ssh_server import PASSWORD, USER, serving

EXEC = "n8n-nodes-base.executeCommand"
READ = "n8n-nodes-base.readBinaryFile"
SSH = "n8n-nodes-base.ssh"
CREDENTIAL = {"id": "oraclessh0000001", "name": "SSH Password - Oracle Host"}
FILES = {"sub/deeper.txt": b"below", "note.txt": "hello\nworld\n".encode(), "data.json": b'{"a": 1}', "pixel.png": bytes(range(256)) * 3,
         "plain": b"no extension", "Gr\u00fc\u00dfe.md": "# \u00e9t\u00e9\n".encode()}
TWO = [{"a": "one", "f": "note.txt"}, {"a": "two", "f": "data.json"}]


def _exec_cases() -> list[Case]:
    commands: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
        ({"command": "echo hello"}, [{}]),
        ({"command": "printf '  padded  \\n\\n'; printf ' err \\n' >&2"}, [{}]),
        ({"command": "=echo {{ $json.a }}", "executeOnce": False}, TWO),
        ({"command": "=echo {{ $json.a }}"}, TWO),  # Execute Once, n8n's default: the first item only
        ({"command": "echo \u00e9t\u00e9 && echo done"}, [{}]),
        ({"command": "true"}, [{}]),
        ({"command": "echo partial; echo bad >&2; exit 3"}, [{}]),  # a non-zero exit fails the node
    ]
    return [Case(f"executeCommand v1 #{i + 1}", EXEC, 1.0, p, [items]) for i, (p, items) in enumerate(commands)]


def _read_cases(folder: Path) -> list[Case]:
    given: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
        ({"filePath": str(folder / "note.txt")}, [{"k": 1}]),
        ({"filePath": f"={folder}/{{{{ $json.f }}}}"}, TWO),
        ({"filePath": str(folder / "pixel.png"), "dataPropertyName": "image"}, [{}]),
        ({"filePath": str(folder / "plain")}, [{}]),
        ({"filePath": str(folder / "Gr\u00fc\u00dfe.md")}, [{}]),
        ({"filePath": str(folder / "missing.txt")}, [{}]),  # fails on both sides
    ]
    return [Case(f"readBinaryFile v1 #{i + 1}", READ, 1.0, p, [items]) for i, (p, items) in enumerate(given)]


FILES_NODE = "n8n-nodes-base.readWriteFile"
BINARY = {"data": {"data": "aGkgdGhlcmUK", "mimeType": "text/plain", "fileName": "hi.txt"},
          "other": {"data": "AAEC", "mimeType": "application/octet-stream"}}


def _files_cases(folder: Path) -> list[Case]:
    given: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
        ({"fileSelector": str(folder / "note.txt")}, [{}]),
        ({"fileSelector": f"{folder}/*.json"}, [{}]),
        ({"fileSelector": f"{folder}/**/*.txt"}, [{}]),  # this folder and the one below
        ({"fileSelector": f"{folder}/*.nothing"}, [{}]),  # no file: no item
        ({"fileSelector": f"={folder}/{{{{ $json.f }}}}", "options": {"dataPropertyName": "file"}}, TWO),
        ({"fileSelector": str(folder / "plain"),
          "options": {"fileName": "renamed.bin", "mimeType": "application/x-custom", "fileExtension": "bin"}}, [{}]),
        ({"operation": "write", "fileName": str(folder / "out" / "w1.txt")}, [{"a": 1}]),
        ({"operation": "write", "fileName": str(folder / "out" / "w2.bin"), "dataPropertyName": "other",
          "options": {"append": True}}, [{}]),
        ({"operation": "write", "fileName": str(folder / "out" / "w3.txt"), "dataPropertyName": "missing"}, [{}]),
    ]
    return [Case(f"readWriteFile v1 #{i + 1}", FILES_NODE, 1.0, p, [items]) for i, (p, items) in enumerate(given)]


def _ssh_cases() -> list[Case]:
    credentials = {"credentials": {"sshPassword": CREDENTIAL}}
    given: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
        ({"command": "echo hello"}, [{}]),
        ({"command": "pwd"}, [{}]),  # the default cwd: /
        ({"command": "pwd", "cwd": "/tmp"}, [{}]),
        ({"command": "echo out; echo err >&2; exit 4"}, [{}]),  # an item, not a failure
        ({"command": "=echo {{ $json.a }}", "cwd": "/"}, TWO),  # one command per item
        ({"command": "printf '  x  \\n'"}, [{}]),
        ({"command": "pwd", "cwd": "~/"}, [{}]),  # the remote $HOME
        ({"command": "pwd", "cwd": "~tmp"}, [{}]),  # n8n refuses the path: fails on both sides
    ]
    return [Case(f"ssh v1 #{i + 1}", SSH, 1.0, p, [items], credentials) for i, (p, items) in enumerate(given)]


def shell_cases(folder: Path) -> list[Case]:
    """Return every case, the files read being in ``folder``."""
    return [*_exec_cases(), *_read_cases(folder), *_files_cases(folder), *_ssh_cases()]


def _lay_out(folder: Path) -> None:
    """Write the files the cases read, and the file an appending write starts from; remove what a write wrote."""
    for name, data in FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    out = folder / "out"
    out.mkdir(exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    (out / "w2.bin").write_bytes(b"start:")


def _written(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "out").iterdir())}


def _with_binary(document: dict[str, Any], case: Case) -> dict[str, Any]:
    """A write case's input items carry BINARY: its Code node returns them with the binary data."""
    if case.node_type != FILES_NODE or case.parameters.get("operation") != "write":
        return document
    for node in document["nodes"]:
        if node["name"] == "Input 1":
            items = [{"json": item, "binary": BINARY} for item in case.inputs[0]]
            node["parameters"] = {"jsCode": "return " + json.dumps(items) + ";"}
    return document


class ShellContext:
    """A context whose calls go to the gateway's live exec and SSH transports, classified as the gateway does."""

    def __init__(self, ssh_url: str) -> None:
        self.job_id = uuid.UUID(int=0)
        self.mode = "live"
        self.n8n_flows: list[Any] = []
        provider = "ssh_password_oracle_host"
        self.providers = parse_providers({"host": {"base_url": "exec://host", "timeout": 60},
                                          provider: {"base_url": f"ssh://{provider}", "dsn_env": "ORACLE_SSH_URL",
                                                     "timeout": 60}})
        self._mounts = live_mounts(self.providers, {"ORACLE_SSH_URL": ssh_url})

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None) -> httpx.Response:
        async with httpx.AsyncClient(mounts=self._mounts) as client:
            response = await client.request(method, self.providers[provider].base_url + url, json=json)
        verdict = classify_response(response.status_code, response.headers, response.text, now=0.0, rng=random.Random(0))
        if verdict.kind is Kind.OK:
            return response
        message = f"{provider} {method} {url} (step {step!r}): {verdict.reason}; {verdict.summary}"
        raise RetryableError(message) if verdict.kind is Kind.RETRYABLE else TerminalError(message)


def measure() -> list[tuple[Case, Outcome, Outcome, list[str]]]:
    """Run every case on both sides (the files written, the SSH server up); return the differences."""
    with tempfile.TemporaryDirectory(prefix="cutover-shell-files-") as files, serving() as server:
        folder = Path(files)
        _lay_out(folder)
        cases = shell_cases(folder)
        documents = [_with_binary(workflow(case, runner.workflow_id(i)), case) for i, case in enumerate(cases)]
        login = {**CREDENTIAL, "type": "sshPassword",
                 "data": {"host": "127.0.0.1", "port": server.port, "username": USER, "password": PASSWORD}}
        oracle, _ = runner.run(documents, credentials=[login])
        written = _written(folder)
        _lay_out(folder)
        results = []
        with tempfile.TemporaryDirectory(prefix="cutover-oracle-shell-") as tmp:
            for index, (case, document, expected) in enumerate(zip(cases, documents, oracle, strict=True)):
                got = run_with(document, Path(tmp) / str(index), ShellContext(server.url()))
                found = differences(expected, got, [UNDER_TEST]) if got.translated else []
                if index == len(cases) - 1 and _written(folder) != written:
                    found.append(f"files written: n8n {written}, the scaffold {_written(folder)}")
                if not found and expected.binary.get(UNDER_TEST) != got.binary.get(UNDER_TEST):
                    found.append(f"binary: n8n {expected.binary.get(UNDER_TEST)}, the scaffold {got.binary.get(UNDER_TEST)}")
                results.append((case, expected, got, found))
    return results
