"""The Azure OpenAI Chat Model (``lmChatAzureOpenAi`` v1) under a Basic LLM Chain: its URL, its secret, its body."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import respx

from queue_core.compat import n8n
from tests.unit.test_n8n_ai import LC, _completion, _Ctx, _run, _workflow

RESOURCE = "https://unit.openai.azure.com"  # the provider's configured base_url (the gateway joins relative URLs)
CHAT = f"{RESOURCE}/openai/deployments/gpt-5.2/chat/completions"


class _RelativeCtx(_Ctx):
    """A context whose relative URLs are joined to the Azure resource, as the gateway joins them to base_url."""

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None, **kw: Any) -> Any:
        assert provider == "azure-openai" and url.startswith("/")
        return await super().call(provider, method, RESOURCE + url, step=step, json=json, **kw)


def _chain(tmp_path: Path, authentication: str | None, options: dict[str, Any] | None = None,
           root: str = "chainLlm", version: float = 1.7) -> Any:
    params: dict[str, Any] = {"model": "gpt-5.2", "options": options or {}}
    if authentication:
        params["authentication"] = authentication
    model = {"name": "Azure", "type": f"{LC}lmChatAzureOpenAi", "typeVersion": 1, "position": [0, 1],
             "parameters": params}
    chain = {"name": "Chain", "type": f"{LC}{root}", "typeVersion": version, "position": [1, 0],
             "parameters": {"promptType": "define", "text": "={{ $json.q }}",
                            "messages": {"messageValues": [{"message": "Answer briefly."}]}}}
    wiring = {"Azure": {"ai_languageModel": [[{"node": "Chain", "type": "ai_languageModel", "index": 0}]]}}
    tmp_path.mkdir(parents=True, exist_ok=True)
    return _workflow(tmp_path, [chain, model], wiring)


def test_a_reasoning_model_s_system_message_is_a_developer_one_and_its_max_tokens_max_completion_tokens() -> None:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    body = n8n.ai_chain.chat_body("gpt-5.2", messages, {"maxTokens": 50, "temperature": 1})
    assert body["messages"][0] == {"role": "developer", "content": "s"} and body["max_completion_tokens"] == 50
    assert "max_tokens" not in body and body["temperature"] == 1
    for plain in ("gpt-4.1", "gpt-5-chat-latest"):
        body = n8n.ai_chain.chat_body(plain, messages, {"maxTokens": 50})
        assert body["messages"][0]["role"] == "system" and body["max_tokens"] == 50, plain
    assert n8n.ai_chain.is_reasoning_model("o3-mini") and not n8n.ai_chain.is_reasoning_model("omni")


def test_the_url_names_the_deployment_and_the_api_version() -> None:
    assert n8n.ai_chain.azure_url("gpt-5.2", "2025-03-01-preview") == \
        "/openai/deployments/gpt-5.2/chat/completions?api-version=2025-03-01-preview"


@respx.mock
def test_an_api_key_chain_sends_the_key_as_api_key_to_the_deployment(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "unit-key")
    route = respx.post(CHAT).mock(return_value=httpx.Response(200, json=_completion(" Yes. ")))
    written = _chain(tmp_path, None, {"maxTokens": 20})
    rows = {r.node: r.status for r in written.scaffold.rows}
    assert rows["Chain"] == rows["Azure"] == "translated"
    assert _run(written, _RelativeCtx(), {"q": "Ready?"})["Chain"] == [[{"text": "Yes."}]]
    request = route.calls[0].request
    assert request.url.params["api-version"] == "2025-03-01-preview" and request.headers["api-key"] == "unit-key"
    assert json.loads(request.content) == {"model": "gpt-5.2", "max_completion_tokens": 20, "stream": False,
                                           "messages": [{"role": "developer", "content": "Answer briefly."},
                                                        {"role": "user", "content": "Ready?"}]}
    source = written.path.read_text(encoding="utf-8")
    assert "set AZURE_OPENAI_API_KEY" in source and "[tool.cutover.providers.azure-openai]" in source


@respx.mock
def test_an_entra_id_chain_leaves_its_bearer_token_to_the_provider_s_auth_env(tmp_path: Path) -> None:
    route = respx.post(CHAT).mock(return_value=httpx.Response(200, json=_completion("ok")))
    written = _chain(tmp_path, "azureEntraCognitiveServicesOAuth2Api")
    source = written.path.read_text(encoding="utf-8")
    assert 'auth_env = "AZURE_OPENAI_TOKEN"' in source and "'api-key'" not in source
    _run(written, _RelativeCtx(), {"q": "Ready?"})
    assert "api-key" not in route.calls[0].request.headers


def test_an_azure_model_under_an_agent_or_with_an_unknown_option_is_a_todo(tmp_path: Path) -> None:
    agent = _chain(tmp_path / "agent", None, root="agent", version=2.1)
    row = next(r for r in agent.scaffold.rows if r.node == "Chain")
    assert row.status == "todo" and "Azure OpenAI Chat Model under agent is not translated" in row.why
    odd = _chain(tmp_path / "odd", None, {"seed": 3})
    row = next(r for r in odd.scaffold.rows if r.node == "Chain")
    assert row.status == "todo" and "options seed are not translated" in row.why
