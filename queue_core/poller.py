"""Polling triggers: a scheduled automation that fetches new items and starts one job per new item.

A poller is an ordinary automation (usually with ``schedule=``) that reads its durable cursor
with ``ctx.poll_cursor()``, fetches a page through ``ctx.call`` (budgets, keys, modes and
recording apply, and the response is memoised) and hands the items to ``ctx.start_new``::

    @automation("poll-tickets", schedule="*/5 * * * *")
    async def poll_tickets(ctx, trigger):
        cursor = await ctx.poll_cursor(default={"since": 0})
        page = (await ctx.call("crm", "GET", "/tickets", params=cursor, step="fetch")).json()
        await ctx.start_new("handle-ticket", page["items"], id_of=lambda t: t["id"],
                            cursor={"since": page["next_since"]})

``start_new`` is one transaction, fenced by the polling job's claim: it locks the poller's
``poller_state`` row, inserts the item ids into ``poller_seen`` (the ones not there before are
the new ones), enqueues one target job per new id (dedupe key ``poll:<poller>:<item id>``,
trigger ``source = "poll"``), advances the cursor and counters, prunes the seen-id record, and
records its step. So an item is started once however pages overlap or items come back, and a
crash between the fetch and ``start_new`` reruns with the memoised response.

The seen-id record is bounded: the newest ``keep_last`` ids per poller (and, with ``keep_for``,
none older). An id that fell out of it and comes back is still stopped by the dedupe key while
the job it started exists; keep ``keep_last`` above what one poll can overlap.

In shadow and dry-run the live poller state is left alone (read, never written): each item is
started as a child job of the polling job (``ctx.enqueue``, key ``poll:<item id>``), in its mode.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from psycopg_pool import AsyncConnectionPool

from ._children import enqueue
from .errors import TerminalError
from .job import JobSpec
from .queue import Queue
from .states import Mode, StepStatus
from .store import poller as store

if TYPE_CHECKING:
    from psycopg import AsyncConnection

    from ._job_run import JobRun


async def poll_cursor(run: JobRun, poller: str, default: Any) -> Any:
    """Return the poller's cursor as stored (``default`` before its first poll), as a memoised step."""
    async def read() -> Any:
        found = await store.read_cursor(run.pool, poller)
        return {"cursor": found if found is not None else default}

    return (await run.step(f"poll-cursor:{poller}", read))["cursor"]


def _new_items(items: list[Any], id_of: Callable[[Any], Any]) -> dict[str, Any]:
    """The page's items by id (as text), first occurrence kept, in page order."""
    by_id: dict[str, Any] = {}
    for item in items:
        item_id = id_of(item)
        if item_id is None or item_id == "":
            raise TerminalError(f"start_new: id_of gave no id for item {item!r}")
        by_id.setdefault(str(item_id), item)
    return by_id


async def start_new(run: JobRun, target: str, items: list[Any], *, id_of: Callable[[Any], Any], cursor: Any,
                    poller: str, keep_last: int, keep_for: timedelta | None) -> list[str]:
    """Start one ``target`` job per item id ``poller`` has not seen; return those ids (memoised)."""
    if not isinstance(keep_last, int) or isinstance(keep_last, bool) or keep_last < 1:
        raise TerminalError(f"start_new: keep_last must be an integer >= 1, got {keep_last!r}")
    by_id = _new_items(items, id_of)
    if run.mode != Mode.LIVE.value:
        for item_id, item in by_id.items():
            await enqueue(run, target, {} if item is None else item, f"poll:{item_id}")
        return list(by_id)
    name = f"start-new:{poller}"
    occurrence, position, stored = await run.enter(name)
    if stored is not None and stored.status is StepStatus.DONE:
        return list(stored.output["started"])
    async with run.pool.connection() as conn, conn.transaction():
        new = await _mark(run, conn, poller, target, list(by_id))
        specs = [_spec(run, poller, target, item_id, by_id[item_id]) for item_id in new]
        await Queue(run.pool, registry=run.registry).enqueue_in(conn, specs, actor=run.worker)
        params = {
            "job_id": run.job_id, "claim": run.job.claim_count, "poller": poller, "cursor": json.dumps(cursor),
            "started": len(new), "keep_last": keep_last, "keep_for": keep_for, "name": name,
            "occurrence": occurrence, "position": position, "output": json.dumps({"started": new}),
            "key": run.store.key(name, occurrence),
        }
        if not await store.advance(conn, params):
            raise run.lease_lost()
    run.remember(name, occurrence, position, StepStatus.DONE, 1, {"started": new})
    return new


async def _mark(run: JobRun, conn: AsyncConnection[Any], poller: str, target: str, ids: list[str]) -> list[str]:
    """Lock the poller's row (fenced), insert the ids; return the newly seen ones in page order."""
    lock = {"job_id": run.job_id, "claim": run.job.claim_count, "poller": poller, "target": target}
    if not await store.lock(conn, lock):
        raise run.lease_lost()
    if not ids:
        return []
    fresh = await store.mark_seen(conn, poller, ids)
    return [i for i in ids if i in fresh]


def _spec(run: JobRun, poller: str, target: str, item_id: str, item: Any) -> JobSpec:
    # received_at is the poll's time: a polled item is "received" when the poll found it, as a
    # recording set records it (source = "poll", received at the poll).
    meta = {"source": "poll", "poller": poller, "item_id": item_id, "poll_job": str(run.job_id),
            "tick": run.trigger_id, "id": f"poll:{poller}:{item_id}", "received_at": run.now().isoformat()}
    return JobSpec(target, item, dedupe_key=f"poll:{poller}:{item_id}", trigger_id=f"poll:{poller}:{item_id}",
                   trigger_meta=meta)


async def list_pollers(pool: AsyncConnectionPool) -> list[dict[str, Any]]:
    """Every poller that has polled: target, cursor, last poll, items started, polls, seen ids kept."""
    rows = await store.list_pollers(pool)
    keys = ("poller", "target", "cursor", "last_poll_at", "items_started", "polls", "seen")
    return [dict(zip(keys, r)) for r in rows]

