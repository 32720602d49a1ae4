"""A client that drops its connection mid-body, against ``cutover serve`` on a real loopback port:
every route that reads a body logs one quiet line, no traceback, and enqueues nothing."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from queue_core import db
from queue_core.server import create_token

BOOT = ("from queue_core.cli import cli; from harness import _cli_serve; _cli_serve.register(cli); "
        "cli(prog_name='cutover')")
QUIET_LINE = "disconnected before sending the whole body"
BROKEN = ("Traceback", "Exception in ASGI application", "ClientDisconnect")


@dataclass
class Server:
    port: int
    token: str
    db_url: str
    proc: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def follow(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()

    def wait_for(self, start: int, *needles: str, timeout: float = 15.0) -> str:
        """Return the server's output since line ``start`` once it holds one of ``needles``."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                text = "".join(self.lines[start:])
                left = deadline - time.monotonic()
                if any(n in text for n in needles) or left <= 0 or self.proc.poll() is not None:
                    return text
                self.changed.wait(left)


async def _token(url: str) -> str:
    async with db.pool(url, max_size=1) as pool:
        return await create_token(pool, "dropper", ("control", "enqueue", "read", "replay"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, db_url: str) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("project")
    (root / "pyproject.toml").write_text(textwrap.dedent('''
        [tool.cutover]
        automations = "myautos"

        [tool.cutover.sources.github]
        scheme = "github"
        secret_env = "GITHUB_WEBHOOK_SECRET"
        automations = ["triage"]
    '''))
    (root / "myautos.py").write_text(textwrap.dedent('''
        from queue_core import automation

        @automation("triage")
        async def triage(ctx, trigger):
            pass
    '''))
    env = dict(os.environ, DATABASE_URL=db_url, GITHUB_WEBHOOK_SECRET="s3cret",
               PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # -v: the quiet line is logged at INFO, which the CLI shows with -v.
    proc = subprocess.Popen([sys.executable, "-c", BOOT, "-v", "serve", "--port", str(port)], cwd=root, env=env,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    running = Server(port, asyncio.run(_token(db_url)), db_url, proc)
    reader = threading.Thread(target=running.follow, daemon=True)
    reader.start()
    announced = running.wait_for(0, "Uvicorn running on", timeout=60)
    if "Uvicorn running on" not in announced:
        proc.kill()
        pytest.fail("cutover serve did not start: " + announced)
    yield running
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    reader.join(timeout=10)
    assert proc.stderr is not None
    proc.stderr.close()


JOB = "5d8bf205-3e10-45fe-847b-9308ffa812c1"  # any job id: fixed, so every xdist worker collects the same test ids
ROUTES = [
    ("POST", "/hooks/github"), ("POST", "/hooks/no-such-source"), ("POST", "/jobs"),
    ("POST", f"/jobs/{JOB}/cancel"), ("POST", f"/jobs/{JOB}/replay"), ("PUT", "/pauses/automation/triage"),
    ("POST", "/waits/resolve"), ("POST", "/waits/wt.x.y.z/resolve"),
]


def _drop_mid_body(port: int, method: str, path: str, token: str) -> None:
    """Send headers announcing 1000 bytes, then 7 of them, then close the connection."""
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {token}\r\nX-Hub-Signature-256: sha256=00\r\nX-GitHub-Delivery: d-1\r\n"
            "Content-Length: 1000\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(head.encode() + b'{"a":1}')


def _jobs(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM jobs").fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
def test_a_client_dropping_mid_body_is_one_quiet_line_without_traceback(server: Server, method: str, path: str) -> None:
    start = len(server.lines)
    _drop_mid_body(server.port, method, path, server.token)
    output = server.wait_for(start, QUIET_LINE, *BROKEN)
    assert not any(b in output for b in BROKEN), output
    assert QUIET_LINE in output and output.count(QUIET_LINE) == 1, output
    assert server.token not in output
    assert _jobs(server.db_url) == 0
    assert server.proc.poll() is None
