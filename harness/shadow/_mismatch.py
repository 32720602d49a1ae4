"""The failure text of a shadow item: where the trigger is, and each unexplained field."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.shadow._reads import reads_text
from harness.shadow.accepted import Entry
from harness.shadow.gate import FULL_EVIDENCE, compared_phrase
from harness.shadow.outcome import TriggerOutcome


def _cell(value: Any, width: int) -> str:
    text = "—" if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= width else text[: width - 1] + "…"


def _items_line(outcome: TriggerOutcome) -> str:
    """Say how the trigger's items compared and name those with an unexplained difference."""
    assert outcome.items is not None
    keys = list(dict.fromkeys(d.path[len("items["):].split("]", 1)[0] for d, _ in outcome.unexplained
                              if d.path.startswith("items[")))
    counts = outcome.items
    text = f"items: {counts['compared']} compared, {counts['agreed']} agree"
    if counts["extra"]:
        text += f", {counts['extra']} child job(s) with no legacy item"
    return text + (f"; differing: {', '.join(keys)}" if keys else "")


def _class_line(found: dict[str, Any]) -> str:
    """Say how the error classes of two failed runs compared, or why they were not."""
    legacy, new = found.get("legacy") or "none recorded", found.get("new") or "none recorded"
    if not found.get("compared"):
        return f"error class not compared ({found.get('not_compared')}): legacy {legacy}, new {new}"
    verdict = "agree" if found["legacy"] == found["new"] else "differ"
    return f"error class compared: legacy {legacy}, new {new} ({verdict})"


def headline(outcome: TriggerOutcome) -> str:
    """Say in one line why a trigger fails: its first unexplained field (and how many more), a TODO, an error."""
    if outcome.kind == "error":
        return "could not be replayed"
    if outcome.unfinished is not None:
        return f"unfinished: reached node {outcome.unfinished!r}, not translated yet (TODO)"
    unexplained = outcome.unexplained
    if not unexplained:
        return "no unexplained difference"
    first = unexplained[0][0]
    more = f" (+{len(unexplained) - 1} more)" if len(unexplained) > 1 else ""
    return f"{first.path} {_cell(first.legacy, 30)} → {_cell(first.new, 30)} {first.kind}{more}"


def describe(outcome: TriggerOutcome, triggers_file: Path | None, entries: Sequence[Entry],
             accepted_path: Path | None) -> str:
    """Return the failure text of a trigger's item: where it is, each field, legacy, new, kind.

    ``triggers_file`` is the file the trigger was read from, as it is to be shown; ``entries``
    are the accepted differences of ``accepted_path``, which the judgements index.
    """
    ref = outcome.ref
    head = f"shadow mismatch: {ref.automation} trigger {ref.trigger_id}: {headline(outcome)}"
    where = [f"recorded at {triggers_file}:{ref.line}"] if triggers_file is not None else []
    if outcome.kind == "error":
        return "\n".join([head, *where, f"could not be replayed: {outcome.error}"])
    lines = [head, *where, f"legacy run: {outcome.legacy_status}"
             + (f" ({outcome.legacy_error})" if outcome.legacy_error else "")
             + f"   new run: {outcome.new_status}" + (f" ({outcome.error})" if outcome.error else "")]
    if outcome.unfinished is not None:
        lines.append(f"unfinished: the new run reached node {outcome.unfinished!r}, which is not translated yet "
                     "(a TODO): never agreement, whatever the legacy run did")
    if outcome.error_class is not None:  # both runs failed: say whether why they failed was compared
        lines.append(_class_line(outcome.error_class))
    if set(outcome.evidence) != set(FULL_EVIDENCE):  # a shallow export: say what the item could check
        lines.append(compared_phrase(outcome.evidence))
    if outcome.items is not None:
        lines.append(_items_line(outcome))
        lines.extend(f"item {key}: new run failed ({error})" for key, error in outcome.item_errors.items())
    rows: list[tuple[str, str, str, str]] = [(d.path, _cell(d.legacy, 40), _cell(d.new, 40), d.kind
             + (" [side effect]" if d.side_effect else "") + (" [noisy]" if d.pattern in outcome.noisy else ""))
            for d, _ in outcome.unexplained]
    widths = [max(len(r[i]) for r in [("field path", "legacy", "new", "kind"), *rows]) for i in range(3)]
    for field_path, old, new, kind in [("field path", "legacy", "new", "kind"), *rows]:
        lines.append(f"  {field_path:<{widths[0]}}  {old:<{widths[1]}}  {new:<{widths[2]}}  {kind}")
    for d, _ in outcome.unexplained:
        if d.path in outcome.reads:  # the cause: what the new code had read when it decided
            lines.append(f"  {d.path}: decided having read {reads_text(outcome.reads[d.path])}")
    for d, j in outcome.unexplained:
        if j.expired_by is not None:
            entry = entries[j.expired_by]
            lines.append(f"  {d.path}: accepted difference #{entry.index + 1} in {accepted_path} "
                         f"(owner {entry.owner}) expired on {entry.expires.isoformat()}")
    accepted = [(d, j) for d, j in zip(outcome.disagreements, outcome.judgements, strict=True) if j.accepted_by is not None]
    if accepted:
        lines.append(f"  ({len(accepted)} more difference(s) accepted by {accepted_path})")
    if outcome.exception:
        lines.append("the new code raised:")
        lines.extend("  " + line for line in outcome.exception.rstrip().splitlines())
    return "\n".join(lines)
