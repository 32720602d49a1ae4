"""Convert to File (``n8n-nodes-base.convertToFile``) *Convert to JSON* and *Convert to Text File*, as n8n 1.123 runs them.

n8n's ``createBinaryFromJson``: the item's json (or the value at ``sourceProperty``, a dotted
path) becomes text — an object or array as ``JSON.stringify`` writes it (two-space indented with
``format``), which also makes the file's type ``application/json`` — encoded (UTF-8, a byte-order
mark with ``addBOM``) into a binary entry (``_n8n_binary.entry``: n8n's ``prepareBinaryData``).
A file with no name is ``file.<extension of its type>``. *Convert to JSON* ``once`` makes one
file of every item's json (an array), ``each`` one file per item; the items' json is ``{}``.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from ..errors import NodeFailed
from ._n8n_binary import entry
from ._n8n_js import text

Item = dict[str, Any]
_ENCODINGS = ("utf8", "utf-8")


def _number(value: float) -> str:
    """Return a finite number as JavaScript's ``Number.prototype.toString`` writes it (the same shortest digits)."""
    if value == 0:
        return "0"
    shown = repr(value)
    if "e" not in shown:
        return shown.removesuffix(".0")
    mantissa, exponent = shown.split("e")
    power = int(exponent)
    if -7 < power < 21:
        return format(Decimal(shown), "f")
    return f"{mantissa}e{'+' if power > 0 else '-'}{abs(power)}"


def _key_order(keys: list[str]) -> list[str]:
    """JavaScript's property order: array-index keys ascending first, then the others as inserted."""
    index = [k for k in keys if k.isdigit() and str(int(k)) == k and int(k) < 2 ** 32 - 1]
    return sorted(index, key=int) + [k for k in keys if k not in index]


def stringify(value: Any, indent: int = 0, level: int = 0) -> str:
    """Return ``JSON.stringify(value, null, indent)`` (``indent`` 0: compact)."""
    if value is None or isinstance(value, float) and not math.isfinite(value):
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    inner, outer = "\n" + " " * indent * (level + 1), "\n" + " " * indent * level
    if isinstance(value, list | tuple):
        parts = [stringify(v, indent, level + 1) for v in value]
        open_, close = "[", "]"
    elif isinstance(value, dict):
        colon = ": " if indent else ":"
        parts = [json.dumps(str(k), ensure_ascii=False) + colon + stringify(value[k], indent, level + 1)
                 for k in _key_order([str(k) for k in value])]
        open_, close = "{", "}"
    else:
        return json.dumps(text(value), ensure_ascii=False)
    if not parts:
        return open_ + close
    if not indent:
        return open_ + ",".join(parts) + close
    return open_ + inner + ("," + inner).join(parts) + outer + close


def _source(data: Any, key: str) -> Any:
    if not key:
        return data
    value: Any = data
    for part in key.split("."):  # lodash get's dotted path
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise NodeFailed(f'The value in "{key}" is not set')
    return value


def binary_from_json(data: Any, *, mime_type: str, file_name: Any = None, source: str = "", format: bool = False,
                     encoding: Any = None, add_bom: Any = False) -> dict[str, Any]:
    """Return the binary entry n8n's ``createBinaryFromJson`` makes of ``data`` (text, not base64 input)."""
    value = _source(data, source)
    if encoding not in (None, "", *_ENCODINGS):
        raise NodeFailed(f"the encoding {encoding!r} is not translated (utf8 is)")
    if isinstance(value, dict | list) or value is None:
        mime_type = "application/json"
        content = stringify(value, 2 if format else 0)
    elif isinstance(value, bool):
        content = "true" if value else ""  # iconv-lite encodes "" + (value || "")
    elif isinstance(value, int | float):
        content = text(value) if value else ""
    else:
        content = text(value)
    data_bytes = (b"\xef\xbb\xbf" if add_bom else b"") + content.encode("utf-8")
    if file_name not in (None, "", 0, False) and not isinstance(file_name, str):
        raise NodeFailed(f'The "path" argument must be of type string. Received {text(file_name)!r}')
    name = file_name.split("?")[0] if isinstance(file_name, str) and file_name else None  # prepareBinaryData drops a query
    made = entry(data_bytes, mime_type=mime_type, file_path=name)
    if "fileName" not in made:
        made["fileName"] = f"file.{made['fileExtension']}" if made.get("fileExtension") else "file"
    return made


def to_json_file(items: list[Item], *, mode: str, output: str, options: list[dict[str, Any]]) -> list[Item]:
    """Return *Convert to JSON*'s items: one file of all items' json (``once``) or one per item (``each``).

    ``options`` holds each item's evaluated options (``once`` reads the first item's).
    """
    def made(data: Any, option: dict[str, Any]) -> Item:
        return {"json": {}, "binary": {output: binary_from_json(
            data, mime_type="application/json", file_name=option.get("fileName"), format=bool(option.get("format")),
            encoding=option.get("encoding"), add_bom=option.get("addBOM"))}}
    if mode == "once":
        return [made([item.get("json") or {} for item in items], options[0])]
    return [made(item.get("json") or {}, option) for item, option in zip(items, options, strict=True)]


def to_text_file(items: list[Item], *, output: str, source: str, options: list[dict[str, Any]]) -> list[Item]:
    """Return *Convert to Text File*'s items: the value at ``source`` of each item as a text file."""
    return [{"json": {}, "binary": {output: binary_from_json(
        item.get("json") or {}, mime_type="text/plain", file_name=option.get("fileName") or "file.txt",
        source=source, encoding=option.get("encoding"), add_bom=option.get("addBOM"))}}
        for item, option in zip(items, options, strict=True)]
