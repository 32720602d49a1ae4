"""Key and id derivation: child idempotency keys (pure) and new job ids (time-ordered).

The child key of a call (or step) identifies one side effect to the provider. It is derived
from the job's id, the step's name, the step's occurrence (its ordinal among the steps of that
name in one run of the job, from 0) and the job's key generation (0 until an operator replays
the job with ``--new-keys``, which adds one)::

    occurrence 0, generation 0   sha256("<job_id>:<step>")              (the original key)
    occurrence n, generation 0   sha256("<job_id>:<step>\\n<n>")
    occurrence n, generation g   sha256("<job_id>:<step>\\n<n>\\ng<g>")

as lowercase hex. The line break separates the step name from the numbers: a step name may not
contain one, so no two (job, step, occurrence, generation) share a text, hence a key (short of
a SHA-256 collision). A colon could not do that: ``compensate:undo:0`` is a real step name.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid


def child_key(job_id: uuid.UUID | str, step: str, occurrence: int = 0, generation: int = 0) -> str:
    """Return the child idempotency key of occurrence ``occurrence`` of ``step`` in job ``job_id``.

    It depends on nothing but its arguments, so every retry and every reclaim of the job sends
    the provider the same key for the same call, and a loop of calls at one step name sends one
    key per iteration. See the module docstring for the derivation. Raises ValueError for a
    step name with a line break or a negative occurrence or generation.
    """
    if "\n" in step:
        raise ValueError(f"step name {step!r} contains a line break")
    if occurrence < 0 or generation < 0:
        raise ValueError(f"occurrence ({occurrence}) and generation ({generation}) must be >= 0")
    text = f"{job_id}:{step}"
    if occurrence or generation:
        text += f"\n{occurrence}" + (f"\ng{generation}" if generation else "")
    return hashlib.sha256(text.encode()).hexdigest()


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
