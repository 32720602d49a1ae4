"""What a scaffolded n8n Notion v2 *Create Database Page* needs at run time: the title key and n8n's body.

``notion_title_key`` reads the database's title property from ``GET /v1/databases/<id>`` (the last
property of type ``title``, as n8n's loop leaves it); in a shadow run that call is answered with the
node's recorded output, the created page, whose properties carry the same title property.
``notion_page_body`` is n8n's body: the parent database, the title (unless it is empty), the
properties as n8n's ``mapProperties`` writes them (v2: a select by name), the blocks and the icon.
"""

from __future__ import annotations

import math
import os
import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo
from collections.abc import Sequence
from typing import Any

from ..errors import NodeFailed
from ._n8n_js import MISSING, as_json, text

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


def _value(value: dict[str, Any], kind: str, timezone: str | None = None) -> dict[str, Any] | None:
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
    if kind == "date":
        return _date(value, timezone)
    return {}


def _moment(value: Any, zone: str | None, include_time: Any) -> str:
    """Return ``moment.tz(value, zone).format(...)`` as n8n's Notion node formats a date property: ISO 8601
    text only (moment reads anything else with JavaScript's Date, which this does not reproduce)."""
    text_value = text(value)
    try:
        when = datetime.fromisoformat(text_value.strip())
    except ValueError:
        raise NodeFailed(f"the Notion date {text_value!r} is not ISO 8601 text: n8n's moment reads it with "
                         "JavaScript's Date, which cutover does not reproduce; give the date as ISO text") from None
    where = ZoneInfo(zone) if zone else UTC
    when = when.replace(tzinfo=where) if when.tzinfo is None else when.astimezone(where)
    if not include_time:
        return when.strftime("%Y-%m-%d")
    offset = when.utcoffset()
    if not offset:
        return when.strftime("%Y-%m-%dT%H:%M:%SZ")
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S%z")
    return f"{stamp[:-2]}:{stamp[-2:]}"


def _date(value: dict[str, Any], timezone: str | None) -> dict[str, Any]:
    """n8n's date property: the date (or range) in the property's time zone, or the workflow's ('default')."""
    # n8n fills each property entry's defaults at run time: includeTime true, the workflow's time zone
    zone = timezone if value.get("timezone", "default") == "default" else value.get("timezone")
    include = value.get("includeTime", True)
    if value.get("date") == "" or (value.get("dateStart") == "" and value.get("dateEnd") == ""):
        return {"type": "date", "date": None}  # an empty date resets the property, as n8n sends it
    if value.get("range") is True:
        return {"type": "date", "date": {"start": _moment(value.get("dateStart"), zone, include),
                                         "end": _moment(value.get("dateEnd"), zone, include)}}
    return {"type": "date", "date": {"start": _moment(value.get("date"), zone, include), "end": None}}


def notion_page_body(title_key: str, title: Any, database: Any, properties: Sequence[dict[str, Any]],
                     blocks: list[Any], icon: Any, icon_type: Any, timezone: str | None = None) -> dict[str, Any]:
    """Return n8n's Notion v2 *Create Database Page* body; ``timezone`` is the workflow's (a date property
    set to 'default' is read in it; None: ``GENERIC_TIMEZONE``, else n8n's America/New_York)."""
    timezone = timezone or os.environ.get("GENERIC_TIMEZONE") or "America/New_York"
    body: dict[str, Any] = {"parent": {}, "properties": {}}
    if title != "":
        body["properties"][title_key] = {"title": [{"text": {"content": title}}]}
    body["parent"]["database_id"] = database
    for prop in properties:
        key = prop.get("key")
        if not isinstance(key, str):
            continue
        name, _, kind = key.partition("|")
        mapped = _value(prop, kind, timezone)
        if mapped:
            body["properties"][name] = mapped
    body["children"] = blocks
    if icon:
        body["icon"] = {"external": {"url": icon}} if icon_type == "file" else {"emoji": icon}
    return body


# -- Simplify (n8n's simplifyObjects, Notion v2): written from n8n 1.123's GenericFunctions ----------------

_SPLIT = (re.compile(r"([a-z0-9])([A-Z])"), re.compile(r"([A-Z])([A-Z][a-z])"))
_STRIP = re.compile(r"[^A-Za-z0-9]+")
_AS_IS = ("url", "created_time", "checkbox", "number", "last_edited_time", "email", "phone_number", "date")


def snake_case(name: str) -> str:
    """Return change-case 4's ``snakeCase``: ASCII letters and digits only, camel case split, lower case
    (a name of other characters, Chinese among them, is ``""``)."""
    marked = _STRIP.sub("\0", _SPLIT[1].sub("\\1\0\\2", _SPLIT[0].sub("\\1\0\\2", name)))
    return "_".join(part.lower() for part in marked.strip("\0").split("\0")) if marked.strip("\0") else ""


def _keys(obj: dict[str, Any]) -> list[str]:
    """Return ``Object.keys`` order: array-index keys first, ascending, then the rest as inserted."""
    index = [k for k in obj if k.isdigit() and str(int(k)) == k and int(k) < 2**32 - 1]
    return sorted(index, key=int) + [k for k in obj if k not in index]


def _falsy(value: Any) -> bool:
    if value is None or value is MISSING or value is False or value == "":
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and (value == 0 or math.isnan(value))


def _or_empty(value: Any) -> Any:
    return {} if _falsy(value) else value


def _get(obj: Any, key: str) -> Any:
    return obj.get(key, MISSING) if isinstance(obj, dict) else MISSING


def _js_join(values: list[Any]) -> str:
    return "".join("" if v is None or v is MISSING else text(v) for v in values)


def _simplify(prop: dict[str, Any]) -> Any:
    kind = prop.get("type")
    value = prop.get(kind, MISSING) if isinstance(kind, str) else MISSING
    if kind == "text":
        return prop.get("plain_text", MISSING)
    if kind in ("rich_text", "title"):
        return _js_join([_simplify(t) for t in value]) if isinstance(value, list) and value else ""
    if kind in _AS_IS:
        return value
    if kind in ("created_by", "last_edited_by", "select"):
        return None if _falsy(value) else _get(value, "name")
    if kind == "people":
        return [_or_empty(_get(_get(p, "person"), "email")) for p in value] if isinstance(value, list) else value
    if kind == "multi_select":
        listed: Any = value if isinstance(value, list) else _get(value, "options")
        return [_or_empty(_get(e, "name")) for e in listed]
    if kind == "relation":
        return [_or_empty(_get(e, "id")) for e in value] if isinstance(value, list) else _get(value, "database_id")
    if kind == "formula":
        return _get(value, str(_get(value, "type")))
    if kind == "rollup":
        return _rollup(value)
    if kind == "files":
        files: Any = value
        return [_get(_get(f, str(f.get("type"))), "url") for f in files]
    if kind == "status":
        return _get(value, "name")
    return MISSING


def _rollup(value: Any) -> Any:
    function = str(_get(value, "function"))  # n8n fails on a rollup without one (TypeError): so does this (KeyError)
    if function.startswith("count") or "empty" in function:
        number = _get(value, "number")
        number = math.nan if number is MISSING else 0 if number is None else number
        return number * 100 if "percent" in function else number
    if function.startswith("show") and _get(value, "type") == "array":
        elements: list[Any] = []
        for element in value["array"]:
            got = _simplify(element)
            elements.extend(got if isinstance(got, list) else [got])
        if function == "show_unique":
            unique: list[Any] = []
            for e in elements:
                if not any(e is u or (not isinstance(e, dict | list) and type(e) is type(u) and e == u) for u in unique):
                    unique.append(e)
            return unique
        return elements
    return MISSING


def notion_simplified(response: Any) -> list[dict[str, Any]]:
    """Return the items n8n's Notion v2 outputs with Simplify on (``simplifyObjects``) for the page or
    database Notion answered: ``id``, ``name``, ``url`` and each property as ``property_<snake_case
    name>`` with its simplified value (names that snake-case alike keep the last one's value, as in n8n)."""
    answer = response.json() if hasattr(response, "json") else response
    out: list[dict[str, Any]] = []
    for obj in answer if isinstance(answer, list) else [answer]:
        parent = obj.get("parent") or {}
        properties = obj.get("properties") or {}
        if obj.get("object") == "page" and parent.get("type") in ("page_id", "workspace"):
            out.append({"id": obj.get("id"), "name": properties["title"]["title"][0]["plain_text"], "url": obj.get("url")})
        elif obj.get("object") == "page" and parent.get("type") == "database_id":
            keys = _keys(properties)
            title = next(properties[k] for k in keys if properties[k].get("type") == "title")["title"]
            simple = {key: _simplify(properties[key]) for key in keys}
            for key in list(simple):  # n8n's prepend renames in place: a later name may meet an earlier one's value
                value = simple[key]
                simple[f"property_{snake_case(key)}"] = value
                del simple[key]
            out.append({"id": obj.get("id"), "name": (title[0].get("plain_text") if title else None) or "",
                        "url": obj.get("url"), **simple})
        elif obj.get("object") == "database":
            titles = obj.get("title") or []
            out.append({"id": obj.get("id"), "name": (titles[0].get("plain_text") if titles else None) or "",
                        "url": obj.get("url")})
    return [{"json": as_json(row)} for row in out]


def notion_texts(texts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return a rich-text block's texts as n8n's ``getTexts`` sends them: text (with its link), mention, equation."""
    out: list[dict[str, Any]] = []
    for t in texts:
        kind, annotations = t.get("textType", "text"), t.get("annotationUi", {})
        if kind == "text":
            link = {"link": {"url": t.get("textLink")}} if t.get("isLink") and t.get("textLink") != "" else {}
            out.append({"type": "text", "text": {"content": t.get("text"), **link}, "annotations": annotations})
        elif kind == "mention":
            mention = t.get("mentionType")
            if mention == "date":
                value: Any = ({"start": t.get("dateStart"), "end": t.get("dateEnd")} if t.get("range")
                              else {"start": t.get("date"), "end": None})
            else:
                value = {"id": t.get(str(mention))}
            out.append({"type": "mention", "mention": {"type": mention, str(mention): value}, "annotations": annotations})
        elif kind == "equation":
            out.append({"type": "equation", "equation": {"expression": t.get("expression")}, "annotations": annotations})
    return out
