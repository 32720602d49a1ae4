"""Pick-up latency: from enqueue to the job's start, one job at a time, for each way of building a worker.

    python bench/pickup_latency.py                 # 200 jobs per way
    python bench/pickup_latency.py --jobs 500 --poll 30
    python bench/pickup_latency.py --ways cli      # only the `cutover worker` process

Each job is enqueued only after the previous one has started and its outcome is written, so
every figure is an idle worker's pick-up: NOTIFY (or the poll) wakes a producer, its turn claims
the job, the executor starts it. The automation reads the clock as its first line; latency is
that minus the clock read just before ``Queue.enqueue`` (both ``time.perf_counter`` in this one
process, or both ``time.time`` across processes). Ways of building a worker:

- ``conninfo``: ``Worker(pool, registry, config, conninfo=url)``, built in this process as
  ``cutover worker`` builds its own;
- ``pool only``: ``Worker(pool, registry, config)`` built from Python without ``conninfo`` (before
  issue 22 such a worker never listened, and only polled every ``poll_s``);
- ``cli``: a ``cutover worker --concurrency 1`` process (the real command, its own pools and
  connection plan) in a throwaway project whose automation sends ``time.time()`` (the wall
  clock both processes share) to this process in a UDP datagram as its first line; this process
  reads ``time.time()`` just before ``Queue.enqueue``. A job's outcome is awaited in the database.

The poll interval is long (``--poll``, default 30 s), so a worker that only polls shows it. Loopback
database only (DATABASE_URL, else a provisioned one); prints p50/p90/p99/max in milliseconds,
after the same figures for one statement's round trip (the floor on this machine at its load).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from queue_core import JobSpec, Queue, Registry, Worker, WorkerConfig, automation, db, provision  # noqa: E402
from queue_core._sql import q  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WAYS = ["conninfo", "pool only", "cli"]

registry = Registry()
STARTED: dict[str, asyncio.Future[float]] = {}


@automation("pickup", registry=registry)
async def pickup(ctx, trigger) -> None:  # type: ignore[no-untyped-def]
    now = time.perf_counter()
    fut = STARTED.get(trigger.body["n"])
    if fut is not None and not fut.done():
        fut.set_result(now)


async def measure(url: str, way: str, jobs: int, poll_s: float) -> list[float]:
    """Return ``jobs`` pick-up latencies (ms) of a worker built ``way``."""
    async with db.pool(url, max_size=4) as pool:
        queue = Queue(pool, registry=registry)
        cfg = WorkerConfig(concurrency=1, lanes=1, poll_s=poll_s)
        worker = Worker(pool, registry, cfg, conninfo=url) if way == "conninfo" else Worker(pool, registry, cfg)
        task = asyncio.create_task(worker.run())
        try:
            await asyncio.wait_for(worker.notifier.listening.wait(), 10)
            out = []
            for i in range(jobs + 5):  # the first five warm the connections and prepared statements
                key = f"{way}-{i}"
                fut = STARTED[key] = asyncio.get_running_loop().create_future()
                sent = time.perf_counter()
                await queue.enqueue(JobSpec("pickup", {"n": key}))
                started = await asyncio.wait_for(fut, poll_s + 10)
                if i >= 5:
                    out.append((started - sent) * 1000)
                while worker.stats["completed"] < i + 1:  # one job at a time: its outcome is written
                    await asyncio.sleep(0.001)
            return out
        finally:
            worker.stop()
            await asyncio.wait_for(task, 30)


# The `cutover worker` process's project: its automation reports when it starts.
CLI_FLOWS = textwrap.dedent('''
    import os
    import socket
    import time

    from queue_core import automation

    _SOCK = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    _TO = ("127.0.0.1", int(os.environ["PICKUP_UDP_PORT"]))


    @automation("pickup")
    async def pickup(ctx, trigger):
        now = time.time()
        _SOCK.sendto(f"{trigger.body['n']} {now!r}".encode(), _TO)
''')


class _Starts(asyncio.DatagramProtocol):
    """The start times the CLI worker's jobs send, by job key."""

    def __init__(self) -> None:
        self.waiting: dict[str, asyncio.Future[float]] = {}

    def datagram_received(self, data: bytes, addr: object) -> None:
        key, at = data.decode().rsplit(" ", 1)
        fut = self.waiting.get(key)
        if fut is not None and not fut.done():
            fut.set_result(float(at))


async def _cli_listening(pool, timeout_s: float) -> None:  # type: ignore[no-untyped-def]
    """Wait until a ``cutover worker`` connection has LISTENed (its notifier's last statement)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        async with pool.connection() as conn:
            row = await (await conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND application_name LIKE 'cutover-worker%%' AND query = 'LISTEN cutover_waits'")).fetchone()
        if row and row[0]:
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("the cutover worker process did not LISTEN in time")


async def measure_cli(url: str, jobs: int, poll_s: float) -> list[float]:
    """Return ``jobs`` pick-up latencies (ms) of a ``cutover worker`` process."""
    loop = asyncio.get_running_loop()
    transport, starts = await loop.create_datagram_endpoint(_Starts, local_addr=("127.0.0.1", 0))
    port = transport.get_extra_info("sockname")[1]
    with tempfile.TemporaryDirectory(prefix="pickup-cli-") as folder:
        Path(folder, "pyproject.toml").write_text('[tool.cutover]\nautomations = "pickup_flows"\n')
        Path(folder, "pickup_flows.py").write_text(CLI_FLOWS)
        env = {**os.environ, "DATABASE_URL": url, "PICKUP_UDP_PORT": str(port),
               "PYTHONPATH": os.pathsep.join([folder, str(ROOT)])}
        env.pop("CUTOVER_LISTEN_URL", None)
        log = Path(folder, "worker.log")
        with open(log, "w") as out:
            proc = subprocess.Popen([sys.executable, "-m", "queue_core.cli", "worker", "--concurrency", "1",
                                     "--poll", str(poll_s), "--allow-ungated", "pickup"],
                                    cwd=folder, env=env, stdout=out, stderr=out)
        try:
            async with db.pool(url, max_size=2) as pool:
                await _cli_listening(pool, 60)
                queue = Queue(pool)
                out_ms = []
                for i in range(jobs + 5):  # the first five warm the connections and prepared statements
                    key = f"cli-{i}"
                    fut = starts.waiting[key] = loop.create_future()
                    sent = time.time()
                    job_id = await queue.enqueue(JobSpec("pickup", {"n": key}))
                    started = await asyncio.wait_for(fut, poll_s + 10)
                    if i >= 5:
                        out_ms.append((started - sent) * 1000)
                    while (await queue.get(job_id))["status"] != "succeeded":  # one job at a time
                        await asyncio.sleep(0.001)
                return out_ms
        except BaseException:
            print(log.read_text()[-3000:], file=sys.stderr)
            raise
        finally:
            transport.close()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


async def round_trips(url: str, n: int) -> list[float]:
    """``n`` statement round trips (ms) on one connection: the floor a pick-up (about six of them,
    and three processes waking in turn) stands on, on this machine at this load."""
    async with db.pool(url, max_size=1) as pool, pool.connection() as conn:
        out = []
        for _ in range(n):
            sent = time.perf_counter()
            await conn.execute(q("control", "migration_level"))
            out.append((time.perf_counter() - sent) * 1000)
        return out


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jobs", type=int, default=200, help="jobs per way of building a worker (default 200)")
    p.add_argument("--poll", type=float, default=30.0, help="the workers' poll_s (default 30)")
    p.add_argument("--ways", nargs="+", default=WAYS, choices=WAYS)
    args = p.parse_args(argv)
    url = provision.fresh_database()
    try:
        print(f"{'way':<10} {'jobs':>5} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}")
        for way in ["round trip", *args.ways]:
            if way == "round trip":
                lat = asyncio.run(round_trips(url, args.jobs))
            elif way == "cli":
                lat = asyncio.run(measure_cli(url, args.jobs, args.poll))
            else:
                lat = asyncio.run(measure(url, way, args.jobs, args.poll))
            print(f"{way:<10} {len(lat):>5} {statistics.median(lat):>8.2f} {_pct(lat, 90):>8.2f} "
                  f"{_pct(lat, 99):>8.2f} {max(lat):>8.2f}", flush=True)
    finally:
        provision.drop_database(url)


if __name__ == "__main__":
    main()
