"""Key derivation: pure functions, no connection, no clock."""

from __future__ import annotations

import hashlib
import uuid


def child_key(job_id: uuid.UUID | str, step: str) -> str:
    """Return the child idempotency key of ``step`` in job ``job_id``: hex ``sha256("job_id:step")``.

    It depends on nothing but the job's id and the step's name, so every retry and every reclaim
    of the job sends the provider the same key, and two different (job, step) pairs never share
    one (short of a SHA-256 collision).
    """
    return hashlib.sha256(f"{job_id}:{step}".encode()).hexdigest()
