"""What a replay takes and gives back: cases, their replayed jobs, options, shadow providers.

Plain values without the queue's machinery, so the judge (:mod:`harness.shadow.judge`) and the
item comparison read them without importing the replay's database driver.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from harness.recording import LegacyTrace, RecordedTrigger
from queue_core.provider import ProviderConfig
from queue_core.states import Mode

POLL_PREFIX = "poll:"  # the key prefix of a shadow poller's item jobs (queue_core.poller)
SHADOW_BASE = "https://{name}.shadow.invalid"  # .invalid never resolves (RFC 2606)


@dataclass(frozen=True)
class Case:
    """One trigger to replay: its automation, the recorded delivery and the legacy trace.

    ``key`` is the caller's handle for the result (unique within one replay call); ``repeat``
    tells apart the runs of one trigger replayed twice (the noise check).
    """

    key: int
    automation: str
    trigger: RecordedTrigger
    legacy: LegacyTrace | None
    repeat: int = 0


@dataclass(frozen=True)
class ChildRun:
    """A job that descends from a replayed job, and how it ended.

    ``key`` is the path of child keys from the replayed job down, joined by ``/`` (a child
    ``"0"``, its own child ``"0/a"``): the part of its trigger id after the parent's.
    """

    key: str
    automation: str
    status: str
    attempt: int
    error: str | None
    trace: dict[str, Any] | None


@dataclass(frozen=True)
class Replayed:
    """How one replayed job ended: queue status, attempts used, last error, decision trace, and
    the jobs descending from it (``children``, every generation, ordered by key)."""

    key: int
    automation: str
    trigger_id: str
    status: str
    attempt: int
    error: str | None
    trace: dict[str, Any] | None
    children: tuple[ChildRun, ...] = ()


@dataclass(frozen=True)
class ReplayOptions:
    """How to replay: mode, seed, in-process workers and their concurrency, attempts per job."""

    mode: Mode = Mode.SHADOW
    seed: int = 0
    workers: int = 2
    concurrency: int = 32
    max_attempts: int = 1
    recording: str | None = None
    settle_timeout_s: float = 120.0
    pool_size: int = 12
    scratch: bool = False


def shadow_providers(configured: Mapping[str, ProviderConfig], names: Iterable[str]) -> dict[str, ProviderConfig]:
    """Return provider configs for a replay: the project's, and a shadow-only default for the rest.

    A configured provider keeps its base URL (so intents read like production) but loses its
    ``sandbox_url``: a replay never leaves the process. A provider named by the recording but not
    configured in pyproject.toml gets ``https://<name>.shadow.invalid`` and no rate, auth or
    signing — enough to record intents and serve recorded responses, useless for live traffic.
    It is marked ``stand_in``: an absolute URL given to it fails naming the ``base_url`` to configure.
    """
    out = {name: replace(cfg, sandbox_url=None) for name, cfg in configured.items()}
    for name in names:
        if name and name not in out:
            out[name] = ProviderConfig(name=name, base_url=SHADOW_BASE.format(name=name), stand_in=True)
    return out
