"""``cutover token`` and ``cutover serve --record`` as a user runs them: real subprocesses, a real
uvicorn on a loopback port, a signed GitHub delivery, the recording tap, revocation."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

# Registers the control-plane commands the way harness.cli does once wired (idempotent).
BOOT = ("from queue_core.cli import cli; from harness import _cli_serve; _cli_serve.register(cli); "
        "cli(prog_name='cutover')")
CUTOVER = [sys.executable, "-c", BOOT]
SECRET = "It's a Secret to Everybody"


@pytest.fixture
def project(tmp_path: Path, fresh_db_url: str) -> tuple[Path, dict[str, str]]:
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent('''
        [tool.cutover]
        automations = "myautos"

        [tool.cutover.sources.github]
        scheme = "github"
        secret_env = "GITHUB_WEBHOOK_SECRET"
        automations = ["triage"]
    '''))
    (tmp_path / "myautos.py").write_text(textwrap.dedent('''
        from queue_core import automation

        @automation("triage")
        async def triage(ctx, trigger):
            ctx.decide("label", trigger.body.get("action"))
    '''))
    env = dict(os.environ, DATABASE_URL=fresh_db_url, GITHUB_WEBHOOK_SECRET=SECRET, CUTOVER_REDACTION_SALT="salt",
               PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return tmp_path, env


def cutover(project: tuple[Path, dict[str, str]], *args: str) -> subprocess.CompletedProcess[str]:
    cwd, env = project
    return subprocess.run([*CUTOVER, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def served(project: tuple[Path, dict[str, str]]) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    cwd, env = project
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([*CUTOVER, "serve", "--port", str(port), "--record", "recordings/live"], cwd=cwd, env=env,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:  # uvicorn announces itself once it listens
        seen.append(line)
        if "Uvicorn running on" in line:
            break
    else:
        pytest.fail("cutover serve exited: " + "".join(seen))
    yield f"http://127.0.0.1:{port}", proc
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)


def test_token_create_prints_the_token_once_and_bad_scopes_are_refused(project):
    made = cutover(project, "token", "create", "--name", "ci", "--scopes", "enqueue,replay")
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip()
    assert token.startswith("cut_") and "not shown again" in made.stderr and token not in made.stderr
    listed = cutover(project, "token", "list")
    assert "ci" in listed.stdout and "enqueue,replay" in listed.stdout and token not in listed.stdout
    bad = cutover(project, "token", "create", "--name", "x", "--scopes", "root")
    assert bad.returncode == 1 and "unknown scope 'root'" in bad.stderr
    assert cutover(project, "token", "revoke", "nobody").returncode == 1


def test_serve_enqueues_verified_deliveries_records_them_and_honours_revocation(project, served):
    base, proc = served
    token = cutover(project, "token", "create", "--name", "ops", "--scopes", "read,enqueue").stdout.strip()
    auth = {"authorization": f"Bearer {token}"}
    body = json.dumps({"action": "opened", "sender": {"login": "ada"}}).encode()
    signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    hook_headers = {"x-hub-signature-256": signature, "x-github-delivery": "d-1", "content-type": "application/json"}
    with httpx.Client(base_url=base, timeout=30) as http:
        assert http.get("/readyz").json() == {"status": "ready"}
        assert http.post("/hooks/github", content=body, headers={**hook_headers, "x-hub-signature-256": "sha256=00"}).status_code == 401
        accepted = http.post("/hooks/github", content=body, headers=hook_headers)
        assert accepted.status_code == 202, accepted.text
        job_id = accepted.json()["jobs"][0]["id"]
        assert http.post("/hooks/github", content=body, headers=hook_headers).json()["duplicate"] is True
        job = http.get(f"/jobs/{job_id}", headers=auth).json()
        assert job["job"]["automation"] == "triage" and job["ledger"][0]["actor"] == "hook:github"
        assert http.post("/jobs", json={"automation": "ghost"}, headers=auth).status_code == 422
        assert http.post("/jobs", json={"automation": "triage"}, headers=auth).status_code == 202
        assert cutover(project, "token", "revoke", "ops").returncode == 0
        assert http.get(f"/jobs/{job_id}", headers=auth).status_code == 401
    lines = (project[0] / "recordings/live/triage/triggers.jsonl").read_text().splitlines()
    assert len(lines) == 1
    recorded = json.loads(lines[0])
    assert recorded["id"] == "d-1" and recorded["body"]["action"] == "opened" and recorded["source"] == "github"
    assert recorded["headers"]["x-hub-signature-256"].startswith("redacted:")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert token not in err and signature not in err


@pytest.mark.parametrize(("module", "why"), [
    ("", "No module named 'myautos'"),
    ("import crm_sdk_not_installed\n", "No module named 'crm_sdk_not_installed'"),
    ("raise RuntimeError('CRM_URL is not set')\n", "RuntimeError: CRM_URL is not set"),
], ids=["missing", "broken_import", "raises"])
def test_serve_refuses_to_start_when_its_automations_module_cannot_be_imported(project, module, why):
    root, env = project
    if module:
        (root / "myautos.py").write_text(module)
    else:
        (root / "myautos.py").unlink()
    # On a port of its own: were it to start anyway, the timeout ends the test as a failure.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = subprocess.run([*CUTOVER, "serve", "--port", str(port)], cwd=root, env=env, capture_output=True,
                             text=True, timeout=30)
    assert started.returncode == 2, started.stderr
    assert "myautos" in started.stderr and why in started.stderr
    assert "Traceback" not in started.stderr and "Uvicorn running" not in started.stderr
