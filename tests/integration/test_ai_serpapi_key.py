"""The SerpApi tool's key: in the query string on the wire only, never in a stored call, trace or ledger event."""

from __future__ import annotations

import httpx

from queue_core.compat._n8n_ai_tools import search_params
from queue_core.gateway import Gateway
from queue_core.provider import parse_providers
from tests.support.call_context import MemoryCallContext, call

KEY = "serp_9f8e7d6c5b4a"


async def test_the_serpapi_key_goes_into_the_query_on_the_wire_and_nowhere_else() -> None:
    seen: list[httpx.Request] = []

    def provider(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"organic_results": [{"snippet": "found"}]})

    table = {"serpapi": {"base_url": "https://serpapi.com", "auth_env": "SERPAPI_API_KEY"}}
    ctx = MemoryCallContext()
    url = "https://serpapi.com/search?" + search_params([("hl", "de"), ("api_key", "__auth_env__"), ("q", "a b")])
    async with Gateway(parse_providers(table), None, environ={"SERPAPI_API_KEY": KEY},
                       transport=httpx.MockTransport(provider)) as gw:
        response = await call(gw, ctx, "serpapi", "GET", url, step="agent:serpapi")
    assert response.json() == {"organic_results": [{"snippet": "found"}]}
    assert seen[0].url.params["api_key"] == KEY and seen[0].url.params["q"] == "a b"
    assert "authorization" not in seen[0].headers, "the key goes in the query, not as a bearer header"
    kept = repr(ctx.calls) + repr(ctx.events)
    assert KEY not in kept and "__auth_env__" in kept
