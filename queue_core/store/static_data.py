"""An n8n workflow's static data (``$getWorkflowStaticData``): read it, write it back fenced.

Live jobs use the ``static_data`` table (one row per automation); shadow and dry-run jobs use
``replay_static_data``, one row per (recording set, automation), so a replay never reads or
writes the live row (queries/static_data.sql).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from psycopg_pool import AsyncConnectionPool

from .._sql import q


@dataclass(frozen=True)
class StaticData:
    """The static data as read: the whole object and the row's version (0: no row yet)."""

    data: dict[str, Any]
    version: int


@dataclass(frozen=True)
class StaticDataSaved:
    """A write that landed: the row's new version and the version it replaced (None: the first)."""

    version: int
    replaced: int | None


def _params(automation: str, recording: str | None) -> tuple[str, dict[str, Any]]:
    if recording is None:
        return "", {"automation": automation}
    return "replay_", {"automation": automation, "recording": recording}


async def read(pool: AsyncConnectionPool, automation: str, *, recording: str | None = None) -> StaticData:
    """Return ``automation``'s static data (the live row, or the replay's of ``recording``)."""
    prefix, params = _params(automation, recording)
    async with pool.connection() as conn:
        row = await (await conn.execute(q("static_data", f"read_{prefix}static_data"), params)).fetchone()
    if row is None or not isinstance(row[0], dict):
        return StaticData({}, 0)
    return StaticData(row[0], int(row[1]))


async def save(pool: AsyncConnectionPool, automation: str, data: dict[str, Any], *, job_id: uuid.UUID, claim: int,
               recording: str | None = None) -> StaticDataSaved | None:
    """Replace ``automation``'s static data with ``data``, fenced by the job's claim; last writer wins.

    Returns None, having written nothing, when the job no longer runs under ``claim`` (its lease
    ended or another worker took it over). One statement, committed on its own.
    """
    prefix, params = _params(automation, recording)
    params.update(data=json.dumps(data), job_id=job_id, claim=claim)
    async with pool.connection() as conn:
        row = await (await conn.execute(q("static_data", f"save_{prefix}static_data"), params)).fetchone()
    if row is None:
        return None
    return StaticDataSaved(int(row[0]), None if row[1] is None else int(row[1]))
