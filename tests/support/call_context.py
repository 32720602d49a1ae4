"""An in-memory job for gateway tests (the job's stored calls, trace and ledger): a CallJob that
also stores the gateway's CallRecords, as the real job handle does (queue_core._job_run).

Only the job is in memory: rate budgets in the same tests still live in real Postgres, spent
and answered by their own statements here (the real store folds them into begin and settle).
Stored calls round-trip through ``dataclasses.asdict`` as the real store keeps them (JSON).
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from queue_core.budget import Checkout
from queue_core.gateway import CallRecord, Gateway, Spend, StoredCall
from queue_core.keys import child_key


async def call(gw: Gateway, ctx: MemoryCallContext, *args: Any, **kwargs: Any) -> httpx.Response:
    """Make a call through ``gw`` for the in-memory job ``ctx``, as ``Context.call`` does."""
    return await ctx.settle(await gw.call(ctx, *args, **kwargs))


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

    async def begin_call(self, step: str, occurrence: int, stored: StoredCall,
                         spend: Spend | None) -> Checkout | None:
        checkout = await spend.checkout() if spend is not None else None
        if checkout is not None and not checkout.granted:
            return checkout
        self.calls[_name(step, occurrence)] = dataclasses.asdict(stored)
        self.attempts[_name(step, occurrence)] = self.attempts.get(_name(step, occurrence), 0) + 1
        return checkout

    async def settle(self, record: CallRecord) -> httpx.Response:
        """Store ``record`` (its budget answer, intent, row and event) and answer with it."""
        if record.intent is not None:
            self.intents.append(record.intent)
            self.events.append((record.intent_event or "call_intent", record.intent))
        if record.answer is not None:
            await record.answer.apply()
            tightened = record.answer.event()
            if tightened is not None:
                self.events.append(("budget_tightened", tightened))
        if record.replayed:
            self.events.append((record.event, dict(record.detail or {})))
        elif record.stored is not None:
            name = _name(record.step, record.occurrence)
            self.calls[name] = dataclasses.asdict(record.stored)
            self.refs[name] = record.external_ref
            self.attempts.setdefault(name, 1)
            self.events.append((record.event, {**(record.detail or {}), "attempt": self.attempts[name]}))
        return record.outcome()

    async def ledger(self, kind: str, detail: dict[str, Any]) -> None:
        self.events.append((kind, detail))

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.events]


def _name(step: str, occurrence: int) -> str:
    """The key of a stored call: the step name, with ``#n`` for occurrences after the first."""
    return step if occurrence == 0 else f"{step}#{occurrence}"
