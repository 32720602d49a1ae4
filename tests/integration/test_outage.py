"""A worker whose database goes away, on a private server the test stops and starts: it notices
within its lease, cancels what it cannot renew before the lease ends, and resumes within seconds
of the database's return."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation, db
from tests.support.outage_server import PrivateServer
from tests.support.polling import until_status

LEASE_S = 2.0


@pytest.fixture(scope="module")
def server() -> Iterator[PrivateServer]:
    with tempfile.TemporaryDirectory(prefix="outage-") as tmp:  # short: a socket path has a limit
        srv = PrivateServer(Path(tmp))
        try:
            yield srv
        finally:
            srv.close()


def _holding_registry(started: asyncio.Event, cancelled: asyncio.Event) -> Registry:
    """A registry whose job holds on its first run until cancelled and ends at once later."""
    reg = Registry()
    runs: list[int] = []

    @automation("hold", registry=reg)
    async def hold(ctx, trigger):  # type: ignore[no-untyped-def]
        runs.append(1)
        if len(runs) > 1:
            return
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    return reg


@pytest.mark.slow
async def test_a_worker_that_loses_its_database_cancels_its_job_before_the_lease_ends_and_resumes_after(
        server, caplog):
    caplog.set_level(logging.WARNING, logger="cutover.worker")
    started, cancelled = asyncio.Event(), asyncio.Event()
    reg = _holding_registry(started, cancelled)
    loop = asyncio.get_running_loop()
    async with db.pool(server.url, max_size=2, reconnect_s=db.RECONNECT_S, timeout_s=10) as pool:
        queue = Queue(pool, registry=reg)
        held = await queue.enqueue(JobSpec("hold"))
        worker = Worker(pool, reg, WorkerConfig(concurrency=2, lease_s=LEASE_S, poll_s=0.05, shutdown_grace_s=0.5),
                        conninfo=server.url)
        task = asyncio.create_task(worker.run())
        await asyncio.wait_for(started.wait(), 10)
        down = loop.time()
        await asyncio.to_thread(server.stop)
        # The lease was last renewed before the outage began: it ends within LEASE_S of it.
        await asyncio.wait_for(cancelled.wait(), LEASE_S)
        assert worker.stats["expired"] == 1
        await asyncio.sleep(max(0.0, down + 3 * LEASE_S - loop.time()))  # the outage lasts 3 leases
        await asyncio.to_thread(server.start)
        ready = loop.time()
        quick = await queue.enqueue(JobSpec("hold"))
        assert await until_status(queue, quick, "succeeded", tries=200) == "succeeded"
        resumed_s = loop.time() - ready
        assert await until_status(queue, held, "succeeded", tries=200) == "succeeded"
        worker.stop()
        await asyncio.wait_for(task, 10)
        kinds = [e["kind"] for e in await queue.ledger(held)]
    assert resumed_s < 3.0, f"resumed {resumed_s:.1f}s after the database came back"
    # The cancelled run wrote no outcome: the job was reclaimed once its lease had ended.
    assert kinds == ["enqueued", "claimed", "reclaimed", "succeeded"]
    messages = [r.getMessage() for r in caplog.records]
    assert sum("cancelling 1 job(s) whose lease could not be renewed" in m for m in messages) == 1
    assert sum(m.startswith("heartbeat failed") for m in messages) == 1
    assert any(m.startswith("heartbeat succeeded after") or "works again" in m for m in messages)


async def test_a_worker_whose_database_stops_answering_gives_up_each_heartbeat_in_time(server, caplog):
    """A hung heartbeat is abandoned after its own timeout, not the pool's: the job is still
    cancelled before its lease ends, and the worker carries on once the database answers."""
    caplog.set_level(logging.WARNING, logger="cutover.worker")
    started, cancelled = asyncio.Event(), asyncio.Event()
    reg = _holding_registry(started, cancelled)
    async with db.pool(server.url, max_size=2, reconnect_s=db.RECONNECT_S, timeout_s=10) as pool:
        queue = Queue(pool, registry=reg)
        held = await queue.enqueue(JobSpec("hold"))
        worker = Worker(pool, reg, WorkerConfig(concurrency=2, lease_s=LEASE_S, poll_s=0.05, shutdown_grace_s=0.5),
                        conninfo=server.url)
        task = asyncio.create_task(worker.run())
        await asyncio.wait_for(started.wait(), 10)
        server.freeze()
        try:
            await asyncio.wait_for(cancelled.wait(), LEASE_S)
        finally:
            server.thaw()
        quick = await queue.enqueue(JobSpec("hold"))
        assert await until_status(queue, quick, "succeeded", tries=200) == "succeeded"
        assert await until_status(queue, held, "succeeded", tries=200) == "succeeded"
        worker.stop()
        await asyncio.wait_for(task, 10)
    assert worker.stats["expired"] == 1
    timeout_s = worker.config.timing.renew_timeout_s
    assert any(r.getMessage() == f"heartbeat failed; not claiming until one succeeds: no answer within {timeout_s:.2f}s"
               for r in caplog.records)
