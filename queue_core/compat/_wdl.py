"""The Workflow Definition Language (WDL) function library a scaffolded Power Automate flow calls.

Generated code reaches it as ``power_automate.wdl`` (``queue_core.compat.power_automate`` does
``from . import _wdl as wdl``): ``@toLower(triggerBody()?['name'])`` becomes
``power_automate.wdl.toLower(power_automate.wdl.member(run.trigger_body(), 'name', safe=True))``.
A function keeps its WDL name; a Python keyword or builtin gets a trailing ``_`` (``if_``,
``and_``, ``int_``, ``max_``). The run state (``body('X')``, ``variables('v')``, ``items('F')``…)
is read through the run's own methods (``run.body('X')``: ``compat.power_automate.Run``); the
functions here that need the run (``utcNow``, the form-data readers) take it first.

- ``FUNCTIONS``: every implemented WDL function by its WDL name (the translator's table);
- ``STATEFUL``: those of them called with the run first;
- ``UNSUPPORTED``: every other WDL function, with why it is not translated (the translator turns
  a call to one into a TODO naming it);
- ``literal_problem(name, args)``: why a call with these literal arguments cannot be translated
  (a time zone or locale outside the tables), or None.

Besides the functions, generated code calls ``member`` (``x['k']``, ``x?['k']``), ``interpolate``
(``@{…}``), ``truth`` (an If / Until condition), and, because Logic Apps short-circuits ``and``,
``or``, ``if`` and ``coalesce``, ``boolean`` (each operand's check) and ``coalesce_lazy``.

Semantics are the reference's (learn.microsoft.com, "Reference guide to workflow expression
functions"); ``tests/conformance/wdl`` pins the reference's own examples, one or more per function,
and what it leaves unsaid as a public Logic Apps test suite records it.
"""

from __future__ import annotations

import base64 as b64
import binascii
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from . import _wdl_collections as _collections
from . import _wdl_convert as _convert
from . import _wdl_dates as _dates
from . import _wdl_numfmt as _numfmt
from . import _wdl_text as _text
from . import _wdl_xml as _xml
from ._wdl_netdate import NAMES
from ._wdl_numfmt import LOCALES
from ._wdl_values import bool_arg, fail, kind, string_arg, text
from ._wdl_collections import *  # noqa: F403 - the library is these modules' functions
from ._wdl_convert import *  # noqa: F403
from ._wdl_dates import *  # noqa: F403
from ._wdl_numfmt import *  # noqa: F403
from ._wdl_text import *  # noqa: F403
from ._wdl_xml import xml  # noqa: F401 - the WDL function

# -- reading values: member access and interpolation -----------------------------------------


def _property(value: dict[str, Any], key: str) -> tuple[bool, Any]:
    if key in value:
        return True, value[key]
    folded = key.lower()
    for name, found in value.items():
        if name.lower() == folded:
            return True, found
    if "/" in key:  # Power Automate's path shorthand: outputs('Get_items')?['body/value']
        current: Any = value
        for part in key.split("/"):
            if not isinstance(current, dict):
                return False, None
            found_part, current = _property(current, part)
            if not found_part:
                return False, None
        return True, current
    return False, None


def member(value: Any, key: Any, safe: bool = False) -> Any:
    """Return ``value[key]`` (``value.key``) as WDL reads it; ``safe`` is ``?[…]``: null when absent.

    Without ``?`` a missing property, an index past the end, or a read of null fails the action.
    Property names match exactly, else ignoring case; ``'a/b'`` reads ``a`` then ``b``.
    """
    if value is None:
        if safe:
            return None
        fail("property selection", f"cannot select {text(key)!r}: the value is null (use '?' to read it safely).")
    if isinstance(value, dict):
        found, result = _property(value, text(key))
        if found or safe:
            return result
        fail("property selection", f"cannot select the property {text(key)!r}: it doesn't exist, available "
                                   f"properties are {', '.join(repr(k) for k in value)}.")
    if isinstance(value, list):
        if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(value):
            return value[key]
        if safe and isinstance(key, int):
            return None
        fail("property selection", f"cannot select {text(key)!r} from an array of {len(value)} items.")
    if safe:
        return None
    fail("property selection", f"cannot select {text(key)!r} from a value of type '{kind(value)}'.")


def interpolate(*parts: Any) -> str:
    """Return a string with ``@{…}`` interpolations: each value's text (``string()``) in order."""
    return "".join(text(p) for p in parts)


def boolean(value: Any, function: str = "if") -> bool:
    """Return ``value`` if it is a Boolean (the test of ``if``, an operand of ``and`` / ``or``), else fail.

    Generated code short-circuits ``and``, ``or`` and ``if`` as Logic Apps evaluates them:
    ``and(false, int('x'))`` is false without reading its second operand.
    """
    return bool_arg(function, value)


def truth(value: Any) -> bool:
    """Return the Boolean a condition (``If`` / ``Until`` expression) evaluated to; fails on anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    fail("condition", f"expects a Boolean. The provided value is of type '{kind(value)}'.")


# -- workflow functions that need more than the run's own readers ------------------------------


def _fields(body: Any) -> list[Any] | None:
    if not isinstance(body, dict):
        return None
    if isinstance(body.get("$formdata"), list):
        return list(body["$formdata"])
    content_type = str(body.get("$content-type", "")).lower()
    if content_type.startswith("application/x-www-form-urlencoded") and isinstance(body.get("$content"), str):
        try:
            raw = b64.b64decode(body["$content"], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        return [{"key": k, "value": v} for k, v in parse_qsl(raw, keep_blank_values=True)]
    return None


def _form(function: str, body: Any, key: Any) -> list[Any]:
    wanted = string_arg(function, key)
    fields = _fields(body)
    if fields is None:
        fail(function, "expects form-encoded content (a '$formdata' list or an "
                       "application/x-www-form-urlencoded '$content').")
    return [f.get("value") for f in fields if isinstance(f, dict) and f.get("key") == wanted]


def _one(function: str, values: list[Any]) -> Any:
    if len(values) > 1:
        fail(function, f"found {len(values)} values for the key; it expects one.")
    return values[0] if values else None


def triggerFormDataMultiValues(run: Any, key: Any) -> list[Any]:  # noqa: N802 - the WDL name
    """Return ``triggerFormDataMultiValues(key)``: every value of ``key`` in the trigger's form data."""
    return _form("triggerFormDataMultiValues", run.trigger_body(), key)


def triggerFormDataValue(run: Any, key: Any) -> Any:  # noqa: N802
    """Return ``triggerFormDataValue(key)``: the one value of ``key``; fails when there are more."""
    return _one("triggerFormDataValue", _form("triggerFormDataValue", run.trigger_body(), key))


def formDataMultiValues(run: Any, action: Any, key: Any) -> list[Any]:  # noqa: N802
    """Return ``formDataMultiValues(actionName, key)``."""
    return _form("formDataMultiValues", run.body(string_arg("formDataMultiValues", action)), key)


def formDataValue(run: Any, action: Any, key: Any) -> Any:  # noqa: N802
    """Return ``formDataValue(actionName, key)``."""
    values = _form("formDataValue", run.body(string_arg("formDataValue", action)), key)
    return _one("formDataValue", values)


# -- the tables the translator reads -----------------------------------------------------------

_MODULES = (_text, _collections, _convert, _numfmt, _dates, _xml)
_OWN = ("triggerFormDataMultiValues", "triggerFormDataValue", "formDataMultiValues", "formDataValue")


def _wdl_name(python_name: str) -> str:
    return python_name[:-1] if python_name.endswith("_") else python_name


def _library() -> dict[str, Callable[..., Any]]:
    found: dict[str, Callable[..., Any]] = {}
    for module in _MODULES:
        for name, value in vars(module).items():
            if callable(value) and not name.startswith("_") and getattr(value, "__module__", "") == module.__name__ \
                    and name[0].islower():
                found[_wdl_name(name)] = value
    found.pop("names", None)
    found.pop("locale", None)
    found.pop("zone_known", None)
    found.pop("coalesce_lazy", None)
    found.pop("is_xml", None)
    found.pop("to_json", None)
    for name in _OWN:
        found[name] = globals()[name]
    return found


FUNCTIONS: dict[str, Callable[..., Any]] = _library()
STATEFUL: frozenset[str] = frozenset({"utcNow", "getFutureTime", "getPastTime", *_OWN})

UNSUPPORTED: dict[str, str] = {
    "action": "the current action's own record (webhook unsubscribe, trackedProperties) is not modelled",
    "dataUriToBinary": "the content type binary content gets from a data URI is not pinned",
    "decodeDataUri": "the content type binary content gets from a data URI is not pinned",
    "uriComponentToBinary": "binary content from a URI component is not pinned",
    "xpath": "XPath over XML values is not implemented (no XPath engine in the runtime)",
    "triggerMultipartBody": "reading one part of a raw multipart body is not modelled",
    "multipartBody": "reading one part of a raw multipart body is not modelled",
    "listCallbackUrl": "a scaffolded flow has no Logic Apps callback URL",
    "appsetting": "Logic Apps Standard app settings are not read by a scaffolded flow",
    "appsettings": "Logic Apps Standard app settings are not read by a scaffolded flow",
}

_ZONE_ARGS = {"convertTimeZone": (1, 2), "convertFromUtc": (1,), "convertToUtc": (1,)}
_NUMBER_LOCALE_ARGS = {"formatNumber": 2, "float": 1, "isFloat": 1}
_DATE_LOCALE_ARGS = {"formatDateTime": 2, "parseDateTime": 1}


def literal_problem(name: str, args: list[Any]) -> str | None:
    """Return why ``name(*args)`` cannot be translated given its literal arguments (None: it can).

    ``args`` holds each argument's literal value, or ``...`` (Ellipsis) where it is computed.
    """
    for index in _ZONE_ARGS.get(name, ()):
        if index < len(args) and isinstance(args[index], str) and not _dates.zone_known(args[index]):
            return f"time zone {args[index]!r} is not in the translation's table of Windows time zones"
    index = _NUMBER_LOCALE_ARGS.get(name, -1)
    if 0 <= index < len(args) and isinstance(args[index], str) and args[index].lower() not in LOCALES:
        return f"locale {args[index]!r} is not one the translation formats numbers for"
    index = _DATE_LOCALE_ARGS.get(name, -1)
    if 0 <= index < len(args) and isinstance(args[index], str) and args[index].lower() not in NAMES:
        return f"locale {args[index]!r} is not one the translation has month and day names for"
    return None
