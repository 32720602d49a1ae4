"""Which automations may run live: those whose current code passed the go-live gate.

The harness records a verdict per automation and code version (``gate_verdicts``); a worker asks
here before it claims live jobs. An operator may override for named automations; every override
is written to the ledger.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .queue import Queue
from .registry import Registry
from .suggest import did_you_mean


@dataclass(frozen=True)
class LiveDecision:
    """The automations a worker may run live, and those refused with the reason why."""

    allowed: tuple[str, ...]
    refused: tuple[tuple[str, str], ...]  # (automation, reason)
    overridden: tuple[str, ...]


async def decide_live(queue: Queue, registry: Registry, overrides: Iterable[str], *, actor: str) -> LiveDecision:
    """Return which registered automations may run in live mode.

    An automation is allowed when a passing verdict exists for its current code version (the hash
    of its module's source), or when it is named in ``overrides`` — each such override is
    appended to the ledger as a ``gate_override`` event by ``actor``.
    """
    overrides = set(overrides)
    allowed: list[str] = []
    refused: list[tuple[str, str]] = []
    overridden: list[str] = []
    for name in registry.names():
        auto = registry.get(name)
        verdict = await queue.passing_verdict(name, auto.source_hash)
        if verdict is not None:
            allowed.append(name)
        elif name in overrides:
            allowed.append(name)
            overridden.append(name)
            await queue.worker_event(
                "gate_override", actor, {"automation": name, "code_version": auto.source_hash}
            )
        else:
            refused.append((
                name,
                f"no passing go-live verdict for code version {auto.source_hash}; run "
                f"`pytest --shadow <recordings> --gate` or start the worker with --allow-ungated {name}",
            ))
    for name in unknown_overrides(overrides, registry.names()):
        refused.append((name, "--allow-ungated names an automation that is not registered"
                        + did_you_mean(name, registry.names())))
    return LiveDecision(tuple(allowed), tuple(refused), tuple(overridden))


def unknown_overrides(overrides: Iterable[str], registered: Iterable[str]) -> list[str]:
    """Return the names of ``overrides`` no automation is registered under, sorted. Pure."""
    return sorted(set(overrides) - set(registered))


def refuse_unknown_overrides(overrides: Iterable[str], registered: Iterable[str]) -> str | None:
    """Return why ``overrides`` cannot be used when one names no registered automation, else None.

    The sentence names each unknown name with the closest registered one and lists them all,
    for a worker to refuse to start with (an override of a typo would never apply).
    """
    known = sorted(registered)
    unknown = unknown_overrides(overrides, known)
    if not unknown:
        return None
    each = "; ".join(f"no automation is registered as {name!r}{did_you_mean(name, known)}" for name in unknown)
    return f"{each}. Registered: {', '.join(known) or '(none)'}"
