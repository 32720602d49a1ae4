"""Two failed runs' error classes, compared: equal causes agree, different ones disagree on ``error_class``.

The legacy side's class is the one its importer recorded (``LegacyTrace.error_class``, e.g. from an
n8n node error); the new side's is read from the error the queue recorded for the replayed run
(:func:`harness.error_class.of_new_error`). When either side has none, the class is *not compared*:
the result row says so (``compared: false`` with the side that lacks one), and no disagreement
arises from it. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.error_class import of_new_error
from harness.shadow.diff import Disagreement

PATH = "error_class"


@dataclass(frozen=True)
class ClassCompared:
    """The error classes of two failed runs, and whether they could be compared."""

    legacy: str | None
    new: str | None

    @property
    def compared(self) -> bool:
        """Tell whether both sides recorded a class (only then is it compared)."""
        return self.legacy is not None and self.new is not None

    def disagreements(self) -> list[Disagreement]:
        """Return the ``error_class`` disagreement of two compared, different classes (else none)."""
        if not self.compared or self.legacy == self.new:
            return []
        return [Disagreement(PATH, "value_changed", self.legacy, self.new)]

    def row(self) -> dict[str, Any]:
        """Return what a result row says of it: both classes, and why it was not compared when it was not."""
        row: dict[str, Any] = {"legacy": self.legacy, "new": self.new, "compared": self.compared}
        if not self.compared:
            missing = [side for side, value in (("legacy", self.legacy), ("new", self.new)) if value is None]
            row["not_compared"] = f"no error class recorded by the {' or the '.join(missing)} run"
        return row


def compare_classes(legacy_class: str | None, new_error: Any) -> ClassCompared:
    """Return the comparison of a legacy run's recorded class with the new run's recorded error."""
    found = of_new_error(new_error)
    return ClassCompared(legacy_class, None if found is None else str(found))


COMPARED_VERDICTS = ("agreed", "accepted", "disagreed", "unfinished")


def class_counts(rows: Any) -> dict[str, dict[str, Any]]:
    """Per automation with triggers both sides failed: how many, how many had their class compared,
    and why the others were not (reason -> triggers)."""
    out: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, str]] = set()
    for row in rows:
        found = row.get("error_class")
        key = (str(row["automation"]), str(row["trigger_id"]))
        if not isinstance(found, dict) or row.get("verdict") not in COMPARED_VERDICTS or key in seen:
            continue
        seen.add(key)
        entry = out.setdefault(str(row["automation"]), {"both_failed": 0, "compared": 0, "not_compared": {}})
        entry["both_failed"] += 1
        if found.get("compared"):
            entry["compared"] += 1
        else:
            why = str(found.get("not_compared") or "no error class recorded")
            entry["not_compared"][why] = entry["not_compared"].get(why, 0) + 1
    return out


def class_phrase(counts: dict[str, Any] | None) -> str | None:
    """Say for how many of the triggers both sides failed the error class was compared (None: no such trigger)."""
    if not counts:
        return None
    text = f"both runs failed in {counts['both_failed']} trigger(s): error class compared in {counts['compared']}"
    if counts["not_compared"]:
        text += "; not compared in " + ", ".join(f"{n} ({why})" for why, n in sorted(counts["not_compared"].items()))
    return text
