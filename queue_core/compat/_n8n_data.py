"""n8n's pure data nodes as functions of items: Limit, Sort (simple), Split Out, Aggregate, Crypto (hash, HMAC).

Each takes the node's input items and its parameters (defaults already applied by the scaffold,
from n8n's description of the node) and returns the output items, as n8n 1.123's node does:
the semantics were read from the node's behaviour and proved against the real n8n (the oracle).
Field names use n8n's dot notation (``a.b`` reads ``{"a": {"b": …}}``) unless it is disabled.
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import hmac
import math
from collections.abc import Sequence
from typing import Any

from ..errors import NodeFailed

Item = dict[str, Any]
_MISSING: Any = object()


def _get(data: Any, path: str, dotted: bool = True) -> Any:
    if not dotted:
        return data.get(path, _MISSING) if isinstance(data, dict) else _MISSING
    current = data
    for part in path.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return _MISSING
    return current


def _set(data: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    for part in parts[:-1]:
        if not isinstance(data.get(part), dict):
            data[part] = {}
        data = data[part]
    data[parts[-1]] = value


def limit(items: Sequence[Item], max_items: Any, keep: str = "firstItems") -> list[Item]:
    """Return the first (or last) ``max_items`` items; all of them when there are fewer."""
    count = int(max_items)
    if count > len(items):
        return list(items)
    return list(items[:count]) if keep == "firstItems" else list(items[len(items) - count:])


def _number(value: Any) -> float:
    """Return lodash's ``toNumber``: what ``lt`` compares values that are not both text."""
    if value is _MISSING:
        return math.nan
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if value is None:
        return 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list):
        value = ",".join("" if v is None else _plain(v) for v in value)
    if isinstance(value, dict):
        return math.nan
    text = str(value).strip()
    if text == "":
        return 0.0
    try:
        return float(int(text, 0)) if text.lower().startswith(("0x", "0o", "0b")) else float(text)
    except ValueError:
        return math.nan


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join("" if v is None else _plain(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _less(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a.encode("utf-16-be") < b.encode("utf-16-be")
    return _number(a) < _number(b)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b) if a is not _MISSING and b is not _MISSING else a is b


def sort_items(items: Sequence[Item], fields: Sequence[tuple[str, str]], *, dotted: bool = True,
               node: str = "Sort") -> list[Item]:
    """Return the items sorted by each (field, "ascending"|"descending"), text compared lower-cased.

    Raises NodeFailed, as n8n does, when no field is given or a field is in no item.
    """
    if not fields:
        raise NodeFailed(f"{node}: No sorting specified. Please add a field to sort by")
    for name, _ in fields:
        if all(_get(item.get("json") or {}, name, dotted) is _MISSING for item in items):
            raise NodeFailed(f"{node}: Couldn't find the field '{name}' in the input data")

    def key(item: Item, name: str) -> Any:
        value = _get(item.get("json") or {}, name, dotted)
        return value.lower() if isinstance(value, str) else value

    def compare(a: Item, b: Item) -> int:
        for name, order in fields:
            left, right = key(a, name), key(b, name)
            if not _equal(left, right):
                direction = 1 if order == "ascending" else -1
                return -direction if _less(left, right) else direction
        return 0

    return sorted(items, key=functools.cmp_to_key(compare))


def split_out(items: Sequence[Item], field: str, include: str = "noOtherFields", fields_to_include: str = "",
              destination: str = "", *, dotted: bool = True, node: str = "Split Out") -> list[Item]:
    """Return one item per element of each item's ``field`` (comma-separated fields split side by side)."""
    names = [f.strip().removeprefix("$json.") for f in field.split(",")]
    targets = [f.strip() for f in destination.split(",") if f.strip()]
    if targets and len(targets) != len(names):
        raise NodeFailed(f"{node}: If multiple fields to split out are given, the same number of destination "
                         "fields must be given")
    out: list[Item] = []
    for item in items:
        record = dict(item.get("json") or {})
        split: list[dict[str, Any]] = []
        for index, name in enumerate(names):
            target = targets[index] if index < len(targets) else ""
            value = _get(record, name, dotted)
            elements = [] if value is _MISSING else value
            if not isinstance(elements, dict | list):
                elements = [elements]
            if isinstance(elements, dict):
                elements = list(elements.values())
            for position, element in enumerate(elements):
                while len(split) <= position:
                    split.append({})
                if isinstance(element, dict) and include == "noOtherFields" and not target and len(names) == 1:
                    split[position] = {**split[position], **element}
                else:
                    split[position][target or name] = element
        for entry in split:
            if include == "allOtherFields":
                rest = copy.deepcopy(record)
                for name in names:
                    _unset(rest, name, dotted)
                entry = {**rest, **entry}
            elif include == "selectedOtherFields":
                chosen = [f.strip() for f in fields_to_include.split(",") if f.strip()]
                if not chosen:
                    raise NodeFailed(f"{node}: No fields specified")
                for name in chosen:
                    value = _get(record, name, dotted)
                    entry[name] = None if value is _MISSING else value
            out.append({"json": entry})
    return out


def _unset(data: dict[str, Any], path: str, dotted: bool) -> None:
    parts = path.split(".") if dotted else [path]
    for part in parts[:-1]:
        data = data.get(part) if isinstance(data, dict) else None  # type: ignore[assignment]
        if not isinstance(data, dict):
            return
    data.pop(parts[-1], None)


def aggregate_fields(items: Sequence[Item], fields: Sequence[tuple[str, str]], *, merge_lists: bool = False,
                     keep_missing: bool = False, dotted: bool = True, node: str = "Aggregate") -> list[Item]:
    """Return one item holding, per (input field, output field), the list of the items' values."""
    if not fields:
        raise NodeFailed(f"{node}: No fields specified")
    outputs = [output or (name.split(".")[-1] if dotted and "." in name else name) for name, output in fields]
    if len(set(outputs)) != len(outputs):
        raise NodeFailed(f"{node}: The '{outputs[0]}' output field is used more than once")
    values: dict[str, list[Any]] = {}
    for (name, _), output in zip(fields, outputs, strict=True):
        if name == "":
            continue
        values[output] = collected = []
        for item in items:
            value = _get(item.get("json") or {}, name, dotted)
            if not keep_missing:
                if isinstance(value, list):
                    value = [v for v in value if v is not None]
                elif value is None or value is _MISSING:
                    continue
            value = None if value is _MISSING else value
            collected.extend(value) if isinstance(value, list) and merge_lists else collected.append(value)
    record: dict[str, Any] = {}
    for output, collected in values.items():
        _set(record, output, collected) if dotted else record.__setitem__(output, collected)
    return [{"json": record}]


def aggregate_all(items: Sequence[Item], destination: str = "data", include: str = "allFields",
                  fields_to_include: str = "", fields_to_exclude: str = "") -> list[Item]:
    """Return one item whose ``destination`` lists every item's fields (all, only some, or all but some)."""
    chosen = [f.strip() for f in fields_to_include.split(",") if f.strip()] if include == "specifiedFields" else []
    dropped = [f.strip() for f in fields_to_exclude.split(",") if f.strip()] if include == "allFieldsExcept" else []
    records = [dict(item.get("json") or {}) for item in items]
    if chosen or dropped:
        kept = []
        for record in records:
            part = {k: v for k, v in record.items() if k not in dropped and (not chosen or k in chosen)}
            if part:
                kept.append(part)
        records = kept
    return [{"json": {destination: records}}]


_HASHES = {"MD5": "md5", "SHA256": "sha256", "SHA384": "sha384", "SHA512": "sha512", "SHA3-256": "sha3_256",
           "SHA3-384": "sha3_384", "SHA3-512": "sha3_512"}


def crypto_item(item: Item, field: str, value: Any, kind: str = "MD5", encoding: str = "hex", *,
                action: str = "hash", secret: Any = "", node: str = "Crypto") -> Item:
    """Return Crypto's hash (``action`` "hmac": HMAC keyed by ``secret``) of a text value, set as ``field`` of a copy.

    Raises NodeFailed for a value or key that is not text (n8n's crypto takes strings) or an unknown type.
    """
    if action == "hmac" and not isinstance(secret, str):
        raise NodeFailed(f'{node}: The "key" argument must be of type string (got {type(secret).__name__})')
    if not isinstance(value, str):
        raise NodeFailed(f'{node}: The "data" argument must be of type string (got {type(value).__name__})')
    algorithm = _HASHES.get(kind)
    if algorithm is None:
        raise NodeFailed(f"{node}: Digest method not supported: {kind}")
    if action == "hash":
        digest = hashlib.new(algorithm, value.encode()).digest()
    else:
        digest = hmac.new(secret.encode(), value.encode(), algorithm).digest()
    encoded = base64.b64encode(digest).decode("ascii") if encoding == "base64" else digest.hex()
    return {"json": {**(item.get("json") or {}), field: encoded}}
