"""An app node (Telegram sendMessage) against the real n8n, both calling one loopback server (``app_cases``)."""

from __future__ import annotations

from tests.oracle import app_cases, http_server
from tests.oracle.conftest import require_oracle
from tests.oracle.workflow import UNDER_TEST


def test_telegram_send_message_sends_what_n8n_sends() -> None:
    require_oracle()
    with http_server.serving() as base:
        results = app_cases.measure(base)
    assert all(got.translated for _, _, got, _ in results), [case for case, _, got, _ in results if not got.translated]
    differing = [f"{case}: {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing)
    bodies = [item["result"]["body"] for _, expected, _, _ in results for item in expected.nodes[UNDER_TEST][0]]
    assert len(bodies) == 8 and all(b["chat_id"] in ("42", 7, 8) for b in bodies)


def test_telegram_uploads_and_downloads_of_binary_data_equal_n8ns() -> None:
    """sendAudio/sendDocument with Binary File: what the server read of the multipart form (fields, the file's
    name, type, size and sha256); file.get with Download: getFile's answer and the file's binary entry."""
    require_oracle()
    with http_server.serving() as base:
        results = app_cases.measure(base, files=True)
    assert all(got.translated for _, _, got, _ in results), [case for case, _, got, _ in results if not got.translated]
    differing = [f"{case}: {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing)
    assert [case for case, expected, got, _ in results if expected.binary.get(UNDER_TEST) != got.binary.get(UNDER_TEST)] == []
    uploads = [expected.nodes[UNDER_TEST][0][0]["result"]["body"] for case, expected, _, _ in results if "send" in case]
    assert len(uploads) == 2 and all(u["files"] for u in uploads)
    downloads = [expected.binary[UNDER_TEST][0][0]["data"] for case, expected, _, _ in results if "file get" in case]
    assert len(downloads) == 2 and {d["fileName"] for d in downloads} == {"file_7.oga"}
