"""Compare two canonical decision traces and list where they disagree. Pure.

A :class:`Disagreement` names the field by a JSON-path-like string a reviewer can read and an
accepted-differences file can match::

    status                               the run's outcome
    path[1]                              the second step executed
    decisions.route                      a branch decision
    calls[add-labels].body.labels[0]     a field of the intent of step "add-labels"
    calls[comment]                       the whole call (made on one side only)
    outputs.score                        a step output both sides report

``pattern`` is the same path with list indices generalised to ``[*]``, and so is the key of an
item of a run over many items (``items[inv-7].decisions.route`` -> ``items[*].decisions.route``,
see :mod:`harness.shadow._items`); clusters and accepted entries group on it. ``kind`` is one of ``value_changed``, ``type_changed``, ``missing_in_new``
(the legacy run had it, the new run does not) and ``extra_in_new``.

The comparison is deepdiff's, run only when the cheap :func:`harness.shadow.normalize.equivalent` check
fails (most triggers agree), and type changes the coercion profile considers equal are dropped.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

from harness.manifest import Coercion
from harness.shadow.normalize import READ_METHODS, comparable, equivalent, loosely_equal

KINDS = ("value_changed", "type_changed", "missing_in_new", "extra_in_new")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_INDEX = re.compile(r"\[\d+\]")
_ITEM = re.compile(r"^items\[[^\]]*\]")
_REPORT_KINDS = {
    "values_changed": "value_changed",
    "type_changes": "type_changed",
    "dictionary_item_removed": "missing_in_new",
    "iterable_item_removed": "missing_in_new",
    "dictionary_item_added": "extra_in_new",
    "iterable_item_added": "extra_in_new",
}
_ABSENT = None


@dataclass(frozen=True)
class Disagreement:
    """One field where the legacy run and the new run differ.

    ``legacy``/``new`` are the (normalised) values; the absent side of a ``missing_in_new`` or
    ``extra_in_new`` is None. ``side_effect`` is True when the field belongs to an outbound call
    that is not a read (its method is not GET/HEAD/OPTIONS on either side).
    """

    path: str
    kind: str
    legacy: Any
    new: Any
    side_effect: bool = False

    @property
    def pattern(self) -> str:
        """Return the path with list indices generalised to ``[*]``."""
        return generalise(self.path)

    def as_dict(self) -> dict[str, Any]:
        """Return the disagreement as a JSON-ready dict (with its pattern)."""
        return {"path": self.path, "pattern": self.pattern, "kind": self.kind, "legacy": self.legacy,
                "new": self.new, "side_effect": self.side_effect}


def generalise(path: str) -> str:
    """Return ``path`` with every ``[<number>]``, and a leading ``items[<key>]``, made ``[*]``."""
    return _INDEX.sub("[*]", _ITEM.sub("items[*]", path, count=1))


def format_path(parts: list[Any]) -> str:
    """Format a deepdiff path list as ``calls[step].body.items[0]``."""
    if not parts:
        return "$"
    out = str(parts[0])
    rest = parts[1:]
    if parts[0] == "calls" and rest:
        out += f"[{rest[0]}]"
        rest = rest[1:]
    for part in rest:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT.match(str(part)):
            out += f".{part}"
        else:
            out += '["' + str(part).replace('"', '\\"') + '"]'
    return out


def _is_side_effect(parts: list[Any], legacy: dict[str, Any], new: dict[str, Any]) -> bool:
    if len(parts) < 2 or parts[0] != "calls":
        return False
    methods = {c.get("method") for side in (legacy, new) if (c := side["calls"].get(parts[1])) is not None}
    methods.discard(None)
    return not methods or not methods <= READ_METHODS


def diff_traces(legacy: dict[str, Any], new: dict[str, Any], coercion: Coercion = Coercion.STRICT) -> list[Disagreement]:
    """Return the disagreements between two aligned canonical traces, in path order.

    Returns an empty list when the traces are equal under ``coercion``'s loose typing.
    """
    if equivalent(legacy, new, coercion):
        return []
    found: list[tuple[list[Any], Disagreement]] = []
    subtrees = _subtrees(legacy, new)
    for report, kind in _REPORT_KINDS.items():
        for prefix, level in ((prefix, level) for prefix, tree in subtrees for level in tree.get(report, ())):
            parts = prefix + level.path(output_format="list")
            old, value = _value(level.t1), _value(level.t2)
            this = kind
            if kind == "type_changed":
                if loosely_equal(old, value, coercion):
                    continue
                # "false" against True under n8n is a change of value, not of type.
                this = "value_changed" if comparable(old, value, coercion) else "type_changed"
            side_effect = _is_side_effect(parts, legacy, new)
            found.append((parts, Disagreement(format_path(parts), this, old, value, side_effect)))
    found.sort(key=lambda item: (_sort_key(item[0]), item[1].kind))
    return [d for _, d in found]


def _subtrees(legacy: Any, new: Any) -> list[tuple[list[Any], Any]]:
    """Return deepdiff's tree view of each smallest subtree where the traces differ, with its path.

    deepdiff costs about a millisecond per trace but a tenth of that per small value, so the
    walk goes down objects with the same keys (where deepdiff, too, compares key by key, so the
    same levels come out) and skips the values that are the same in value and type; a subtree
    of any other kind (objects with different keys, lists, scalars) is handed to deepdiff whole.
    """
    DeepDiff = _deepdiff()  # noqa: N806 - the class, imported only when something differs
    out: list[tuple[list[Any], Any]] = []
    stack: list[tuple[list[Any], Any, Any]] = [([], legacy, new)]
    while stack:
        prefix, old, value = stack.pop()
        if type(old) is dict and type(value) is dict and old.keys() == value.keys():
            stack.extend((prefix + [k], old[k], value[k]) for k in reversed(list(old)) if not same(old[k], value[k]))
        else:
            out.append((prefix, DeepDiff(old, value, view="tree", ignore_order=False, verbose_level=2)))
    return out


_DATAFRAME_LIBRARIES = ("pandas", "numpy", "polars")


def _deepdiff() -> Any:
    """Import deepdiff's ``DeepDiff`` without the data-frame libraries, unless they are loaded already.

    deepdiff imports pandas, numpy and polars when they are installed, to compare their
    objects: 0.47 against 0.13 CPU s in every replay process that finds a difference, and
    most of its memory. Traces are JSON (dicts, lists, strings, numbers, booleans, None), which
    deepdiff compares the same without them. While deepdiff is imported, an entry of ``None``
    in ``sys.modules`` makes ``import pandas`` fail as if it were not installed (the import
    system's documented meaning of ``None``); the entries are removed again afterwards.
    """
    if "deepdiff" not in sys.modules:
        blocked = [name for name in _DATAFRAME_LIBRARIES if name not in sys.modules]
        sys.modules.update(dict.fromkeys(blocked))
        try:
            import deepdiff  # noqa: F401
        finally:
            for name in blocked:
                if sys.modules.get(name, 0) is None:
                    del sys.modules[name]
    from deepdiff import DeepDiff

    return DeepDiff


def same(legacy: Any, new: Any) -> bool:
    """Tell whether two JSON values are equal in value and in type, all the way down (``True`` is not ``1``)."""
    if type(legacy) is not type(new):
        return False
    if type(legacy) is dict:
        return legacy.keys() == new.keys() and all(same(v, new[k]) for k, v in legacy.items())
    if type(legacy) is list:
        return len(legacy) == len(new) and all(same(a, b) for a, b in zip(legacy, new))
    return bool(legacy == new)


def _value(value: Any) -> Any:
    # deepdiff marks the absent side with a NotPresent sentinel; JSON has no such value.
    return _ABSENT if type(value).__name__ == "NotPresent" else value


_FIELD_ORDER = {"status": "0", "path": "1", "decisions": "2", "calls": "3", "outputs": "4"}


def _sort_key(parts: list[Any]) -> tuple[tuple[int, str], ...]:
    head = (1, _FIELD_ORDER.get(str(parts[0]), str(parts[0]))) if parts else (1, "")
    return (head, *((0, f"{p:09d}") if isinstance(p, int) else (1, str(p)) for p in parts[1:]))
