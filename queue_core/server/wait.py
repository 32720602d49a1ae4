"""Resolve a wait token from the control plane: approve or reject, with a payload.

The token (``wt.<job id>.<wait name>.<mac>``, see ``queue_core._waits``) is checked and the
wait resolved by :meth:`Queue.resolve_token`; this module only maps its outcomes to the control
plane's errors and records the acting token's name as the actor (never the wait token).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from psycopg_pool import AsyncConnectionPool

from ..errors import JobNotFoundError, WaitNotFoundError, WaitResolvedError, WaitTokenError
from ..queue import Queue


class Decision(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"


@dataclass(frozen=True)
class ResolvedWait:
    """The job whose wait was resolved by this call."""

    job_id: uuid.UUID


async def resolve_wait(
    pool: AsyncConnectionPool, token: str, decision: Decision, payload: Any, *, actor: str
) -> ResolvedWait:
    """Resolve the wait ``token`` names with ``decision`` and ``payload``; wake its job if waiting.

    Raises WaitNotFoundError for a forged or malformed token or a job that no longer exists,
    WaitResolvedError when the wait was resolved before (resolution happens once). A wait the
    job has not reached yet is recorded resolved, and the job finds it when it gets there.
    """
    try:
        resolved = await Queue(pool).resolve_token(token, decision=Decision(decision).value, payload=payload,
                                                   actor=actor)
    except (WaitTokenError, JobNotFoundError):
        raise WaitNotFoundError() from None
    if not resolved:
        raise WaitResolvedError()
    return ResolvedWait(job_id=uuid.UUID(token.split(".")[1]))
