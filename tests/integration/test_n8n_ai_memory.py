"""An AI Agent's Simple Memory lives in Postgres: each run of an automation sees the session's last turns the
runs before it left, a retried run appends its turn once and reads none of its own, a replayed (shadow) run
keeps its sessions per recording set without touching the live table, and a write under a lost claim lands
nowhere."""

from __future__ import annotations

import asyncio
import time
import uuid

import queue_core.registry as reg
from queue_core import JobSpec, Queue, Worker, WorkerConfig
from queue_core.compat import _n8n_ai_memory as memory
from queue_core.compat import n8n
from queue_core.errors import RetryableError
from queue_core.registry import Registry
from queue_core.store import ai_memory as store
from tests.support.scaffolded import worker_running

SEEN: dict[str, list[dict[str, str]]] = {}  # the in-process worker's requests, by the item's text (per test)
WINDOW = {"session": lambda item, i: item["json"]["session"], "k": 2, "custom": True}


def _registry() -> Registry:
    registry = Registry()

    @reg.automation("chat", registry=registry)
    async def chat(ctx, trigger):  # noqa: ANN001, ANN202
        flow = n8n.Flow(ctx)
        items = flow.emit("Webhook", [{"json": trigger.body}])
        session = memory.session_of(WINDOW, "Agent", items)
        for item in items:  # what the agent does around its model call
            request = {"messages": [{"role": "system", "content": "Be kind."},
                                    {"role": "user", "content": item["json"]["text"]}]}
            ordinal = await memory.recall(flow, WINDOW, session, request)
            SEEN[f"{ctx.mode}:{item['json']['text']}:{ctx.attempt}"] = request["messages"]
            await memory.remember(flow, session, (item["json"]["text"], f"re: {item['json']['text']}"), ordinal)
        if trigger.body.get("fail_once") and ctx.attempt == 1:
            raise RetryableError("once", delay=0)

    @reg.automation("taken-over", registry=registry)
    async def taken_over(ctx, trigger):  # noqa: ANN001, ANN202
        flow = n8n.Flow(ctx)
        async with ctx._run.pool.connection() as conn:  # another worker claims the job meanwhile
            await conn.execute("UPDATE jobs SET claim_count = claim_count + 1 WHERE id = %s", (ctx.job_id,))
        await memory.remember(flow, "s", ("hello", "hi"), memory.next_ordinal(flow))

    return registry


async def _run(pool, registry: Registry, *specs: JobSpec) -> list[str]:
    queue = Queue(pool, registry=registry)
    statuses = []
    async with worker_running(pool, registry, concurrency=1):
        for spec in specs:
            job = await queue.enqueue(spec)
            deadline = time.monotonic() + 30
            while (status := (await queue.get(job))["status"]) not in ("succeeded", "failed", "dead"):
                assert time.monotonic() < deadline, status
                await asyncio.sleep(0.05)
            statuses.append(status)
    return statuses


async def _rows(pool, query: str) -> list[tuple]:
    async with pool.connection() as conn:
        cur = await conn.execute(query)
        return await cur.fetchall() if cur.description else []


def _sent(text: str, *turns: str) -> list[dict[str, str]]:
    history = [m for t in turns for m in ({"role": "user", "content": t}, {"role": "assistant", "content": f"re: {t}"})]
    return [{"role": "system", "content": "Be kind."}, *history, {"role": "user", "content": text}]


async def _clear(pool) -> None:
    SEEN.clear()
    await _rows(pool, "TRUNCATE ai_memory, replay_ai_memory")


async def test_each_run_sees_the_last_k_turns_of_its_session_that_the_runs_before_it_left(pool) -> None:
    await _clear(pool)
    texts = [("a", "one"), ("a", "two"), ("b", "other"), ("a", "three"), ("a", "four")]
    specs = [JobSpec("chat", {"session": s, "text": t}, max_attempts=1, trigger_id=f"t{n}")
             for n, (s, t) in enumerate(texts)]
    assert await _run(pool, _registry(), *specs) == ["succeeded"] * 5
    assert SEEN["live:two:1"] == _sent("two", "one")
    assert SEEN["live:other:1"] == _sent("other"), "another session: no turns"
    assert SEEN["live:four:1"] == _sent("four", "two", "three"), "the window: k = 2"
    rows = await _rows(pool, "SELECT session, input FROM ai_memory WHERE automation = 'chat' ORDER BY seq")
    assert rows == [("a", "one"), ("a", "two"), ("b", "other"), ("a", "three"), ("a", "four")]


async def test_a_retried_run_appends_its_turn_once_and_reads_none_of_its_own(pool) -> None:
    await _clear(pool)
    specs = [JobSpec("chat", {"session": "a", "text": "one"}, max_attempts=1),
             JobSpec("chat", {"session": "a", "text": "two", "fail_once": True}, max_attempts=2, trigger_id="r")]
    assert await _run(pool, _registry(), *specs) == ["succeeded", "succeeded"]
    assert SEEN["live:two:1"] == SEEN["live:two:2"] == _sent("two", "one"), "the second attempt reads as the first"
    rows = await _rows(pool, "SELECT input FROM ai_memory ORDER BY seq")
    assert rows == [("one",), ("two",)], "the retried run's turn is written once"


async def test_shadow_runs_keep_their_sessions_per_recording_and_never_touch_the_live_table(pool) -> None:
    await _clear(pool)
    registry = _registry()
    await _run(pool, registry, JobSpec("chat", {"session": "a", "text": "live"}))
    specs = [JobSpec("chat", {"session": "a", "text": t}, mode="shadow", recording=rec, trigger_id=f"s{n}")
             for n, (t, rec) in enumerate((("x", "2024-06"), ("y", "2024-06"), ("z", "2024-07")))]
    assert await _run(pool, registry, *specs) == ["succeeded"] * 3
    assert await _rows(pool, "SELECT input FROM ai_memory") == [("live",)]
    replayed = await _rows(pool, "SELECT recording, input FROM replay_ai_memory ORDER BY seq")
    assert replayed == [("2024-06", "x"), ("2024-06", "y"), ("2024-07", "z")]
    assert SEEN["shadow:y:1"] == _sent("y", "x"), "the replay's own session, not the live one"
    assert SEEN["shadow:z:1"] == _sent("z")


async def test_an_append_under_a_claim_that_is_not_running_writes_nothing(pool) -> None:
    await _clear(pool)
    job = await Queue(pool, registry=_registry()).enqueue(JobSpec("chat", {"session": "a", "text": "x"}))
    written = await store.append(pool, "chat", "a", ("x", "y"), job_id=job, claim=1, ordinal=0)
    assert written is False
    assert await _rows(pool, "SELECT * FROM ai_memory") == []
    assert await store.read(pool, "chat", "a", k=None, job_id=uuid.uuid4(), ordinal=0) == []


async def test_a_run_whose_claim_was_taken_over_appends_no_turn_and_writes_no_outcome(pool) -> None:
    await _clear(pool)
    registry = _registry()
    queue = Queue(pool, registry=registry)
    job = await queue.enqueue(JobSpec("taken-over", {}, max_attempts=1))
    worker = Worker(pool, registry, WorkerConfig(concurrency=1, lease_s=5, poll_s=0.05))
    task = asyncio.create_task(worker.run())
    try:
        deadline = time.monotonic() + 30
        while worker.stats["lost"] == 0:  # the fenced append was refused: the run stopped as lease-lost
            assert time.monotonic() < deadline, worker.stats
            await asyncio.sleep(0.05)
    finally:
        worker.stop()
        await asyncio.wait_for(task, 15)
    assert await _rows(pool, "SELECT * FROM ai_memory") == []
    assert (await queue.get(job))["status"] == "running", "the lost claim wrote no outcome"
