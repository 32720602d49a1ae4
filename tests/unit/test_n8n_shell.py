"""SSH, Execute Command and Read Binary File nodes: scaffolded as provider calls, imported as the same calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.platforms.n8n.translate import scaffold_n8n
from queue_core.gateway.ssh import login, shell_quote
from queue_core.provider import parse_providers

_CRED = {"sshPrivateKey": {"id": "1", "name": "SSH Private Key - Ghost Server"}}


def _node(name: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": 1, "position": [1, 0], **extra}


def _workflow(tmp_path: Path, *nodes: dict[str, Any]) -> tuple[dict[str, str], str]:
    start = {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}}
    names = ["Start", *(n["name"] for n in nodes)]
    workflow = {"name": "s", "nodes": [start, *nodes], "connections": {
        a: {"main": [[{"node": b, "type": "main", "index": 0}]]} for a, b in zip(names, names[1:], strict=False)}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="s", into=tmp_path / "a", force=True)
    rows = {r.node: r.status if r.status != "todo" else f"todo: {r.why}" for r in written.scaffold.rows}
    return rows, written.path.read_text(encoding="utf-8")


def test_each_ssh_credential_is_an_ssh_provider_and_its_file_operations_stay_todos(tmp_path: Path) -> None:
    rows, source = _workflow(
        tmp_path, _node("Update", "ssh", credentials=_CRED, parameters={"authentication": "privateKey", "command": "uptime"}),
        _node("Get", "ssh", parameters={"resource": "file", "operation": "download", "path": "/etc/hosts"}))
    assert rows["Update"] == "translated" and rows["Get"].startswith("todo: SSH v1 file.download is not translated")
    assert "await n8n.ssh_command(ctx, 'ssh_private_key_ghost_server', 'Update', items, lambda item, i: 'uptime', " \
           "lambda item, i: '/', 'update')" in source
    assert "[tool.cutover.providers.ssh_private_key_ghost_server]" in source
    assert 'base_url = "ssh://ssh_private_key_ghost_server"' in source
    assert 'dsn_env = "SSH_PRIVATE_KEY_GHOST_SERVER_URL"' in source


def test_execute_command_and_read_binary_file_call_the_exec_provider_of_the_workers_host(tmp_path: Path) -> None:
    rows, source = _workflow(tmp_path, _node("Run", "executeCommand", parameters={"command": "=echo {{ $json.a }}"}),
                             _node("Read", "readBinaryFile", parameters={"filePath": "/srv/a.mp4"}))
    assert rows["Run"] == rows["Read"] == "translated"
    assert "n8n.exec_command(ctx, 'host', 'Run', items, lambda item, i: n8n.concat('echo ', n8n.get(item['json'], 'a')" \
           in source and "execute_once=True" in source
    assert "n8n.read_binary_file(ctx, 'host', 'Read', items, lambda item, i: '/srv/a.mp4', 'read', 'data')" in source
    assert 'base_url = "exec://host"' in source


def test_a_shell_nodes_run_is_imported_as_the_one_call_shadow_makes_with_its_literal_command(tmp_path: Path) -> None:
    from harness.manifest import AutomationEntry, Coercion
    from harness.platforms.n8n.history import parse
    from harness.recording import Platform

    ssh = {"name": "Update", "type": "n8n-nodes-base.ssh", "typeVersion": 1, "credentials": _CRED,
           "parameters": {"command": "apt upgrade -y"}}
    run_data = {
        "Hook": [{"startTime": 1, "executionIndex": 0, "data": {"main": [[{"json": {}}, {"json": {}}]]}}],
        "Update": [{"startTime": 2, "executionIndex": 1, "source": [{"previousNode": "Hook"}],
                    "data": {"main": [[{"json": {"code": 0, "signal": None, "stdout": "ok", "stderr": ""}}] * 2]}}],
    }
    execution = {"id": "9", "status": "success", "mode": "webhook", "startedAt": "2024-06-01T00:00:00.000Z",
                 "workflowData": {"name": "w", "connections": {}, "nodes": [
                     {"name": "Hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "parameters": {"path": "p"}}, ssh]},
                 "data": {"resultData": {"runData": run_data}}}
    path = tmp_path / "e.json"
    path.write_text(json.dumps([execution]), encoding="utf-8")
    entry = AutomationEntry("w", Platform.N8N, Coercion.N8N, providers={"ssh_private_key_ghost_server": "ghost"})
    [run] = list(parse(path, entry))
    call = {"step": "Update", "provider": "ghost", "method": "SSH", "url": "/command",
            "body": {"command": "apt upgrade -y", "cwd": "/"}}
    # two items: live, two calls; in shadow the first is answered with the node's whole recorded output
    assert run.trace.calls == [call]  # type: ignore[union-attr]


def test_read_write_files_reads_a_glob_and_writes_an_items_binary_on_the_exec_host(tmp_path: Path) -> None:
    rows, source = _workflow(
        tmp_path, _node("Read", "readWriteFile", parameters={"fileSelector": "/srv/in/*.csv", "options": {"fileName": "x"}}),
        _node("Write", "readWriteFile", parameters={"operation": "write", "fileName": "=/srv/out/{{ $json.fileName }}"}),
        _node("Braces", "readWriteFile", parameters={"fileSelector": "/srv/{a,b}.csv"}))
    assert rows["Read"] == rows["Write"] == "translated" and rows["Braces"].startswith("todo: a file selector with braces")
    assert "n8n.read_files(ctx, 'host', 'Read', items, lambda item, i: '/srv/in/*.csv', 'read', " \
           "lambda item, i: {'fileName': 'x'})" in source
    assert "n8n.write_files(ctx, 'host', 'Write', items, lambda item, i: n8n.concat('/srv/out/'" in source


def test_the_ssh_login_is_read_from_the_dsn_env_url_and_a_cwd_is_quoted_as_node_ssh_quotes_it() -> None:
    config = parse_providers({"box": {"base_url": "ssh://box", "dsn_env": "BOX_URL", "timeout": 5}})["box"]
    options = login(config, {"BOX_URL": "ssh://deploy:p%40ss@10.0.0.5:2222?known_hosts=none"})
    assert options == {"host": "10.0.0.5", "port": 2222, "username": "deploy", "password": "p@ss", "connect_timeout": 5.0,
                       "known_hosts": None}
    assert shell_quote("/srv/app") == "/srv/app" and shell_quote("/my dir") == "'/my dir'"
    assert shell_quote("it's") == "'it'\\''s'"
