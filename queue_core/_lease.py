"""When a worker gives up a job whose lease it cannot renew: pure timing, no clock reads.

A worker knows, for each job it runs, when its lease last started on the server at the latest:
the start of the claim turn that took it, then the start of each heartbeat that renewed it. The
lease ends ``lease_s`` after that. A job whose renewals keep failing (the database is gone or
stops answering) is cancelled ``margin_s`` before that end, so it never runs on after another
worker may have reclaimed it.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from .errors import ConfigError

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class LeaseTiming:
    """How long a heartbeat attempt may take, and how early an unrenewed job is cancelled."""

    lease_s: float
    renew_timeout_s: float  # one heartbeat attempt: pool checkout, connect and statement
    margin_s: float  # cancel an unrenewed job this long before its lease would expire

    @classmethod
    def for_lease(cls, lease_s: float, renew_timeout_s: float | None = None, margin_s: float | None = None,
                  *, heartbeat_s: float = 0.0) -> LeaseTiming:
        """Return the timing for ``lease_s`` (defaults: a quarter of the lease for both).

        Raises ConfigError when the numbers leave no time to run a job (a margin that is not
        shorter than the lease, a non-positive timeout or margin), or when a heartbeat every
        ``heartbeat_s`` could not renew a healthy job's lease before the guard cancels it.
        """
        timing = cls(lease_s, lease_s / 4 if renew_timeout_s is None else renew_timeout_s,
                     lease_s / 4 if margin_s is None else margin_s)
        if not (timing.renew_timeout_s > 0 and 0 < timing.margin_s < lease_s):
            raise ConfigError(f"lease {lease_s}s: the renew timeout ({timing.renew_timeout_s}s) and margin "
                              f"({timing.margin_s}s) must be positive, the margin shorter than the lease",
                              field="lease")
        if heartbeat_s + timing.renew_timeout_s >= timing.horizon_s:
            raise ConfigError(f"lease {lease_s}s: a heartbeat every {heartbeat_s}s that may take "
                              f"{timing.renew_timeout_s}s cannot renew a lease within {timing.horizon_s}s "
                              "(heartbeat more often, or lengthen the lease)", field="lease")
        return timing

    @property
    def horizon_s(self) -> float:
        """How long after its lease last started a job may keep running."""
        return self.lease_s - self.margin_s


def overdue(renewed: Mapping[K, float], now: float, horizon_s: float) -> list[K]:
    """Return the jobs whose lease last started ``horizon_s`` or more before ``now``."""
    cutoff = now - horizon_s
    return [key for key, started in renewed.items() if started <= cutoff]


def next_check(renewed: Mapping[K, float], now: float, horizon_s: float) -> float:
    """Return when the first of ``renewed`` becomes overdue (``now + horizon_s`` if none).

    A job added later started its lease at ``now`` or after, so it is never due before this.
    """
    earliest = min(renewed.values(), default=now)
    return earliest + horizon_s
