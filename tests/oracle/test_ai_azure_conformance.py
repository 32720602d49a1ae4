"""The Azure OpenAI Chat Model under a Basic LLM Chain against the real n8n (1.123.81, and 2.41.1 for chainLlm v1.9).

A case is proved when the module gives n8n's node output and sends the stand-in n8n's calls: the
path with its query (``/openai/deployments/<model>/chat/completions?api-version=…``) and the body.
n8n's credential headers are checked too: the API key as ``api-key``, the Entra ID token as
``Authorization: Bearer``; the module sends the key as ``api-key`` and leaves the bearer to its
provider's ``auth_env`` (the gateway's, checked by the scaffold test below).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.platforms.n8n.translate import scaffold_n8n

from tests.oracle import ai_azure_cases, ai_cases, ai_server
from tests.oracle.conftest import require_oracle
from tests.oracle.outcome import differences
from tests.oracle.workflow import UNDER_TEST

CASES = ai_azure_cases.CASES + ai_azure_cases.V2_CASES


def _text(request: tuple[str, Any]) -> str:
    return json.dumps(request, sort_keys=True, ensure_ascii=False)


@pytest.fixture(scope="module")
def results() -> Iterator[list[dict[str, Any]]]:
    require_oracle()
    with ai_server.serving() as (base, seen):
        yield ai_cases.measure(CASES, base, seen)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0].id for c in CASES])
def test_an_azure_chain_gives_n8n_s_output_and_sends_n8n_s_requests(index: int, results: list[dict[str, Any]]) -> None:
    result = results[index]
    assert result["scaffold"].translated, f"{result['case'].id} is a TODO of the scaffold"
    assert result["n8n"].error is None, result["n8n"].error
    assert result["n8n_requests"], "n8n sent the stand-in nothing"
    assert all(path.startswith("/openai/deployments/") and path.endswith("/chat/completions?api-version="
                                                                          "2025-03-01-preview")
               for path, _ in result["n8n_requests"]), result["n8n_requests"]
    # n8n runs a chain's items in concurrent batches: a multiset; a body's key order is not the API's
    assert sorted(map(_text, result["scaffold_requests"])) == sorted(map(_text, result["n8n_requests"]))
    found = differences(result["n8n"], result["scaffold"], [UNDER_TEST])
    assert not found, found


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c[0].id for c in CASES])
def test_n8n_sends_the_key_or_the_token_and_the_module_the_key(index: int, results: list[dict[str, Any]]) -> None:
    result = results[index]
    tag = ai_cases._tag(result["case"])
    key, bearer = ai_azure_cases.AUTH[tag]
    calls = len(result["n8n_requests"])
    assert result["n8n_auth"] == [(key, bearer)] * calls
    assert result["scaffold_auth"] == [(key, None)] * calls  # a bearer: the gateway's auth_env, not the module's


def test_a_reasoning_model_s_system_message_is_a_developer_message_on_both_sides(results: list[dict[str, Any]]) -> None:
    reasoning = [r for r in results if r["case"].id.startswith("gpt-5")]
    assert reasoning
    for result in reasoning:
        for side in ("n8n_requests", "scaffold_requests"):
            roles = [m["role"] for _, body in result[side] for m in body["messages"]]
            assert roles == ["developer", "user"], (side, roles)


def test_the_entra_id_scaffold_proposes_the_bearer_as_the_provider_s_auth_env(tmp_path: Path) -> None:
    case, subs, credential = ai_azure_cases.CASES[1]
    path = tmp_path / "workflow.json"
    path.write_text(json.dumps(ai_cases.document(case, 0, [dict(s) for s in subs], credential)), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="oracle", into=tmp_path / "automations", force=True)
    source = written.path.read_text(encoding="utf-8")
    assert 'auth_env = "AZURE_OPENAI_TOKEN"' in source and "[tool.cutover.providers.azure-openai]" in source
    assert "'api-key'" not in source  # the module sends no key header: the provider sends the token
