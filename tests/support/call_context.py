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

    def idempotency_key(self, step: str) -> str:
        return child_key(self.job_id, step)

    async def load_call(self, step: str) -> dict[str, Any] | None:
        return self.calls.get(step)

    async def save_call(self, step: str, stored: StoredCall) -> None:
        self.calls[step] = dataclasses.asdict(stored)

    def record_intent(self, intent: dict[str, Any]) -> None:
        self.intents.append(intent)

    async def ledger(self, kind: str, detail: dict[str, Any]) -> None:
        self.events.append((kind, detail))

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]
