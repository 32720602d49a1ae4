"""A RuleBasedStateMachine of per-key concurrency: simulated workers, a controlled clock, real Postgres.

Invariants pinned here:
- never more than N jobs of a key run under a live lease (N: the key's concurrency_limit);
- no head-of-line blocking: a claim that gets nothing, and claims repeated until one gets
  nothing, leave behind no due job that could run (every one left has a key running N jobs);
- a crashed worker's slot is free once its lease expires, and its late heartbeat cannot take
  the job back once another job of the key holds the slot;
- every job finishes once the workers keep going.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule, run_state_machine_as_test

from queue_core import JobSpec, JobStatus, Outcome, Queue, db
from queue_core.states import ErrorKind
from tests.support.automations import registry

LEASE = 30.0
WORKERS = ("w0", "w1", "w2")
LIMITS = {"cust-a": 1, "cust-b": 2, "cust-c": 1}
FINAL = {"succeeded", "failed", "dead", "canceled"}
T0 = datetime(2024, 6, 1, tzinfo=timezone.utc)


class ConcurrencyMachine(RuleBasedStateMachine):
    db_url: str = ""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.pool = db.pool(self.db_url, max_size=2)
        self.run(self.pool.open())
        self.queue = Queue(self.pool, registry=registry)
        self.now = T0
        self.held: dict[str, dict[uuid.UUID, int]] = {w: {} for w in WORKERS}

    def run(self, coro):
        return self.loop.run_until_complete(coro)

    def teardown(self) -> None:
        try:
            self._drain_to_the_end()
        finally:
            self.run(self.pool.close())
            self.loop.close()

    async def _fetch(self, query: str) -> list[tuple]:
        async with self.pool.connection() as conn:
            return await (await conn.execute(query)).fetchall()

    def _rows(self) -> dict[uuid.UUID, dict]:
        rows = self.run(self._fetch("SELECT id, status::text, claim_count, leased_until, concurrency_key, "
                                    "concurrency_limit, run_after FROM jobs"))
        return {r[0]: dict(status=r[1], claim_count=r[2], leased_until=r[3], key=r[4], limit=r[5], run_after=r[6])
                for r in rows}

    def _live(self, rows: dict[uuid.UUID, dict]) -> Counter[str]:
        return Counter(r["key"] for r in rows.values()
                       if r["key"] and r["status"] == "running" and r["leased_until"] > self.now)

    @initialize()
    def empty(self) -> None:
        async def truncate() -> None:
            async with self.pool.connection() as conn:
                await conn.execute("TRUNCATE jobs, steps, ledger, concurrency_slots CASCADE")
        self.run(truncate())

    @rule(key=st.sampled_from([None, *LIMITS]), n=st.integers(1, 3), priority=st.integers(0, 1))
    def enqueue(self, key: str | None, n: int, priority: int) -> None:
        limit = LIMITS.get(key) if key else None
        specs = [JobSpec("noop", priority=priority, max_attempts=3, max_claims=3, concurrency_key=key,
                         concurrency_limit=limit) for _ in range(n)]
        self.run(self.queue.enqueue_many(specs, now=self.now))

    @rule(seconds=st.sampled_from([1.0, 10.0, 29.0, 31.0, 60.0]))
    def advance_clock(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    @rule(worker=st.sampled_from(WORKERS), limit=st.integers(1, 6))
    def claim(self, worker: str, limit: int) -> None:
        before = self._rows()
        got = self._claim(worker, limit)
        after = self._rows()
        went_dead = [j for j, r in after.items() if r["status"] == "dead" and before[j]["status"] != "dead"]
        if not got and not went_dead:
            self._assert_nothing_runnable_left(after, "a claim that got nothing")

    @rule(worker=st.sampled_from(WORKERS), limit=st.integers(1, 3))
    def claim_until_dry(self, worker: str, limit: int) -> None:
        """Claims in a row until one changes nothing: a full key never holds the others back.

        (A claim that gets nothing may still have changed something: a job it took went dead.)
        """
        for _ in range(100):
            before = self._rows()
            if not self._claim(worker, limit) and self._rows() == before:
                break
        self._assert_nothing_runnable_left(self._rows(), "claims until dry")

    def _claim(self, worker: str, limit: int) -> list:
        got = self.run(self.queue.claim(worker, limit, lease_s=LEASE, automations=registry.names(), now=self.now))
        for job in got:
            self.held[worker][job.id] = job.claim_count
        return got

    def _assert_nothing_runnable_left(self, rows: dict[uuid.UUID, dict], after: str) -> None:
        """Every due job left behind has a key already running its limit (no head-of-line block)."""
        live = self._live(rows)
        for job_id, r in rows.items():
            due = (r["status"] == "pending" and r["run_after"] <= self.now) or (
                r["status"] == "running" and r["leased_until"] <= self.now)
            if due:
                assert r["key"] is not None and live[r["key"]] >= r["limit"], (
                    f"{after} left job {job_id} (key {r['key']}) behind although its key had room")

    @rule(worker=st.sampled_from(WORKERS))
    def heartbeat(self, worker: str) -> None:
        held = list(self.held[worker].items())
        kept = self.run(self.queue.heartbeat(held, lease_s=LEASE, now=self.now))
        for job_id, _ in held:
            if job_id not in kept:
                del self.held[worker][job_id]

    @precondition(lambda self: any(self.held.values()))
    @rule(data=st.data(), retry=st.booleans())
    def complete(self, data, retry: bool) -> None:
        worker = data.draw(st.sampled_from([w for w in WORKERS if self.held[w]]))
        job_id = data.draw(st.sampled_from(sorted(self.held[worker])))
        claim = self.held[worker].pop(job_id)
        outcome = (Outcome(job_id, claim, JobStatus.PENDING, "retry_scheduled", 1, 5.0, "boom", ErrorKind.RETRYABLE)
                   if retry else Outcome(job_id, claim, JobStatus.SUCCEEDED, "succeeded"))
        self.run(self.queue.complete([outcome], worker=worker, now=self.now))

    @precondition(lambda self: any(self.held.values()))
    @rule(worker=st.sampled_from(WORKERS))
    def crash(self, worker: str) -> None:
        self.held[worker].clear()  # its leases, and so its slots, stay taken until they expire

    @invariant()
    def never_more_than_n_running_per_key(self) -> None:
        for key, running in self._live(self._rows()).items():
            assert running <= LIMITS[key], f"{running} jobs of {key} run under live leases (limit {LIMITS[key]})"

    @invariant()
    def a_held_slot_names_a_running_claim_of_its_key(self) -> None:
        rows = self._rows()
        slots = self.run(self._fetch("SELECT key, job_id, claim_count, until FROM concurrency_slots "
                                     "WHERE job_id IS NOT NULL"))
        for key, job_id, claim_count, until in slots:
            if until > self.now:
                job = rows[job_id]
                assert (job["key"], job["status"], job["claim_count"]) == (key, "running", claim_count)

    def _drain_to_the_end(self) -> None:
        """Keep claiming and succeeding (clock far ahead) until every job is final."""
        for _ in range(200):
            self.now += timedelta(hours=2)
            got = self.run(self.queue.claim("drainer", 100, lease_s=LEASE, automations=registry.names(), now=self.now))
            if got:
                self.run(self.queue.complete([Outcome.succeeded(j) for j in got], worker="drainer", now=self.now))
            assert max(self._live(self._rows()).values(), default=0) <= max(LIMITS.values())
            if all(r["status"] in FINAL for r in self._rows().values()):
                return
        raise AssertionError(f"jobs never reached a final state: {self._rows()}")


@pytest.fixture
def machine_db(db_url):
    ConcurrencyMachine.db_url = db_url
    return ConcurrencyMachine


def test_per_key_concurrency_state_machine(machine_db):
    run_state_machine_as_test(
        machine_db,
        settings=settings(max_examples=40, stateful_step_count=30, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow]),
    )
