"""App nodes against the real n8n: Telegram through its credential's base URL (``app_cases``), and every
``app_oracle`` case (``tests/oracle/app_cases_<app>.py``) through the stand-in API every request is moved to."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracle import app_cases, app_oracle, http_server
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


@pytest.fixture(scope="module")
def app_results() -> Iterator[dict[str, app_oracle.Result]]:
    require_oracle()
    yield {r.case.id: r for r in app_oracle.measure()}


def _report(result: app_oracle.Result) -> str:
    return "\n".join([result.case.id, *result.found[:8]])


@pytest.mark.parametrize("case_id", [c.id for c in app_oracle.all_cases()])
def test_an_app_case_makes_n8ns_requests_and_outputs_n8ns_items(case_id: str,
                                                                 app_results: dict[str, app_oracle.Result]) -> None:
    result = app_results[case_id]
    if result.case.refused:  # n8n cannot run it as exported: a TODO the user must act on, never "translated"
        assert result.n8n.error is not None and not result.n8n_requests, f"{case_id}: n8n ran it ({result.case.refused})"
        assert not result.scaffold.translated, f"{case_id}: translated, though n8n refuses it"
        return
    assert result.scaffold.translated, f"{case_id}: not translated"
    if result.case.differs:  # a known difference: it must still be there (else remove the mark: it is proved)
        assert result.found, f"{case_id} no longer differs ({result.case.differs}): remove differs="
        return
    assert result.n8n_requests, f"{case_id}: n8n made no request ({result.n8n.error})"
    assert result.n8n.error is None, f"{case_id}: n8n failed: {result.n8n.error}"
    assert not result.found, _report(result)
    assert result.n8n.nodes.get(UNDER_TEST), f"{case_id}: n8n output nothing"
