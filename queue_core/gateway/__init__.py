"""The provider gateway: the one seam every outbound call of an automation goes through.

Pipeline of ``Gateway.call`` for a live job::

    stored call? ──same request, ok──▶ replayed: the stored response (no call)
        │ different request ─▶ IdempotencyConflictError
        ▼
    in-flight slot ─▶ begin: one fenced statement spends the rate budget and puts the call on
    record (budget empty: Snooze; lease lost: LeaseLostError, nothing spent) ─▶ Idempotency-Key
    = child key of the step ─▶ Authorization from the env var ─▶ Standard Webhooks signature
    ─▶ httpx ─▶ classify ─▶ CallRecord ══▶ the job stores it: step row + ledger event + the
    budget's answer (rate-limit headers) in one statement ─▶ response | RetryableError |
    TerminalError | RateLimited

So a live call costs two database round trips: begin and settle (bench/round_trips.py).
``dry_run`` and ``shadow`` jobs stop before the network: they record the intent and answer from
the harness's ``response_source``, a shadow sandbox, or a synthetic response. Their HTTP clients
are built on ``_GuardedTransport``, which raises NetworkBlockedError for any host but a shadow
sandbox, so no code path of those modes can reach a real provider.

Modules: ``request`` (the secret-free request, its fingerprint and stored form: pure),
``record`` (the CallRecord the job stores, and what the gateway needs of the job), ``pipeline``
(the Gateway), ``sql`` (the live transport of a database provider, ``base_url = "sql://…"``).
"""

from __future__ import annotations

from .pipeline import READ_METHODS, Gateway
from .record import Answer, CallJob, CallRecord, Spend
from .request import (
    OutboundRequest,
    RecordedResponse,
    ResponseSource,
    StoredCall,
    fingerprint,
    form_body,
    prepare,
    redact_headers,
    resolve_url,
)

__all__ = [
    "READ_METHODS",
    "Answer",
    "CallJob",
    "CallRecord",
    "Gateway",
    "OutboundRequest",
    "RecordedResponse",
    "ResponseSource",
    "Spend",
    "StoredCall",
    "fingerprint",
    "form_body",
    "prepare",
    "redact_headers",
    "resolve_url",
]
