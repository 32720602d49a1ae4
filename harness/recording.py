"""The canonical recording set's records: recorded triggers and legacy decision traces.

A set is a directory ``recordings/<set>/`` holding ``manifest.toml`` (see ``harness.manifest``)
and, per automation, ``<automation>/triggers.jsonl`` and ``<automation>/legacy.jsonl``: one JSON
object per line, keys sorted, so a set diffs well in git. ``legacy.jsonl`` lists its traces in the
order of their triggers in ``triggers.jsonl`` (a subset: a trigger may have no legacy trace), which
lets :func:`iter_pairs` join the two files in one pass with bounded memory.

Loaders are generators: they read one line at a time and hold one record at a time, and every
error they raise is a :class:`~harness.errors.RecordingError` naming file, line and field. The full
specification is ``docs/recordings.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson

from harness._field import FieldReader, JSONObject, format_timestamp, type_name
from harness.error_class import ERROR_CLASSES
from harness.errors import RecordingError

TRIGGERS_FILE = "triggers.jsonl"
LEGACY_FILE = "legacy.jsonl"

_UNSURE = object()
_LONG_DIGITS = re.compile(rb"\d{19,}")  # an integer orjson may not keep exact (past 64 bits)
# The same test on bytes, about 7x faster than the regex on a trace's line: every ASCII digit
# becomes NUL, then 19 NULs in a row are looked for. A NUL of the line itself can only add a
# false alarm, and a raw NUL is not valid JSON anyway: json decodes (and refuses) such a line.
_DIGITS_TO_NUL = bytes(0 if 0x30 <= i <= 0x39 else i for i in range(256))
_NUL_RUN = b"\x00" * 19


def fast_json(raw: bytes) -> Any:
    """Decode one UTF-8 JSON document with orjson where it reads it as ``json.loads`` does.

    Returns ``_UNSURE`` (the caller then decodes with :mod:`json`, for its values and its error
    messages) for what orjson refuses (invalid UTF-8 or JSON, a blank line, NaN, a lone
    surrogate) and for any run of 19 digits or more: orjson reads integers past 64 bits as
    floats. Everything else decodes to the same values, several times faster.
    """
    long_digits = _NUL_RUN in raw.translate(_DIGITS_TO_NUL) if type(raw) is bytes else _LONG_DIGITS.search(raw)
    if long_digits:
        return _UNSURE
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _UNSURE


def loads_json(raw: bytes) -> Any:
    """Decode one JSON document exactly as ``json.loads`` does (values and errors), quickly (:func:`fast_json`)."""
    value = fast_json(raw)
    return json.loads(raw) if value is _UNSURE else value


class TraceStatus(StrEnum):
    """How a legacy run ended, reduced to what both sides of a comparison can say."""

    SUCCEEDED = "succeeded"
    FILTERED = "filtered"
    FAILED = "failed"


class Evidence(StrEnum):
    """A field of a decision trace that a legacy export can hold (its *evidence depth*).

    A trace compares only the fields both sides have: an export of statuses alone cannot prove a
    path, and a verdict never claims agreement on a field nothing compared.
    """

    STATUS = "status"
    PATH = "path"
    DECISIONS = "decisions"
    CALLS = "calls"
    OUTPUTS = "outputs"


ALL_EVIDENCE: tuple[Evidence, ...] = tuple(Evidence)


class Platform(StrEnum):
    """The legacy tool (or generic format) a trace was imported from."""

    N8N = "n8n"
    ZAPIER = "zapier"
    MAKE = "make"
    POWER_AUTOMATE = "power-automate"
    CSV = "csv"
    JSONL = "jsonl"


POLL_SOURCE = "poll"


@dataclass(frozen=True)
class PollOrigin:
    """The poll a polled item came from: the legacy poller, when the poll ran, the item's id in it."""

    poller: str
    at: datetime
    item: str


@dataclass(frozen=True)
class RecordedTrigger:
    """One recorded delivery: what the automation receives. Header names are lower-case.

    ``poll`` is set exactly when ``source`` is ``"poll"``: the trigger is one item a legacy
    poller found, and ``poll`` says which poll found it.
    """

    id: str
    received_at: datetime
    headers: dict[str, str]
    body: JSONObject
    source: str
    poll: PollOrigin | None = None


@dataclass(frozen=True)
class ItemTrace:
    """What the legacy run did with one item of a run over many items (an n8n run, a fan-out).

    ``key`` is the key of the migrated code's child job for the item (``ctx.enqueue(..., key=)``;
    a shadow poller's ``poll:<id>`` is paired with ``<id>``). The other fields mean what they
    mean on :class:`LegacyTrace` and are compared within the parent trace's evidence.
    """

    key: str
    status: TraceStatus = TraceStatus.SUCCEEDED
    path: list[str] = field(default_factory=list)
    decisions: dict[str, Any] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    failed_step: str | None = None


@dataclass(frozen=True)
class LegacyTrace:
    """What the legacy tool did with one trigger, as a decision trace.

    ``calls`` are dicts with ``step``, ``provider``, ``method``, ``url`` and ``body`` (``None``
    where the export does not show a value); ``outputs`` maps a step name to the JSON the step
    produced (for read steps: the response body the migrated code reads in shadow mode).
    ``evidence`` names the fields the export really holds (all five unless the importer says
    less); a field outside it is not compared. ``items`` holds one sub-trace per item of a run
    over many items (keys unique), compared with the child jobs the migrated code starts.
    ``nodes`` holds every node's output items where the export records them (n8n's runData):
    node -> one list of item ``json`` per output index (capped like the runtime's, see
    ``queue_core.compat.n8n.recorded_outputs``); the trigger's node maps to ``None`` (it is the
    recorded trigger, the replay's input, so it is not compared).
    """

    trigger_id: str
    status: TraceStatus
    platform: Platform
    path: list[str] = field(default_factory=list)
    decisions: dict[str, Any] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    failed_step: str | None = None
    raw_run_id: str | None = None
    workflow: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    evidence: tuple[Evidence, ...] = ALL_EVIDENCE
    items: list[ItemTrace] = field(default_factory=list)
    nodes: dict[str, Any] = field(default_factory=dict)
    failed_node: str | None = None  # the legacy node a failed run stopped at (n8n), compared as failed_at
    error_class: str | None = None  # why a failed run failed (harness.error_class), compared as error_class


CALL_KEYS = ("step", "provider", "method", "url", "body")


def dump_line(record: JSONObject) -> str:
    """Serialise one record as a JSONL line: sorted keys, compact, UTF-8 text, newline-terminated."""
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def trigger_to_json(trigger: RecordedTrigger) -> JSONObject:
    """Return the canonical JSON object for a trigger (the inverse of :func:`trigger_from_json`)."""
    record: JSONObject = {
        "id": trigger.id,
        "received_at": format_timestamp(trigger.received_at),
        "headers": dict(trigger.headers),
        "body": trigger.body,
        "source": trigger.source,
    }
    if trigger.poll is not None:
        poll = trigger.poll
        record["poll"] = {"poller": poll.poller, "at": format_timestamp(poll.at), "item": poll.item}
    return record


def _poll_from_json(read: FieldReader, source: str) -> PollOrigin | None:
    """Read ``poll``: required when ``source`` is ``"poll"``, refused otherwise."""
    present = read.obj.get("poll") is not None
    if source != POLL_SOURCE:
        if present:
            raise read.fail("poll", f"allowed only when source is {POLL_SOURCE!r} (source is {source!r})")
        return None
    if not present:
        raise read.fail("poll", f"required when source is {POLL_SOURCE!r}")
    poll = read.nested("poll")
    at = poll.timestamp("at")
    assert at is not None
    return PollOrigin(poller=str(poll.string("poller")), at=at, item=str(poll.string("item")))


def trigger_from_json(obj: JSONObject, path: str, line: int | None) -> RecordedTrigger:
    """Validate one ``triggers.jsonl`` object; raise RecordingError naming the bad field."""
    read = FieldReader(obj, path, line)
    headers = read.obj_field("headers", required=False)
    for name, value in headers.items():
        if not isinstance(value, str):
            raise read.fail(f"headers.{name}", f"expected a string, got {type_name(value)}")
    received_at = read.timestamp("received_at")
    assert received_at is not None
    source = str(read.string("source"))
    return RecordedTrigger(
        id=str(read.string("id")),
        received_at=received_at,
        headers={name.lower(): value for name, value in headers.items()},
        body=read.obj_field("body"),
        source=source,
        poll=_poll_from_json(read, source),
    )


def trace_to_json(trace: LegacyTrace) -> JSONObject:
    """Return the canonical JSON object for a legacy trace; optional nulls are omitted."""
    record: JSONObject = {
        "trigger_id": trace.trigger_id,
        "status": str(trace.status),
        "platform": str(trace.platform),
        "path": list(trace.path),
        "decisions": dict(trace.decisions),
        "calls": [{key: call.get(key) for key in CALL_KEYS} for call in trace.calls],
        "outputs": dict(trace.outputs),
    }
    optional = {
        "error": trace.error,
        "failed_step": trace.failed_step,
        "failed_node": trace.failed_node,
        "error_class": trace.error_class,
        "raw_run_id": trace.raw_run_id,
        "workflow": trace.workflow,
        "started_at": format_timestamp(trace.started_at) if trace.started_at else None,
        "finished_at": format_timestamp(trace.finished_at) if trace.finished_at else None,
    }
    record.update({key: value for key, value in optional.items() if value is not None})
    if tuple(trace.evidence) != ALL_EVIDENCE:  # full depth is the default and stays implicit
        record["evidence"] = [str(e) for e in trace.evidence]
    if trace.items:  # absent for a single-item run, so older lines dump byte-identically
        record["items"] = [_item_to_json(item) for item in trace.items]
    if trace.nodes:  # absent where the export records no node outputs
        record["nodes"] = dict(trace.nodes)
    return record


def _item_to_json(item: ItemTrace) -> JSONObject:
    record: JSONObject = {
        "key": item.key,
        "status": str(item.status),
        "path": list(item.path),
        "decisions": dict(item.decisions),
        "calls": [{key: call.get(key) for key in CALL_KEYS} for call in item.calls],
        "outputs": dict(item.outputs),
    }
    optional = {"error": item.error, "failed_step": item.failed_step}
    record.update({key: value for key, value in optional.items() if value is not None})
    return record


def _item_from_json(read: FieldReader, index: int, value: Any) -> ItemTrace:
    name = f"items[{index}]"
    if not isinstance(value, dict):
        raise read.fail(name, f"expected an object, got {type_name(value)}")
    item = FieldReader(value, read.path, read.line, prefix=f"{name}.")
    status = item.choice("status", tuple(TraceStatus)) if value.get("status") is not None else TraceStatus.SUCCEEDED
    return ItemTrace(
        key=str(item.string("key")),
        status=TraceStatus(status),
        path=item.strings("path", required=False),
        decisions=item.obj_field("decisions", required=False),
        calls=[_call_from_json(item, i, c) for i, c in enumerate(item.array("calls", required=False))],
        outputs=item.obj_field("outputs", required=False),
        error=item.string("error", required=False),
        failed_step=item.string("failed_step", required=False),
    )


def _items_from_json(read: FieldReader) -> list[ItemTrace]:
    """Read ``items`` (absent: none); keys must be unique within the trace."""
    items = [_item_from_json(read, i, v) for i, v in enumerate(read.array("items", required=False))]
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        if item.key in seen:
            raise read.fail(f"items[{index}].key", f"duplicate key {item.key!r} (also items[{seen[item.key]}])")
        seen[item.key] = index
    return items


def _call_from_json(read: FieldReader, index: int, value: Any) -> dict[str, Any]:
    name = f"calls[{index}]"
    if not isinstance(value, dict):
        raise read.fail(name, f"expected an object, got {type_name(value)}")
    call = FieldReader(value, read.path, read.line, prefix=f"{read.prefix}{name}.")
    method = call.string("method", required=False)
    return {
        "step": call.string("step"),
        "provider": call.string("provider", required=False),
        "method": method.upper() if method else None,
        "url": call.string("url", required=False),
        "body": value.get("body"),
    }


def _evidence_from_json(read: FieldReader) -> tuple[Evidence, ...]:
    """Read ``evidence`` (absent: every field); ``status`` is always part of it."""
    if read.obj.get("evidence") is None:
        return ALL_EVIDENCE
    names = read.strings("evidence")
    for index, name in enumerate(names):
        if name not in ALL_EVIDENCE:
            raise read.fail(f"evidence[{index}]", f"expected one of {', '.join(ALL_EVIDENCE)}, got {name!r}")
    chosen = {Evidence(n) for n in names} | {Evidence.STATUS}
    return tuple(e for e in ALL_EVIDENCE if e in chosen)


def trace_from_json(obj: JSONObject, path: str, line: int | None) -> LegacyTrace:
    """Validate one ``legacy.jsonl`` object; raise RecordingError naming the bad field."""
    read = FieldReader(obj, path, line)
    status = read.choice("status", tuple(TraceStatus))
    platform = read.choice("platform", tuple(Platform))
    calls = [_call_from_json(read, i, c) for i, c in enumerate(read.array("calls", required=False))]
    return LegacyTrace(
        trigger_id=str(read.string("trigger_id")),
        status=TraceStatus(status),
        platform=Platform(platform),
        path=read.strings("path", required=False),
        decisions=read.obj_field("decisions", required=False),
        calls=calls,
        outputs=read.obj_field("outputs", required=False),
        error=read.string("error", required=False),
        failed_step=read.string("failed_step", required=False),
        raw_run_id=read.string("raw_run_id", required=False),
        workflow=read.string("workflow", required=False),
        started_at=read.timestamp("started_at", required=False),
        finished_at=read.timestamp("finished_at", required=False),
        evidence=_evidence_from_json(read),
        items=_items_from_json(read),
        nodes=_nodes_from_json(read),
        failed_node=read.string("failed_node", required=False),
        error_class=_error_class_from_json(read),
    )


def _error_class_from_json(read: FieldReader) -> str | None:
    """Read ``error_class`` (absent: not recorded, so not compared): one of harness.error_class's."""
    if read.obj.get("error_class") is None:
        return None
    return str(read.choice("error_class", ERROR_CLASSES))


def _nodes_from_json(read: FieldReader) -> dict[str, Any]:
    """Read ``nodes`` (absent: none): node -> null (the trigger) or a list of outputs, each a list."""
    nodes = read.obj_field("nodes", required=False)
    for name, outputs in nodes.items():
        if outputs is None:
            continue
        if not isinstance(outputs, list):
            raise read.fail(f"nodes.{name}", f"expected null or an array of outputs, got {type_name(outputs)}")
        for index, items in enumerate(outputs):
            if not isinstance(items, list):
                raise read.fail(f"nodes.{name}[{index}]", f"expected an array of items, got {type_name(items)}")
    return nodes


def iter_json_lines(path: Path) -> Iterator[tuple[int, JSONObject]]:
    """Yield ``(line number, object)`` for each non-blank line of a JSONL file, one at a time.

    Raises RecordingError for a missing file and for a line that is not UTF-8, not JSON or not
    an object. Lines are decoded one by one, so the line number in an error is exact.
    """
    name = str(path)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise RecordingError(name, None, None, "file does not exist") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            yield from _parse_line(raw, name, number)


def _parse_line(raw: bytes, name: str, number: int) -> Iterator[tuple[int, JSONObject]]:
    value = fast_json(raw)
    if value is _UNSURE:
        value = _slow_line(raw, name, number)
        if value is _UNSURE:
            return
    if not isinstance(value, dict):
        raise RecordingError(name, number, None, f"expected an object, got {type_name(value)}")
    yield number, value


def _slow_line(raw: bytes, name: str, number: int) -> Any:
    """Decode a line :func:`fast_json` left to :mod:`json` (``_UNSURE`` for a blank line)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordingError(name, number, None, "not valid UTF-8") from None
    if not text.strip():
        return _UNSURE
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordingError(name, number, None, f"not valid JSON ({exc.msg})") from None


def iter_triggers(path: Path) -> Iterator[RecordedTrigger]:
    """Stream the triggers of a ``triggers.jsonl`` file, validating each line."""
    for number, obj in iter_json_lines(path):
        yield trigger_from_json(obj, str(path), number)


def iter_traces(path: Path, *, outline: bool = False) -> Iterator[LegacyTrace]:
    """Stream the legacy traces of a ``legacy.jsonl`` file, validating each line.

    With ``outline`` each trace is yielded without what its run sent and got (``calls``,
    ``outputs``, ``nodes``, ``items`` are empty): its status, path, decisions and evidence are
    what a reader that holds many traces at once needs (branch coverage), and node outputs are
    most of a trace's memory. Every line is still validated in full.
    """
    for number, obj in iter_json_lines(path):
        trace = trace_from_json(obj, str(path), number)
        yield replace(trace, calls=[], outputs={}, nodes={}, items=[]) if outline else trace


def iter_pairs(directory: Path) -> Iterator[tuple[RecordedTrigger, LegacyTrace | None]]:
    """Join an automation directory's triggers with their legacy traces in one streaming pass.

    Yields every trigger with its trace (or ``None``). Relies on ``legacy.jsonl`` following the
    order of ``triggers.jsonl``; a trace whose trigger never comes raises RecordingError naming
    its line. Memory use does not grow with the files.
    """
    legacy_path = directory / LEGACY_FILE
    numbered = iter_json_lines(legacy_path) if legacy_path.exists() else iter(())
    pending = next(numbered, None)
    for trigger in iter_triggers(directory / TRIGGERS_FILE):
        trace = None
        if pending is not None and pending[1].get("trigger_id") == trigger.id:
            trace = trace_from_json(pending[1], str(legacy_path), pending[0])
            pending = next(numbered, None)
        yield trigger, trace
    if pending is not None:
        number, obj = pending
        trace_from_json(obj, str(legacy_path), number)  # a malformed line reports its own field
        raise RecordingError(
            str(legacy_path), number, "trigger_id",
            f"no trigger {obj.get('trigger_id')!r} at or after this position in {TRIGGERS_FILE} "
            f"(legacy traces must follow the order of their triggers)",
        )


def write_jsonl(path: Path, records: Iterable[JSONObject], *, append: bool = False) -> int:
    """Write records as JSONL (sorted keys, one per line); return how many were written."""
    count = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w", encoding="utf-8", newline="\n") as handle:
        for record in records:
            handle.write(dump_line(record))
            count += 1
    return count


def write_triggers(path: Path, triggers: Iterable[RecordedTrigger], *, append: bool = False) -> int:
    """Write triggers to a ``triggers.jsonl`` file; return how many were written."""
    return write_jsonl(path, (trigger_to_json(t) for t in triggers), append=append)


def write_traces(path: Path, traces: Iterable[LegacyTrace], *, append: bool = False) -> int:
    """Write legacy traces to a ``legacy.jsonl`` file; return how many were written."""
    return write_jsonl(path, (trace_to_json(t) for t in traces), append=append)
