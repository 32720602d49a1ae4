"""HTTP Request's authentication modes and options, the computed-host provider, and the app catalogue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness import catalogue
from harness.platforms.n8n.translate import scaffold_n8n
from queue_core.compat import n8n
from queue_core.errors import NodeFailed


def _scaffold(tmp_path: Path, parameters: dict[str, Any], **settings: Any) -> tuple[str, Any]:
    workflow = {"name": "w", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": "Call", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "position": [200, 0],
         "parameters": parameters, **settings}],
        "connections": {"Start": {"main": [[{"node": "Call", "type": "main", "index": 0}]]}}}
    path = tmp_path / "w.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="w", into=tmp_path / "automations", force=True)
    row = {r.node: r for r in written.scaffold.rows}["Call"]
    return written.path.read_text(encoding="utf-8"), row


def test_basic_auth_reads_user_and_password_from_the_environment_never_the_export(tmp_path: Path) -> None:
    source, row = _scaffold(tmp_path, {"url": "https://api.example.com/x", "authentication": "genericCredentialType",
                                       "genericAuthType": "httpBasicAuth"})
    assert row.status == "translated"
    assert "n8n.basic_auth(credential(ctx, 'CUTOVER_EXAMPLE_USER'), credential(ctx, 'CUTOVER_EXAMPLE_PASSWORD'))" in source
    assert n8n.basic_auth("u", "p") == {"Authorization": "Basic dTpw"} and n8n.basic_auth("", "") == {}


def test_header_auth_sends_the_credentials_header_and_a_predefined_token_is_the_providers_auth_env(tmp_path: Path) -> None:
    source, _ = _scaffold(tmp_path, {"url": "https://api.example.com/x", "authentication": "predefinedCredentialType",
                                     "nodeCredentialType": "httpHeaderAuth"})
    assert "n8n.header_auth(credential(ctx, 'CUTOVER_EXAMPLE_HEADER_NAME'), credential(ctx, 'CUTOVER_EXAMPLE_HEADER_VALUE'))" in source
    source, row = _scaffold(tmp_path, {"url": "https://api.hubapi.com/crm/v3/objects/notes",
                                       "authentication": "predefinedCredentialType", "nodeCredentialType": "hubspotAppToken"})
    assert row.status == "translated" and 'auth_env = "CUTOVER_HUBAPI_TOKEN"' in source and "headers=" not in source


@pytest.mark.parametrize(("parameters", "why"), [
    ({"authentication": "genericCredentialType", "genericAuthType": "httpQueryAuth"}, "Query Auth puts the secret in the URL"),
    ({"options": {"response": {"response": {"neverError": True}}}}, "Never Error"),
    ({"sendBody": True, "method": "POST", "contentType": "raw", "body": "x"}, "'raw' is not translated"),
    ({"authentication": "genericCredentialType", "genericAuthType": "httpDigestAuth"}, "'httpDigestAuth' is not translated"),
])
def test_what_the_gateway_cannot_carry_is_a_todo_naming_it(tmp_path: Path, parameters: dict[str, Any], why: str) -> None:
    _, row = _scaffold(tmp_path, {"url": "https://api.example.com/x", **parameters})
    assert row.status == "todo" and why in row.why


def test_a_computed_host_is_sent_to_the_configured_provider_its_url_starts_with(tmp_path: Path) -> None:
    source, row = _scaffold(tmp_path, {"url": "={{ $json.callback }}"}, onError="continueErrorOutput")
    assert row.status == "translated" and "n8n.provider_of(ctx, url, 'Call')" in source
    assert "flow.emit_outputs('Call', [call, call_error])" in source

    class Ctx:
        providers = {"hooks": "https://hooks.example.com", "hooks_v2": "https://hooks.example.com/v2", "other": "https://x.io"}
    assert n8n.provider_of(Ctx(), "https://hooks.example.com/v2/a?b=1", "Call") == "hooks_v2"
    assert n8n.provider_of(Ctx(), "https://hooks.example.com/a", "Call") == "hooks"
    with pytest.raises(NodeFailed, match=r"^Call: no provider is configured for 'https://evil.example.net'"):
        n8n.provider_of(Ctx(), "https://evil.example.net/a", "Call")


def test_an_error_item_keeps_the_item_on_the_error_output_and_stands_alone_on_the_regular_one() -> None:
    exc = n8n.NodeFailed("p GET https://a/x (step 'call'): 404 client error; not found")
    assert n8n.error_item({"json": {"a": 1}}, exc, keep_item=True)["json"]["error"]["status"] == 404
    assert set(n8n.error_item({"json": {"a": 1}}, exc, keep_item=False)["json"]) == {"error"}


def test_the_catalogue_describes_each_operation_once_with_its_secret() -> None:
    telegram = catalogue.operation("telegram", "message.sendMessage")
    assert telegram.path_fields == ("token",) and catalogue.app("telegram").secret.auth is catalogue.Auth.PATH
    text = catalogue.skeleton("gmail", "message.send")
    assert text.startswith("gmail: POST https://gmail.googleapis.com/gmail/v1/users/me/messages/send")
    assert "$GMAIL_TOKEN" in text
    with pytest.raises(KeyError, match="known: "):
        catalogue.operation("slack", "message.fly")


def test_headers_and_basic_auth_are_sent_together(tmp_path: Path) -> None:
    source, row = _scaffold(tmp_path, {"url": "https://api.example.com/x", "authentication": "genericCredentialType",
                                       "genericAuthType": "httpBasicAuth", "sendHeaders": True,
                                       "headerParameters": {"parameters": [{"name": "X-Case", "value": "v"}]}})
    assert row.status == "translated" and "{'X-Case': 'v'}.items()} | n8n.basic_auth(" in source


def test_a_postgres_v1_node_is_a_todo_naming_its_operation_table_and_secret(tmp_path: Path) -> None:
    # v2 … 2.6 are translated (tests/unit/test_n8n_postgres.py); v1's parameters are not
    workflow = {"name": "p", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": "Save", "type": "n8n-nodes-base.postgres", "typeVersion": 1, "position": [1, 0],
         "parameters": {"schema": {"__rl": True, "mode": "list", "value": "public"},
                        "table": {"__rl": True, "mode": "list", "value": "orders"}}}],
        "connections": {"Start": {"main": [[{"node": "Save", "type": "main", "index": 0}]]}}}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="p", into=tmp_path / "a", force=True)
    row = {r.node: r for r in written.scaffold.rows}["Save"]
    assert row.status == "todo" and "postgres: database.insert on the database" in row.why
    assert "$POSTGRES_URL" in row.why and "table 'orders'" in row.why
