"""The queue's database operations: enqueue, claim, heartbeat, complete, read.

Each method is one statement (one round trip) however many jobs it covers. The SQL lives in
``queries/queue.sql``. ``now`` is optional everywhere: None means the database clock, an explicit
datetime lets tests drive lease expiry deterministically.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from functools import lru_cache, partial
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from . import _spec
from ._spec import checked
from .errors import JobNotFoundError, WaitTokenError
from .job import ClaimedJob, JobSpec, Outcome
from .registry import Registry
from .store import jobs, leases, verdicts, waits
from .states import JobStatus, Mode

ALL_MODES: tuple[str, ...] = tuple(m.value for m in Mode)
# A bulk enqueue of at least this many jobs refreshes the table's statistics at once, so the next
# claims use the claim index instead of sorting a backlog the planner believes is tiny.
ANALYZE_AFTER = 2000


def check_spec(spec: JobSpec, registry: Registry | None) -> None:
    """Raise EnqueueError (field set, no index) unless ``spec`` would be accepted by
    :meth:`Queue.enqueue` with ``registry``. Pure: no connection, nothing written."""
    checked(None, spec, registry)


# Where a statement may run instead of on a connection from the pool: a connection the caller
# holds, or a cursor of one.
Connectable = leases.Connectable


class Queue:
    """Database operations on jobs, over an async connection pool.

    Every method runs in its own transaction; a failure rolls back the whole batch.
    """

    def __init__(self, pool: AsyncConnectionPool, *, registry: Registry | None = None) -> None:
        self.pool = pool
        self.registry = registry

    async def enqueue(self, spec: JobSpec, *, actor: str = "api", now: datetime | None = None) -> uuid.UUID:
        """Enqueue one job and return its id (the existing job's id for a repeated dedupe key)."""
        ids = await self.enqueue_many([spec], actor=actor, now=now)
        return ids[0]

    async def enqueue_many(
        self, specs: Iterable[JobSpec], *, actor: str = "api", now: datetime | None = None
    ) -> list[uuid.UUID]:
        """Enqueue jobs in one statement; return their ids in input order.

        Every spec is validated before anything is written, so a bad one rejects the batch with
        an EnqueueError naming its index and field. Workers listening are woken once per
        automation at commit.
        """
        rows = [_spec.validate(i, s, self.registry) for i, s in enumerate(specs)]
        if not rows:
            return []
        async with self.pool.connection() as conn:
            async with conn.transaction():
                result = await _insert(conn, rows, actor, now)
            if len(rows) >= ANALYZE_AFTER:
                await _analyze(conn)
        return result

    async def enqueue_in(self, conn: AsyncConnection[Any], specs: Sequence[JobSpec], *, actor: str,
                         now: datetime | None = None) -> list[uuid.UUID]:
        """Enqueue jobs inside the caller's open transaction on ``conn`` (validated as by
        :meth:`enqueue_many`); they and their wake-up exist only if the caller commits."""
        rows = [_spec.validate(i, s, self.registry) for i, s in enumerate(specs)]
        return await _insert(conn, rows, actor, now) if rows else []

    async def claim(
        self,
        worker: str,
        limit: int,
        *,
        lease_s: float,
        automations: Sequence[str],
        modes: Sequence[str] = ALL_MODES,
        live_automations: Sequence[str] | None = None,
        now: datetime | None = None,
        conn: Connectable | None = None,
    ) -> list[ClaimedJob]:
        """Claim up to ``limit`` due jobs (or jobs whose lease expired) for ``worker``.

        Rows locked by a concurrent claimer are skipped, never waited on, so two workers never
        receive the same claim. Reclaims and dead transitions are written to the ledger in the
        same statement. Live jobs are claimed only for ``live_automations`` (default: all of
        ``automations``): the worker passes the automations whose code passed the go-live gate.
        ``conn``: run on this connection (a worker lane's own) instead of one from the pool.
        """
        if limit <= 0:
            return []
        params = _claim_params(worker, limit, lease_s, automations, modes, live_automations, now)
        rows = await self._on(conn, leases.claim, params)
        return _in_claim_order([_claimed(r) for r in rows])

    async def complete_and_claim(
        self,
        outcomes: Sequence[Outcome],
        worker: str,
        limit: int,
        *,
        lease_s: float,
        automations: Sequence[str],
        modes: Sequence[str] = ALL_MODES,
        live_automations: Sequence[str] | None = None,
        now: datetime | None = None,
        conn: Connectable | None = None,
    ) -> tuple[int, list[ClaimedJob]]:
        """Write ``outcomes`` and claim up to ``limit`` jobs in one statement (one commit).

        One round trip and one WAL flush where separate calls to :meth:`complete` and
        :meth:`claim` cost two of each. Semantics are those of the two methods; the statement is
        atomic, so if either part fails neither takes effect. The claim never picks a job whose
        outcome this statement writes. Returns how many outcomes landed (the others were fenced
        out; :meth:`complete` names them) and the jobs claimed.
        """
        params = _outcome_params(outcomes, worker, now)
        params.update(_claim_params(worker, limit, lease_s, automations, modes, live_automations, now))
        rows = await self._on(conn, partial(leases.turn, full=_full(outcomes)), params)
        # One row counts the outcomes applied (its first column is set); the others are claims.
        claimed = _in_claim_order([_claimed(r[1:]) for r in rows if r[0] is None])
        return next(r[0] for r in rows if r[0] is not None), claimed

    async def heartbeat(
        self, held: Sequence[tuple[uuid.UUID, int]], *, lease_s: float, now: datetime | None = None
    ) -> set[uuid.UUID]:
        """Extend the leases of ``held`` (id, claim_count) pairs; return the ids still held."""
        if not held:
            return set()
        held = sorted(held)  # id order, as the heartbeat statement locks them (see _outcome_params)
        params = {
            "ids": [h[0] for h in held], "claims": [h[1] for h in held],
            "lease_s": lease_s, "now": now,
        }
        async with self.pool.connection() as conn:
            return await leases.heartbeat(conn, params)

    async def complete(
        self, outcomes: Sequence[Outcome], *, worker: str, now: datetime | None = None,
        conn: Connectable | None = None,
    ) -> set[uuid.UUID]:
        """Write ``outcomes`` in one statement; return the ids whose outcome was applied.

        An outcome whose claim was taken over (claim_count moved on, or the job is no longer
        running) is dropped: the database keeps the newer claimant's state.
        """
        if not outcomes:
            return set()
        rows = await self._on(conn, partial(leases.complete, full=_full(outcomes)),
                              _outcome_params(outcomes, worker, now))
        return {row[0] for row in rows}

    async def _on(self, conn: Connectable | None, statement: Callable[[Connectable, dict[str, Any]], Awaitable[list[Any]]],
                  params: dict[str, Any]) -> list[Any]:
        """Run a store statement on ``conn`` (a connection or a cursor of one; a worker lane
        passes its own), or on a connection from the pool when it is None."""
        if conn is None:
            async with self.pool.connection() as pooled:
                return await statement(pooled, params)
        return await statement(conn, params)

    async def get(self, job_id: uuid.UUID | str) -> dict[str, Any]:
        """Return the job's row as a dict; raise JobNotFoundError."""
        async with self.pool.connection() as conn:
            return await jobs.fetch(conn, _as_uuid(job_id))

    async def ledger(self, job_id: uuid.UUID | str) -> list[dict[str, Any]]:
        """Return the job's ledger entries in order."""
        return await jobs.ledger(self.pool, _as_uuid(job_id))

    async def counts(self) -> dict[str, int]:
        """Return the number of jobs in each status."""
        return await jobs.counts(self.pool)

    async def trace(self, job_id: uuid.UUID | str) -> dict[str, Any] | None:
        """Return the decision trace recorded for a shadow/dry-run job, if any."""
        return await jobs.trace(self.pool, _as_uuid(job_id))

    async def results(self, job_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
        """Return status, attempt, error and decision trace of each job in ``job_ids`` (one query)."""
        return await jobs.results(self.pool, job_ids)

    async def record_verdict(
        self, automation: str, code_version: str, *, ready: bool, reasons: Sequence[str],
        recording: str | None = None, summary: dict[str, Any] | None = None,
    ) -> int:
        """Record a go-live gate verdict for ``automation`` at ``code_version``; return its id."""
        return await verdicts.record(self.pool, automation, code_version, ready=ready, reasons=reasons,
                                     recording=recording, summary=summary)

    async def passing_verdict(self, automation: str, code_version: str) -> dict[str, Any] | None:
        """Return the newest passing verdict for ``automation`` at ``code_version``, or None."""
        return await verdicts.passing(self.pool, automation, code_version)

    async def worker_event(self, kind: str, actor: str, detail: dict[str, Any]) -> None:
        """Append a worker-level event (e.g. a gate override) to the ledger under the nil job id."""
        await verdicts.worker_event(self.pool, kind, actor, detail)

    async def clear(self) -> None:
        """Delete every job, with its steps, decisions, waits and ledger rows.

        Only for a throwaway database that one process owns (the shadow replay empties its own
        between batches): it takes the tables' exclusive lock and leaves no history behind.
        """
        await jobs.clear(self.pool)

    async def vacuum(self) -> None:
        """Vacuum the jobs table (skipped when another session is vacuuming it).

        Needs an autocommit connection; a role that does not own the table gets a warning from
        the server and nothing happens.
        """
        await jobs.vacuum(self.pool)

    async def wake_due(self, *, actor: str, limit: int = 500, now: datetime | None = None) -> int:
        """Move waiting jobs whose timer or timeout is due back to pending; return how many."""
        return await waits.wake_due(self.pool, actor=actor, limit=limit, now=now)

    async def resolve_wait(self, job_id: uuid.UUID, name: str, *, decision: str | None, payload: Any = None,
                           actor: str, kind: str = "token", token_hash: str | None = None) -> bool:
        """Resolve wait ``name`` of ``job_id`` once, waking the job if it waits; True if this call
        resolved it (False: it was resolved already, a no-op).

        A wait the job has not reached yet is recorded resolved, so the job finds it when it does.
        """
        params = {
            "job_id": job_id, "name": name, "kind": kind, "token_hash": token_hash, "actor": actor,
            "decision": decision, "payload": json.dumps(payload),
        }
        return await waits.resolve(self.pool, params)

    async def resolve_token(self, token: str, *, decision: str, payload: Any = None, actor: str) -> bool:
        """Resolve the wait a token names (approve/reject with a payload); raise WaitTokenError
        for a forged or malformed token, JobNotFoundError when its job does not exist."""
        from . import _waits

        secret = await waits.wait_secret(self.pool)
        if secret is None:
            raise WaitTokenError("no wait-token secret; run `cutover migrate`")
        job_id, name = _waits.parse_token(secret, token)
        await self.get(job_id)
        return await self.resolve_wait(job_id, name, decision=decision, payload=payload, actor=actor,
                                       token_hash=_waits.token_hash(token))

    async def recheck_conditions(self, *, actor: str, limit: int = 200) -> int:
        """Evaluate open ``ctx.wait_for`` predicates; resolve (and wake) those that hold."""
        woken = 0
        for job_id, name, predicate, params in await waits.open_event_waits(self.pool, limit):
            try:
                holds = await waits.condition_holds(self.pool, predicate, params or {})
            except psycopg.Error as exc:
                await self._note_bad_predicate(job_id, name, exc, actor)
                continue
            if holds and await self.resolve_wait(job_id, name, decision="condition_met", actor=actor, kind="event"):
                woken += 1
        return woken

    async def _note_bad_predicate(self, job_id: uuid.UUID, name: str, exc: Exception, actor: str) -> None:
        detail = json.dumps({"wait": name, "error": str(exc).strip()[:500]})
        await waits.note(self.pool, job_id, "wait_condition_error", actor, detail)


def _claim_params(worker: str, limit: int, lease_s: float, automations: Sequence[str], modes: Sequence[str],
                  live_automations: Sequence[str] | None, now: datetime | None) -> dict[str, Any]:
    return {
        "worker": worker, "limit": limit, "lease_s": lease_s, "now": now,
        "automations": array_literal(tuple(automations)), "modes": array_literal(tuple(modes)),
        "live_automations": array_literal(tuple(automations if live_automations is None else live_automations)),
    }


@lru_cache(maxsize=256)
def array_literal(values: tuple[str, ...]) -> str:
    """A Postgres array literal of ``values`` (``{"a","b"}``), cast to its type in the SQL.

    The claim's name lists are the same every turn: sent as one string they are built once,
    where a Python list is adapted element by element on every call (a few percent of a
    worker's time). Every element is quoted, with backslash and double quote escaped.
    """
    quoted = ('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
    return "{" + ",".join(quoted) + "}"


def _full(outcomes: Sequence[Outcome]) -> bool:
    """Whether an outcome carries a trace or deferred writes: then the ``*_full`` completion
    statements write them, else the slimmer ``*_plain`` ones run (queries/queue.sql)."""
    return any(o.trace is not None or o.deferred is not None for o in outcomes)


def _outcome_params(outcomes: Sequence[Outcome], worker: str, now: datetime | None) -> dict[str, Any]:
    # In id order, as a heartbeat locks the same rows: two statements that lock a worker's jobs
    # (and a keyed job's slot after its row) in one order cannot deadlock.
    ordered = sorted(outcomes, key=_job_number) if len(outcomes) > 1 else outcomes
    return {"outcomes": outcomes_json(ordered), "worker": worker, "now": now}


def _job_number(outcome: Outcome) -> int:
    """The job id as the integer it orders by (Postgres orders uuids by their bytes, so does
    this): sorting ints compares in C, where UUID.__lt__ is a Python call per comparison."""
    return outcome.job_id.int


# The id as 32 hex digits straight from its integer (UUID.hex is a Python property call).
_PLAIN_SUCCESS = '{"id":"%032x","claim_count":%d,"status":"succeeded","attempt_inc":%d,"event":"succeeded"}'
_NOTHING_MORE = (None, None, None, None, None)


def outcomes_json(outcomes: Sequence[Outcome]) -> str:
    """The outcomes as the JSON array the completion statement reads with jsonb_to_recordset.

    Keys left out read as NULL there: a plain success is five keys, not ten. Ids go as 32 hex
    digits, which uuid input reads too (str(uuid) costs several times more). A plain success
    (the bulk of any batch) is written from a template of hex digits and integers, which needs
    no escaping; every other outcome goes through the json encoder.
    """
    parts = []
    for o in outcomes:
        if o[5:] == _NOTHING_MORE and o.status is JobStatus.SUCCEEDED and o.event == "succeeded":
            parts.append(_PLAIN_SUCCESS % (o.job_id.int, o.claim_count, o.attempt_inc))
            continue
        # status and kind are StrEnums: json writes them as their values.
        row: dict[str, Any] = {"id": o.job_id.hex, "claim_count": o.claim_count, "status": o.status,
                               "attempt_inc": o.attempt_inc, "event": o.event}
        if o.delay_s is not None:
            row["delay_s"] = _finite(o.delay_s)
        if o.error is not None:
            row["error"] = o.error
        if o.error_kind is not None:
            row["kind"] = o.error_kind
        if o.trace is not None:
            row["trace"] = o.trace
        if o.deferred is not None:
            row["deferred"] = o.deferred
        parts.append(_COMPACT.encode(row))
    return "[" + ",".join(parts) + "]"


_MODES = {m.value: m for m in Mode}
_COMPACT = json.JSONEncoder(separators=(",", ":"))  # json.dumps makes an encoder per call
_DECODER = json.JSONDecoder()
# The decoder's own scanner (C), without decode()'s whitespace passes; typeshed leaves the
# attribute out of JSONDecoder's stub.
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def load_json(data: str | bytes) -> Any:
    """Decode a json/jsonb value fetched from Postgres (psycopg hands over UTF-8 bytes).

    ``json.loads`` given bytes first detects their encoding, which costs as much again as
    decoding a small payload; the worker loads one payload per job. jsonb comes out of Postgres
    with no blank around the value, so the scanner reads it in one call; anything else (a json
    value with blanks around it, trailing data, an error) goes through ``decode``, which reads
    it exactly as ``json.loads`` does.
    """
    text = data if isinstance(data, str) else data.decode("utf-8")
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        return _DECODER.decode(text)
    return value if end == len(text) else _DECODER.decode(text)


def _in_claim_order(jobs: list[ClaimedJob]) -> list[ClaimedJob]:
    """The jobs in the order the claim picked them (priority, then age): the statement's rows
    come back in whatever order its join produced them."""
    if len(jobs) > 1:
        jobs.sort(key=_claim_rank)
    return jobs


def _claim_rank(job: ClaimedJob) -> tuple[int, datetime]:
    return (-job.priority, job.created_at)


def _claimed(r: tuple[Any, ...]) -> ClaimedJob:
    """A claim row (the claim query's columns are ClaimedJob's fields, in order)."""
    # tuple.__new__ (what _make is) builds the NamedTuple in C; its __new__ is a Python call.
    return _new_claim(ClaimedJob, (r[0], r[1], r[2], _MODES[r[3]], r[4], r[5], r[6] or {}) + r[7:])


_new_claim = tuple.__new__


async def _insert(conn: AsyncConnection[Any], rows: list[dict[str, Any]], actor: str,
                  now: datetime | None) -> list[uuid.UUID]:
    """Run the enqueue statement and the wake-ups on ``conn`` (in the caller's transaction)."""
    result = [row[1] for row in await jobs.insert(conn, _spec.jobs_json(rows), now, actor)]
    if None in result:  # a concurrent enqueue of the same dedupe key committed while we waited
        keys = [row["dedupe_key"] for row, got in zip(rows, result) if got is None]
        found = await jobs.ids_by_dedupe_key(conn, keys)
        result = [got if got is not None else found[row["dedupe_key"]] for row, got in zip(rows, result)]
    for name in sorted({row["automation"] for row in rows}):
        await jobs.notify(conn, name)
    return result


async def _analyze(conn: AsyncConnection[Any]) -> None:
    try:
        await jobs.analyze(conn)
    except psycopg.errors.InsufficientPrivilege:
        pass  # not the table's owner: autovacuum's lowered threshold (migration 0007) covers it


def _as_uuid(value: uuid.UUID | str) -> uuid.UUID:
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise JobNotFoundError(value) from None


def _finite(value: float | None) -> float | None:
    if value is None:
        return None
    return value if math.isfinite(value) else 365 * 86400.0
