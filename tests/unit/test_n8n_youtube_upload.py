"""n8n's YouTube v1 video.upload: the resumable session, the PUT of the item's bytes to its Location, the item."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.platforms.n8n.translate import scaffold_n8n
from queue_core.compat import n8n
from queue_core.errors import NodeFailed

VIDEO = b"\x00\x00\x00\x18ftypmp42 tiny video"
SESSION = "https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=xa298sd_f"


class Calls:
    """A context that answers the session start with ``start`` and the PUT with the Video resource."""

    mode = "live"

    def __init__(self, start: httpx.Response) -> None:
        self.start = start
        self.made: list[dict[str, Any]] = []

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> httpx.Response:
        self.made.append({"provider": provider, "method": method, "url": url, **kwargs})
        return self.start if method == "POST" else httpx.Response(200, json={"kind": "youtube#video", "id": "Ks-_Mh1QhMc"})


def _item(mime: str | None = "video/mp4") -> dict[str, Any]:
    entry = {"data": base64.b64encode(VIDEO).decode(), "fileName": "reel.mp4", **({"mimeType": mime} if mime else {})}
    return {"json": {}, "binary": {"data": entry}}


async def test_the_session_carries_the_metadata_and_the_bytes_go_to_its_location_in_one_put() -> None:
    ctx = Calls(httpx.Response(200, headers={"Location": SESSION}))
    items = await n8n.youtube_upload(ctx, "youtube", _item(), 0, prop="data", title="Reel", category="22", options={
        "tags": "a, b", "privacyStatus": "private", "embeddable": True, "notifySubscribers": True}, step="s", node="YT")
    start, put = ctx.made
    assert (start["method"], start["url"]) == ("POST", "https://www.googleapis.com/upload/youtube/v3/videos")
    assert start["params"] == {"uploadType": "resumable", "part": "snippet,status,recordingDetails", "notifySubscribers": "true"}
    assert start["headers"] == {"X-Upload-Content-Length": str(len(VIDEO)), "X-Upload-Content-Type": "video/mp4"}
    assert start["json"] == {"snippet": {"title": "Reel", "categoryId": "22", "tags": ["a", " b"]},  # split, not trimmed
                             "status": {"privacyStatus": "private", "embeddable": True}, "recordingDetails": {}}
    assert (put["method"], put["url"], put["content"], put["anonymous"]) == ("PUT", SESSION, VIDEO, True)
    assert put["headers"]["Content-Range"] == f"bytes 0-{len(VIDEO) - 1}/{len(VIDEO)}"
    assert items == [{"json": {"uploadId": "Ks-_Mh1QhMc"}}]


async def test_notify_defaults_to_false_a_json_session_body_is_spread_and_no_location_fails() -> None:
    ctx = Calls(httpx.Response(200, headers={"Location": SESSION}, json={"note": "x"}))
    items = await n8n.youtube_upload(ctx, "youtube", _item(None), 0, prop="data", title="T", category="1", options={},
                                     step="s", node="YT")
    assert ctx.made[0]["params"]["notifySubscribers"] == "false"
    assert ctx.made[0]["headers"] == {"X-Upload-Content-Length": str(len(VIDEO))}  # no MIME type: the header left out
    assert items == [{"json": {"uploadId": "Ks-_Mh1QhMc", "note": "x"}}]
    with pytest.raises(NodeFailed, match="no Location header"):
        await n8n.youtube_upload(Calls(httpx.Response(200)), "youtube", _item(), 0, prop="data", title="T", category="1",
                                 options={}, step="s", node="YT")


def _scaffold(tmp_path: Path, options: dict[str, Any]) -> tuple[str, str]:
    workflow = {"name": "p", "nodes": [
        {"name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0], "parameters": {}},
        {"name": "YT", "type": "n8n-nodes-base.youTube", "typeVersion": 1, "position": [1, 0], "parameters": {
            "resource": "video", "operation": "upload", "title": "={{ $json.title }}", "categoryId": "22",
            "options": options}}],
        "connections": {"Start": {"main": [[{"node": "YT", "type": "main", "index": 0}]]}}}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(workflow), encoding="utf-8")
    (written,) = scaffold_n8n(path, automation="p", into=tmp_path / "a", force=True)
    (row,) = [r for r in written.scaffold.rows if r.node == "YT"]
    return (row.status if row.status != "todo" else f"todo: {row.why}"), written.path.read_text(encoding="utf-8")


def test_the_node_is_translated_with_the_estate_s_options_and_an_unknown_option_stays_a_todo(tmp_path: Path) -> None:
    status, source = _scaffold(tmp_path, {"madeForKids": False, "tags": "a,b", "license": "youtube"})
    assert status == "translated"
    assert "await n8n.youtube_upload(ctx, 'youtube', item, i, prop='data'" in source
    assert "'madeForKids'" not in source  # not an option of n8n's node: its upload never reads it
    status, _ = _scaffold(tmp_path, {"regionCode": "US"})
    assert status.startswith("todo: options.regionCode is not translated")


async def test_a_shadow_run_s_recorded_answer_is_the_node_s_output_and_nothing_is_put() -> None:
    recorded = httpx.Response(200, headers={"X-Cutover-Recorded": "1"}, json=[{"uploadId": "rec-1"}])
    ctx = Calls(recorded)
    ctx.mode = "shadow"
    items = await n8n.youtube_upload(ctx, "youtube", {"json": {}}, 0, prop="data", title="T", category="1", options={},
                                     step="s", node="YT")
    assert items == [{"json": {"uploadId": "rec-1"}}] and [c["method"] for c in ctx.made] == ["POST"]
