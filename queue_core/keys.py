"""Key and id derivation: child idempotency keys (pure) and new job ids (time-ordered)."""

from __future__ import annotations

import hashlib
import os
import time
import uuid


def child_key(job_id: uuid.UUID | str, step: str) -> str:
    """Return the child idempotency key of ``step`` in job ``job_id``: hex ``sha256("job_id:step")``.

    It depends on nothing but the job's id and the step's name, so every retry and every reclaim
    of the job sends the provider the same key, and two different (job, step) pairs never share
    one (short of a SHA-256 collision).
    """
    return hashlib.sha256(f"{job_id}:{step}".encode()).hexdigest()


def new_job_id(now_ms: int | None = None) -> uuid.UUID:
    """Return a new job id: a time-ordered UUID (version 7, RFC 9562), 74 random bits.

    Ids made close in time sort close together, so the primary-key and ledger index inserts of
    a batch land on a few adjacent B-tree pages instead of one random page each (fewer pages
    dirtied and written to the WAL per job than with random version-4 ids).
    """
    ms = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & 0xFFFF_FFFF_FFFF) << 80 | 0x7 << 76 | (rand >> 62 & 0xFFF) << 64 | 0b10 << 62 | rand & (1 << 62) - 1
    return uuid.UUID(int=value)
