"""Replay through the real queue: determinism, recorded reads, the frozen clock, no network."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus
from harness.shadow._network import network_guard
from harness.shadow.cases import Case, ReplayOptions, shadow_providers
from harness.shadow.replay import ShadowReplayer
from queue_core import Context, Registry, Trigger, automation
from queue_core.provider import ProviderConfig
from harness.errors import ReplayNetworkBlockedError

ROOT = Path(__file__).resolve().parents[2]
registry = Registry()


@automation("enricher", registry=registry)
async def enricher(ctx: Context, trigger: Trigger) -> None:
    company = (await ctx.call("clearbit", "GET", f"/v2/find?domain={trigger.body['domain']}", step="enrich")).json()
    ctx.decide("tier", "enterprise" if company["employees"] > 1000 else "smb")
    ctx.decide("seen_at", ctx.now().isoformat())
    await ctx.call("crm", "POST", "/contacts", json={"domain": trigger.body["domain"]}, step="create")


@automation("escaper", registry=registry)
async def escaper(ctx: Context, trigger: Trigger) -> None:
    how = trigger.body["how"]
    if how == "httpx":
        async with httpx.AsyncClient() as client:
            await client.get(trigger.body["url"])
    elif how == "socket":
        socket.create_connection(("127.0.0.1", trigger.body["port"]), timeout=2).close()
    elif how == "dns":
        socket.getaddrinfo("example.com", 443)
    else:  # through the gateway, to a provider whose sandbox is the local server
        await ctx.call("sandboxed", "POST", "/hook", json={"x": 1}, step="send")


@automation("keyed", registry=registry, concurrency_key="customer_id", requires=("email",))
async def keyed(ctx: Context, trigger: Trigger) -> None:
    ctx.decide("customer", trigger.body["customer_id"])


class _Listener:
    """A loopback TCP server counting the connections it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[_Listener]:
    server = _Listener()
    yield server
    server.close()


def _case(key: int, automation_name: str, body: dict[str, object], outputs: dict[str, object] | None = None) -> Case:
    trigger = RecordedTrigger(f"t{key}", datetime(2024, 6, 3, 9, 12, tzinfo=UTC), {}, body, "recorder")
    legacy = LegacyTrace(f"t{key}", TraceStatus.SUCCEEDED, Platform.MAKE, outputs=outputs or {})
    return Case(key, automation_name, trigger, legacy)


def _replay(db_url: str, cases: list[Case], providers: dict[str, ProviderConfig]) -> tuple[list, list[str]]:
    async def go() -> tuple[list, list[str]]:
        async with ShadowReplayer(db_url, registry, providers, ReplayOptions(workers=2, concurrency=4)) as replayer:
            return await replayer.replay(cases), replayer.blocked

    return asyncio.run(go())


def test_reads_are_served_from_the_recording_and_the_clock_is_the_triggers(fresh_db_url: str) -> None:
    providers = shadow_providers({}, ["clearbit", "crm"])
    cases = [_case(i, "enricher", {"domain": f"d{i}.example"}, {"enrich": {"employees": 500 * i}}) for i in range(4)]
    results = _replay(fresh_db_url, cases, providers)[0]
    assert [r.status for r in results] == ["succeeded"] * 4
    assert [r.trace["decisions"]["tier"] for r in results] == ["smb", "smb", "smb", "enterprise"]
    assert {r.trace["decisions"]["seen_at"] for r in results} == {"2024-06-03T09:12:00+00:00"}
    create = results[3].trace["calls"][1]
    assert create["mode"] == "shadow" and create["url"] == "https://crm.shadow.invalid/contacts"
    assert len(create["idempotency_key"]) == 64


def test_a_read_without_a_recorded_response_fails_that_trigger_only(fresh_db_url: str) -> None:
    providers = shadow_providers({}, ["clearbit", "crm"])
    cases = [_case(0, "enricher", {"domain": "a.example"}, {"enrich": {"employees": 5}}),
             _case(1, "enricher", {"domain": "b.example"})]
    ok, missing = _replay(fresh_db_url, cases, providers)[0]
    assert ok.status == "succeeded"
    assert missing.status == "failed" and "no recorded response for GET" in missing.trace["error"]


def test_a_long_replay_vacuums_its_jobs_table_between_batches(fresh_db_url: str, monkeypatch) -> None:
    import harness.shadow.replay
    from queue_core.queue import Queue

    vacuums: list[int] = []

    async def counting_vacuum(self: Queue) -> None:
        async with self.pool.connection() as conn:
            row = await (await conn.execute("SELECT count(*) FROM jobs")).fetchone()
        vacuums.append(row[0])

    monkeypatch.setattr(harness.shadow.replay, "VACUUM_EVERY", 6)
    monkeypatch.setattr(Queue, "vacuum", counting_vacuum)
    providers = shadow_providers({}, ["clearbit", "crm"])

    async def go() -> None:
        async with ShadowReplayer(fresh_db_url, registry, providers, ReplayOptions(workers=1, concurrency=4)) as replayer:
            for batch in range(4):
                cases = [_case(10 * batch + i, "enricher", {"domain": "d.example"}, {"enrich": {"employees": 1}})
                         for i in range(4)]
                assert [r.status for r in await replayer.replay(cases)] == ["succeeded"] * 4

    asyncio.run(go())
    assert vacuums == [8, 16]  # after the batch that reached 6 replayed jobs since the last one


def test_a_scratch_replay_clears_each_batch_and_keeps_its_worker_connections(fresh_db_url: str) -> None:
    providers = shadow_providers({}, ["clearbit", "crm"])

    async def go(scratch: bool) -> int:
        options = ReplayOptions(workers=2, concurrency=4, scratch=scratch)
        first: set[int] = set()
        requests: list[int] = []
        async with ShadowReplayer(fresh_db_url, registry, providers, options) as replayer:
            for batch in range(3):
                cases = [_case(10 * batch + i, "enricher", {"domain": "d.example"}, {"enrich": {"employees": 1}})
                         for i in range(4)]
                assert [r.status for r in await replayer.replay(cases)] == ["succeeded"] * 4
                requests.append(sum(p.get_stats()["requests_num"] for p in replayer._worker_pools))
                for pool in replayer._worker_pools if batch == 0 else ():
                    async with pool.connection() as conn:
                        first.add(conn.info.backend_pid)
            async with replayer._pool.connection() as conn:
                left = await (await conn.execute("SELECT (SELECT count(*) FROM jobs) + (SELECT count(*) FROM ledger)"
                                                 " + (SELECT count(*) FROM steps)")).fetchone()
                alive = await (await conn.execute("SELECT pid FROM pg_stat_activity WHERE pid = ANY(%s)",
                                                  (list(first),))).fetchall()
        # every batch's new workers ran on the replay's worker pools, whose connections outlive them
        assert 0 < requests[0] < requests[1] < requests[2]
        assert {pid for (pid,) in alive} == first
        return int(left[0])

    assert asyncio.run(go(scratch=True)) == 0  # the replay's own database: batches are cleared
    assert asyncio.run(go(scratch=False)) > 0  # someone else's: everything is left for inspection


def test_no_code_path_of_an_automation_reaches_the_network(fresh_db_url: str, listener: _Listener) -> None:
    url = f"http://127.0.0.1:{listener.port}"
    providers = shadow_providers({"sandboxed": ProviderConfig("sandboxed", base_url="https://hooks.example",
                                                                  sandbox_url=url)}, [])
    cases = [_case(0, "escaper", {"how": "httpx", "url": url}), _case(1, "escaper", {"how": "socket", "port": listener.port}),
             _case(2, "escaper", {"how": "dns"}), _case(3, "escaper", {"how": "gateway"})]
    results, blocked = _replay(fresh_db_url, cases, providers)
    assert listener.accepted == 0
    assert [r.status for r in results[:3]] == ["failed"] * 3
    errors = [r.trace["error"] for r in results[:3]]
    assert errors[0].startswith("ConnectError")  # httpx wraps the refusal in its own error
    assert all("network access blocked" in e for e in errors[1:])
    assert results[3].status == "succeeded" and results[3].trace["calls"][0]["mode"] == "shadow"
    assert len(blocked) == 3 and any("example.com" in b for b in blocked)


def test_the_guard_is_lifted_after_the_block(listener: _Listener) -> None:
    with network_guard(), pytest.raises(ReplayNetworkBlockedError):
        socket.create_connection(("127.0.0.1", listener.port), timeout=2)
    socket.create_connection(("127.0.0.1", listener.port), timeout=2).close()


def _shadow_run(set_dir: Path, report: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--shadow", str(set_dir), "--shadow-report", str(report), "-q",
         "-p", "no:cacheprovider", *extra], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


def test_the_same_set_replayed_twice_gives_identical_summaries(tmp_path: Path) -> None:
    set_dir = tmp_path / "small"
    subprocess.run([sys.executable, str(ROOT / "recordings" / "generate.py"), "--out", str(set_dir),
                    "--triggers", "300", "--seed", "7"], cwd=ROOT, check=True, capture_output=True)
    first, second = _shadow_run(set_dir, tmp_path / "r1"), _shadow_run(set_dir, tmp_path / "r2")
    assert first.returncode == second.returncode == 1, first.stdout[-2000:] + first.stderr[-2000:]
    one = (tmp_path / "r1" / "summary.json").read_bytes()
    assert one == (tmp_path / "r2" / "summary.json").read_bytes()
    assert (tmp_path / "r1" / "disagreements.csv").read_bytes() == (tmp_path / "r2" / "disagreements.csv").read_bytes()
    assert b'"not_ready": [\n      "github-triage"' in one
    # Where and in what batches the triggers are replayed changes nothing: two replay processes
    # with odd-sized batches, and no replay process at all.
    for name, extra in (("r3", ("--shadow-replayers", "2", "--shadow-batch", "37")), ("r4", ("--shadow-replayers", "0"))):
        other = _shadow_run(set_dir, tmp_path / name, *extra)
        assert other.returncode == 1, other.stdout[-2000:] + other.stderr[-2000:]
        assert (tmp_path / name / "summary.json").read_bytes() == one, name
        assert (tmp_path / name / "disagreements.csv").read_bytes() == (tmp_path / "r1" / "disagreements.csv").read_bytes()


def test_a_trigger_the_queue_refuses_fails_alone_naming_the_field_and_its_batch_still_runs(fresh_db_url: str) -> None:
    cases = [_case(1, "keyed", {"customer_id": "c1", "email": "a@x"}),
             _case(2, "keyed", {"customer_id": None, "email": "b@x"}),
             _case(3, "keyed", {"customer_id": "c3"})]
    results, _ = _replay(fresh_db_url, cases, shadow_providers({}, []))
    assert [(r.trigger_id, r.status) for r in results] == [("t1", "succeeded"), ("t2", "failed"), ("t3", "failed")]
    assert results[0].trace is not None and results[0].trace["decisions"] == {"customer": "c1"}
    assert results[1].error is not None and "refused at enqueue" in results[1].error and "customer_id" in results[1].error
    assert results[2].error is not None and "email" in results[2].error
