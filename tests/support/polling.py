"""Waiting, in a test, for what running workers do, and reading the database while they do it."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

import psycopg

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


def sql(url: str, query: str, params: tuple = ()) -> list[tuple]:
    """Run one statement on its own autocommit connection; return its rows (none for a command)."""
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def wait_until(check: Callable[[], object], timeout: float = 60.0) -> None:
    """Call ``check`` every 50 ms until it returns something true; raise AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")
