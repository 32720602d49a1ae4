"""Telegram cases for ``app_oracle`` beyond ``app_cases``' (which point the credential's base URL at a server):
file.get v1.1 with Download (n8n's default), with the Bot API's replies (getFile: a File with ``file_path``;
then the file itself from ``/file/bot<token>/<file_path>``); the binary entry is compared too."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

_FILE = {"ok": True, "result": {"file_id": "AwACAgQAAxkBAAIB", "file_unique_id": "AgADBQ8AAg", "file_size": 21,
                                "file_path": "voice/file_7.oga"}}

CASES = [
    AppCase("telegram v1.1 file.get download", "n8n-nodes-base.telegram", 1.1,
            {"resource": "file", "fileId": "={{ $json.message.voice.file_id }}", "additionalFields": {}},
            Credential("telegramApi", {"accessToken": TOKEN, "baseUrl": "https://api.telegram.org"}),
            [Reply("POST", "/bot*/getFile", _FILE),
             Reply("GET", "/file/bot*/voice/file_7.oga", "OggS stand-in voice..", content_type="audio/ogg")],
            items=({"message": {"voice": {"file_id": "AwACAgQAAxkBAAIB"}}},)),
]
