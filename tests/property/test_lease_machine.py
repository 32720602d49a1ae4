"""A RuleBasedStateMachine of the job lifecycle: simulated workers, a controlled clock, real Postgres.

Invariants pinned here:
- a job never has two unexpired leases held by different workers;
- a crashed worker's job is reclaimable exactly when its lease expires, not before;
- a stale worker's writes (heartbeat, outcome) change nothing;
- claim_count only grows;
- every job ends in a final state once the workers keep going;
- the child idempotency key a job's context derives is identical across every claim of the job
  and distinct across jobs.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from queue_core import Context, JobSpec, JobStatus, Outcome, Queue, db
from queue_core.states import ErrorKind
from tests.support.automations import registry

LEASE = 30.0
WORKERS = ("w0", "w1", "w2")
FINAL = {"succeeded", "failed", "dead", "canceled"}
T0 = datetime(2024, 6, 1, tzinfo=timezone.utc)


class LeaseMachine(RuleBasedStateMachine):
    db_url: str = ""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.pool = db.pool(self.db_url, max_size=2)
        self.run(self.pool.open())
        self.queue = Queue(self.pool, registry=registry)
        self.now = T0
        # worker -> {job_id: (claim_count, leased_until as the worker knows it)}
        self.held: dict[str, dict[uuid.UUID, tuple[int, datetime]]] = {w: {} for w in WORKERS}
        self.max_claim: dict[uuid.UUID, int] = {}
        self.keys: dict[uuid.UUID, set[str]] = {}

    def run(self, coro):
        return self.loop.run_until_complete(coro)

    def teardown(self) -> None:
        try:
            self._drain_to_the_end()
        finally:
            self.run(self.pool.close())
            self.loop.close()

    async def _rows(self) -> dict[uuid.UUID, dict]:
        async with self.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT id, status::text, claim_count, leased_until, lease_owner, attempt FROM jobs"
            )
            return {r[0]: dict(status=r[1], claim_count=r[2], leased_until=r[3], owner=r[4], attempt=r[5])
                    for r in await cur.fetchall()}

    @initialize()
    def empty(self) -> None:
        async def truncate():
            async with self.pool.connection() as conn:
                await conn.execute("TRUNCATE jobs, steps, ledger CASCADE")
        self.run(truncate())

    @rule(n=st.integers(1, 4))
    def enqueue(self, n: int) -> None:
        specs = [JobSpec("noop", max_attempts=3, max_claims=3) for _ in range(n)]
        for job_id in self.run(self.queue.enqueue_many(specs, now=self.now)):
            self.max_claim[job_id] = 0

    @rule(seconds=st.sampled_from([1.0, 10.0, 29.0, 30.0, 31.0, 60.0]))
    def advance_clock(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    @rule(worker=st.sampled_from(WORKERS), limit=st.integers(1, 5))
    def claim(self, worker: str, limit: int) -> None:
        before = self.run(self._rows())
        got = self.run(self.queue.claim(worker, limit, lease_s=LEASE, automations=registry.names(), now=self.now))
        for job in got:
            prev = before[job.id]
            if prev["status"] == "running":
                # reclaimable exactly when the lease has expired, not before
                assert prev["leased_until"] <= self.now, "claimed a job whose lease had not expired"
            else:
                assert prev["status"] == "pending"
            ctx = Context(job, self.pool, worker=worker)
            self.keys.setdefault(job.id, set()).add(ctx.idempotency_key("charge-card"))
            self.held[worker][job.id] = (job.claim_count, job.leased_until)
        after = self.run(self._rows())
        went_dead = [j for j, row in after.items() if row["status"] == "dead" and before[j]["status"] != "dead"]
        if len(got) + len(went_dead) < limit:
            # nothing claimable was left behind: every row skipped was not yet due
            for job_id, row in after.items():
                if row["status"] == "running":
                    assert row["leased_until"] > self.now, "an expired lease was left unclaimed"

    @rule(worker=st.sampled_from(WORKERS))
    def heartbeat(self, worker: str) -> None:
        held = [(j, c) for j, (c, _) in self.held[worker].items()]
        before = self.run(self._rows())
        kept = self.run(self.queue.heartbeat(held, lease_s=LEASE, now=self.now))
        after = self.run(self._rows())
        for job_id, claim in held:
            # A lease that ended is not revived, even when nobody has claimed the job since.
            current = (before[job_id]["claim_count"] == claim and before[job_id]["status"] == "running"
                       and before[job_id]["leased_until"] > self.now)
            assert (job_id in kept) == current
            if current:
                self.held[worker][job_id] = (claim, self.now + timedelta(seconds=LEASE))
            else:
                assert after[job_id] == before[job_id], "a stale heartbeat changed the row"
                del self.held[worker][job_id]

    @precondition(lambda self: any(self.held.values()))
    @rule(data=st.data(), kind=st.sampled_from(["succeeded", "retry", "terminal", "snooze"]))
    def complete(self, data, kind: str) -> None:
        worker = data.draw(st.sampled_from([w for w in WORKERS if self.held[w]]))
        job_id = data.draw(st.sampled_from(sorted(self.held[worker])))
        claim, _ = self.held[worker].pop(job_id)
        outcome = {
            "succeeded": Outcome(job_id, claim, JobStatus.SUCCEEDED, "succeeded"),
            "retry": Outcome(job_id, claim, JobStatus.PENDING, "retry_scheduled", 1, 5.0, "boom", ErrorKind.RETRYABLE),
            "terminal": Outcome(job_id, claim, JobStatus.FAILED, "failed", 1, None, "no", ErrorKind.TERMINAL),
            "snooze": Outcome(job_id, claim, JobStatus.PENDING, "snoozed", 0, 5.0, "later"),
        }[kind]
        before = self.run(self._rows())[job_id]
        applied = self.run(self.queue.complete([outcome], worker=worker, now=self.now))
        after = self.run(self._rows())[job_id]
        if before["claim_count"] != claim or before["status"] != "running" or before["leased_until"] <= self.now:
            assert applied == set() and after == before, "a stale outcome changed the row"
        else:
            assert applied == {job_id}

    @precondition(lambda self: any(self.held.values()))
    @rule(worker=st.sampled_from(WORKERS))
    def crash(self, worker: str) -> None:
        self.held[worker].clear()  # the process is gone; its leases stay until they expire

    @invariant()
    def claim_count_only_grows(self) -> None:
        for job_id, row in self.run(self._rows()).items():
            assert row["claim_count"] >= self.max_claim.get(job_id, 0)
            self.max_claim[job_id] = row["claim_count"]

    @invariant()
    def no_job_has_two_unexpired_leases(self) -> None:
        rows = self.run(self._rows())
        for job_id, row in rows.items():
            live = [w for w in WORKERS
                    if job_id in self.held[w] and self.held[w][job_id][1] > self.now
                    and self.held[w][job_id][0] == row["claim_count"]]
            believers = [w for w in WORKERS if job_id in self.held[w] and self.held[w][job_id][1] > self.now]
            assert len(live) <= 1
            assert len(believers) <= 1, f"job {job_id}: {believers} all hold an unexpired lease"

    @invariant()
    def idempotency_key_is_stable_per_job_and_distinct_across_jobs(self) -> None:
        for keys in self.keys.values():
            assert len(keys) == 1
        flat = [k for keys in self.keys.values() for k in keys]
        assert len(flat) == len(set(flat))

    def _drain_to_the_end(self) -> None:
        """Keep claiming and succeeding (clock far ahead) until every job is final."""
        for _ in range(50):
            self.now += timedelta(hours=2)
            got = self.run(self.queue.claim("drainer", 100, lease_s=LEASE, automations=registry.names(), now=self.now))
            if got:
                self.run(self.queue.complete([Outcome.succeeded(j) for j in got], worker="drainer", now=self.now))
            rows = self.run(self._rows())
            if all(r["status"] in FINAL for r in rows.values()):
                return
        raise AssertionError(f"jobs never reached a final state: {self.run(self._rows())}")


@pytest.fixture
def machine_db(db_url):
    LeaseMachine.db_url = db_url
    return LeaseMachine


def test_job_lifecycle_state_machine(machine_db):
    run_state_machine_as_test(
        machine_db,
        settings=settings(max_examples=40, stateful_step_count=30, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow]),
    )
