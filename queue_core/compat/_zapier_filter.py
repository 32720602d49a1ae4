"""Filter by Zapier's and Paths' rules: each ``filter_criteria`` row's ``match`` operator.

What each rule does is Zapier's help page "Understand different filter and path rules"
(https://zapier.com/help/create/customize/understand-different-filter-and-path-rules): text rules
are not case sensitive except (Text) Exactly matches / Does not exactly match; (Text) Is in
takes a comma-separated list; (Number) rules read both sides as numbers (a side that is not one
fails the rule); (Date/time) rules compare instants; (Boolean) Is true / Is false; Exists / Does
not exist look only at whether the field has a value.

The operator keys a Zapfile holds are ``match`` values: ``icontains``, ``igreater``, ``iless`` and
``boolean`` are in real exports; the others here follow the same naming (``n`` for the negation)
and are Zapier's rules as that page describes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import TerminalError

TRUE_WORDS = frozenset({"true", "yes", "1", "on", "y", "t"})


def text(value: Any) -> str:
    """Return a value as Zapier writes it into text: nothing for null, ``true``/``false``, lists comma-joined."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join(text(v) for v in value)
    if isinstance(value, dict):
        import json

        return json.dumps(value, ensure_ascii=False)
    return str(value)


def number(value: Any) -> Decimal | None:
    """Return a value read as a number (``"1,234.5"`` too), None when it is not one."""
    if isinstance(value, bool) or value is None:
        return None
    raw = text(value).strip().replace(",", "")
    try:
        found = Decimal(raw)
    except InvalidOperation:
        return None
    return found if found.is_finite() else None


def instant(value: Any) -> datetime | None:
    """Return a value read as a date/time (ISO 8601, ``MM/DD/YYYY [HH:MM]``, epoch seconds), None when not one."""
    raw = text(value).strip()
    if not raw:
        return None
    if raw.isdigit():
        return datetime.fromtimestamp(int(raw), UTC)
    for parse in (_iso, _us):
        found = parse(raw)
        if found is not None:
            return found if found.tzinfo else found.replace(tzinfo=UTC)
    return None


def _iso(raw: str) -> datetime | None:
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None


def _us(raw: str) -> datetime | None:
    for layout in ("%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M", "%m/%d/%Y"):
        try:
            return datetime.strptime(raw, layout)
        except ValueError:
            continue
    return None


def _exists(value: Any) -> bool:
    return value is not None and text(value) != ""


def _truth(value: Any) -> bool:
    return isinstance(value, bool) and value or text(value).strip().lower() in TRUE_WORDS


def _listed(value: Any, allowed: Any) -> bool:
    options = [o.strip().lower() for o in text(allowed).split(",") if o.strip()]
    return text(value).strip().lower() in options


def _numbers(test: Callable[[Decimal, Decimal], bool]) -> Callable[[Any, Any], bool]:
    def rule(a: Any, b: Any) -> bool:
        left, right = number(a), number(b)
        return left is not None and right is not None and test(left, right)
    return rule


def _dates(test: Callable[[datetime, datetime], bool]) -> Callable[[Any, Any], bool]:
    def rule(a: Any, b: Any) -> bool:
        left, right = instant(a), instant(b)
        return left is not None and right is not None and test(left, right)
    return rule


OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "icontains": lambda a, b: text(b).lower() in text(a).lower(),
    "nicontains": lambda a, b: text(b).lower() not in text(a).lower(),
    "exact": lambda a, b: text(a) == text(b),
    "nexact": lambda a, b: text(a) != text(b),
    "iin": _listed,
    "niin": lambda a, b: not _listed(a, b),
    "istartswith": lambda a, b: text(a).lower().startswith(text(b).lower()),
    "nistartswith": lambda a, b: not text(a).lower().startswith(text(b).lower()),
    "iendswith": lambda a, b: text(a).lower().endswith(text(b).lower()),
    "niendswith": lambda a, b: not text(a).lower().endswith(text(b).lower()),
    "igreater": _numbers(lambda a, b: a > b),
    "iless": _numbers(lambda a, b: a < b),
    "dateafter": _dates(lambda a, b: a > b),
    "datebefore": _dates(lambda a, b: a < b),
    "dateequal": _dates(lambda a, b: a == b),
    "boolean": lambda a, _: _truth(a),
    "nboolean": lambda a, _: not _truth(a),
    "exists": lambda a, _: _exists(a),
    "nexists": lambda a, _: not _exists(a),
}

Rule = tuple[str, Any, Any]  # (match, the field's value, the rule's value)


def group_holds(group: Sequence[Rule]) -> bool:
    """Return whether every rule of an AND group holds."""
    for match, field, value in group:
        rule = OPERATORS.get(match)
        if rule is None:
            raise TerminalError(f"Filter by Zapier: rule {match!r} is not implemented")
        if not rule(field, value):
            return False
    return True


def passes(proceed: Sequence[Sequence[Rule]], stop: Sequence[Sequence[Rule]] = ()) -> bool:
    """Return whether a filter lets the run go on: its "continue" groups (OR of ANDs; none: no
    condition) and none of its "stop" groups (a path's "do not continue if") holding."""
    if proceed and not any(group_holds(g) for g in proceed):
        return False
    return not any(group_holds(g) for g in stop)
