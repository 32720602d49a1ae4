"""An in-memory CallContext for gateway tests (the job's stored calls, trace and ledger).

Only the context is in memory: rate budgets in the same tests still live in real Postgres.
Stored calls round-trip through ``dataclasses.asdict`` as the real Context stores them (JSON).
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass, field
from typing import Any

from queue_core.gateway import StoredCall
from queue_core.keys import child_key


@dataclass
class MemoryCallContext:
    mode: str = "live"
    automation: str = "test-automation"
    trigger_id: str | None = "trigger-1"
    job_id: uuid.UUID = field(default_factory=uuid.uuid4)
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    intents: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    attempts: dict[str, int] = field(default_factory=dict)
    refs: dict[str, str | None] = field(default_factory=dict)

    def idempotency_key(self, step: str, occurrence: int = 0) -> str:
        return child_key(self.job_id, step, occurrence)

    async def load_call(self, step: str, occurrence: int = 0) -> dict[str, Any] | None:
        return self.calls.get(_name(step, occurrence))

    async def begin_call(self, step: str, occurrence: int, stored: StoredCall) -> int:
        self.calls[_name(step, occurrence)] = dataclasses.asdict(stored)
        self.attempts[_name(step, occurrence)] = self.attempts.get(_name(step, occurrence), 0) + 1
        return self.attempts[_name(step, occurrence)]

    async def finish_call(self, step: str, occurrence: int, stored: StoredCall, external_ref: str | None,
                          kind: str, detail: dict[str, Any]) -> int:
        name = _name(step, occurrence)
        self.calls[name] = dataclasses.asdict(stored)
        self.refs[name] = external_ref
        self.attempts.setdefault(name, 1)
        self.events.append((kind, {**detail, "attempt": self.attempts[name]}))
        return self.attempts[name]

    def record_intent(self, intent: dict[str, Any]) -> None:
        self.intents.append(intent)

    async def ledger(self, kind: str, detail: dict[str, Any]) -> None:
        self.events.append((kind, detail))

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]


def _name(step: str, occurrence: int) -> str:
    """The key of a stored call: the step name, with ``#n`` for occurrences after the first."""
    return step if occurrence == 0 else f"{step}#{occurrence}"
