"""Replay recorded triggers through the real queue in shadow (or dry-run) mode.

One :meth:`ShadowReplayer.replay` call takes a batch of recorded triggers and

1. enqueues them in one statement (``Queue.enqueue_many``) as ``shadow`` jobs of the current
   automation code, each carrying its trigger's headers, id, source and arrival time;
2. drains them with several :class:`queue_core.Worker` instances running concurrently in this
   process (claims with leases, memoised steps, idempotency keys, fenced outcomes, the
   executor's retry classification — the same code path as production);
3. reads every job's status, error and decision trace back in one query, with every job that
   descends from it (``ctx.enqueue`` children, a shadow poller's items, their children;
   :func:`queue_core.store.jobs.tree_results`), waiting until those are final too.

While a job runs, its clock is frozen at the trigger's ``received_at`` (``ctx.now()``), the
global :mod:`random` module is seeded from the replay seed and the trigger id, and every
outbound call goes through the provider :class:`~queue_core.gateway.Gateway` in the job's mode:
the gateway records the intent and asks :meth:`ShadowReplayer.recorded_response` for an answer, which
is the legacy run's recorded output of the same step (reads must have one; a write without one
gets the gateway's synthetic response). On top of the gateway's own guard, :func:`~harness.shadow._network.network_guard`
refuses every Python-level internet connection and DNS lookup while a batch runs, so no code
path of an automation — even one that bypasses ``ctx.call`` — can reach the network. The
database driver (libpq) connects outside Python and is unaffected.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from psycopg_pool import AsyncConnectionPool

from harness.errors import ReplayError
from harness.shadow._network import database_hosts, network_guard
from harness.shadow.cases import POLL_PREFIX, Case, ChildRun, Replayed, ReplayOptions
from queue_core import Context, JobSpec, Queue, Registry, Worker, WorkerConfig
from queue_core.gateway import Gateway, OutboundRequest, RecordedResponse
from queue_core.job import ClaimedJob
from queue_core.errors import EnqueueError
from queue_core.provider import ProviderConfig
from queue_core.queue import check_spec
from queue_core.states import JobStatus
from queue_core.store.jobs import tree_results

FINAL = frozenset(s.value for s in JobStatus if s.is_final)
VACUUM_EVERY = 5_000  # replayed jobs between two VACUUMs of the replay's jobs table


def _trigger_meta(case: Case) -> dict[str, Any]:
    t = case.trigger
    meta: dict[str, Any] = {"id": t.id, "received_at": t.received_at.isoformat(), "headers": dict(t.headers),
                            "source": t.source, "repeat": case.repeat}
    if t.poll is not None:  # the keys a live poller's item carries, plus the poll's time
        meta.update(poller=t.poll.poller, item_id=t.poll.item,
                    poll={"poller": t.poll.poller, "at": t.poll.at.isoformat(), "item": t.poll.item})
    return meta


class ShadowReplayer:
    """Replays batches of cases through a queue on ``db_url``. Use as ``async with``.

    The database must be migrated and should be a throwaway one (``provision.fresh_database``).
    With ``options.scratch`` (the database is the replay's own) every batch's rows are removed
    once its results are read; otherwise the replay leaves its jobs, steps, ledger and decisions
    behind for inspection.
    """

    def __init__(self, db_url: str, registry: Registry, providers: Mapping[str, ProviderConfig],
                 options: ReplayOptions | None = None) -> None:
        self.db_url = db_url
        self.registry = registry
        self.providers = dict(providers)
        self.options = options or ReplayOptions()
        self.blocked: list[str] = []
        self._recorded: dict[tuple[str, str], Mapping[str, Any]] = {}
        self._item_outputs: dict[str, Mapping[str, Any]] = {}  # by child trigger id
        self._pool: AsyncConnectionPool | None = None
        self._worker_pools: list[AsyncConnectionPool] = []
        self._gateway: Gateway | None = None
        self._since_vacuum = 0

    async def __aenter__(self) -> ShadowReplayer:
        # No per-checkout health check (db.pool has one): a replay is short-lived and owns its
        # database, and the check would cost a round trip per statement.
        kwargs = {"autocommit": True, "options": "-c synchronous_commit=off"}
        self._pool = AsyncConnectionPool(self.db_url, min_size=2, max_size=self.options.pool_size,
                                         open=False, kwargs=kwargs)
        await self._pool.open(wait=True)
        # Each batch is drained by new workers; their connections (and the statements prepared
        # on them) are kept here for the whole replay instead of being reopened per batch.
        self._worker_pools = [AsyncConnectionPool(self.db_url, min_size=1, max_size=4, open=False, kwargs=kwargs)
                              for _ in range(self.options.workers)]
        for pool in self._worker_pools:
            await pool.open(wait=True)
        self._gateway = Gateway(self.providers, self._pool, response_source=self.recorded_response,
                                clock=lambda: 0.0, rng=random.Random(self.options.seed))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._gateway is not None:
            await self._gateway.aclose()
        for pool in self._worker_pools:
            await pool.close()
        if self._pool is not None:
            await self._pool.close()

    def recorded_response(self, automation: str, trigger_id: str | None, step: str,
                          request: OutboundRequest) -> RecordedResponse | None:
        """Answer a shadow/dry-run call with the legacy run's recorded output of ``step``.

        A child job (trigger id ``<parent trigger>/<key>``) is answered from the outputs of the
        legacy item with that key.
        """
        outputs = self._recorded.get((automation, trigger_id or "")) or self._item_outputs.get(trigger_id or "")
        if outputs is None or step not in outputs:
            return None
        return RecordedResponse(status=200, json=outputs[step])

    def _context_factory(self, worker_id: str) -> Any:
        assert self._pool is not None
        pool, gateway, seed = self._pool, self._gateway, self.options.seed

        def make(job: ClaimedJob) -> Context:
            meta = job.trigger_meta or {}
            received = datetime.fromisoformat(str(meta["received_at"]))
            # Seeded per trigger and run, so one trigger's randomness does not depend on which
            # other triggers ran before it.
            random.seed(f"{seed}:{job.automation}:{job.trigger_id}:{meta.get('repeat', 0)}")
            return Context(job, pool, worker=worker_id, gateway=gateway, clock=lambda: received)

        return make

    async def replay(self, cases: Sequence[Case]) -> list[Replayed]:
        """Enqueue ``cases`` in one statement, drain them, and return their results in order.

        A case whose job the queue refuses (a keyed automation's trigger without its key, a
        missing required field) is a failed result naming the refusal; the others still run.
        Raises ReplayError when the queue cannot be used or jobs do not finish in time.
        """
        if not cases:
            return []
        assert self._pool is not None, "use ShadowReplayer as an async context manager"
        queue = Queue(self._pool, registry=self.registry)
        self._remember_outputs(cases)
        try:
            with network_guard(database_hosts(self.db_url), self.blocked):
                refused, ids = await self._enqueue(queue, cases)
                rows = await self._drain(ids) if ids else []
                if self.options.scratch:  # nothing later needs these rows: no dead versions either
                    await queue.clear()
                else:
                    self._since_vacuum += len(ids)
                    if self._since_vacuum >= VACUUM_EVERY:  # see queue_core.worker: dead versions slow claims
                        self._since_vacuum = 0
                        await queue.vacuum()
        finally:
            self._forget_outputs(cases)
        runnable = [c for i, c in enumerate(cases) if i not in refused]
        by_parent: dict[Any, list[dict[str, Any]]] = {}
        for row in rows:
            by_parent.setdefault(row["parent_id"], []).append(row)
        roots = {row["id"]: row for row in by_parent.get(None, ())}
        ran = iter(zip(runnable, ids, strict=True))
        out: list[Replayed] = []
        for i, case in enumerate(cases):
            if i in refused:
                out.append(Replayed(case.key, case.automation, case.trigger.id, "failed", 0, refused[i], None))
                continue
            _, job_id = next(ran)
            out.append(self._result(case, roots.get(job_id), _descendants(job_id, by_parent)))
        return out

    async def _enqueue(self, queue: Queue, cases: Sequence[Case]) -> tuple[dict[int, str], list[uuid.UUID]]:
        """Enqueue the cases' jobs in one statement; return the refused cases (by position, why)
        and the ids of the others' jobs, in order.

        The queue checks every job as it enqueues them; only when it refuses one is each case
        checked on its own (:meth:`_refused`), so a valid batch is checked once.
        """
        specs = [self._spec(c) for c in cases]
        try:
            return {}, await queue.enqueue_many(specs, actor="cutover-shadow")
        except EnqueueError:
            refused = self._refused(specs)
            kept = [spec for i, spec in enumerate(specs) if i not in refused]
            return refused, (await queue.enqueue_many(kept, actor="cutover-shadow") if kept else [])

    def _refused(self, specs: Sequence[JobSpec]) -> dict[int, str]:
        """Return, by position, why the queue would refuse a case's job (its door refuses the
        trigger in production too: a keyed automation's trigger without its key, a missing
        required field); that trigger fails alone instead of failing its whole batch."""
        refused: dict[int, str] = {}
        for i, spec in enumerate(specs):
            try:
                check_spec(spec, self.registry)
            except EnqueueError as exc:
                refused[i] = f"refused at enqueue: {exc}"
        return refused

    def _remember_outputs(self, cases: Sequence[Case]) -> None:
        for case in cases:
            if case.legacy is None:
                continue
            self._recorded[(case.automation, case.trigger.id)] = case.legacy.outputs
            for item in case.legacy.items:  # a shadow poller's child is keyed poll:<item id>
                for key in (item.key, f"{POLL_PREFIX}{item.key}"):
                    self._item_outputs[f"{case.trigger.id}/{key}"] = item.outputs

    def _forget_outputs(self, cases: Sequence[Case]) -> None:
        for case in cases:
            self._recorded.pop((case.automation, case.trigger.id), None)
            for item in case.legacy.items if case.legacy is not None else ():
                for key in (item.key, f"{POLL_PREFIX}{item.key}"):
                    self._item_outputs.pop(f"{case.trigger.id}/{key}", None)

    def _spec(self, case: Case) -> JobSpec:
        return JobSpec(
            automation=case.automation, payload=case.trigger.body, mode=self.options.mode,
            trigger_id=case.trigger.id, recording=self.options.recording, trigger_meta=_trigger_meta(case),
            max_attempts=self.options.max_attempts,
        )

    async def _drain(self, ids: list[uuid.UUID]) -> list[dict[str, Any]]:
        """Run workers until every job and every job descending from one is final; return their
        rows (:func:`~queue_core.store.jobs.tree_results`). Jobs due later (retries) are waited for."""
        assert self._pool is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.options.settle_timeout_s
        while True:
            workers = [self._worker(i) for i in range(self.options.workers)]
            await asyncio.gather(*(w.run(drain=True) for w in workers))
            rows = await tree_results(self._pool, ids)
            pending = [r for r in rows if r["status"] not in FINAL]
            if not pending:
                return rows
            if loop.time() > deadline:
                raise ReplayError(f"{len(pending)} replayed job(s) did not finish within "
                                  f"{self.options.settle_timeout_s:.0f}s (e.g. {pending[0]['id']}: "
                                  f"{pending[0]['status']}, {pending[0]['last_error']})")
            await asyncio.sleep(0.1)  # a retry is scheduled for later: wait until it is due

    def _worker(self, index: int) -> Worker:
        config = WorkerConfig(
            concurrency=self.options.concurrency, lease_s=60.0, poll_s=0.05,
            modes=(self.options.mode.value,), worker_id=f"cutover-shadow-{index}-{uuid.uuid4().hex[:6]}",
            vacuum_every=0,  # the session vacuums between batches (each batch has new workers)
        )
        assert self._pool is not None
        return Worker(self._pool, self.registry, config, gateway=self._gateway,
                      rng=random.Random(f"{self.options.seed}:worker:{index}"),
                      context_factory=self._context_factory(config.worker_id), own_pool=self._worker_pools[index])

    @staticmethod
    def _result(case: Case, row: dict[str, Any] | None, children: tuple[ChildRun, ...]) -> Replayed:
        if row is None:
            return Replayed(case.key, case.automation, case.trigger.id, "missing", 0,
                            "the job vanished from the queue", None)
        return Replayed(case.key, case.automation, case.trigger.id, str(row["status"]), int(row["attempt"]),
                        row.get("last_error"), row.get("trace"), children)


def _descendants(root: uuid.UUID, by_parent: Mapping[Any, list[dict[str, Any]]]) -> tuple[ChildRun, ...]:
    """Every job below ``root`` as ChildRuns keyed by their key path, ordered by key path."""
    out: list[ChildRun] = []
    stack = [(root, "")]
    while stack:
        parent, prefix = stack.pop()
        for row in by_parent.get(parent, ()):
            key = f"{prefix}{row['key'] or row['id']}"
            out.append(ChildRun(key, str(row["automation"]), str(row["status"]), int(row["attempt"]),
                                row.get("last_error"), row.get("trace")))
            stack.append((row["id"], f"{key}/"))
    return tuple(sorted(out, key=lambda c: c.key))


@dataclass
class ReplaySession:
    """A synchronous front for a :class:`ShadowReplayer` on its own event loop (pytest, notebooks).

    ``open()`` provisions a fresh database unless ``db_url`` is given; ``close()`` drops the
    database it provisioned. Every ``replay`` call reuses the same pool and loop.
    """

    registry: Registry
    providers: Mapping[str, ProviderConfig]
    options: ReplayOptions = field(default_factory=ReplayOptions)
    db_url: str | None = None
    _runner: asyncio.Runner | None = None
    _replayer: ShadowReplayer | None = None
    _owned_db: str | None = None

    def open(self) -> None:
        """Provision (when needed) and connect; raise ReplayError saying what failed."""
        from queue_core import provision
        from queue_core.errors import QueueError

        try:
            if self.db_url is None:
                self._owned_db = self.db_url = provision.fresh_database("cutover_shadow")
            self._runner = asyncio.Runner()
            self._replayer = ShadowReplayer(self.db_url, self.registry, self.providers, self.options)
            self._runner.run(self._replayer.__aenter__())
        except (QueueError, OSError) as exc:
            self.close()
            raise ReplayError(f"cannot start the replay database: {exc}") from exc
        except Exception as exc:
            self.close()
            if type(exc).__module__.startswith("psycopg"):
                raise ReplayError(f"cannot start the replay database: {exc}") from exc
            raise

    @property
    def blocked(self) -> list[str]:
        """Network destinations refused so far."""
        return self._replayer.blocked if self._replayer is not None else []

    def replay(self, cases: Sequence[Case]) -> list[Replayed]:
        """Replay ``cases`` (see :meth:`ShadowReplayer.replay`)."""
        if self._runner is None or self._replayer is None:
            self.open()
        assert self._runner is not None and self._replayer is not None
        try:
            return self._runner.run(self._replayer.replay(cases))
        except ReplayError:
            raise
        except Exception as exc:
            if type(exc).__module__.startswith("psycopg"):
                raise ReplayError(f"the replay's queue failed: {exc}") from exc
            raise

    def close(self) -> None:
        """Disconnect, close the loop and drop a database this session provisioned."""
        if self._runner is not None:
            if self._replayer is not None:
                self._runner.run(self._replayer.__aexit__(None, None, None))
            self._runner.close()
        self._runner = self._replayer = None
        if self._owned_db is not None:
            from queue_core import provision

            provision.drop_database(self._owned_db)
            self._owned_db = None
