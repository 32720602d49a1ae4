"""Waiting, in a test, for a job a running worker is processing to reach a status."""

from __future__ import annotations

import asyncio
import uuid

from queue_core import Queue


async def until_status(queue: Queue, job_id: uuid.UUID, status: str, *, tries: int = 100, every_s: float = 0.05) -> str:
    """Poll the job every ``every_s`` until its status is ``status`` or ``tries`` polls have passed.

    Returns the last status seen; the caller asserts on it (or on what follows), so a job that
    never gets there fails the test with what it did instead.
    """
    seen = ""
    for _ in range(tries):
        seen = (await queue.get(job_id))["status"]
        if seen == status:
            break
        await asyncio.sleep(every_s)
    return seen
