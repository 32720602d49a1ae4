"""What one run of a case's workflow produced, on either side, and how two of them compare.

Both sides are reduced to the same value: every node's output items (their ``json`` only) per
output index, and, when the run stopped, the node it stopped at. What is normalised, and why:

- only each item's ``json`` is compared: n8n adds ``pairedItem`` (item lineage) and an execution
  carries start times, execution times and ids, which are n8n's bookkeeping, not a node's output;
  the scaffolded code keeps none of them;
- numbers are compared as JavaScript has them: one number type (``2`` equals ``2.0``), ``-0`` is
  ``0``, and NaN and ±Infinity are ``null`` (n8n writes its results with ``JSON.stringify``);
- an error is compared by the node it stopped at, not by its message (n8n's messages are its own
  words; the scaffold's name the node the same way but are not n8n's text).

The nodes under test here (IF, Filter, Set, Switch, Merge, NoOp) read no clock and make no ids,
so no value inside an item needs normalising; a node that does (a Set writing ``$now``) would
need it here, named.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Outcome:
    """One side's run of one case."""

    nodes: dict[str, list[list[Any]]] = field(default_factory=dict)  # node -> outputs -> items' json
    error_node: str | None = None  # the node the run stopped at (None: the run finished)
    error: str | None = None  # its message, for the report only
    translated: bool = True  # scaffold side: False when the node under test is a TODO
    binary: dict[str, list[list[Any]]] = field(default_factory=dict)  # node -> outputs -> items' binary (or None)

    def describe(self) -> dict[str, Any]:
        """Return the outcome as plain data."""
        out: dict[str, Any] = {"outputs": self.nodes}
        if self.error_node is not None or self.error is not None:
            out["error"] = {"node": self.error_node, "message": (self.error or "")[:300]}
        return out


def js_value(value: Any) -> Any:
    """Return ``value`` as ``JSON.stringify`` then ``JSON.parse`` would give it back."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return int(value) if value.is_integer() and abs(value) < 2 ** 63 else value
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        return {str(k): js_value(v) for k, v in value.items() if not _undefined(v)}
    if isinstance(value, list | tuple):
        return [None if _undefined(v) else js_value(v) for v in value]
    return repr(value)  # not JSON at all: kept visible, and never equal to n8n's JSON


def _undefined(value: Any) -> bool:
    return type(value).__name__ in ("Undefined", "_Undefined")


def normalised(nodes: dict[str, list[list[Any]]]) -> dict[str, list[list[Any]]]:
    """Return ``nodes`` with every item's json as JavaScript values; a node that output no item is left out.

    n8n does not run a node that receives no items, while generated code may record such a node
    with empty outputs: for every node after it the two are the same (nothing reaches them), so
    "ran and output nothing" and "did not run" compare equal.
    """
    return {name: [[js_value(item) for item in items] for items in outputs]
            for name, outputs in nodes.items() if any(outputs)}


def differences(oracle: Outcome, scaffold: Outcome, compared: list[str]) -> list[str]:
    """Return what differs between the two outcomes, one line per node (empty: they agree).

    When either run stopped with an error, the node each stopped at is what is compared: n8n
    keeps no node outputs of an execution that failed.
    """
    if oracle.error is not None or scaffold.error is not None:
        if oracle.error is not None and scaffold.error is not None and oracle.error_node == scaffold.error_node:
            return []
        return [f"n8n {_stop(oracle)}, the scaffold {_stop(scaffold)}"]
    found = []
    left, right = normalised(oracle.nodes), normalised(scaffold.nodes)
    for name in compared:
        if left.get(name) != right.get(name):
            found.append(f"{name}: n8n {_short(left.get(name))}, scaffold {_short(right.get(name))}")
    return found


def _stop(outcome: Outcome) -> str:
    if outcome.error is None:
        return "finished"
    return f"stopped at {outcome.error_node!r} ({outcome.error[:160]})"


def _short(value: Any) -> str:
    text = "output nothing" if value is None else repr(value)
    return text if len(text) <= 300 else text[:297] + "..."
