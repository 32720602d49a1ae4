"""A shadow/dry-run call's answer: the synthetic response and the remembered classifications are
exactly what httpx's own encoding and a fresh classification give (issue 22 part 8)."""

from __future__ import annotations

import random

import httpx
import pytest

from queue_core.gateway import Gateway
from queue_core.gateway.pipeline import _synthetic
from queue_core.gateway.request import OutboundRequest
from queue_core.provider import parse_providers

PROVIDERS = parse_providers({
    "plain": {"base_url": "https://api.plain.test"},
    "ruled": {"base_url": "https://api.ruled.test",
              "classify": [{"kind": "retryable", "body_contains": "try again"}]},
})
REQUEST = OutboundRequest("plain", "POST", "https://api.plain.test/v1/things/7", None, None, (), "key-é\"1", "fp")


@pytest.mark.parametrize("mode", ["shadow", "dry_run"])
def test_the_synthetic_answer_is_what_httpx_json_encoding_gives(mode: str) -> None:
    ours = _synthetic(REQUEST, mode)
    theirs = httpx.Response(200, json={"synthetic": True, "mode": mode, "idempotency_key": REQUEST.idempotency_key},
                            headers={"X-Cutover-Synthetic": mode}, request=httpx.Request(REQUEST.method, REQUEST.url))
    assert (ours.status_code, ours.headers.raw, ours.content) == (theirs.status_code, theirs.headers.raw, theirs.content)
    assert ours.json() == {"synthetic": True, "mode": mode, "idempotency_key": "key-é\"1"}
    assert str(ours.request.url) == REQUEST.url and ours.request.method == "POST"


def _answer(status: int, body: bytes, **headers: str) -> httpx.Response:
    return httpx.Response(status, headers=headers, content=body, request=httpx.Request("GET", "https://api.plain.test/x"))


ANSWERS = [
    ("plain", _answer(200, b'{"id": 1}')),
    ("plain", _answer(201, b'{"id": 2}', **{"X-Request-Id": "r-1"})),
    ("plain", _answer(404, b"no such thing")),  # a failure: its body is summarised
    ("plain", _answer(200, b"{}", **{"Retry-After": "3"})),  # a delay: clock and rng are read
    ("ruled", _answer(200, b"please try again")),  # a rule reads the body
    ("plain", _synthetic(REQUEST, "shadow")),
]


@pytest.mark.parametrize(("provider", "response"), ANSWERS)
async def test_an_offline_answer_is_classified_as_a_fresh_classification_does(provider: str,
                                                                              response: httpx.Response) -> None:
    config = PROVIDERS[provider]
    async with Gateway(PROVIDERS, None, clock=lambda: 100.0, rng=random.Random(1)) as remembering, \
            Gateway(PROVIDERS, None, clock=lambda: 100.0, rng=random.Random(1)) as fresh:
        first = remembering._classify_offline(config, response)
        again = remembering._classify_offline(config, response)
        assert first == fresh._classify(config, response)
        assert again == fresh._classify(config, response)  # the rng moved on alike where it is read


async def test_only_plain_successes_are_remembered() -> None:
    async with Gateway(PROVIDERS, None, clock=lambda: 0.0, rng=random.Random(1)) as gw:
        for provider, response in ANSWERS:
            gw._classify_offline(PROVIDERS[provider], response)
        assert sorted(status for status, _ in gw._offline_verdicts) == [200, 200, 201]
