"""The ``exec`` and ``ssh`` providers through the gateway: live calls run (on this host, on a loopback SSH
server); shadow and dry-run calls are answered from the recording and never run anything."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from queue_core.compat import n8n
from queue_core.errors import ConfigError, NodeFailed, TerminalError
from queue_core.gateway import Gateway, OutboundRequest, RecordedResponse
from queue_core.provider import ProviderKind, parse_providers
from tests.support import ssh_server
from tests.support.call_context import MemoryCallContext, call

PROVIDERS = parse_providers({"host": {"base_url": "exec://host"},
                             "ssh_box": {"base_url": "ssh://ssh_box", "dsn_env": "CUTOVER_TEST_SSH_URL", "timeout": 30}})


class _Flowless:
    """What the compat functions need of a context: ``call`` through the gateway for one in-memory job, a
    step's repeated calls numbered as ``Context.call`` numbers them (occurrences)."""

    def __init__(self, gateway: Gateway, job: MemoryCallContext) -> None:
        self.gateway, self.job = gateway, job
        self.seen: dict[str, int] = {}

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> httpx.Response:
        occurrence = self.seen[step] = self.seen.get(step, -1) + 1
        return await call(self.gateway, self.job, provider, method, url, step=step, occurrence=occurrence, **kwargs)


def test_exec_and_ssh_providers_parse_with_their_kinds_and_an_ssh_one_needs_dsn_env() -> None:
    assert PROVIDERS["host"].kind is ProviderKind.EXEC and PROVIDERS["host"].dsn_env is None
    assert PROVIDERS["ssh_box"].kind is ProviderKind.SSH and PROVIDERS["ssh_box"].base_url == "ssh://ssh_box"
    with pytest.raises(ConfigError, match="dsn_env"):
        parse_providers({"box": {"base_url": "ssh://box"}})
    with pytest.raises(ConfigError, match="sandbox_url"):
        parse_providers({"h": {"base_url": "exec://h", "sandbox_url": "https://x.test"}})


async def test_a_live_exec_call_runs_the_command_and_reads_the_file_on_this_host(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    job = MemoryCallContext()
    async with Gateway(PROVIDERS, None, environ={}) as gateway:
        ctx = _Flowless(gateway, job)
        items = await n8n.exec_command(ctx, "host", "Run", [{"json": {}}],
                                       lambda item, i: f"touch {marker} && printf ' done \\n'", "run")
        read = await n8n.read_binary_file(ctx, "host", "Read", [{"json": {"k": 1}}], lambda item, i: str(marker), "read")
        with pytest.raises(NodeFailed, match="Command failed: exit 2"):
            await n8n.exec_command(ctx, "host", "Fail", [{"json": {}}], lambda item, i: "exit 2", "fail")
        with pytest.raises(TerminalError, match="ENOENT"):
            await n8n.read_binary_file(ctx, "host", "Read", [{"json": {}}], lambda item, i: str(tmp_path / "no"), "missing")
    assert marker.exists()
    assert items == [{"json": {"exitCode": 0, "stderr": "", "stdout": "done"}, "pairedItem": {"item": 0}}]
    entry = read[0]["binary"]["data"]
    assert read[0]["json"] == {"k": 1} and entry["fileName"] == "ran" and entry["data"] == "" and entry["fileSize"] == "0 B"


@pytest.mark.parametrize("mode", ["shadow", "dry_run"])
async def test_an_offline_exec_call_is_answered_from_the_recording_and_never_runs(mode: str, tmp_path: Path) -> None:
    def recorded(automation: str, trigger: str | None, step: str, request: OutboundRequest) -> RecordedResponse | None:
        return RecordedResponse(json=[{"exitCode": 0, "stderr": "", "stdout": "as recorded"}]) if step == "run" else None

    marker = tmp_path / "ran"
    job = MemoryCallContext(mode=mode)
    async with Gateway(PROVIDERS, None, response_source=recorded, environ={}) as gateway:
        items = await n8n.exec_command(_Flowless(gateway, job), "host", "Run", [{"json": {}}],
                                       lambda item, i: f"touch {marker}", "run")
    assert not marker.exists()
    assert items == [{"json": {"exitCode": 0, "stderr": "", "stdout": "as recorded"}}]
    assert job.intents[0]["method"] == "EXEC" and job.intents[0]["body"]["command"] == f"touch {marker}"


async def test_a_live_ssh_call_runs_on_the_host_as_n8n_s_node_and_the_login_is_in_no_record() -> None:
    job = MemoryCallContext()
    with ssh_server.serving() as server:
        async with Gateway(PROVIDERS, None, environ={"CUTOVER_TEST_SSH_URL": server.url()}) as gateway:
            ctx = _Flowless(gateway, job)
            items = await n8n.ssh_command(ctx, "ssh_box", "Run", [{"json": {"d": "/tmp"}}, {"json": {"d": "/"}}],
                                          lambda item, i: "pwd; echo oops >&2; exit 5", lambda item, i: item["json"]["d"], "run")
            with pytest.raises(NodeFailed, match="Invalid path"):
                await n8n.ssh_command(ctx, "ssh_box", "Run", [{"json": {}}], lambda item, i: "pwd", lambda item, i: "~x", "bad")
    assert [i["json"] for i in items] == [{"code": 5, "signal": None, "stdout": "/tmp", "stderr": "oops"},
                                          {"code": 5, "signal": None, "stdout": "/", "stderr": "oops"}]
    assert server.commands == ["cd /tmp ; pwd; echo oops >&2; exit 5", "cd / ; pwd; echo oops >&2; exit 5"]
    assert ssh_server.PASSWORD not in json.dumps([job.calls, job.events, job.intents], default=str)


async def test_a_shadow_ssh_call_never_reaches_the_host() -> None:
    job = MemoryCallContext(mode="shadow")
    with ssh_server.serving() as server:
        async with Gateway(PROVIDERS, None, environ={"CUTOVER_TEST_SSH_URL": server.url()}) as gateway:
            items = await n8n.ssh_command(_Flowless(gateway, job), "ssh_box", "Run", [{"json": {}}],
                                          lambda item, i: "apt upgrade -y", lambda item, i: "/", "run")
    assert server.commands == []
    assert items[0]["json"].get("synthetic") is True  # no recording: the gateway's synthetic answer, nothing run
    assert job.intents[0]["method"] == "SSH" and job.intents[0]["body"] == {"command": "apt upgrade -y", "cwd": "/"}
