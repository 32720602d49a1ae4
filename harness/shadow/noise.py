"""The noise check: fields that disagree with themselves when the same trigger runs twice.

``--shadow-noise`` replays every trigger twice, with different seeds. A field whose value differs
between the two runs of the *new* code is noise — it depends on randomness, on something the
frozen clock does not cover, or on ordering — and a disagreement on it says nothing about the
migration. Noisy fields are marked in the item output and the report (by generalised path) so
a reviewer normalises them away or fixes the non-determinism, rather than chasing them. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.shadow.diff import diff_traces
from harness.manifest import Coercion


def noisy_patterns(first: dict[str, Any], second: dict[str, Any]) -> set[str]:
    """Return the generalised paths where two canonical traces of the same trigger differ."""
    return {d.pattern for d in diff_traces(first, second, Coercion.STRICT)}


def mark(patterns: Iterable[str], noisy: set[str]) -> list[bool]:
    """Return, for each pattern, whether it is noisy."""
    return [p in noisy for p in patterns]
