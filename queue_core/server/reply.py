"""Hold a webhook request until its automation answers: n8n's Respond to Webhook, as a source option.

A source with ``respond_timeout_s > 0`` names one automation. After its delivery's job is
enqueued, the request waits (checking every ``POLL_S``: one query, ``job_reply``) until the job
answers with ``await ctx.respond(status, body, headers)`` — the caller gets that status, those
headers and that body — or until the job ends without answering or the time is up, when the
caller gets the usual 202 body with ``"reply"`` saying which (``"none"``: the job ended without an
answer; ``"timed out"``; ``"failed"``, with status 500, when the job failed before answering).
Only the first answer counts, as in n8n. A repeated delivery gets its first job's answer again.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from psycopg_pool import AsyncConnectionPool

from ..store import ingress as store

POLL_S = 0.05
_ENDED = frozenset({"succeeded", "failed", "dead", "canceled", "compensation_failed"})
_FAILED = frozenset({"failed", "dead", "canceled", "compensation_failed"})
# Hop-by-hop and framing headers are the server's to set, never an automation's.
_DROPPED_HEADERS = frozenset({"connection", "content-length", "transfer-encoding", "keep-alive", "upgrade",
                              "proxy-connection", "te", "trailer"})


@dataclass(frozen=True)
class Reply:
    """What a held request answers: the automation's status, headers and body."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)

    def rendered(self) -> tuple[bytes, str | None]:
        """Return the body's bytes and its default content type (none for a 204 or 304: no content)."""
        if self.status in (204, 304):
            return b"", None
        if self.body is None:
            return b"", "text/plain; charset=utf-8"
        if isinstance(self.body, str):
            return self.body.encode(), "text/plain; charset=utf-8"
        return json.dumps(self.body, ensure_ascii=False).encode(), "application/json"


def reply_of(stored: Any) -> Reply:
    """Read a stored ``ctx:response`` step output (as ``Context.respond`` writes it)."""
    status = stored.get("status") if isinstance(stored, dict) else None
    headers = stored.get("headers") if isinstance(stored, dict) else None
    safe = {str(k).lower(): str(v) for k, v in (headers or {}).items() if str(k).lower() not in _DROPPED_HEADERS}
    return Reply(status if isinstance(status, int) and 100 <= status <= 599 else 200,
                 stored.get("body") if isinstance(stored, dict) else None, safe)


async def wait_for_reply(pool: AsyncConnectionPool, job_id: uuid.UUID, timeout_s: float) -> Reply | str:
    """Return the job's answer, or why there is none: ``"none"``, ``"failed"`` or ``"timed out"``."""
    deadline = time.monotonic() + timeout_s
    while True:
        stored, status = await store.job_reply(pool, job_id)
        if stored is not None:
            return reply_of(stored)
        if status in _ENDED:
            return "failed" if status in _FAILED else "none"
        if time.monotonic() >= deadline:
            return "timed out"
        await asyncio.sleep(POLL_S)
