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
