"""The step store: memoised step rows of one job, read once and written fenced by the claim."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from psycopg_pool import AsyncConnectionPool

from ._sql import q
from .errors import LeaseLostError
from .keys import child_key
from .states import StepStatus


@dataclass(frozen=True)
class StepRecord:
    """A step as stored by an earlier attempt of the job."""

    name: str
    occurrence: int
    position: int
    version: int
    status: StepStatus
    attempt: int
    output: Any
    error: str | None
    error_type: str | None = None
    checkpoint: Any = None
    checkpoint_version: int | None = None


class StepStore:
    """Reads and writes the ``steps`` rows of one claimed job."""

    def __init__(self, pool: AsyncConnectionPool, job_id: uuid.UUID, claim_count: int) -> None:
        self.pool = pool
        self.job_id = job_id
        self.claim = claim_count

    async def load(self) -> dict[tuple[str, int], StepRecord]:
        """Return the job's stored steps keyed by (name, occurrence)."""
        async with self.pool.connection() as conn:
            cur = await conn.execute(q("steps", "load_steps"), {"job_id": self.job_id})
            rows = await cur.fetchall()
        return {
            (r[0], r[1]): StepRecord(r[0], r[1], r[2], r[3], StepStatus(r[4]), r[5], r[6], r[7], r[8], r[9], r[10])
            for r in rows
        }

    async def begin(self, name: str, occurrence: int, position: int, version: int, input_hash: str | None) -> int:
        """Record that the step starts (attempt + 1, committed); return its attempt number."""
        params = {
            "job_id": self.job_id, "name": name, "occurrence": occurrence, "position": position,
            "version": version, "input_hash": input_hash, "key": child_key(self.job_id, name),
            "claim": self.claim,
        }
        return int(await self._fenced(q("steps", "begin_step"), params))

    async def finish(self, name: str, occurrence: int, status: StepStatus, output: Any = None,
                     error: str | None = None, error_type: str | None = None) -> None:
        """Record how the step ended."""
        params = {
            "job_id": self.job_id, "name": name, "occurrence": occurrence, "status": status.value,
            "output": json.dumps(output) if output is not None else None, "error": error,
            "error_type": error_type, "claim": self.claim,
        }
        await self._fenced(q("steps", "finish_step"), params)

    async def checkpoint(self, name: str, occurrence: int, data: Any, version: int) -> None:
        """Persist a running step's progress."""
        params = {
            "job_id": self.job_id, "name": name, "occurrence": occurrence,
            "checkpoint": json.dumps(data), "version": version, "claim": self.claim,
        }
        await self._fenced(q("steps", "save_checkpoint"), params)

    async def _fenced(self, sql: str, params: dict[str, Any]) -> Any:
        async with self.pool.connection() as conn:
            row = await (await conn.execute(sql, params)).fetchone()
        if row is None:
            raise LeaseLostError(self.job_id, self.claim)
        return row[0]
