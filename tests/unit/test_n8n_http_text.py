"""HTTP Request's response format "text" (the body as text under the output field); "file" is in test_n8n_binary."""

from __future__ import annotations

import httpx
import respx

from tests.support.app_calls import run_node, scaffold_node

BASES = {"example": "https://api.example.test"}


def _node(**response: object) -> dict[str, object]:
    return {"name": "Fetch", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {
        "url": "https://api.example.test/page", "options": {"response": {"response": response}}}}


@respx.mock
def test_a_text_response_is_the_body_as_text_even_when_it_is_json() -> None:
    respx.get("https://api.example.test/page").mock(return_value=httpx.Response(200, json={"a": 1}))
    _, out, error = run_node(_node(responseFormat="text"), [{}], BASES)
    assert error is None and out == [{"data": '{"a":1}'}]
    _, out, error = run_node(_node(responseFormat="text", outputPropertyName="page", fullResponse=True), [{}], BASES)
    assert error is None and out is not None
    assert out[0]["page"] == '{"a":1}' and out[0]["statusCode"] == 200 and list(out[0]) == [
        "page", "headers", "statusCode", "statusMessage"]
