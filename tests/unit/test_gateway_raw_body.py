"""A call with a raw byte body (``content=``: a file's bytes, as Gemini's Files API takes them): sent as given,
recorded and fingerprinted by size and sha256, never its bytes."""

from __future__ import annotations

import hashlib
import json

import httpx
import pytest

from queue_core.gateway import Gateway, prepare
from queue_core.provider import ProviderConfig, parse_providers
from tests.support.call_context import MemoryCallContext, call

BYTES = b"ID3\x00\xff raw audio bytes"


def test_a_raw_body_is_fingerprinted_by_its_bytes_and_recorded_without_them() -> None:
    config = ProviderConfig("x", "https://x.test")
    a, b = (prepare(config, "POST", "/u", json=None, params=None, headers=None, key="k", content=BYTES) for _ in range(2))
    c = prepare(config, "POST", "/u", json=None, params=None, headers=None, key="k", content=BYTES + b"!")
    assert a.body == BYTES and a.fingerprint == b.fingerprint != c.fingerprint
    assert a.json == {"bytes": {"size": len(BYTES), "sha256": hashlib.sha256(BYTES).hexdigest()}}
    assert dict(a.headers)["Content-Type"] == "application/octet-stream"
    assert BYTES not in json.dumps(a.intent("s", "live")).encode()
    with pytest.raises(TypeError, match="content= \\(raw bytes\\) alone"):
        prepare(config, "POST", "/u", json={"a": 1}, params=None, headers=None, key="k", content=BYTES)


async def test_a_raw_body_goes_on_the_wire_as_given_with_its_content_type() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"file": {"name": "files/1"}})

    ctx = MemoryCallContext()
    async with Gateway(parse_providers({"files": {"base_url": "https://files.test"}}), None,
                       transport=httpx.MockTransport(answer)) as gw:
        response = await call(gw, ctx, "files", "POST", "/upload", step="up", content=BYTES,
                              headers={"Content-Type": "audio/mpeg", "X-Goog-Upload-Command": "upload, finalize"})
    [request] = sent
    assert request.content == BYTES and request.headers["content-type"] == "audio/mpeg"
    assert response.json() == {"file": {"name": "files/1"}}
    assert BYTES not in json.dumps([ctx.calls, ctx.events, ctx.intents], default=str).encode()
