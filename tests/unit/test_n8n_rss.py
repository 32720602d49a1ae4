"""RSS Read: the GET n8n's node makes (respx answers) and rss-parser's item shape, RSS 2.0, RDF and Atom."""

from __future__ import annotations

import httpx
import pytest
import respx

from queue_core.compat import n8n
from queue_core.compat._n8n_jsdate import iso_string, js_date
from queue_core.compat._n8n_rss import feed_items, snippet
from queue_core.compat._n8n_xml import tree
from queue_core.errors import NodeFailed
from tests.support.app_calls import run_node, scaffold_node

URL = "https://news.example.test/feed.xml"
BASES = {"news": "https://news.example.test"}
RSS = """<?xml version="1.0"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
 <channel><title>t</title>
  <item>
   <title>A &amp; B</title><link>https://news.example.test/a</link>
   <description><![CDATA[<p>One</p><p>Two &amp; three</p>]]></description>
   <content:encoded>&lt;h2&gt;Full&lt;/h2&gt;&lt;p&gt;body&lt;/p&gt;</content:encoded>
   <pubDate>Mon, 01 Jan 2024 12:00:00 +0100</pubDate><dc:creator>Ada</dc:creator>
   <guid isPermaLink="false">g-1</guid><category>x</category><category domain="d">y</category>
   <enclosure url="https://news.example.test/a.mp3" type="audio/mpeg" length="7"/>
   <media:thumbnail xmlns:media="http://search.yahoo.com/mrss/" url="https://news.example.test/a.jpg"/>
  </item>
  <item><title/></item>
 </channel>
</rss>"""
ATOM = """<feed xmlns="http://www.w3.org/2005/Atom">
 <entry><title>E</title><link rel="self" href="https://x.test/self"/><link rel="alternate" href="https://x.test/e"/>
  <id>urn:e</id><updated>2024-02-03T04:05:06Z</updated><author><name>Grace</name></author>
  <content type="html">&lt;b&gt;bold&lt;/b&gt; text</content><summary>s</summary></entry>
 <entry><title type="xhtml"></title><link href="https://x.test/f"/><published>not a date</published></entry>
</feed>"""


def _node(version: float = 1.2, **params: object) -> dict[str, object]:
    return {"name": "Feed", "type": "n8n-nodes-base.rssFeedRead", "typeVersion": version,
            "parameters": {"url": URL, **params}}


def test_an_rss_item_has_rss_parsers_fields_and_an_empty_element_is_an_empty_string() -> None:
    custom = n8n.rss_fields(" media:thumbnail ,dc:missing")
    first, second = feed_items(tree(RSS), custom)
    assert first["title"] == "A & B" and first["creator"] == first["dc:creator"] == "Ada"
    assert first["content"] == "<p>One</p><p>Two &amp; three</p>" and first["contentSnippet"] == "One\nTwo & three"
    assert first["content:encoded"] == "<h2>Full</h2><p>body</p>" and first["content:encodedSnippet"] == "Full\nbody"
    assert first["guid"] == "g-1" and first["categories"] == ["x", {"_": "y", "$": {"domain": "d"}}]
    assert first["enclosure"] == {"url": "https://news.example.test/a.mp3", "type": "audio/mpeg", "length": "7"}
    assert first["isoDate"] == "2024-01-01T11:00:00.000Z" and "dc:missing" not in first
    assert first["media:thumbnail"] == {"$": {"xmlns:media": "http://search.yahoo.com/mrss/",
                                              "url": "https://news.example.test/a.jpg"}}
    assert second == {"title": ""}


def test_an_atom_entry_takes_the_alternate_link_and_an_invalid_published_date_fails_as_in_n8n() -> None:
    with pytest.raises(NodeFailed, match="Invalid time value"):
        feed_items(tree(ATOM), [])
    entry = feed_items(tree(ATOM.replace("not a date", "2024-02-01")), [])
    assert entry[0] == {"title": "E", "link": "https://x.test/e", "pubDate": "2024-02-03T04:05:06.000Z",
                        "author": "Grace", "content": "<b>bold</b> text", "contentSnippet": "bold text",
                        "summary": "s", "id": "urn:e", "isoDate": "2024-02-03T04:05:06.000Z"}
    assert entry[1] == {"title": {"$": {"type": "xhtml"}}, "link": "https://x.test/f",
                        "pubDate": "2024-02-01T00:00:00.000Z", "isoDate": "2024-02-01T00:00:00.000Z"}


def test_a_document_that_is_no_feed_or_declares_entities_fails_the_node() -> None:
    with pytest.raises(NodeFailed, match="Feed not recognized as RSS 1 or 2"):
        feed_items(tree("<rss><channel/></rss>"), [])
    bomb = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><rss version="2.0">&b;</rss>'
    with pytest.raises(NodeFailed, match="entities"):
        tree(bomb)
    with pytest.raises(NodeFailed, match="not XML"):
        tree('<rss version="2.0"><channel><item><title>&nbsp;</title></item></channel></rss>')


@pytest.mark.parametrize(("text", "iso"), [  # what V8's new Date(text).toISOString() gives (node 20)
    ("Tue, 02 Jan 2024 10:00:00 GMT", "2024-01-02T10:00:00.000Z"),
    ("02 Jan 2024 10:00:00 EST", "2024-01-02T15:00:00.000Z"),
    ("Tue, 02 Jan 24 10:00:00 GMT", "2024-01-02T10:00:00.000Z"),
    ("Jan 2 2024 10:00:00 GMT+0100", "2024-01-02T09:00:00.000Z"),
    ("2024-01-02T10:00:00.5+02:00", "2024-01-02T08:00:00.500Z"),
    ("2024-01-02", "2024-01-02T00:00:00.000Z"),
    ("January 9, 2024 3:04 PM UTC", "2024-01-09T15:04:00.000Z"),
    ("Tue, 02 Jan 2024 10:00:00 CET", None),
    ("Tue, 02 Jan 2024 25:00:00 GMT", None),
    ("20240102", None),
])
def test_dates_read_as_javascript_reads_them(text: str, iso: str | None) -> None:
    moment = js_date(text)
    assert (iso_string(moment) if moment else None) == iso


def test_the_snippet_breaks_lines_at_block_tags_and_decodes_entities() -> None:
    assert snippet("<div>a</div><div>b &copy;</div>") == "a\nb \u00a9"
    assert snippet("  <br/>x&nbsp;y  ") == "x\u00a0y"


@respx.mock
def test_v1_2_gets_the_feed_once_per_item_with_its_accept_header_and_outputs_its_items() -> None:
    route = respx.get(URL).mock(return_value=httpx.Response(200, text=RSS, headers={"content-type": "text/xml"}))
    ctx, out, error = run_node(_node(), [{"n": 1}, {"n": 2}], BASES)
    assert error is None and route.call_count == 2 and out is not None and len(out) == 4
    sent = route.calls[0].request.headers
    assert sent["user-agent"] == "rss-parser" and sent["accept"].startswith("application/rss+xml, application/rdf")
    assert out[0]["link"] == "https://news.example.test/a" and out[2] == out[0]


@respx.mock
def test_v1_gets_the_feed_once_and_asks_for_rss() -> None:
    route = respx.get(URL).mock(return_value=httpx.Response(200, text=RSS))
    ctx, out, error = run_node(_node(1), [{"n": 1}, {"n": 2}], BASES)
    assert error is None and route.call_count == 1 and len(out or []) == 2
    assert route.calls[0].request.headers["accept"] == "application/rss+xml"


@respx.mock
def test_a_failed_fetch_fails_the_node_and_a_latin1_feed_is_decoded_by_its_charset() -> None:
    respx.get(URL).mock(return_value=httpx.Response(404, text="gone"))
    _, _, error = run_node(_node(), [{}], BASES)
    assert error is not None
    body = RSS.replace("A &amp; B", "Caf\xe9").encode("latin-1")
    respx.get(URL).mock(return_value=httpx.Response(200, content=body, headers={"content-type": "text/xml; charset=ISO-8859-1"}))
    _, out, error = run_node(_node(), [{}], BASES)
    assert error is None and out is not None and out[0]["title"] == "Caf\xe9"


def test_a_computed_url_is_sent_to_the_provider_it_starts_with_and_recorded_items_pass_on() -> None:
    status, source = scaffold_node(_node(url="={{ $json.feed }}"))
    assert status.startswith("translated") and "n8n.provider_of(ctx, url, 'Feed')" in source
    recorded = httpx.Response(200, json=[{"title": "kept"}], headers={"X-Cutover-Recorded": "r"})
    assert n8n.rss_items(recorded, [], node="Feed") == [{"json": {"title": "kept"}}]
    with pytest.raises(NodeFailed, match='The provided "URL" is not valid'):
        n8n.rss_url("news.example.test/feed", node="Feed")


def test_continue_on_error_is_a_todo_naming_why() -> None:
    status, _ = scaffold_node({**_node(), "onError": "continueRegularOutput"})
    assert status.startswith("todo") and "continue on error" in status
