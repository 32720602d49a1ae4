"""Form bodies (``ctx.call(..., data=...)``): what Stripe and OAuth token endpoints take.

The gateway runs with a mock transport standing in for the network and an in-memory call
context; nothing here needs Postgres (no provider has a rate).
"""

from __future__ import annotations

import httpx
import pytest

from queue_core.gateway import Gateway, form_body, prepare
from queue_core.provider import parse_providers
from tests.support.call_context import MemoryCallContext, call

PROVIDERS = parse_providers({"stripe": {"base_url": "https://api.stripe.test", "auth_env": "STRIPE_KEY"}})
CONFIG = PROVIDERS["stripe"]


async def test_a_form_call_sends_a_urlencoded_body_and_records_its_fields_as_the_body() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": "cus_1"})

    ctx = MemoryCallContext()
    data = {"email": "a@x.test", "metadata[order]": "o-1", "expand": ["sources", "tax"], "livemode": False}
    async with Gateway(PROVIDERS, None, transport=httpx.MockTransport(answer), environ={"STRIPE_KEY": "sk_test_x"}) as gw:
        response = await call(gw, ctx, "stripe", "POST", "/v1/customers", step="create-customer", data=data)
    assert response.json() == {"id": "cus_1"}
    [request] = seen
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.content == b"email=a%40x.test&expand=sources&expand=tax&livemode=false&metadata%5Border%5D=o-1"
    assert request.headers["authorization"] == "Bearer sk_test_x"


def test_a_forms_fingerprint_ignores_key_order_and_differs_from_the_same_fields_as_json() -> None:
    a = prepare(CONFIG, "POST", "/v1/customers", json=None, params=None, headers=None, key="k", data={"a": 1, "b": "x"})
    b = prepare(CONFIG, "POST", "/v1/customers", json=None, params=None, headers=None, key="k", data={"b": "x", "a": 1})
    as_json = prepare(CONFIG, "POST", "/v1/customers", json={"a": 1, "b": "x"}, params=None, headers=None, key="k")
    assert a.fingerprint == b.fingerprint != as_json.fingerprint
    assert a.intent("create", "shadow")["body"] == {"a": 1, "b": "x"}  # compared with the legacy fields


def test_none_values_are_left_out_and_nested_values_or_both_bodies_are_refused() -> None:
    assert form_body({"a": None, "b": 2, "c": [1, None]}) == "b=2&c=1"
    with pytest.raises(TypeError, match="form field 'address': .* not a dict"):
        form_body({"address": {"city": "Berlin"}})
    with pytest.raises(TypeError, match="json= or data="):
        prepare(CONFIG, "POST", "/v1/customers", json={"a": 1}, params=None, headers=None, key="k", data={"a": 1})
