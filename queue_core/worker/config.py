"""How a worker runs: its concurrency, lease timing, lanes, batches and modes."""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass, field

from .._lease import LeaseTiming
from ..queue import ALL_MODES


@dataclass
class WorkerConfig:
    """How a worker runs. Defaults suit a production worker; tests shorten the timings."""

    concurrency: int = 10
    lease_s: float = 30.0
    heartbeat_s: float | None = None  # default: a third of the lease
    # One heartbeat attempt (checkout, connect, statement) may take this long (default: a quarter
    # of the lease); a job whose lease was not renewed is cancelled ``lease_margin_s`` before
    # its lease ends (default: a quarter of the lease).
    renew_timeout_s: float | None = None
    lease_margin_s: float | None = None
    poll_s: float = 1.0
    batch_size: int | None = None  # claim at most this many at once (default: a lane's share)
    # Producer lanes: each claims and completes its share of the concurrency in its own
    # transactions, so two turns (and two WAL flushes) can be in flight at once.
    lanes: int = 2
    complete_batch: int = 500
    # "batched": a lane's outcomes go out with its next claim, in one statement (one commit);
    # "inline": each job's outcome is written by itself as soon as the job ends.
    completer: str = "batched"
    # Vacuum the jobs table after this many outcomes (0: leave it to autovacuum). Dead row
    # versions pile up at queue speed between autovacuum runs and slow every claim down.
    vacuum_every: int = 20_000
    shutdown_grace_s: float = 10.0
    # Move everything alive when the first worker of the process starts (modules, classes, the
    # automations, pools) out of the cyclic collector's reach (gc.freeze), once per process.
    # A busy worker makes a few tracked objects per job and keeps thousands in flight, so the
    # collector runs often; its full passes walked the whole startup heap each time (a fifth of
    # a busy worker's time in the throughput bench). Objects frozen are still freed by reference
    # counting; only reference cycles among them stay until exit.
    freeze_gc: bool = True
    modes: tuple[str, ...] = ALL_MODES
    # Automations whose live jobs may be claimed; None means all registered (library use). The
    # CLI passes those whose current code has a passing go-live verdict.
    live_automations: tuple[str, ...] | None = None
    worker_id: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}")

    def __post_init__(self) -> None:
        self.timing  # noqa: B018 - raise ConfigError now for a lease too short to run a job in

    @property
    def heartbeat_interval(self) -> float:
        return self.heartbeat_s if self.heartbeat_s is not None else self.lease_s / 3

    @property
    def timing(self) -> LeaseTiming:
        return LeaseTiming.for_lease(self.lease_s, self.renew_timeout_s, self.lease_margin_s,
                                     heartbeat_s=self.heartbeat_interval)

    @property
    def application_name(self) -> str:
        """What the worker's connections are called in ``pg_stat_activity``."""
        return f"cutover-worker {self.worker_id}"[:63]
