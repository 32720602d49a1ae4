"""Run probes through the automation's current code in dry-run, and say whether each took its branch.

Each probe is enqueued through the real queue (``harness.shadow.replay.ReplaySession`` in
``Mode.DRY_RUN``: claims, steps, the gateway's intents; nothing leaves the process) as the
automation's job, with the legacy trace of the recorded trigger it was made from as its source
of recorded responses: a read the base trigger's run answered is answered the same way, any
other call gets the gateway's synthetic response. The new code's decisions are then compared,
under the set's decision names and coercion, with what the definition predicts for the probe.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.platforms.adapter import Branch
from harness.manifest import Coercion
from harness.shadow.normalize import branch_value
from harness.shadow.cases import Case, Replayed, ReplayOptions
from harness.shadow.replay import ReplaySession
from harness.platforms.n8n.probe.search import Probe, ProbeSet
from harness.platforms.n8n.probe.files import branch_key
from queue_core.provider import ProviderConfig
from queue_core.registry import Registry
from queue_core.states import Mode

CALL_FIELDS = ("step", "provider", "method", "url", "body")


@dataclass(frozen=True)
class DryRun:
    """What the current code did with one probe, and whether it took the predicted branches."""

    probe: str
    status: str
    error: str | None
    decisions: dict[str, Any] = field(default_factory=dict)
    path: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    took: bool = False  # the new code decided the probe's target branch
    agreed: list[str] = field(default_factory=list)  # predicted branches the new code also decided
    differed: list[str] = field(default_factory=list)  # predicted branches it decided otherwise (or not)


def _decided(decisions: Mapping[str, Any], branch: Branch, coercion: Coercion) -> bool:
    value = decisions.get(branch.decision)
    wanted = branch_value(branch.value, coercion)
    values = value if isinstance(value, list) else [value]
    return value is not None and any(branch_value(v, coercion) == wanted for v in values)


def judge(probe: Probe, result: Replayed, coercion: Coercion) -> DryRun:
    """Return the dry-run outcome of ``probe`` from its replayed job."""
    trace = result.trace or {}
    decisions = dict(trace.get("decisions") or {})
    calls = [{k: c.get(k) for k in CALL_FIELDS} for c in trace.get("calls") or [] if isinstance(c, dict)]
    agreed = [branch_key(b) for b in probe.predicted if _decided(decisions, b, coercion)]
    differed = [branch_key(b) for b in probe.predicted if not _decided(decisions, b, coercion)]
    return DryRun(probe.id, str(trace.get("status") or result.status), trace.get("error") or result.error,
                  decisions, list(trace.get("path") or []), calls, _decided(decisions, probe.branch, coercion),
                  agreed, differed)


def dry_run(probes: ProbeSet, registry: Registry, providers: Mapping[str, ProviderConfig], *,
            coercion: Coercion = Coercion.N8N, db_url: str | None = None, seed: int = 0,
            recording: str | None = None) -> list[DryRun]:
    """Replay every probe once in dry-run through a queue (a fresh database unless ``db_url``).

    Raises ReplayError when the queue cannot run. The automation must be in ``registry``.
    """
    if not probes.probes:
        return []
    cases = [Case(i, probes.automation, p.trigger, probes.legacy.get(p.base.id)) for i, p in enumerate(probes.probes)]
    options = ReplayOptions(mode=Mode.DRY_RUN, seed=seed, workers=1, concurrency=8, recording=recording, scratch=True)
    session = ReplaySession(registry, providers, options, db_url=db_url)
    try:
        results = session.replay(cases)
    finally:
        session.close()
    return [judge(probes.probes[r.key], r, coercion) for r in results]
