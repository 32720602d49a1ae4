"""Fuzzing the webhook ingress: validly signed deliveries of mutated JSON (from our own fixtures),
deep nesting and random bytes get 202 or a 4xx problem, never a 5xx; unsigned ones always 401."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from queue_core import db
from queue_core.server import create_app
from tests.property.test_fuzz_enqueue import mutated
from tests.support.control import client, sources

SECRET = "fuzz-github-secret"
SOURCES = {"gh": {"scheme": "github", "secret_env": "GH", "automations": ["noop"], "max_body_bytes": 200_000}}


@pytest.fixture(scope="module")
def url(db_url: str) -> Iterator[str]:
    yield db_url


def _signed(body: bytes, delivery: str) -> dict[str, str]:
    sig = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    return {"content-type": "application/json", "x-hub-signature-256": sig, "x-github-delivery": delivery}


async def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str, str]:
    async with db.pool(url, max_size=2) as pool:
        app = create_app(pool=pool, sources=sources(SOURCES, {"GH": SECRET}))
        async with client(app) as c:
            response = await c.post("/hooks/gh", content=body, headers=headers)
    return response.status_code, response.headers["content-type"], response.text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          derandomize=True)
@given(text=mutated(), delivery=st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=40),
       signed=st.booleans())
def test_a_delivery_gets_202_or_a_4xx_problem_never_a_5xx(url, text, delivery, signed):
    body = text.encode("utf-8", "surrogateescape")
    headers = _signed(body, delivery) if signed else {"content-type": "application/json", "x-github-delivery": delivery}
    status, media, answer = asyncio.run(_post(url, body, headers))
    if not signed:
        assert status == 401, answer
    assert status == 202 or (400 <= status < 500 and media == "application/problem+json"), (status, answer)
