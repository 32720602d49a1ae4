"""RSS Read v1/v1.1/v1.2 against the real n8n, both fetching from one loopback server (``feed_cases``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.oracle import feed_cases
from tests.oracle.conftest import require_oracle
from tests.oracle.workflow import UNDER_TEST

Results = list[tuple[str, Any, Any, list[str]]]


@pytest.fixture(scope="module")
def results() -> Iterator[Results]:
    require_oracle()
    with feed_cases.serving() as base:
        yield feed_cases.measure(base)


def _output(results: Results, case: str) -> list[dict[str, Any]]:
    (expected,) = [e for c, e, _, _ in results if c == case]
    return expected.nodes[UNDER_TEST][0]


@pytest.mark.parametrize("version", feed_cases.VERSIONS)
def test_every_rss_read_case_is_translated_and_equals_n8n(version: float, results: Results) -> None:
    mine = [r for r in results if r[0].startswith(f"rssFeedRead v{version:g} ")]
    assert len(mine) == 12 and all(got.translated for _, _, got, _ in mine), [c for c, _, g, _ in mine if not g.translated]
    differing = [f"{case}: {found}" for case, _, _, found in mine if found]
    assert not differing, "\n".join(differing[:3])


def test_the_cases_hold_rss_parsers_fields_as_n8n_output_them(results: Results) -> None:
    rss2 = _output(results, "rssFeedRead v1.2 /feeds/rss2.xml")
    assert len(rss2) == 10  # five items, read once per input item
    first = rss2[0]
    assert first["contentSnippet"] == "Hello world\nSecond\u00a0para" and first["guid"] == "urn:item:1"
    assert first["categories"][1] == {"_": "World", "$": {"domain": "https://news.example.test/c"}}
    assert first["isoDate"] == "2024-01-02T10:00:00.000Z" and first["enclosure"]["length"] == "1234"
    assert "isoDate" not in rss2[4]  # a zone JavaScript does not know: no isoDate
    atom = _output(results, "rssFeedRead v1.2 /feeds/atom.xml")
    assert atom[0]["pubDate"] == "2024-01-04T09:00:00.000Z" and atom[0]["author"] == "Grace Hopper"
    assert atom[1]["content"].startswith('<div type="xhtml">')
    assert len(_output(results, "rssFeedRead v1 /feeds/rss2.xml")) == 5  # v1 reads the feed once


def test_both_sides_ask_for_the_feed_with_the_headers_of_the_version(results: Results) -> None:
    old, new = (_output(results, f"rssFeedRead v{v} /feeds/echo.xml")[0] for v in ("1", "1.2"))
    assert (old["title"], old["content"]) == ("rss-parser", "application/rss+xml")
    assert new["content"].startswith("application/rss+xml, application/rdf+xml;q=0.8")


def test_a_failed_fetch_and_a_page_that_is_no_feed_fail_the_node_on_both_sides(results: Results) -> None:
    failed = [(e, g) for c, e, g, _ in results if c.endswith(("missing.xml", "html.xml"))]
    assert len(failed) == 6
    assert all(e.error_node == g.error_node == UNDER_TEST for e, g in failed)
