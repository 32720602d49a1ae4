"""What a call leaves behind: the CallRecord the gateway returns and the job stores in one statement.

The gateway decides; the job writes. ``Gateway.call`` prepares, spends, sends and classifies a
call and returns a :class:`CallRecord` (request, response, classification, stored form, key,
external reference, ledger event, the budget's answer); the job's store writes its step row and
its ledger event together, in one fenced statement, then ``outcome()`` hands the response back or
raises what the classification says. Before a live call is sent the job puts it on record
(``CallJob.begin_call``) in the same statement that spends its rate budget, fenced by the claim:
a worker whose lease is gone spends no budget and sends nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from ..budget import Budget, Checkout
from ..classify import Classification, Kind
from ..provider import Algorithm, ProviderConfig, Tightening
from .request import OutboundRequest, StoredCall


@dataclass(frozen=True)
class Spend:
    """One call's worth of a rate budget, to be spent with the call's ``begin_call``.

    ``params()`` are those of ``budget_checkout`` (queries/calls.sql runs it with the fence and
    the step row); ``checkout()`` spends it alone, for a job kept in memory (tests).
    """

    budget: Budget
    config: ProviderConfig
    scope: str
    horizon: float = 0.0

    def params(self) -> dict[str, Any]:
        return {"provider": self.config.name, "scope_key": self.scope, "cost": 1, "horizon": self.horizon,
                "windows": [r.seconds for r in self.config.rates]}

    async def checkout(self) -> Checkout:
        return await self.budget.checkout(self.config, self.scope, horizon=self.horizon)

    async def ensure(self) -> None:
        """Create the scope's window rows (the first call of a scope, or rows deleted behind us)."""
        await self.budget.ensure(self.config, self.scope)


@dataclass(frozen=True)
class Answer:
    """What the budget learns from a live call's answer: it was answered now (``grant``), and what
    the response said of the provider's limit (``instruction``); see ``Budget.answered``."""

    spend: Spend
    grant: Checkout | None
    instruction: Tightening | None

    def params(self) -> dict[str, Any] | None:
        """The parameters of ``budget_answer``, or None when the answer changes nothing."""
        config = self.spend.config
        if self.grant is None and self.instruction is None:
            return None
        if self.grant is not None and config.algorithm is Algorithm.TOKEN_BUCKET and self.instruction is None:
            return None
        t = self.instruction or Tightening("")
        return {"provider": config.name, "scope_key": self.spend.scope,
                "since": self.grant.granted_at if self.grant is not None else None,
                "answered": self.grant is not None, "block_for": t.block_for, "remaining": t.remaining,
                "reset": t.reset, "limit": t.limit, "window": t.window, "full": t.full,
                "reason": t.reason if self.instruction is not None else None}

    def event(self) -> dict[str, Any] | None:
        """The detail of the ``budget_tightened`` ledger event, when the answer tightened the budget."""
        if self.instruction is None:
            return None
        return {"provider": self.spend.config.name, "scope_key": self.spend.scope, "reason": self.instruction.reason}

    async def apply(self) -> None:
        """Tell the budget alone (a job kept in memory); the real store does it with the settle."""
        budget, config, scope = self.spend.budget, self.spend.config, self.spend.scope
        if self.grant is not None:
            await budget.answered(config, scope, self.grant, self.instruction)
        elif self.instruction is not None:
            await budget.tighten(config, scope, self.instruction)


@dataclass(frozen=True)
class CallRecord:
    """One call as the gateway settled it, for the job to store and then to answer with.

    ``stored`` is the step row's record (None: nothing to store, e.g. a shadow read with no
    recording); ``event``/``detail`` its ledger event; ``intent`` (shadow, dry-run) goes to the
    decision trace and the ledger as ``intent_event`` first; ``replayed``: an earlier attempt's
    answer, only its ``call_replayed`` event is written. ``signal`` is what ``outcome()`` raises.
    """

    step: str
    request: OutboundRequest
    response: httpx.Response | None
    verdict: Classification | None
    stored: StoredCall | None
    external_ref: str | None = None
    event: str = "call"
    detail: Mapping[str, Any] | None = None
    answer: Answer | None = None
    intent: dict[str, Any] | None = None
    intent_event: str | None = None
    replayed: bool = False
    signal: BaseException | None = None

    @property
    def occurrence(self) -> int:
        return self.request.occurrence

    @property
    def key(self) -> str:
        return self.request.idempotency_key

    @property
    def ok(self) -> bool:
        return self.verdict is not None and self.verdict.kind is Kind.OK

    def outcome(self) -> httpx.Response:
        """Return the response, or raise the signal its classification gave (after storing); a signal
        for an answered call carries the answer as ``response`` (what an n8n Code node's code reads)."""
        if self.signal is not None:
            if self.response is not None:
                vars(self.signal).setdefault("response", self.response)
            raise self.signal
        assert self.response is not None  # a record without a signal is an answered call
        return self.response


class CallJob(Protocol):
    """What the gateway needs from the job making a call (the Context hands it a narrow one).

    A call is identified by (step, occurrence): the n-th call at one step name in a run of the
    job has occurrence n. ``mode`` is ``live``, ``dry_run`` or ``shadow``.
    ``idempotency_key(step, occurrence)`` must be ``queue_core.keys.child_key`` of the job (or
    another key equally stable across retries and reclaims, distinct per occurrence).
    ``load_call`` returns the StoredCall of an earlier attempt (or its JSON form).
    ``begin_call`` puts a live call on record before it is sent (its fingerprint, attempt + 1),
    fenced by the claim, and spends ``spend`` in the same statement: it returns the checkout
    (None without a spend); a refused checkout begins nothing; a lost lease raises
    LeaseLostError having spent and written nothing.
    """

    @property
    def job_id(self) -> uuid.UUID: ...
    @property
    def automation(self) -> str: ...
    @property
    def mode(self) -> str: ...
    @property
    def trigger_id(self) -> str | None: ...
    def idempotency_key(self, step: str, occurrence: int = 0) -> str: ...
    async def load_call(self, step: str, occurrence: int = 0) -> StoredCall | Mapping[str, Any] | None: ...
    async def begin_call(self, step: str, occurrence: int, stored: StoredCall,
                         spend: Spend | None) -> Checkout | None: ...
