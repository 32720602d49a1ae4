"""An AI Agent's tools whose calls LangChain fixes (Wikipedia, SerpApi), and the files n8n adds to an agent's prompt.

What n8n does (LangChain's ``WikipediaQueryRun``, the tool named after the node): the model's
input is searched (``GET https://en.wikipedia.org/w/api.php?action=query&list=search&srsearch=…
&format=json``), then each of the first three hits' page is read (``action=query&prop=extracts
&explaintext=true&redirects=1&format=json&titles=…``), and the tool's result is
``Page: <title>\\nSummary: <extract>`` per page, joined by a blank line, cut at 4000 characters
("No good Wikipedia Search Result was found" without a hit). Each GET is ``ctx.call`` under the
tool's step (memoised by occurrence), its query written as JavaScript's ``URLSearchParams`` writes it.

SerpApi (LangChain's ``SerpAPI``, :func:`serpapi`): ``GET https://serpapi.com/search?<the node's
options>&api_key=<key>&q=<input>``, the key the gateway's placeholder (written in on the wire
only); the result is read from the answer as LangChain reads it: the answer box's result, answer,
snippet or highlighted words (else its plain fields as JSON), else the first result list present
(events, sports, top stories, news, jobs, Q&A, destinations, sights, shopping, images), else the
knowledge graph's and first organic result's snippets as a JSON list, else "No good search result found".

Files (:func:`binary_message`, n8n's ``extractBinaryMessages`` with ``passthroughBinaryImages``): an
item's image files become ``image_url`` parts (a ``data:`` URL of the base64 data) and its text
files ``text`` parts (``File: <name>\nContent:\n<text>``), one user message after the prompt.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from ..errors import NodeFailed

WIKIPEDIA = "https://en.wikipedia.org/w/api.php"
SERPAPI = "https://serpapi.com"
_TEXT = frozenset({"application/json", "application/xml", "application/csv", "application/x-yaml", "application/yaml"})
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


def _js(value: Any) -> str:
    """``JSON.stringify`` of JSON data (compact, non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _truthy(value: Any) -> bool:
    """JavaScript's truthiness of a JSON value (an empty list or object is truthy)."""
    return value not in (None, False, 0, "") or isinstance(value, (list, dict))


def _js_string(value: Any) -> str:
    """``String(value)`` of JSON data: a list joined by commas (``toString``), an object as ``[object Object]``."""
    if isinstance(value, list):
        return ",".join("" if v is None else _js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def _answer_box(box: Mapping[str, Any]) -> str:
    for key in ("result", "answer", "snippet"):
        if _truthy(box.get(key)):
            return box[key] if isinstance(box[key], str) else _js_string(box[key])
    if _truthy(box.get("snippet_highlighted_words")):
        return _js_string(box["snippet_highlighted_words"])
    return _js({k: v for k, v in box.items() if not isinstance(v, (list, dict)) and v is not None
                and not (isinstance(v, str) and v.startswith("http"))})


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, Mapping) else None


def serpapi_result(res: Mapping[str, Any]) -> str:
    """Return the SerpApi tool's result of one search answer, as LangChain's SerpAPI reads it."""
    if _truthy(res.get("error")):
        raise NodeFailed(f"Got error from serpAPI: {_js_string(res['error'])}")
    box = res["answer_box_list"][0] if _truthy(res.get("answer_box_list")) else res.get("answer_box")
    if _truthy(box):
        return _answer_box(box) if isinstance(box, Mapping) else _js_string(box)
    for key in ("events_results", "sports_results", "top_stories", "news_results"):
        if _truthy(res.get(key)):
            return _js(res[key])
    for key, inner in (("jobs_results", "jobs"), ("questions_and_answers", None),
                       ("popular_destinations", "destinations")):
        found = res.get(key) if inner is None else _get(res.get(key), inner)
        if _truthy(found):
            return _js(found)
    sights = _get(res.get("top_sights"), "sights")
    if _truthy(sights):
        return _js([{k: s[k] for k in ("title", "description", "price") if k in s} for s in sights][:8])
    shopping: Any = res.get("shopping_results")
    images: Any = res.get("images_results")
    if isinstance(shopping, list) and shopping and _truthy(_get(shopping[0], "title")):
        return _js(shopping[:3])
    if isinstance(images, list) and images and _truthy(_get(images[0], "thumbnail")):
        return _js_string([_get(i, "thumbnail") for i in images][:10])
    snippets: list[Any] = []
    graph = res.get("knowledge_graph")
    if _truthy(graph) and isinstance(graph, Mapping):
        if _truthy(graph.get("description")):
            snippets.append(graph["description"])
        title = graph.get("title") or ""
        snippets += [f"{_js_string(title)} {k}: {v}" for k, v in graph.items() if isinstance(v, str) and k not in (
            "title", "description") and not k.endswith(("_stick", "_link")) and not k.startswith("http")]
    first = (res.get("organic_results") or [None])[0] if isinstance(res.get("organic_results"), list) else None
    if _truthy(first) and isinstance(first, Mapping):
        for key in ("snippet", "snippet_highlighted_words", "rich_snippet", "rich_snippet_table", "link"):
            if _truthy(first.get(key)):
                snippets.append(first[key])
                break
    if _truthy(res.get("buying_guide")):
        snippets.append(res["buying_guide"])
    if _truthy(_get(res.get("local_results"), "places")):
        snippets.append(res["local_results"]["places"])
    return _js(snippets) if snippets else "No good search result found"


async def serpapi(ctx: Any, provider: str, query: Any, options: list[list[str]], *, step: str, key: str,
                  url: str = SERPAPI) -> str:
    """Run the SerpApi tool for ``query``: one GET (the options, the key, ``q``), its answer read."""
    pairs = [(k, v) for k, v in options] + [("api_key", key), ("q", _js_string(query))]
    response = await ctx.call(provider, "GET", f"{url}/search?{search_params(pairs)}", step=step)
    return serpapi_result(response.json())


def tool_result(items: list[Mapping[str, Any]]) -> str:
    """Return what n8n hands the model of an app tool's run: ``JSON.stringify`` of its output items' json."""
    return _js([item.get("json") for item in items])


def _is_text(mime: str) -> bool:
    return mime.startswith("text/") or mime in _TEXT


def binary_message(item: Mapping[str, Any]) -> dict[str, Any] | None:
    """Return the user message of the item's image and text files n8n's agent adds after the prompt (None: none)."""
    parts: list[dict[str, Any]] = []
    for entry in (item.get("binary") or {}).values() if isinstance(item.get("binary"), Mapping) else ():
        mime = str(entry.get("mimeType", "")) if isinstance(entry, Mapping) else ""
        data = str(entry.get("data") or "") if isinstance(entry, Mapping) else ""
        if mime.startswith("image/"):
            parts.append({"type": "image_url", "image_url": {
                "url": data if "base64" in data else f"data:{mime};base64,{data}"}})
        elif _is_text(mime):
            raw = data.split("base64,", 1)[1] if "base64," in data else data
            text = base64.b64decode(raw + "=" * (-len(raw) % 4)).decode("utf-8", errors="replace")
            parts.append({"type": "text", "text": f"File: {'attachment' if entry.get('fileName') is None else entry['fileName']}\nContent:\n{text}"})
    return {"role": "user", "content": parts} if parts else None


__all__ = ["SERPAPI", "WIKIPEDIA", "binary_message", "search_params", "serpapi", "serpapi_result", "tool_result",
           "wikipedia"]
