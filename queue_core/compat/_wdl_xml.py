"""WDL's XML values: ``xml()`` and the XML → JSON conversion ``json(xml(…))``.

An XML value is content like binary content: ``{"$content-type": "application/xml;charset=utf-8",
"$content": base64}``; its text (``string()``, ``@{…}``) is the XML. ``xml(text)`` checks the text
is well-formed XML and keeps it as given (Logic Apps re-serialises it with .NET's ``XmlDocument``:
``<test/>`` becomes ``<test />``; the elements, attributes and text are the same). ``xml(object)``
converts a JSON object with one root property as JSON.NET does: ``@name`` keys are attributes,
``#text`` is text, an array repeats its element. ``json(xml)`` is the inverse, JSON.NET's
``SerializeXmlNode``: the declaration as ``?xml``, attributes as ``@name``, an element with only
text as its string, repeated elements as an array. ``xpath`` is not implemented (``_wdl.UNSUPPORTED``).
"""

from __future__ import annotations

import base64 as b64
import re
from typing import Any
from xml.dom import minidom
from xml.parsers.expat import ExpatError
from xml.sax.saxutils import escape, quoteattr

from ._wdl_values import binary_content, fail, kind, text

XML_TYPE = "application/xml;charset=utf-8"
_DECLARATION = re.compile(r"\s*<\?xml\s+([^?]*)\?>")
_PSEUDO_ATTRIBUTE = re.compile(r"""([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def is_xml(value: Any) -> bool:
    """Return whether ``value`` is an XML value (content of an XML type)."""
    return isinstance(value, dict) and "xml" in str(value.get("$content-type", "")).lower() \
        and binary_content(value) is not None


def _content(source: str) -> dict[str, str]:
    return {"$content-type": XML_TYPE, "$content": b64.b64encode(source.encode("utf-8")).decode("ascii")}


def _parse(function: str, source: str) -> minidom.Document:
    try:
        return minidom.parseString(source.encode("utf-8"))
    except ExpatError as err:
        fail(function, f"could not parse the string as XML: {err}.")


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return text(value)


def _element(name: str, value: Any) -> str:
    if isinstance(value, list):
        return "".join(_element(name, item) for item in value)
    if value is None:
        return f"<{name} />"
    if not isinstance(value, dict):
        return f"<{name}>{escape(_scalar(value))}</{name}>"
    attributes = "".join(f" {k[1:]}={quoteattr(_scalar(v))}" for k, v in value.items() if k.startswith("@"))
    inner = "".join(escape(_scalar(v)) if k == "#text" else _element(k, v)
                    for k, v in value.items() if not k.startswith("@"))
    return f"<{name}{attributes}>{inner}</{name}>" if inner else f"<{name}{attributes} />"


def xml(value: Any) -> dict[str, str]:
    """Return ``xml(value)``: a string of XML, or a JSON object with one root property, as an XML value."""
    if is_xml(value):
        return value  # type: ignore[no-any-return]
    if isinstance(value, dict):
        roots = [k for k in value if not k.startswith("?")]
        if len(roots) != 1 or isinstance(value[roots[0]], list):
            fail("xml", "expects a JSON object with exactly one root property, which can't be an array.")
        return _content(_element(roots[0], value[roots[0]]))
    if not isinstance(value, str):
        fail("xml", f"expects a string or an object. The provided value is of type '{kind(value)}'.")
    _parse("xml", value)
    return _content(value)


def _to_json(node: minidom.Element) -> Any:
    attributes = {f"@{name}": val for name, val in node.attributes.items()}
    children = [c for c in node.childNodes if c.nodeType == c.ELEMENT_NODE]
    texts = "".join(c.data for c in node.childNodes if c.nodeType in (c.TEXT_NODE, c.CDATA_SECTION_NODE))
    if not attributes and not children:
        return texts if texts else None
    out: dict[str, Any] = dict(attributes)
    for child in children:
        value = _to_json(child)
        if child.tagName in out:
            existing = out[child.tagName]
            out[child.tagName] = [*existing, value] if isinstance(existing, list) else [existing, value]
        else:
            out[child.tagName] = value
    if texts.strip():
        out["#text"] = texts.strip() if children else texts
    return out


def to_json(value: Any) -> Any:
    """Return the JSON of an XML value, as ``json(xml(…))`` gives it."""
    source = (binary_content(value) or b"").decode("utf-8", errors="replace")
    document = _parse("json", source)
    out: dict[str, Any] = {}
    declaration = _DECLARATION.match(source)
    if declaration is not None:
        out["?xml"] = {f"@{m.group(1)}": m.group(2) if m.group(2) is not None else m.group(3)
                       for m in _PSEUDO_ATTRIBUTE.finditer(declaration.group(1))}
    root = document.documentElement
    if root is None:
        fail("json", "was given XML without a root element.")
    out[root.tagName] = _to_json(root)
    return out
