"""An AI Agent's Simple Memory (n8n's ``memoryBufferWindow``): a session's last turns, read and appended fenced.

Live jobs use the ``ai_memory`` table (one row per turn of a session of an automation); shadow
and dry-run jobs use ``replay_ai_memory``, per recording set, so a replay never reads or writes
a live session (queries/ai_memory.sql).
"""

from __future__ import annotations

import uuid
from typing import Any

from psycopg_pool import AsyncConnectionPool

from .._sql import q


def _params(automation: str, session: str, recording: str | None) -> tuple[str, dict[str, Any]]:
    if recording is None:
        return "", {"automation": automation, "session": session}
    return "replay_", {"automation": automation, "session": session, "recording": recording}


async def read(pool: AsyncConnectionPool, automation: str, session: str, *, k: int | None, job_id: uuid.UUID,
               ordinal: int, recording: str | None = None) -> list[tuple[str, str]]:
    """Return the session's last ``k`` turns (all when None), oldest first, as (input, output).

    The turns ``job_id`` wrote at ``ordinal`` or later (an earlier attempt of the job) are left out.
    """
    prefix, params = _params(automation, session, recording)
    params.update(k=k, job_id=job_id, ordinal=ordinal)
    async with pool.connection() as conn:
        rows = await (await conn.execute(q("ai_memory", f"read_{prefix}ai_memory"), params)).fetchall()
    return [(str(r[0]), str(r[1])) for r in reversed(rows)]


async def append(pool: AsyncConnectionPool, automation: str, session: str, turn: tuple[str, str], *,
                 job_id: uuid.UUID, claim: int, ordinal: int, recording: str | None = None) -> bool:
    """Append one turn (input, output), fenced by the job's claim; False when the job no longer holds it.

    A turn the job wrote already at ``ordinal`` (a retried attempt) is kept as it is. One
    statement, committed on its own.
    """
    prefix, params = _params(automation, session, recording)
    params.update(input=turn[0], output=turn[1], job_id=job_id, claim=claim, ordinal=ordinal)
    async with pool.connection() as conn:
        row = await (await conn.execute(q("ai_memory", f"append_{prefix}ai_memory"), params)).fetchone()
    return bool(row and row[0])
