"""A call made ``anonymous``: sent without the provider's secret (a session URL the provider handed out, which
n8n's YouTube upload PUTs its bytes to with no credential); every other call of the provider still carries it."""

from __future__ import annotations

import httpx

from queue_core.gateway import Gateway
from queue_core.provider import parse_providers
from tests.support.call_context import MemoryCallContext, call

PROVIDERS = parse_providers({"youtube": {"base_url": "https://www.googleapis.com", "auth_env": "YOUTUBE_TOKEN"}})
SESSION = "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=abc"


async def test_an_anonymous_call_carries_no_authorization_and_the_others_do() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, headers={"Location": SESSION}, json={"id": "v1"})

    ctx = MemoryCallContext()
    async with Gateway(PROVIDERS, None, transport=httpx.MockTransport(answer), environ={"YOUTUBE_TOKEN": "ya29.x"}) as gw:
        await call(gw, ctx, "youtube", "POST", "/upload/youtube/v3/videos", step="start", json={"snippet": {}})
        put = await call(gw, ctx, "youtube", "PUT", SESSION, step="bytes", content=b"\x00video", anonymous=True)
    start, upload = sent
    assert start.headers["authorization"] == "Bearer ya29.x"
    assert "authorization" not in upload.headers and upload.content == b"\x00video"
    assert str(upload.url) == SESSION and put.json() == {"id": "v1"}
