"""Pair legacy runs with triggers: by delivery id where both sides carry one, else by time.

Pure: takes the triggers already in a set and the runs of an export, returns who pairs with whom.
A run whose export shows its own trigger pairs with that trigger unless the set already holds the
same delivery (recorded live, say), in which case the recorded trigger wins and no duplicate is
made. A run without a trigger pairs with the nearest unpaired trigger received within ``window``
of the run's start.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from harness.importer._run import ImportedRun
from harness.recording import LegacyTrace, RecordedTrigger

DELIVERY_HEADERS = ("x-github-delivery", "webhook-id", "x-delivery-id", "x-request-id", "idempotency-key",
                    "x-ms-client-tracking-id")


@dataclass(frozen=True)
class Pairing:
    """The outcome of pairing: triggers in set order, and what could not be paired."""

    pairs: list[tuple[RecordedTrigger, LegacyTrace]]
    trigger_only: list[RecordedTrigger]
    legacy_only: list[LegacyTrace]
    unfinished: int = 0
    by_delivery: int = 0
    by_time: int = 0


def delivery_id(trigger: RecordedTrigger, locator: str | None = None) -> str | None:
    """Return a trigger's delivery id from ``header:<name>``/``body:<path>``, or the usual places.

    Without a locator: the first of the usual delivery headers, else a string ``id`` in the body.
    """
    if locator:
        kind, _, where = locator.partition(":")
        if kind == "header":
            return trigger.headers.get(where.lower())
        value: object = trigger.body
        for part in where.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return str(value) if isinstance(value, str | int) else None
    for header in DELIVERY_HEADERS:
        if header in trigger.headers:
            return trigger.headers[header]
    body_id = trigger.body.get("id")
    return body_id if isinstance(body_id, str) else None


def pair(
    existing: Sequence[RecordedTrigger],
    runs: Iterable[ImportedRun],
    *,
    window: timedelta,
    locator: str | None = None,
) -> Pairing:
    """Pair an export's runs with a set's existing triggers and the triggers the export carries."""
    by_delivery = {d: t for t in existing if (d := delivery_id(t, locator)) is not None}
    by_id = {t.id: t for t in existing}
    used: set[str] = set()
    pairs: list[tuple[RecordedTrigger, LegacyTrace]] = []
    new_triggers: list[RecordedTrigger] = []
    loose: list[LegacyTrace] = []
    unfinished = matched = 0
    for run in runs:
        known = by_delivery.get(run.delivery_id or "") or by_id.get(run.trigger.id if run.trigger else "")
        if known is not None and known.id not in used:
            used.add(known.id)
            if run.trace is not None:
                pairs.append((known, replace(run.trace, trigger_id=known.id)))
                matched += 1
            unfinished += run.trace is None
        elif run.trigger is not None:
            new_triggers.append(run.trigger)
            if run.trace is not None:
                pairs.append((run.trigger, replace(run.trace, trigger_id=run.trigger.id)))
            unfinished += run.trace is None
        elif run.trace is not None:
            loose.append(run.trace)
    free = [t for t in existing if t.id not in used]
    timed, legacy_only = pair_by_time(free, loose, window)
    pairs.extend(timed)
    paired_ids = {t.id for t, _ in pairs}
    trigger_only = [t for t in [*existing, *new_triggers] if t.id not in paired_ids]
    pairs.sort(key=lambda p: (p[0].received_at, p[0].id))
    return Pairing(pairs, trigger_only, legacy_only, unfinished, matched, len(timed))


def pair_by_time(
    triggers: Sequence[RecordedTrigger], traces: Sequence[LegacyTrace], window: timedelta
) -> tuple[list[tuple[RecordedTrigger, LegacyTrace]], list[LegacyTrace]]:
    """Pair each trace with the nearest unpaired trigger received within ``window`` of its start.

    Traces are taken in start order; a trace without ``started_at`` cannot be paired by time.
    """
    ordered = sorted(triggers, key=lambda t: t.received_at)
    times = [t.received_at for t in ordered]
    taken = [False] * len(ordered)
    pairs: list[tuple[RecordedTrigger, LegacyTrace]] = []
    unpaired: list[LegacyTrace] = []
    for trace in sorted(traces, key=lambda t: (t.started_at is None, t.started_at or 0)):
        index = _nearest(times, taken, trace, window)
        if index is None:
            unpaired.append(trace)
            continue
        taken[index] = True
        pairs.append((ordered[index], replace(trace, trigger_id=ordered[index].id)))
    return pairs, unpaired


def _nearest(times: list[datetime], taken: list[bool], trace: LegacyTrace, window: timedelta) -> int | None:
    at = trace.started_at
    if at is None:
        return None
    start = bisect.bisect_left(times, at - window)
    stop = bisect.bisect_right(times, at + window)
    free = [i for i in range(start, stop) if not taken[i]]
    if not free:
        return None
    return min(free, key=lambda i: abs(times[i] - at))
