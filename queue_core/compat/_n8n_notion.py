"""What a scaffolded n8n Notion v2 *Create Database Page* needs at run time: the title key and n8n's body.

``notion_title_key`` reads the database's title property from ``GET /v1/databases/<id>`` (the last
property of type ``title``, as n8n's loop leaves it); in a shadow run that call is answered with the
node's recorded output, the created page, whose properties carry the same title property.
``notion_page_body`` is n8n's body: the parent database, the title (unless it is empty), the
properties as n8n's ``mapProperties`` writes them (v2: a select by name), the blocks and the icon.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ._n8n_js import text

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", re.I)


def notion_title_key(response: Any) -> str:
    """Return the key of the database's (last) title property; ``""`` when it has none."""
    try:
        answer = response.json()
    except ValueError:
        answer = None
    properties = (answer or {}).get("properties") if isinstance(answer, dict) else None
    found = ""
    for key, prop in (properties or {}).items():
        if isinstance(prop, dict) and prop.get("type") == "title":
            found = key
    return found


def _empty(value: Any) -> bool:
    return value is None or value == ""


def _value(value: dict[str, Any], kind: str) -> dict[str, Any] | None:
    if kind == "rich_text":
        return {"rich_text": [{"text": {"content": value.get("textContent")}}]}
    if kind == "title":
        return {"title": [{"text": {"content": value.get("title")}}]}
    if kind == "number":
        return {"type": "number", "number": value.get("numberValue")}
    if kind == "url":
        url = value.get("urlValue")
        return None if not url and value.get("ignoreIfEmpty") else {"type": "url", "url": url}
    if kind == "checkbox":
        return {"type": "checkbox", "checkbox": value.get("checkboxValue")}
    if kind == "multi_select":
        chosen = value.get("multiSelectValue")
        if _empty(chosen):
            return {"type": "multi_select", "multi_select": []}
        options = chosen if isinstance(chosen, list) else [v.strip() for v in text(chosen).split(",")]
        return {"type": "multi_select", "multi_select": [
            {"id": o} if isinstance(o, str) and _UUID.match(o) else {"name": o} for o in options if o is not None]}
    if kind == "email":
        return {"type": "email", "email": value.get("emailValue")}
    if kind == "phone_number":
        return {"type": "phone_number", "phone_number": value.get("phoneValue")}
    if kind == "select":
        chosen = value.get("selectValue")
        return {"type": "select", "select": None if _empty(chosen) else {"name": chosen}}
    if kind == "status":
        return {"type": "status", "status": {"name": value.get("statusValue")}}
    return {}


def notion_page_body(title_key: str, title: Any, database: Any, properties: Sequence[dict[str, Any]],
                     blocks: list[Any], icon: Any, icon_type: Any) -> dict[str, Any]:
    """Return n8n's Notion v2 *Create Database Page* body."""
    body: dict[str, Any] = {"parent": {}, "properties": {}}
    if title != "":
        body["properties"][title_key] = {"title": [{"text": {"content": title}}]}
    body["parent"]["database_id"] = database
    for prop in properties:
        key = prop.get("key")
        if not isinstance(key, str):
            continue
        name, _, kind = key.partition("|")
        mapped = _value(prop, kind)
        if mapped:
            body["properties"][name] = mapped
    body["children"] = blocks
    if icon:
        body["icon"] = {"external": {"url": icon}} if icon_type == "file" else {"emoji": icon}
    return body

