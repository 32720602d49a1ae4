"""n8n's RSS Read node at run time: a fetched feed's items in the shape its ``rss-parser`` (3.13) gives.

The fetch is the scaffold's ``ctx.call`` (so budgets, modes and recordings apply); :func:`rss_items`
turns the answer into n8n's items, one per feed item: RSS 2.0, 0.9x and 1.0 (RDF) items with
``title``, ``link``, ``pubDate``, ``creator`` (``author`` / ``dc:creator``), ``content`` and
``contentSnippet`` (from ``description``), ``content:encoded`` (+ ``Snippet``), ``guid``,
``categories``, ``enclosure`` (its attributes), ``comments``, the ``dc:*`` fields, ``itunes`` on a
podcast feed, ``isoDate``; Atom entries with ``title``, ``link`` (the ``alternate`` one), ``pubDate``
(``published`` else ``updated``, as ISO), ``author``, ``content``/``contentSnippet``, ``summary``,
``id``, ``isoDate``. Custom fields (the node's option) are copied as rss-parser copies them: the
element's first occurrence, its text when it has attributes too. The XML tree is ``_n8n_xml``'s,
dates are ``_n8n_jsdate``'s. In shadow and dry-run the answer is the node's recorded output (the
gateway marks it offline): those are the items already.
"""

from __future__ import annotations

import html
import re
from typing import Any

from ..errors import NodeFailed
from ._n8n_jsdate import iso_string, js_date
from ._n8n_records import _body, offline, recorded_items
from ._n8n_xml import build, tree

Item = dict[str, Any]
ACCEPT_V12 = ("application/rss+xml, application/rdf+xml;q=0.8, application/atom+xml;q=0.6, "
              "application/xml;q=0.4, text/xml;q=0.4")  # what v1.2 asks for; earlier versions rss-parser's own

_ITEM_FIELDS: list[tuple[str, str, bool]] = [  # rss-parser's fields.item: (from, to, with a snippet)
    ("author", "creator", False), ("dc:creator", "creator", False), ("dc:date", "date", False),
    ("dc:language", "language", False), ("dc:rights", "rights", False), ("dc:source", "source", False),
    ("dc:title", "title", False), ("title", "title", False), ("link", "link", False),
    ("pubDate", "pubDate", False), ("author", "author", False), ("summary", "summary", False),
    ("content:encoded", "content:encoded", True), ("enclosure", "enclosure", False),
    ("dc:creator", "dc:creator", False), ("dc:date", "dc:date", False), ("comments", "comments", False),
]
_PODCAST_ITEM = ["author", "subtitle", "summary", "explicit", "duration", "image", "episode", "image",
                 "season", "keywords", "episodeType"]
_BLOCK = re.compile(r"([^\n])</?(h|br|p|ul|ol|li|blockquote|section|table|tr|div)[^\r\u2028\u2029]*?>([^\n])")
_TAG = re.compile(r"<[^\r\u2028\u2029]*?>")
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_ENCODING = re.compile(r"(encoding|charset)\s*=\s*(\S+)")
_CODECS = {"utf8": "utf-8", "utf-8": "utf-8", "ascii": "latin-1", "latin1": "latin-1", "iso-8859-1": "latin-1",
           "binary": "latin-1", "utf16le": "utf-16-le", "ucs2": "utf-16-le"}


def _truthy(value: Any) -> bool:
    return value not in (None, "", 0, False)


def snippet(text: str) -> str:
    """Return rss-parser's ``contentSnippet``: block tags to line breaks, tags dropped, entities decoded, trimmed."""
    text = _BLOCK.sub(r"\1\n\3", text)
    return html.unescape(_TAG.sub("", text)).strip(_JS_SPACE)


def _content(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("_"), str):
        return value["_"]
    if isinstance(value, dict):
        return build(value)  # markup inside the element (Atom xhtml): written back as XML
    return value


def _copy(xml: dict[str, Any], dest: Item, fields: list[tuple[str, str, bool]]) -> None:
    for source, target, with_snippet in fields:
        if source in xml and source not in ("$", "_"):
            dest[target] = xml[source][0]
        if isinstance(dest.get(target), dict) and isinstance(dest[target].get("_"), str):
            dest[target] = dest[target]["_"]
        if with_snippet and isinstance(dest.get(target), str) and dest[target]:
            dest[target + "Snippet"] = snippet(dest[target])


def _iso_date(item: Item) -> None:
    date = item.get("pubDate") if _truthy(item.get("pubDate")) else item.get("date")
    if _truthy(date) and isinstance(date, str):
        moment = js_date(date)
        if moment is not None:
            item["isoDate"] = iso_string(moment)


def _rss_item(xml: Any, custom: list[str]) -> Item:
    xml = xml if isinstance(xml, dict) else {}
    item: Item = {}
    _copy(xml, item, _ITEM_FIELDS + [(f, f, False) for f in custom])
    if "enclosure" in xml:
        first = xml["enclosure"][0]
        item.pop("enclosure", None)
        if isinstance(first, dict) and "$" in first:
            item["enclosure"] = first["$"]
    if "description" in xml:
        item["content"] = _content(xml["description"][0])
        if isinstance(item["content"], str):
            item["contentSnippet"] = snippet(item["content"])
    if "guid" in xml:
        guid = xml["guid"][0]
        item["guid"] = guid["_"] if isinstance(guid, dict) and _truthy(guid.get("_")) else guid
    about = (xml.get("$") or {}).get("rdf:about")
    if _truthy(about):
        item["rdf:about"] = about
    if "category" in xml:
        item["categories"] = xml["category"]
    _iso_date(item)
    return item


def _itunes(item: Item, xml: Any) -> None:
    xml = xml if isinstance(xml, dict) else {}
    entry: Item = {}
    _copy(xml, entry, [(f"itunes:{f}", f, False) for f in _PODCAST_ITEM])
    image = (xml.get("itunes:image") or [None])[0]
    if isinstance(image, dict) and _truthy((image.get("$") or {}).get("href")):
        entry["image"] = image["$"]["href"]
    item["itunes"] = entry


def _link(links: list[Any], rel: str, fallback: int) -> Any:
    for link in links:
        if not isinstance(link, dict) or "$" not in link:
            raise NodeFailed("Cannot read properties of undefined (reading 'rel')")
        if link["$"].get("rel") == rel:
            return link["$"].get("href")
    return links[fallback]["$"].get("href") if len(links) > fallback else None


def _atom_date(value: str) -> str:
    moment = js_date(value)
    if moment is None:
        raise NodeFailed("Invalid time value")  # rss-parser's toISOString on an Invalid Date
    return iso_string(moment)


def _atom_item(xml: Any, custom: list[str]) -> Item:  # noqa: C901 - rss-parser's parseItemAtom, step by step
    xml = xml if isinstance(xml, dict) else {}
    item: Item = {}
    _copy(xml, item, [(f, f, False) for f in custom])
    if "title" in xml:
        title = xml["title"][0] or ""
        if isinstance(title, dict) and _truthy(title.get("_")):
            title = title["_"]
        if _truthy(title):
            item["title"] = title
    if xml.get("link"):
        link = _link(xml["link"], "alternate", 0)
        if link is not None:
            item["link"] = link
    for key in ("published", "updated"):
        values = xml.get(key) or []
        if "pubDate" not in item and values and isinstance(values[0], str) and values[0]:
            item["pubDate"] = _atom_date(values[0])
    author = (xml.get("author") or [None])[0]
    if isinstance(author, dict) and author.get("name"):
        item["author"] = author["name"][0]
    if xml.get("content"):
        item["content"] = _content(xml["content"][0])
        item["contentSnippet"] = snippet(item["content"]) if isinstance(item["content"], str) else item["content"]
    if xml.get("summary"):
        item["summary"] = _content(xml["summary"][0])
    if "id" in xml:
        item["id"] = xml["id"][0]
    _iso_date(item)
    return item


def feed_items(document: dict[str, Any], custom: list[str]) -> list[Item]:
    """Return a parsed feed's items as rss-parser builds them; raise NodeFailed as it rejects a feed."""
    root = next(iter(document))
    body = document[root]
    if root == "feed" and _truthy(body):
        return [_atom_item(e, custom) for e in (body.get("entry") or [] if isinstance(body, dict) else [])]
    version = (body.get("$") or {}).get("version") if isinstance(body, dict) else None
    if root == "rss" and isinstance(version, str) and (version.startswith("2") or "0.9" in version):
        channel = (body.get("channel") or [{}])[0]
        channel = channel if isinstance(channel, dict) else {}
        items = [_rss_item(x, custom) for x in channel.get("item") or []]
        if version.startswith("2") and _truthy(body["$"].get("xmlns:itunes")):
            for item, xml in zip(items, channel.get("item") or [], strict=True):
                _itunes(item, xml)
        return items
    if root == "rdf:RDF" and isinstance(body, dict):
        return [_rss_item(x, custom) for x in body.get("item") or []]
    raise NodeFailed("Feed not recognized as RSS 1 or 2.")


def _text(response: Any) -> str:
    """Return the body decoded as rss-parser decodes it: the content type's charset if node knows it, else UTF-8."""
    found = _ENCODING.search(response.headers.get("content-type") or "")
    codec = _CODECS.get((found.group(2) if found else "").lower(), "utf-8")
    return bytes(response.content).decode(codec, errors="replace")


def rss_fields(value: Any) -> list[str]:
    """Return the node's Custom Fields option as rss-parser receives it (split at commas, trimmed)."""
    return [f.strip() for f in str(value).split(",")] if _truthy(value) else []


def rss_items(response: Any, custom: list[str], *, node: str) -> list[Item]:
    """Return n8n's items of one RSS Read fetch: the feed's items; raise NodeFailed naming the node."""
    if offline(response):
        return recorded_items(_body(response))
    try:
        return [{"json": item} for item in feed_items(tree(_text(response)), custom)]
    except NodeFailed as exc:
        raise NodeFailed(f"{node}: {exc}") from None


def rss_url(url: Any, *, node: str) -> str:
    """Return the URL the node fetches; raise NodeFailed as n8n does for an empty or an invalid one."""
    text = "" if url is None else str(url)
    if not text:
        raise NodeFailed(f'{node}: The parameter "URL" has to be set!')
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", text.strip()):
        raise NodeFailed(f'{node}: The provided "URL" is not valid!')
    return text
