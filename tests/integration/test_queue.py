"""The queue's statements on a real Postgres: enqueue, claim, fencing, outcomes, ledger."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest

from queue_core import EnqueueError, JobSpec, JobStatus, Outcome, Queue, Registry, UnknownAutomationError, automation
from queue_core.states import ErrorKind
from tests.support.automations import registry

T0 = datetime(2024, 6, 1, 12, 0, tzinfo=timezone.utc)
NAMES = registry.names()


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


async def claim(queue: Queue, worker: str, n: int = 10, *, now: datetime = T0, lease_s: float = 30):
    return await queue.claim(worker, n, lease_s=lease_s, automations=NAMES, now=now)


async def test_enqueue_many_returns_ids_in_input_order_and_logs_each(pool):
    queue = Queue(pool, registry=registry)
    ids = await queue.enqueue_many([JobSpec("noop", {"n": i}) for i in range(5)], now=T0)
    assert len(set(ids)) == 5
    for i, job_id in enumerate(ids):
        job = await queue.get(job_id)
        assert job["payload"] == {"n": i}
        assert [e["kind"] for e in await queue.ledger(job_id)] == ["enqueued"]


async def test_second_enqueue_with_same_dedupe_key_returns_existing_job(pool):
    queue = Queue(pool, registry=registry)
    first = await queue.enqueue(JobSpec("noop", {"a": 1}, dedupe_key="delivery-1"))
    again = await queue.enqueue(JobSpec("noop", {"a": 2}, dedupe_key="delivery-1"))
    batch = await queue.enqueue_many([JobSpec("noop", dedupe_key="d2"), JobSpec("noop", dedupe_key="d2")])
    assert again == first
    assert batch[0] == batch[1]
    assert (await queue.counts()) == {"pending": 2}


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        (JobSpec("noop", priority=-1), "priority"),
        (JobSpec("noop", {"when": datetime.now()}), "payload"),
        (JobSpec("noop", mode="production"), "mode"),
        (JobSpec("noop", max_attempts=0), "max_attempts"),
    ],
)
async def test_bad_job_is_rejected_with_the_field_named_and_nothing_written(pool, spec, field):
    queue = Queue(pool, registry=registry)
    with pytest.raises(EnqueueError) as info:
        await queue.enqueue_many([JobSpec("noop"), spec])
    assert info.value.field == field
    assert info.value.index == 1
    assert f"job #1, field {field!r}" in str(info.value)
    assert await queue.counts() == {}


async def test_unknown_automation_is_rejected_naming_the_registered_ones(pool):
    queue = Queue(pool, registry=registry)
    with pytest.raises(UnknownAutomationError) as info:
        await queue.enqueue(JobSpec("lead-ruoter"))
    assert "lead-ruoter" in str(info.value) and "noop" in str(info.value)


async def test_claim_orders_by_priority_then_age_and_respects_run_after(pool):
    queue = Queue(pool, registry=registry)
    low = await queue.enqueue(JobSpec("noop", priority=0), now=at(0))
    high = await queue.enqueue(JobSpec("noop", priority=5), now=at(1))
    later = await queue.enqueue(JobSpec("noop", priority=9, run_after=at(100)), now=at(2))
    got = await claim(queue, "w1", now=at(10), lease_s=3600)
    assert [j.id for j in got] == [high, low]
    got = await claim(queue, "w1", now=at(100))
    assert [j.id for j in got] == [later]


async def test_claim_skips_rows_locked_by_another_worker(pool):
    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop") for _ in range(40)], now=T0)
    results = await asyncio.gather(*(claim(queue, f"w{i}", 7, now=at(1)) for i in range(8)))
    ids = [j.id for batch in results for j in batch]
    assert len(ids) == 40
    assert len(set(ids)) == 40


async def test_expired_lease_is_reclaimed_only_after_it_expires(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop"), now=T0)
    (first,) = await claim(queue, "dead-worker", now=at(0), lease_s=30)
    assert await claim(queue, "w2", now=at(29.999)) == []
    (second,) = await claim(queue, "w2", now=at(30))
    assert second.id == job_id and second.reclaimed
    assert second.claim_count == first.claim_count + 1
    kinds = [e["kind"] for e in await queue.ledger(job_id)]
    assert kinds == ["enqueued", "claimed", "reclaimed"]


async def test_stale_worker_writes_nothing_after_its_lease_is_taken_over(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop"), now=T0)
    (stale,) = await claim(queue, "slow", now=at(0))
    (fresh,) = await claim(queue, "fast", now=at(31))
    assert await queue.heartbeat([stale.key], lease_s=30, now=at(32)) == set()
    assert await queue.complete([Outcome.succeeded(stale)], worker="slow", now=at(33)) == set()
    job = await queue.get(job_id)
    assert job["status"] == "running" and job["lease_owner"] == "fast"
    assert job["leased_until"] == at(61)
    assert await queue.complete([Outcome.succeeded(fresh)], worker="fast", now=at(34)) == {job_id}
    assert (await queue.get(job_id))["status"] == "succeeded"


async def test_heartbeat_extends_the_lease_of_the_current_claim(pool):
    queue = Queue(pool, registry=registry)
    await queue.enqueue(JobSpec("noop"), now=T0)
    (job,) = await claim(queue, "w1", now=at(0), lease_s=30)
    assert await queue.heartbeat([job.key], lease_s=30, now=at(25)) == {job.id}
    assert await claim(queue, "w2", now=at(40)) == []
    assert (await queue.get(job.id))["leased_until"] == at(55)


async def test_job_reclaimed_more_than_max_claims_times_goes_dead_with_a_reason(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop", max_claims=2), now=T0)
    await claim(queue, "w1", now=at(0))
    await claim(queue, "w2", now=at(31))
    assert await claim(queue, "w3", now=at(62)) == []
    job = await queue.get(job_id)
    assert job["status"] == "dead"
    assert "max_claims=2" in job["last_error"]
    assert [e["kind"] for e in await queue.ledger(job_id)][-1] == "dead"


async def test_retry_outcome_reschedules_and_uses_an_attempt_but_snooze_does_not(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop"), now=T0)
    (job,) = await claim(queue, "w1", now=at(0))
    retry = Outcome(job.id, job.claim_count, JobStatus.PENDING, "retry_scheduled", 1, 5.0, "boom", ErrorKind.RETRYABLE)
    await queue.complete([retry], worker="w1", now=at(1))
    row = await queue.get(job_id)
    assert (row["status"], row["attempt"], row["run_after"], row["error_kind"]) == ("pending", 1, at(6), "retryable")
    (job,) = await claim(queue, "w1", now=at(6))
    snooze = Outcome(job.id, job.claim_count, JobStatus.PENDING, "snoozed", 0, 10.0, "later")
    await queue.complete([snooze], worker="w1", now=at(7))
    row = await queue.get(job_id)
    assert (row["attempt"], row["run_after"], row["claim_count"]) == (1, at(17), 2)


def test_backoff_grows_exponentially_with_bounded_jitter():
    from queue_core.retry import backoff_delay

    rng = random.Random(7)
    for attempt in range(1, 15):
        ceiling = min(3600.0, 2.0 ** (attempt - 1))
        delay = backoff_delay(attempt, rng)
        assert ceiling / 2 <= delay <= ceiling


async def test_paused_automation_is_not_claimed_until_resumed(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop"), now=T0)
    async with pool.connection() as conn:
        await conn.execute("INSERT INTO pauses (kind, name, paused_by) VALUES ('automation', 'noop', 'test')")
    assert await claim(queue, "w1", now=at(1)) == []
    async with pool.connection() as conn:
        await conn.execute("DELETE FROM pauses")
    assert [j.id for j in await claim(queue, "w1", now=at(2))] == [job_id]


async def test_live_jobs_are_claimed_only_for_gated_automations(pool):
    queue = Queue(pool, registry=registry)
    live = await queue.enqueue(JobSpec("noop", mode="live"), now=T0)
    shadow = await queue.enqueue(JobSpec("noop", mode="shadow"), now=T0)
    got = await queue.claim("w1", 10, lease_s=30, automations=NAMES, live_automations=[], now=at(1))
    assert [j.id for j in got] == [shadow]
    got = await queue.claim("w1", 10, lease_s=30, automations=NAMES, live_automations=["noop"], now=at(2))
    assert [j.id for j in got] == [live]


async def test_worker_refuses_live_runs_without_a_passing_verdict_unless_overridden(pool):
    from queue_core.golive import decide_live

    queue = Queue(pool, registry=registry)
    decision = await decide_live(queue, registry, [], actor="w1")
    assert decision.allowed == () and {n for n, _ in decision.refused} == set(NAMES)
    noop_version = registry.get("noop").source_hash
    await queue.record_verdict("noop", "0ld-code", ready=True, reasons=[])
    await queue.record_verdict("decider", registry.get("decider").source_hash, ready=False, reasons=["agreement 0.9 < 0.995"])
    assert "noop" not in (await decide_live(queue, registry, [], actor="w1")).allowed
    await queue.record_verdict("noop", noop_version, ready=True, reasons=[])
    decision = await decide_live(queue, registry, ["explode"], actor="w1")
    assert set(decision.allowed) == {"noop", "explode"} and decision.overridden == ("explode",)
    async with pool.connection() as conn:
        rows = await (await conn.execute("SELECT kind, actor, detail FROM ledger WHERE kind = 'gate_override'")).fetchall()
    assert rows == [("gate_override", "w1", {"automation": "explode", "code_version": registry.get("explode").source_hash})]


async def test_complete_and_claim_writes_outcomes_and_claims_in_one_transaction(pool):
    queue = Queue(pool, registry=registry)
    first = await queue.enqueue(JobSpec("noop", priority=9), now=T0)
    rest = await queue.enqueue_many([JobSpec("noop") for _ in range(3)], now=T0)
    (job,) = await claim(queue, "w1", 1, now=at(1))
    applied, got = await queue.complete_and_claim(
        [Outcome.succeeded(job)], "w1", 2, lease_s=30, automations=NAMES, now=at(2))
    assert applied == 1 and [j.id for j in got] == rest[:2]
    assert (await queue.get(first))["status"] == "succeeded"
    stale = Outcome.succeeded(job)  # the same outcome again is fenced out, the claim still happens
    applied, got = await queue.complete_and_claim([stale], "w1", 5, lease_s=30, automations=NAMES, now=at(3))
    assert applied == 0 and [j.id for j in got] == rest[2:]


async def test_a_turn_never_reclaims_the_job_whose_outcome_it_writes(pool):
    """The outcome of a job whose lease ran out is refused (another job of its key may hold its
    slot by now), and the same statement does not claim it: the next turn reclaims it."""
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop"), now=T0)
    (job,) = await claim(queue, "w1", 1, now=at(0), lease_s=30)
    applied, got = await queue.complete_and_claim(
        [Outcome.succeeded(job)], "w1", 5, lease_s=30, automations=NAMES, now=at(45))
    assert applied == 0 and got == []
    row = await queue.get(job_id)
    assert (row["status"], row["claim_count"]) == ("running", 1)
    assert [e["kind"] for e in await queue.ledger(job_id)] == ["enqueued", "claimed"]
    (again,) = await claim(queue, "w1", 1, now=at(46))
    assert (again.id, again.claim_count) == (job_id, 2)


async def test_a_turn_rolls_back_its_outcomes_when_its_claim_fails(pool):
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop"), now=T0)
    (job,) = await claim(queue, "w1", 1, now=at(0))
    with pytest.raises(Exception, match="job_mode"):
        await queue.complete_and_claim([Outcome.succeeded(job)], "w1", 5, lease_s=30, automations=NAMES,
                                       modes=("no-such-mode",), now=at(1))
    assert (await queue.get(job_id))["status"] == "running"


@pytest.mark.parametrize("payload", [{}, {"a": None}, {"n": 0, "t": "text"}, {"list": [1, {"a": None}]},
                                     {"nested": {"x": [True, None]}}])
async def test_any_json_object_payload_round_trips_including_null_values(pool, payload):
    """A payload is a JSON object (anything else is refused: tests/integration/test_enqueue_refusals.py)."""
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop", payload))
    assert (await queue.get(job_id))["payload"] == payload


async def test_name_lists_reach_postgres_intact_through_their_array_literal(pool):
    from queue_core.queue import array_literal

    names = ("noop", 'quote"d', "back\\slash", " spaced ", "{braces,comma}", "NULL", "", "ünïcode")
    async with pool.connection() as conn:
        row = await (await conn.execute("SELECT %s::text[], %s::text[]", [array_literal(names), array_literal(())])).fetchone()
    assert row == (list(names), [])


async def test_payloads_load_the_same_through_the_workers_json_loader(pool):
    from psycopg.types.json import set_json_loads

    from queue_core.queue import load_json

    payload = {"big": 123456789012345678901234567890, "f": 0.1, "s": "ünï\u2028", "n": None, "l": [1, True]}
    queue = Queue(pool, registry=registry)
    job_id = await queue.enqueue(JobSpec("noop", payload))
    async with pool.connection() as conn:
        set_json_loads(load_json, conn)
        claimed = await queue.claim("w", 1, lease_s=30, automations=NAMES, conn=conn)
    assert [job.id for job in claimed] == [job_id]
    assert claimed[0].payload == payload and type(claimed[0].payload["big"]) is int


async def test_statements_run_on_a_cursor_the_caller_keeps(pool):
    queue = Queue(pool, registry=registry)
    ids = await queue.enqueue_many([JobSpec("noop", {"i": i}) for i in range(3)], now=T0)
    async with pool.connection() as conn:
        cur = conn.cursor()  # a worker lane runs every turn on one cursor
        first = await queue.claim("w", 2, lease_s=30, automations=NAMES, now=at(1), conn=cur)
        applied, more = await queue.complete_and_claim([Outcome.succeeded(j) for j in first], "w", 2, lease_s=30,
                                                       automations=NAMES, now=at(2), conn=cur)
    assert [j.id for j in first] == ids[:2] and applied == 2 and [j.id for j in more] == ids[2:]


async def test_an_outcomes_ledger_detail_names_its_attempt_and_only_what_it_has(pool):
    queue = Queue(pool, registry=registry)
    ok_id, retry_id = await queue.enqueue_many([JobSpec("noop"), JobSpec("noop")], now=T0)
    ok, retry = sorted(await claim(queue, "w1", 2, now=at(1)), key=lambda j: j.id != ok_id)
    again = Outcome(retry.id, retry.claim_count, JobStatus.PENDING, "retry_scheduled", 1, 4.0, "boom",
                    ErrorKind.RETRYABLE)
    assert await queue.complete([Outcome.succeeded(ok), again], worker="w1", now=at(2)) == {ok_id, retry_id}
    assert (await queue.ledger(ok_id))[-1]["detail"] == {"attempt": 1}
    assert (await queue.ledger(retry_id))[-1]["detail"] == {"attempt": 1, "error": "boom", "delay_s": 4.0}


# -- per-key concurrency ------------------------------------------------------------------------

keyed = Registry()


@automation("per-customer", concurrency_key="/customer/id", concurrency_limit=2, registry=keyed)
async def per_customer(ctx, trigger):
    return None


async def test_a_full_key_holds_back_only_its_own_jobs_not_other_keys(pool):
    queue = Queue(pool, registry=registry)
    await queue.enqueue(JobSpec("noop", {"k": "a"}, priority=9, concurrency_key="a"), now=at(0))
    (held,) = await claim(queue, "w1", 1, now=at(1))
    await queue.enqueue_many([JobSpec("noop", {"k": "a"}, priority=9, concurrency_key="a") for _ in range(5)], now=at(2))
    others = await queue.enqueue_many([JobSpec("noop", {"k": "b"}, concurrency_key="b", concurrency_limit=2),
                                       JobSpec("noop", {"k": None})], now=at(3))
    got = await claim(queue, "w2", 3, now=at(4))
    assert [j.payload["k"] for j in got] == ["b", None], "key a is full: its higher-priority jobs wait"
    assert {j.id for j in got} == set(others)
    await queue.complete([Outcome.succeeded(held)], worker="w1", now=at(5))
    assert [j.payload["k"] for j in await claim(queue, "w2", 3, now=at(6))] == ["a"], "one slot freed, one claimed"


async def test_a_dead_workers_slot_is_freed_when_its_lease_expires(pool):
    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop", concurrency_key="dead") for _ in range(2)], now=at(0))
    (first,) = await claim(queue, "dies", 5, now=at(1), lease_s=30)
    assert await claim(queue, "w2", 5, now=at(30)) == []
    (second,) = await claim(queue, "w2", 5, now=at(31))  # the lease ran out: the slot is free again
    assert await queue.heartbeat([first.key], lease_s=30, now=at(32)) == set(), (
        "the dead worker's late heartbeat must not take back a slot another job holds")
    assert await queue.heartbeat([second.key], lease_s=30, now=at(32)) == {second.id}


async def test_an_automations_declared_key_is_read_from_the_payload(pool):
    queue = Queue(pool, registry=keyed)
    job_id = await queue.enqueue(JobSpec("per-customer", {"customer": {"id": 42}}))
    async with pool.connection() as conn:
        row = await (await conn.execute("SELECT concurrency_key, concurrency_limit FROM jobs WHERE id = %s",
                                        (job_id,))).fetchone()
    assert row == ("42", 2)
    with pytest.raises(EnqueueError, match=r"payload.*'/customer/id'"):
        await queue.enqueue(JobSpec("per-customer", {"customer": {}}))


async def test_concurrent_claimers_never_run_more_than_a_keys_limit(pool):
    """Six claimers race over 120 jobs of three keys (limits 2, 1, 1); each job is held across a
    yield so that the others claim meanwhile. A job leaves ``running`` (the Python count) before
    its outcome is written, so the count never exceeds what the database allows."""
    limits = {"k0": 2, "k1": 1, "k2": 1}
    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop", {"key": f"k{i % 3}"}, concurrency_key=f"k{i % 3}",
                                      concurrency_limit=limits[f"k{i % 3}"]) for i in range(120)])
    running: Counter[str] = Counter()
    peak: Counter[str] = Counter()
    done: list[int] = []

    async def claimer(name: str) -> None:
        while len(done) < 120:
            got = await queue.claim(name, 3, lease_s=60, automations=NAMES)
            for job in got:
                running[job.payload["key"]] += 1
                peak[job.payload["key"]] = max(peak[job.payload["key"]], running[job.payload["key"]])
            await asyncio.sleep(0.001 if got else 0.005)
            for job in got:
                running[job.payload["key"]] -= 1
            if got:
                await queue.complete([Outcome.succeeded(j) for j in got], worker=name)
                done.extend(1 for _ in got)

    await asyncio.wait_for(asyncio.gather(*(claimer(f"w{i}") for i in range(6))), 120)
    assert await queue.counts() == {"succeeded": 120}
    assert all(peak[k] <= n for k, n in limits.items()), peak
    assert peak["k0"] == 2, "the limit-2 key did run two at once"


@pytest.mark.parametrize("keyed", [True, False])
async def test_heartbeats_and_outcomes_of_the_same_jobs_at_once_never_deadlock(pool, keyed):
    """A heartbeat and a completion of the same jobs race 30 times: both lock the jobs rows in id
    order, and a keyed job's slot after its row (the opposite order deadlocked under load in
    bench/concurrency_key.py)."""
    queue = Queue(pool, registry=registry)
    await queue.enqueue_many([JobSpec("noop", concurrency_key=f"race-{i}" if keyed else None) for i in range(300)])
    held = await queue.claim("w", 300, lease_s=60, automations=NAMES)
    assert len(held) == 300
    for i in range(30):
        batch, held = held[:10], held[10:]
        await asyncio.gather(queue.heartbeat([j.key for j in batch + held], lease_s=60),
                             queue.complete([Outcome.succeeded(j) for j in batch], worker="w"))
    assert await queue.counts() == {"succeeded": 300}
