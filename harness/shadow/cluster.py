"""Group disagreements into clusters a reviewer can read: 5 clusters, not 3,000 rows.

A cluster's signature is ``"<automation> <pattern> <kind>"`` — the automation, the field path
with list indices generalised to ``[*]``, and the kind of difference — the same string an
accepted-differences entry may name. Each cluster counts its disagreements and the distinct
triggers they come from, says whether it touches a side-effecting call and how many of its rows
are accepted, and keeps a few exemplars (legacy value against new value, and for a decision the
trigger fields the new code read before it) in trigger order.
Aggregation is pandas'; the input order decides exemplars, so callers pass rows in set order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

COLUMNS = ("automation", "trigger_id", "seq", "path", "pattern", "kind", "legacy", "new",
           "side_effect", "accepted_by", "expired_by", "noisy", "reads")


@dataclass(frozen=True)
class Cluster:
    """A group of disagreements sharing a signature."""

    signature: str
    automation: str
    pattern: str
    kind: str
    count: int
    triggers: int
    accepted: int
    side_effect: bool
    exemplars: tuple[dict[str, Any], ...]

    @property
    def unexplained(self) -> int:
        """Return how many of the cluster's disagreements no live accepted entry covers."""
        return self.count - self.accepted

    def as_dict(self) -> dict[str, Any]:
        """Return the cluster as JSON-ready data."""
        return {"signature": self.signature, "automation": self.automation, "path": self.pattern,
                "kind": self.kind, "count": self.count, "triggers": self.triggers,
                "accepted": self.accepted, "unexplained": self.unexplained,
                "side_effect": self.side_effect, "exemplars": list(self.exemplars)}


def signature(automation: str, pattern: str, kind: str) -> str:
    """Return the signature string of a cluster."""
    return f"{automation} {pattern} {kind}"


def frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Return disagreement rows (dicts with :data:`COLUMNS`) as a DataFrame sorted into set order."""
    # object dtype throughout: legacy/new hold any JSON value, and None must stay None (not NaN).
    df = pd.DataFrame(list(rows), columns=list(COLUMNS), dtype=object)
    if df.empty:
        return df
    return df.sort_values(["automation", "seq", "path", "kind"], kind="stable").reset_index(drop=True)


def clusters(df: pd.DataFrame, *, exemplars: int = 3) -> list[Cluster]:
    """Cluster a disagreement frame (see :func:`frame`); largest clusters first, ties by signature."""
    if df.empty:
        return []
    keys = ["automation", "pattern", "kind"]
    grouped = df.groupby(keys, sort=False, dropna=False)
    stats = grouped.agg(
        count=("trigger_id", "size"),
        triggers=("trigger_id", "nunique"),
        accepted=("accepted_by", lambda s: int(s.notna().sum())),
        side_effect=("side_effect", "any"),
    ).reset_index()
    heads = grouped.head(exemplars)
    examples: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in heads.itertuples(index=False):
        example = {"trigger_id": row.trigger_id, "path": row.path, "legacy": row.legacy, "new": row.new}
        if isinstance(row.reads, dict):  # the trigger fields the differing decision read (harness.shadow._reads)
            example["reads"] = row.reads
        examples.setdefault((row.automation, row.pattern, row.kind), []).append(example)
    out = [
        Cluster(signature(r.automation, r.pattern, r.kind), r.automation, r.pattern, r.kind, int(r.count),
                int(r.triggers), int(r.accepted), bool(r.side_effect),
                tuple(examples[(r.automation, r.pattern, r.kind)]))
        for r in stats.itertuples(index=False)
    ]
    out.sort(key=lambda c: (-c.count, c.signature))
    return out
