"""What scaffolded n8n app nodes that page or reshape records need at run time (Airtable, HubSpot search).

Each helper makes the node's call(s) through ``ctx.call`` (so budgets, keys, modes and records
apply) and returns the node's items shaped as n8n outputs them. Where the node returns every
result (``returnAll``), the helper follows the app's cursor page by page, as n8n does.

In a shadow run the gateway answers a call with the legacy node's recorded *output* (its items'
``json``), not the app's API answer: a response that does not have the API's shape (no list under
the app's records key) is that recording, and is already the node's items, so it is passed on as
it is and no further page is asked for.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from ..errors import NodeFailed
from ..gateway.request import OFFLINE_HEADERS
from ._n8n_binary import STAND_IN_PART, binary_of, file_part
from ._n8n_js import text, truthy

Item = dict[str, Any]

# encodeURI leaves these as they are (besides letters and digits)
_URI_SAFE = ";,/?:@&=+$#-_.!~*'()"


def encode_uri(value: Any) -> str:
    """Return JavaScript's ``encodeURI(value)`` (what n8n's Airtable node does to a table name)."""
    return quote(text(value), safe=_URI_SAFE)


def truthy_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Return the fields whose value is truthy in JavaScript (n8n sets a query field ``if (value)``)."""
    return {k: v for k, v in fields.items() if truthy(v)}


def listed_names(value: Any) -> list[Any]:
    """Return a list option as n8n reads it: a comma-separated text split and trimmed, a list as it is."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",")]
    return list(value or [])


def notion_page_id(value: Any) -> str:
    """Return n8n's Notion ``extractPageId``: the part after ``p=``, or after the last ``-`` of an https URL."""
    page = text(value)
    if "p=" in page:
        return page.split("p=")[1]
    if "-" in page and "https" in page:
        return page.split("-")[-1]
    return page


def _body(response: Any) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def offline(response: Any) -> bool:
    """Tell whether a call's answer is a shadow/dry-run stand-in: the legacy run's recorded output of the
    node (or the gateway's synthetic answer), marked by the gateway, never a live provider's answer."""
    headers = getattr(response, "headers", None) or {}
    return any(name in headers for name in OFFLINE_HEADERS)


def not_the_api(response: Any, body: Any, what: str) -> list[Item]:
    """Return the items of an answer that is not the API's shape: a recorded node output in shadow and
    dry-run; live, the node fails naming what it expected, instead of passing an odd answer on."""
    if offline(response):
        return recorded_items(body)
    raise NodeFailed(f"the answer is not {what}: {str(body)[:200]}")


def recorded_items(body: Any) -> list[Item]:
    """Return a recorded node output (shadow) as items: a list is one item per element."""
    if body is None:
        return []
    values = body if isinstance(body, list) else [body]
    return [{"json": v if isinstance(v, dict) else {"value": v}} for v in values if not isinstance(v, str)
            or not v.startswith("… ")]


def _api_list(body: Any, key: str) -> list[Any] | None:
    """Return the API answer's list under ``key`` (dotted), or None when the body is not the API's shape."""
    found: Any = body
    for part in key.split("."):
        if not isinstance(found, dict) or part not in found:
            return None
        found = found[part]
    return found if isinstance(found, list) else None


# -- Airtable v2 -------------------------------------------------------------------------------

def flatten_record(record: Any) -> Any:
    """Return an Airtable record as n8n's Airtable v2 outputs it: ``{id, createdTime, ...fields}``."""
    if not isinstance(record, dict) or not isinstance(record.get("fields"), dict):
        return record  # already flat (a recorded output)
    rest = {k: v for k, v in record.items() if k != "fields"}
    return {**rest, **record["fields"]}


def airtable_record(response: Any) -> list[Item]:
    """Return a got record's item (flattened)."""
    body = _body(response)
    if not isinstance(body, dict):
        return not_the_api(response, body, "an Airtable record")
    return [{"json": flatten_record(body)}]


async def airtable_pages(ctx: Any, provider: str, url: str, query: dict[str, Any], *, step: str,
                         return_all: bool = True) -> tuple[list[Any], list[Item] | None]:
    """Return the records of ``GET url`` (every page when ``return_all``: ``pageSize`` 100, then ``offset``).

    The second value is the recorded output (shadow) when the first answer is one instead of
    Airtable's ``{records, offset}``; None otherwise.
    """
    params = dict(query)
    if return_all:
        params["pageSize"] = "100"
    records: list[Any] = []
    while True:
        response = await ctx.call(provider, "GET", url, params=params, step=step)
        body = _body(response)
        page = _api_list(body, "records")
        if page is None:
            return records, (None if records else not_the_api(response, body, "Airtable's {records, offset}"))
        records.extend(page)
        if not return_all or body.get("offset") is None:
            return records, None
        params["offset"] = text(body["offset"])


async def airtable_search(ctx: Any, provider: str, url: str, query: dict[str, Any], *, step: str,
                          return_all: bool) -> list[Item]:
    """n8n's Airtable v2 *Search*: the records (every page, or ``maxRecords`` of them), flattened."""
    records, recorded = await airtable_pages(ctx, provider, url, query, step=step, return_all=return_all)
    if recorded is not None:
        return recorded
    return [{"json": flatten_record(r)} for r in records]


def airtable_updated(response: Any) -> list[Item]:
    """Return an Airtable v2 *Update*'s items: the answer's records as they are (n8n does not flatten them)."""
    body = _body(response)
    page = _api_list(body, "records")
    return not_the_api(response, body, "Airtable's {records}") if page is None else [{"json": r} for r in page]


def airtable_matches(table: Sequence[Any], keys: Sequence[str], fields: dict[str, Any], *, update_all: bool,
                     node: str) -> list[Any]:
    """Return the record ids whose fields equal ``fields`` on every key (the first one, or all of them).

    Raises NodeFailed with n8n's message when none does.
    """
    found = [r.get("id") for r in table if isinstance(r, dict)
             and all((r.get("fields") or {}).get(k, _ABSENT) == fields.get(k, _ABSENT) for k in keys)]
    if not found:
        raise NodeFailed(f"{node}: " + ("No records match provided keys" if update_all
                                        else "Record matching provided keys was not found"))
    return found if update_all else found[:1]


_ABSENT = object()


def without(fields: Any, names: Any) -> dict[str, Any]:
    """Return ``fields`` without the named ones (n8n's ``removeIgnored``: a comma-separated text or a list)."""
    record = dict(fields or {})
    if not names:
        return record
    dropped = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    return {k: v for k, v in record.items() if k not in dropped}


async def airtable_patch(ctx: Any, provider: str, url: str, records: list[dict[str, Any]], *, typecast: bool,
                         step: str) -> list[Item]:
    """PATCH ``records`` in batches of 10 (n8n's ``batchUpdate``); return the updated records' items."""
    if not records:
        return []
    out: list[Item] = []
    for start in range(0, len(records), 10):
        response = await ctx.call(provider, "PATCH", url, json={"typecast": typecast,
                                                                 "records": records[start:start + 10]}, step=step)
        out.extend(airtable_updated(response))
    return out


# -- HubSpot (search and list endpoints) -------------------------------------------------------

async def hubspot_pages(ctx: Any, provider: str, method: str, url: str, key: str, *, step: str,
                        params: dict[str, Any] | None = None, body: dict[str, Any] | None = None) -> list[Item]:
    """Every page of a HubSpot list or search, as n8n's ``hubspotApiRequestAllItems`` asks for them.

    The query gets ``limit`` 250 and ``count`` 100 (and ``offset``/``vidOffset`` from the last
    answer), a body ``limit`` 100 and ``after`` from ``paging.next.after``; pages follow while the
    answer says ``hasMore``, ``has-more`` or has ``paging``. The items are the answers' ``key`` lists.
    """
    query: dict[str, Any] = {**(params or {}), "limit": (params or {}).get("limit") or 250, "count": 100}
    sent = None if body is None and method == "GET" else {**(body or {}), "limit": (body or {}).get("limit") or 100}
    out: list[Item] = []
    while True:
        kwargs: dict[str, Any] = {"params": {k: v for k, v in query.items() if v is not None}}
        if sent is not None:
            kwargs["json"] = sent
        response = await ctx.call(provider, method, url, step=step, **kwargs)
        answer = _body(response)
        page = _api_list(answer, key)
        if page is None:
            return out or not_the_api(response, answer, f"HubSpot's {{{key}}} page")
        out.extend({"json": r if isinstance(r, dict) else {"value": r}} for r in page)
        query["offset"], query["vidOffset"] = answer.get("offset"), answer.get("vid-offset")
        if isinstance(answer.get("paging"), dict) and sent is not None:
            sent = {**sent, "after": ((answer["paging"].get("next") or {}).get("after"))}
        if not (answer.get("hasMore") or answer.get("has-more") or answer.get("paging")):
            return out


def hubspot_search_body(groups: Sequence[Sequence[dict[str, Any]]], extra: dict[str, Any], *, filtered: bool,
                        node: str) -> dict[str, Any]:
    """Return a HubSpot v2 contact search's body as n8n builds it.

    ``sorts`` by ``sortBy`` (``createdate``) and ``direction`` (``DESCENDING``); each filter group's
    filters with the property name cut at ``|`` (n8n's options carry the type after it); then
    the additional fields themselves (n8n ``Object.assign``s them onto the body). Raises
    NodeFailed past 3 groups, as n8n does.
    """
    body: dict[str, Any] = {"sorts": [{"propertyName": extra.get("sortBy") or "createdate",
                                       "direction": extra.get("direction") or "DESCENDING"}]}
    if filtered:
        body["filterGroups"] = [{"filters": [
            {**f, "propertyName": text(f.get("propertyName")).split("|")[0]} if f.get("propertyName") is not None
            else dict(f) for f in group]} for group in groups]
        if len(body["filterGroups"]) > 3:
            raise NodeFailed(f"{node}: You can only have 3 filter groups")
    body.update(extra)
    return body


def data_items(response: Any) -> list[Item]:
    """Return the answer's ``data`` (Asana's envelope, also Notion's and others') as the node's items.

    A list is one item per element; an answer without ``data`` is a recorded output (shadow).
    """
    answer = _body(response)
    if isinstance(answer, dict) and "data" in answer:
        return recorded_items(answer["data"])
    return not_the_api(response, answer, "an answer with data")


def drive_folder_body(name: Any, folder: Any, drive: Any, color: Any) -> dict[str, Any]:
    """Return Google Drive v3 *Create Folder*'s body as n8n builds it (``setParentFolder``: the folder
    unless it is ``root``, else the drive unless it is ``My Drive``, else ``root``)."""
    parent = folder if folder != "root" else drive if drive and drive != "My Drive" else "root"
    body: dict[str, Any] = {"name": name or "Untitled", "mimeType": "application/vnd.google-apps.folder",
                            "parents": [parent]}
    if color:
        body["folderColorRgb"] = color
    return body


def encode_uri_component(value: Any) -> str:
    """Return JavaScript's ``encodeURIComponent(value)`` (a GitHub file path: ``/`` becomes ``%2F``)."""
    return quote(text(value), safe="-_.!~*'()")


_BASE64 = re.compile(r"^([0-9a-zA-Z+/]{4})*(([0-9a-zA-Z+/]{2}==)|([0-9a-zA-Z+/]{3}=))?$")


def github_content(value: Any) -> str:
    """Return a GitHub file's ``content``: the text as it is when it already reads as base64 (n8n's
    ``isBase64``), else its UTF-8 bytes base64-encoded."""
    content = text(value)
    if _BASE64.match(content):
        return content
    return base64.b64encode(content.encode("utf-8")).decode("ascii")


def github_sha(response: Any, node: str) -> Any:
    """Return the ``sha`` of a read file (n8n's ``getFileSha``); raise NodeFailed as n8n does without one.

    A recorded output (shadow) is the written file's answer: its ``content.sha`` stands in.
    """
    answer = _body(response)
    if isinstance(answer, dict) and answer.get("sha") is not None:
        return answer["sha"]
    if isinstance(answer, dict) and isinstance(answer.get("content"), dict) and answer["content"].get("sha"):
        return answer["content"]["sha"]
    raise NodeFailed(f"{node}: Could not get the SHA of the file.")


def listed(response: Any, key: str) -> list[Item]:
    """Return the items of one answer's ``key`` list (HubSpot's ``results``/``contacts``), or a recorded output."""
    answer = _body(response)
    page = _api_list(answer, key)
    if page is None:
        return not_the_api(response, answer, f"an answer with a {key} list")
    return [{"json": r if isinstance(r, dict) else {"value": r}} for r in page]


_DRIVE = "https://www.googleapis.com"


async def drive_upload(ctx: Any, provider: str, item: Item, index: int, *, prop: Any, name: Any, folder: Any,
                       drive: Any, options: dict[str, Any], step: str, node: str) -> list[Item]:
    """Return Google Drive v3 *Upload*'s items as n8n makes them: the item's binary property sent as a
    ``multipart/related`` upload (``uploadType=multipart``: the metadata's JSON, then the bytes), then
    ``PATCH /drive/v3/files/<id>`` with its name, MIME type and original file name, which is the item.

    The name is the node's, else the binary's file name; the parent is n8n's (``setParentFolder``).
    A recorded upload answer (a shadow run) answers both calls.
    """
    file_name, data, mime = file_part(item, text(prop), index, ctx)
    original = None if (file_name, data, mime) == STAND_IN_PART else binary_of(item, text(prop), index, node).get("fileName")
    title = name if truthy(name) else original
    parent = folder if folder != "root" else drive if drive and drive != "My Drive" else "root"
    metadata = {**({"name": title} if title is not None else {}), "parents": [parent]}
    parts = {"metadata": ("", json.dumps(metadata, separators=(",", ":"), ensure_ascii=False).encode(), "application/json"),
             "data": ("", data, mime)}
    sent = await ctx.call(provider, "POST", f"{_DRIVE}/upload/drive/v3/files", files=parts,
                          params={"uploadType": "multipart", "supportsAllDrives": "true"},
                          headers={"Content-Type": "multipart/related"}, step=step)
    uploaded = _body(sent)
    upload_id = text((uploaded or {}).get("id") if isinstance(uploaded, dict) else None)
    query = {"addParents": parent, "includeItemsFromAllDrives": "true", "supportsAllDrives": "true",
             "spaces": "appDataFolder, drive", "corpora": "allDrives"}
    query.update({k: text(options[k]) for k in ("keepRevisionForever", "ocrLanguage", "useContentAsIndexableText")
                  if truthy(options.get(k))})
    if not truthy(options.get("simplifyOutput")):
        query["fields"] = "*"
    body = {"mimeType": mime, **({"name": title} if title is not None else {}),
            **({"originalFilename": original} if original is not None else {})}
    answer = await ctx.call(provider, "PATCH", f"{_DRIVE}/drive/v3/files/{upload_id}", json=body, params=query, step=step)
    return recorded_items(_body(answer))
