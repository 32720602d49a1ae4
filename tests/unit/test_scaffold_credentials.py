"""`cutover scaffold`: a credential in a workflow definition becomes an environment variable.

A header, query parameter or body field whose name looks like a credential (Authorization,
X-Api-Key, api_key, client_secret, …) never reaches the generated module, the manifest or the
printed output: the provider sends an ``Authorization: Bearer`` token from its ``auth_env``,
anything else is read by the module from the variable the scaffold names.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from harness.cli import cli
from queue_core.context import Trigger
from queue_core.errors import TerminalError


class Calls:
    """The part of the Context a scaffolded automation uses; every call answered ``{"ok": true}``."""

    def __init__(self, mode: str = "shadow") -> None:
        self.mode = mode
        self.calls: list[dict[str, Any]] = []
        self.decisions: dict[str, Any] = {}

    def decide(self, name: str, value: Any) -> None:
        self.decisions[name] = value

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> httpx.Response:
        self.calls.append({"provider": provider, "method": method, "url": url, "step": step, **kwargs})
        return httpx.Response(200, json={"ok": True})


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the scaffold reads ./pyproject.toml: only the one a test writes


def _n8n(http: dict[str, Any], *, version: float = 4.2) -> dict[str, Any]:
    return {"name": "Triage issues", "nodes": [
        {"name": "Hook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "position": [0, 0],
         "parameters": {"httpMethod": "POST", "path": "issues"}},
        {"name": "Get issues", "type": "n8n-nodes-base.httpRequest", "typeVersion": version, "position": [200, 0],
         "parameters": {"url": "https://api.github.com/repos/acme/app/issues", "method": "GET", **http}},
    ], "connections": {"Hook": {"main": [[{"node": "Get issues", "type": "main", "index": 0}]]}}}


def _make(headers: list[dict[str, str]], qs: list[dict[str, str]] | None = None) -> dict[str, Any]:
    mapper: dict[str, Any] = {"url": "https://crm.example.test/v1/contacts", "method": "get", "headers": headers}
    if qs is not None:
        mapper["qs"] = qs
    return {"name": "Sync contacts", "flow": [
        {"id": 1, "module": "gateway:CustomWebHook", "version": 1, "parameters": {"hook": 1}, "mapper": {},
         "metadata": {"designer": {"name": "Hook"}}},
        {"id": 2, "module": "http:ActionSendData", "version": 3, "parameters": {}, "mapper": mapper,
         "metadata": {"designer": {"name": "List contacts"}}},
    ], "metadata": {"version": 1}}


def _scaffold(tmp_path: Path, platform: str, definition: dict[str, Any],
              pyproject: str | None = None) -> tuple[str, list[Path]]:
    """Run `cutover scaffold` in ``tmp_path`` (with ``pyproject`` there); return its output and
    every file it wrote."""
    source = tmp_path / "definition.json"
    source.write_text(json.dumps(definition), encoding="utf-8")
    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    result = CliRunner().invoke(cli, ["scaffold", platform, str(source), "--automation", "triage",
                                      "--into", str(tmp_path / "automations"), "--set", str(tmp_path / "set")])
    assert result.exit_code == 0, result.output
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p not in (source, tmp_path / "pyproject.toml")]
    assert written
    return result.output, written


def _assert_absent(secret: str, output: str, written: list[Path]) -> None:
    assert secret not in output
    for path in written:
        assert secret not in path.read_text(encoding="utf-8"), path


def _run(module: Path, ctx: Calls, body: Any = None) -> None:
    source = module.read_text(encoding="utf-8").replace("@automation('triage', version=1)", "")
    namespace: dict[str, Any] = {}
    exec(compile(source, str(module), "exec"), namespace)
    asyncio.run(namespace["triage"](ctx, Trigger("t", None, {}, body or {}, "test")))


def test_an_n8n_bearer_header_becomes_the_providers_auth_env_and_leaves_the_module(tmp_path: Path) -> None:
    http = {"sendHeaders": True, "headerParameters": {"parameters": [
        {"name": "Authorization", "value": "Bearer 12345"}, {"name": "Accept", "value": "application/json"}]}}
    output, written = _scaffold(tmp_path, "n8n", _n8n(http))
    _assert_absent("12345", output, written)
    assert 'set CUTOVER_GITHUB_TOKEN (was a literal Authorization header in node "Get issues")' in output
    assert ('[tool.cutover.providers.github]\n  base_url = "https://api.github.com"\n'
            '  auth_env = "CUTOVER_GITHUB_TOKEN"') in output  # the proposed table
    module = tmp_path / "automations" / "triage.py"
    assert 'auth_env = "CUTOVER_GITHUB_TOKEN"' in module.read_text(encoding="utf-8")
    ctx = Calls()
    _run(module, ctx, {"x": 1})
    (call,) = ctx.calls
    assert call["provider"] == "github" and call["headers"] == {"Accept": "application/json"}


def test_an_n8n_credential_expression_is_not_copied_and_its_env_name_is_kept(tmp_path: Path) -> None:
    http = {"sendHeaders": True, "headerParameters": {"parameters": [
        {"name": "Authorization", "value": "=Bearer {{ $env.GH_PAT }}"},
        {"name": "X-Signature", "value": "={{ $credentials.signing.secret }}"}]}}
    output, written = _scaffold(tmp_path, "n8n", _n8n(http))
    _assert_absent("$credentials.signing", output, written)
    _assert_absent("$env.GH_PAT", output, written)
    assert 'set GH_PAT (was an n8n expression of $env in the Authorization header in node "Get issues")' in output
    assert 'auth_env = "GH_PAT"' in output
    assert ('set CUTOVER_GITHUB_X_SIGNATURE (was an n8n expression of $credentials in the X-Signature header '
            'in node "Get issues")') in output


def test_an_n8n_api_key_query_parameter_is_read_from_the_environment_at_call_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    http = {"sendQuery": True, "queryParameters": {"parameters": [
        {"name": "state", "value": "open"}, {"name": "api_key", "value": "sk_live_abc987"}]}}
    output, written = _scaffold(tmp_path, "n8n", _n8n(http))
    _assert_absent("sk_live_abc987", output, written)
    assert 'set CUTOVER_GITHUB_API_KEY (was a literal query parameter api_key in node "Get issues")' in output
    module = tmp_path / "automations" / "triage.py"
    monkeypatch.delenv("CUTOVER_GITHUB_API_KEY", raising=False)
    shadow = Calls("shadow")
    _run(module, shadow, {"x": 1})  # a shadow run sends nothing: it needs no credential
    assert shadow.calls[0]["params"] == {"state": "open", "api_key": ""}
    with pytest.raises(TerminalError, match="CUTOVER_GITHUB_API_KEY"):
        _run(module, Calls("live"), {"x": 1})
    monkeypatch.setenv("CUTOVER_GITHUB_API_KEY", "from-env")
    live = Calls("live")
    _run(module, live, {"x": 1})
    assert live.calls[0]["params"] == {"state": "open", "api_key": "from-env"}


def test_an_n8n_password_body_field_is_read_from_the_environment(tmp_path: Path) -> None:
    http = {"method": "POST", "sendBody": True, "bodyParameters": {"parameters": [
        {"name": "username", "value": "bot"}, {"name": "password", "value": "hunter2hunter2"}]}}
    output, written = _scaffold(tmp_path, "n8n", _n8n(http))
    _assert_absent("hunter2hunter2", output, written)
    assert "set CUTOVER_GITHUB_PASSWORD (was a literal body field password" in output


def test_an_n8n_json_body_holding_a_client_secret_is_left_to_a_person_without_it(tmp_path: Path) -> None:
    body = '{"grant_type": "client_credentials",\n "client_secret": "cs_live_4242"}'
    http = {"method": "POST", "sendBody": True, "specifyBody": "json", "jsonBody": body}
    output, written = _scaffold(tmp_path, "n8n", _n8n(http))
    _assert_absent("cs_live_4242", output, written)
    assert "a JSON body holding a credential is not translated" in output


def test_an_n8n_json_body_without_a_credential_is_still_translated(tmp_path: Path) -> None:
    http = {"method": "POST", "sendBody": True, "specifyBody": "json", "jsonBody": '{"title":\n  "hello"}'}
    output, _ = _scaffold(tmp_path, "n8n", _n8n(http))
    assert "2 nodes translated, 0 TODO" in output


def test_an_untranslated_n8n_http_node_keeps_its_parameters_without_the_credential(tmp_path: Path) -> None:
    http = {"sendHeaders": True, "headerParameters": {"parameters": [
        {"name": "Authorization", "value": "Bearer 12345"}]}, "jsonHeaders": '{"X-Token": "tok_777"}'}
    output, written = _scaffold(tmp_path, "n8n", _n8n(http, version=2))  # v2 is a TODO, its parameters verbatim
    _assert_absent("12345", output, written)
    _assert_absent("tok_777", output, written)
    assert "Get issues" in (tmp_path / "automations" / "triage.py").read_text(encoding="utf-8")


def test_a_make_credential_header_is_read_from_the_environment_and_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    headers = [{"name": "X-Api-Key", "value": "mk_secret_777"}, {"name": "Accept", "value": "application/json"}]
    output, written = _scaffold(tmp_path, "make", _make(headers, qs=[{"name": "token", "value": "qs_secret_888"}]))
    _assert_absent("mk_secret_777", output, written)
    _assert_absent("qs_secret_888", output, written)
    assert 'set CUTOVER_CRM_X_API_KEY (was a literal X-Api-Key header in module "List contacts")' in output
    assert 'set CUTOVER_CRM_TOKEN (was a literal query parameter token in module "List contacts")' in output
    monkeypatch.setenv("CUTOVER_CRM_X_API_KEY", "k-from-env")
    monkeypatch.setenv("CUTOVER_CRM_TOKEN", "t-from-env")
    ctx = Calls("live")
    _run(tmp_path / "automations" / "triage.py", ctx, {"email": "a@b.example"})
    (call,) = ctx.calls
    assert call["headers"] == {"X-Api-Key": "k-from-env", "Accept": "application/json"}
    assert call["params"] == {"token": "t-from-env"}


def test_a_make_bearer_header_becomes_the_configured_providers_auth_env(tmp_path: Path) -> None:
    pyproject = '[tool.cutover.providers.contacts]\nbase_url = "https://crm.example.test"\n'
    output, written = _scaffold(tmp_path, "make", _make([{"name": "Authorization", "value": "Bearer 12345"}]), pyproject)
    _assert_absent("12345", output, written)
    assert 'set CUTOVER_CONTACTS_TOKEN (was a literal Authorization header in module "List contacts")' in output
    assert 'add to [tool.cutover.providers.contacts] in pyproject.toml:\n  auth_env = "CUTOVER_CONTACTS_TOKEN"' in output
    ctx = Calls()
    _run(tmp_path / "automations" / "triage.py", ctx, {"email": "a@b.example"})
    assert "headers" not in ctx.calls[0]


def test_a_make_header_mapped_from_a_bundle_is_data_and_stays_in_the_code(tmp_path: Path) -> None:
    output, _ = _scaffold(tmp_path, "make", _make([{"name": "X-Session-Token", "value": "{{1.session}}"}]))
    assert "CUTOVER_" not in output
    ctx = Calls()
    _run(tmp_path / "automations" / "triage.py", ctx, {"session": "s-1"})
    assert ctx.calls[0]["headers"] == {"X-Session-Token": "s-1"}


def test_a_malformed_pyproject_stops_the_scaffold_naming_the_file_and_line(tmp_path: Path) -> None:
    """The scaffold reads providers with queue_core's one [tool.cutover] reader: a broken
    pyproject.toml is a usage error (exit 2) naming the file and the TOML line, not silently no
    providers."""
    source = tmp_path / "definition.json"
    source.write_text(json.dumps(_n8n({})), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.cutover]\nautomations = "automations"\n[tool.cutover.providers.github\n',
                                             encoding="utf-8")
    result = CliRunner().invoke(cli, ["scaffold", "n8n", str(source), "--automation", "triage",
                                      "--into", str(tmp_path / "automations")])
    assert result.exit_code == 2, result.output
    assert "pyproject.toml" in result.output and "line 3" in result.output
    assert not (tmp_path / "automations").exists()
