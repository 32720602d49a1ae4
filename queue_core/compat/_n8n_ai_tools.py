"""An AI Agent's tools whose calls LangChain fixes: Wikipedia (``toolWikipedia``) as its REST calls.

What n8n does (LangChain's ``WikipediaQueryRun``, the tool named after the node): the model's
input is searched (``GET https://en.wikipedia.org/w/api.php?action=query&list=search&srsearch=…
&format=json``), then each of the first three hits' page is read (``action=query&prop=extracts
&explaintext=true&redirects=1&format=json&titles=…``), and the tool's result is
``Page: <title>\\nSummary: <extract>`` per page, joined by a blank line, cut at 4000 characters
("No good Wikipedia Search Result was found" without a hit). Each GET is ``ctx.call`` under the
tool's step (memoised by occurrence), its query written as JavaScript's ``URLSearchParams`` writes it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

WIKIPEDIA = "https://en.wikipedia.org/w/api.php"
TOP_K, MAX_LENGTH = 3, 4000


def _form(text: str) -> str:
    return quote(text, safe="*-._ ").replace("~", "%7E").replace(" ", "+")


def search_params(pairs: list[tuple[str, str]]) -> str:
    """Return ``pairs`` as JavaScript's ``URLSearchParams.toString()`` writes them (a space as ``+``)."""
    return "&".join(f"{_form(k)}={_form(v)}" for k, v in pairs)


def _js_slice(text: str, length: int) -> str:
    """``text.slice(0, length)`` in UTF-16 code units, as JavaScript counts them."""
    units = text.encode("utf-16-le")[: 2 * length]
    return units.decode("utf-16-le", errors="ignore")


async def wikipedia(ctx: Any, provider: str, query: Any, *, step: str, url: str = WIKIPEDIA) -> str:
    """Run the Wikipedia tool for ``query``: its search, then the first hits' extracts, as one text."""
    text = query if isinstance(query, str) else str(query)
    search = [("action", "query"), ("list", "search"), ("srsearch", text), ("format", "json")]
    found = (await ctx.call(provider, "GET", f"{url}?{search_params(search)}", step=step)).json()
    summaries = []
    for hit in ((found.get("query") or {}).get("search") or [])[:TOP_K]:
        title = str(hit.get("title"))
        page = [("action", "query"), ("prop", "extracts"), ("explaintext", "true"), ("redirects", "1"),
                ("format", "json"), ("titles", title)]
        pages = ((await ctx.call(provider, "GET", f"{url}?{search_params(page)}", step=step)).json().get(
            "query") or {}).get("pages") or {}
        details = next(iter(pages.values()), None) if isinstance(pages, dict) else None
        if details:
            summaries.append(f"Page: {title}\nSummary: {details.get('extract')}")
    if not summaries:
        return "No good Wikipedia Search Result was found"
    return _js_slice("\n\n".join(summaries), MAX_LENGTH)


__all__ = ["WIKIPEDIA", "search_params", "wikipedia"]
