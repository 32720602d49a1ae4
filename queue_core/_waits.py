"""Durable waits: their tokens, and how a job waits (timers, tokens, SQL conditions) without a worker.

Wait tokens are derived (HMAC of the job id and wait name under a per-database secret), never stored.

A token reads ``wt.<job id>.<name, base64url>.<mac>``: the resolver learns which job and which
wait it names and checks the mac without any stored copy; a replay derives the same token again.
The waits table keeps only the token's sha256. The secret lives in ``cutover_secrets``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from .errors import Suspend, TerminalError, WaitTimeoutError, WaitTokenError
from .states import StepStatus
from .store import waits

if TYPE_CHECKING:
    from ._job_run import JobRun


@dataclass(frozen=True)
class WaitToken:
    """A token the outside world uses to resolve a wait, and the URL to post the decision to."""

    token: str
    resume_url: str


@dataclass(frozen=True)
class Resolution:
    """How a wait ended: the decision (e.g. ``approve``/``reject``) and its payload."""

    name: str
    decision: str | None
    payload: Any
    token: str | None = None
    resume_url: str | None = None


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _unb64(text: str) -> str:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()


def _mac(secret: str, job_id: uuid.UUID, name: str) -> str:
    return hmac.new(secret.encode(), f"{job_id}:{name}".encode(), hashlib.sha256).hexdigest()[:40]


def make_token(secret: str, job_id: uuid.UUID, name: str) -> WaitToken:
    """Derive the token of wait ``name`` in job ``job_id`` (the same every time)."""
    token = f"wt.{job_id}.{_b64(name)}.{_mac(secret, job_id, name)}"
    base = os.environ.get("CUTOVER_PUBLIC_URL", "http://127.0.0.1:8080").rstrip("/")
    return WaitToken(token, f"{base}/waits/{token}/resolve")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_token(secret: str, token: str) -> tuple[uuid.UUID, str]:
    """Return (job id, wait name) of a genuine token; raise WaitTokenError otherwise.

    The mac is compared in constant time.
    """
    parts = token.split(".")
    if len(parts) != 4 or parts[0] != "wt":
        raise WaitTokenError("not a wait token")
    try:
        job_id, name = uuid.UUID(parts[1]), _unb64(parts[2])
    except (ValueError, UnicodeDecodeError):
        raise WaitTokenError("not a wait token") from None
    if not hmac.compare_digest(_mac(secret, job_id, name), parts[3]):
        raise WaitTokenError("wait token signature does not match")
    return job_id, name


# -- waiting durably (the job handle's side: ctx.sleep, ctx.wait_for_token, ctx.wait_for) ----------


async def sleep(run: JobRun, name: str, wake: Callable[[], datetime]) -> None:
    """Sleep durably until ``wake()`` (read once: a retry keeps the first attempt's wake time)."""
    occurrence, position, stored = await run.enter(name)
    if stored is not None and stored.status is StepStatus.DONE:
        return
    wake_at = datetime.fromisoformat(stored.output["wake_at"]) if stored and stored.output else wake()
    if run.now() >= wake_at:
        await run.record(name, occurrence, position, 1, StepStatus.DONE, {"wake_at": wake_at.isoformat()})
        return
    if stored is None:
        await run.record(name, occurrence, position, 1, StepStatus.WAITING, {"wake_at": wake_at.isoformat()})
    raise Suspend(f"timer until {wake_at.isoformat()}", wake_at)


async def token_of(run: JobRun, name: str) -> WaitToken:
    """The token (and resume URL) of wait ``name`` of the job: the same on every attempt."""
    if run.wait_secret is None:
        run.wait_secret = await waits.wait_secret(run.pool)
        if run.wait_secret is None:
            raise TerminalError("no wait-token secret in cutover_secrets; run `cutover migrate`")
    return make_token(run.wait_secret, run.job_id, name)


async def wait_for_token(run: JobRun, name: str, timeout: timedelta | None, on_timeout: str) -> Resolution:
    """Wait (no worker held) until the token of ``name`` is resolved; see Context.wait_for_token."""
    if on_timeout not in ("fail", "compensate"):
        raise TerminalError(f"wait {name!r}: on_timeout must be 'fail' or 'compensate'")
    token = await token_of(run, name)
    wake_at = run.now() + timeout if timeout is not None else None
    res = await wait(run, f"token:{name}", name, "token", wake_at, on_timeout, None, None, token_hash(token.token))
    return Resolution(res.name, res.decision, res.payload, token.token, token.resume_url)


async def wait_for(run: JobRun, predicate: str, params: dict[str, Any], name: str, timeout: timedelta | None,
                   on_timeout: str) -> Resolution:
    """Wait until the SQL ``predicate`` returns a row; see Context.wait_for."""
    holds = await waits.condition_holds(run.pool, predicate, params)
    wake_at = run.now() + timeout if timeout is not None else None
    return await wait(run, f"event:{name}", name, "event", wake_at, on_timeout, predicate, params, None,
                      holds_now=holds)


async def wait(run: JobRun, step: str, name: str, kind: str, wake_at: datetime | None, on_timeout: str,
               predicate: str | None, params: dict[str, Any] | None, hashed: str | None,
               holds_now: bool = False) -> Resolution:
    """Register wait ``name`` as a step; return its resolution, or suspend the job until it comes."""
    occurrence, position, stored = await run.enter(step)
    if stored is not None and stored.status is StepStatus.DONE:
        return Resolution(name, stored.output.get("decision"), stored.output.get("payload"))
    row = await waits.register_wait(run.pool, run.job_id, run.job.claim_count, name, kind, hashed, wake_at,
                                    on_timeout, predicate, params)
    if row is None:
        raise run.lease_lost()
    resolved_at, decision, payload = row[3], row[4], row[5]
    if resolved_at is None and holds_now:
        resolved_at, decision = run.now(), "condition_met"
    if resolved_at is not None:
        await run.record(step, occurrence, position, 1, StepStatus.DONE, {"decision": decision, "payload": payload})
        return Resolution(name, decision, payload)
    deadline = row[1]
    if deadline is not None and run.now() >= deadline:
        raise WaitTimeoutError(name, compensate=row[2] == "compensate")
    raise Suspend(f"{kind} {name!r}", deadline)
