"""YouTube v1 video.upload cases for ``app_oracle``: the resumable session (``POST
/upload/youtube/v3/videos?uploadType=resumable``, answered with an empty body and the session's ``Location``,
as YouTube answers it) and the PUT of the item's binary there (answered with the Video resource)."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

YOUTUBE = "n8n-nodes-base.youTube"
OAUTH = Credential("youTubeOAuth2Api", {"clientId": "oracle-client", "clientSecret": "oracle-secret",
                                        "oauthTokenData": {"access_token": TOKEN, "token_type": "Bearer"}})
# the session URL carries the case's mark (n8n's PUT has no credential of its own to carry it)
_SESSION = Reply("POST", "/upload/youtube/v3/videos", "", content_type="text/html; charset=UTF-8", headers=(
    ("Location", f"https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id={TOKEN}"),))
_VIDEO = Reply("PUT", "/upload/youtube/v3/videos", {
    "kind": "youtube#video", "etag": "Bdx5g3bXl1qoM0Y0gkG8x2c9Z0A", "id": "Ks-_Mh1QhMc",
    "snippet": {"publishedAt": "2024-05-01T10:00:00Z", "channelId": "UC_x5XG1OV2P6uZZ5FSM9Ttw", "title": "Reel",
                "categoryId": "22", "liveBroadcastContent": "none"},
    "status": {"uploadStatus": "uploaded", "privacyStatus": "private", "license": "youtube", "embeddable": True,
               "publicStatsViewable": True, "selfDeclaredMadeForKids": False}})
_HEADERS = ("x-upload-content-length", "x-upload-content-type", "content-range")

CASES = [
    AppCase("youTube v1 video.upload as the estate's template sets it", YOUTUBE, 1, {
        "resource": "video", "operation": "upload", "title": "={{ $json.title }}", "categoryId": "={{ $json.category }}",
        "options": {"defaultLanguage": "={{ $json.lang }}", "description": "={{ $json.description }}",
                    "embeddable": True, "license": "youtube", "madeForKids": False, "notifySubscribers": True,
                    "privacyStatus": "={{ $json.privacy }}", "publicStatsViewable": True,
                    "selfDeclaredMadeForKids": False, "tags": "={{ $json.tags.join(',') }}"}},
        OAUTH, [_SESSION, _VIDEO], headers=_HEADERS, binary=("data",),
        items=({"title": "Reel", "category": "22", "lang": "en", "description": "From Instagram",
                "privacy": "private", "tags": ["reels", "n8n", " spaced"]},)),
    AppCase("youTube v1 video.upload with no options, from another property", YOUTUBE, 1, {
        "resource": "video", "operation": "upload", "title": "Plain", "categoryId": "10", "binaryProperty": "doc",
        "options": {}}, OAUTH, [_SESSION, _VIDEO], headers=_HEADERS, binary=("doc",), items=({"n": 1}, {"n": 2})),
]
