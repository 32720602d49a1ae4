"""Send Email v2 against the real n8n: what each side's loopback SMTP server received (``email_cases``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.oracle import email_cases
from tests.oracle.conftest import require_oracle
from tests.support import smtp_server


@pytest.fixture(scope="module")
def sent() -> Iterator[tuple[Any, dict[int, Any], dict[int, Any]]]:
    require_oracle()
    with smtp_server.serving() as theirs, smtp_server.serving() as mine:
        results = email_cases.measure(theirs.server_address[1], theirs.received, mine.server_address[1])
        yield results, email_cases.by_case(theirs.received), email_cases.by_case(mine.received)


def test_every_case_is_translated_and_outputs_what_n8n_outputs(sent: Any) -> None:
    results, _, _ = sent
    assert len(results) == 9 and all(got.translated for _, _, got in results)
    assert all(expected.error is None and got.error is None for _, expected, got in results)
    differing = [case for case, expected, got in results if email_cases.output(expected) != email_cases.output(got)]
    assert not differing, differing


def test_the_messages_received_are_the_ones_n8n_sends(sent: Any) -> None:
    results, theirs, mine = sent
    assert sorted(theirs) == sorted(mine) == list(range(1, 10))
    differing = [n for n in theirs if theirs[n] != mine[n]]
    assert not differing, [(theirs[n], mine[n]) for n in differing[:1]]
    (plain, _), (both, _) = theirs[1], theirs[3]
    assert plain["parts"] == [("text/plain", "Hi Ada,\nthanks.\n")]  # v2's default format is text: the html is not sent
    assert both["type"] == "multipart/alternative" and both["headers"]["Subject"] == "Grüße, Ada ✓"
    hidden = theirs[2][0]
    assert "hidden@c2.test" in hidden["recipients"] and hidden["headers"]["Bcc"] is None
    assert theirs[6][0]["type"] == "text/plain" and theirs[8][0]["type"] == "text/html"  # an empty part is left out
    assert theirs[7][0]["type"] == "multipart/alternative" and "bcc@c7.test" in theirs[7][0]["recipients"]
    assert theirs[4][0]["parts"][0][1].endswith("---\nThis email was sent automatically with n8n\nhttps://n8n.io\n")
