"""A live call's two statements: begin (spend the budget, put the call on record) and settle.

Each is one round trip (queries/calls.sql), fenced by the job's claim like every write of a
running job. Used by the step store (queue_core.store.steps) for every live call: a call whose
provider has no rate budget runs the same two statements with no budget to spend or tell.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from psycopg_pool import AsyncConnectionPool

from .._sql import q
from ..budget import Checkout, refusal_reason

if TYPE_CHECKING:
    from ..gateway.record import Answer, Spend


# A call without a rate budget: nothing to spend (begin_call), nothing to tell it (settle_call).
_NO_SPEND: dict[str, Any] = {"provider": None, "scope_key": None, "cost": 0, "horizon": 0.0, "windows": []}
_NO_ANSWER: dict[str, Any] = {"provider": None, "scope_key": None, "since": None, "answered": None, "block_for": None,
              "remaining": None, "reset": None, "limit": None, "window": None, "full": None, "reason": None}


async def begin_unbudgeted(pool: AsyncConnectionPool, row: dict[str, Any]) -> tuple[bool, int | None]:
    """Begin the call ``row`` describes, with no budget to spend; return (fenced, attempt)."""
    params = {**row, "output": json.dumps(row["output"]), **_NO_SPEND}
    async with pool.connection() as conn:
        found = await (await conn.execute(q("calls", "begin_call"), params)).fetchone()
    assert found is not None  # the statement always returns one row
    return bool(found[0]), None if found[1] is None else int(found[1])


async def begin_budgeted(pool: AsyncConnectionPool, row: dict[str, Any], spend: Spend) -> tuple[bool, int | None, Checkout]:
    """Spend ``spend`` and begin the call ``row`` describes, in one statement.

    Returns (fenced, attempt, checkout): not fenced means the claim is gone and nothing was
    spent or written; attempt is None when the checkout was refused (nothing begun). A window
    row that does not exist (the scope's first call, or rows deleted behind our back) is
    created and the statement run once more.
    """
    params = {**row, "output": json.dumps(row["output"]), **spend.params()}
    for first in (True, False):
        async with pool.connection() as conn:
            cur = await conn.execute(q("calls", "begin_call"), params)
            names = [d.name for d in cur.description or ()]
            rows = [dict(zip(names, r)) for r in await cur.fetchall()]
        fenced, attempt = bool(rows[0]["fenced"]), rows[0]["attempt"]
        windows = [r for r in rows if r["window_seconds"] is not None]
        if not fenced:
            return False, None, Checkout(False, 0.0)
        if len(windows) == len(spend.config.rates) or not first:
            break
        await spend.ensure()
    if attempt is not None:
        return True, int(attempt), Checkout(True, float(windows[0]["delay"]), None, float(windows[0]["granted_at"]),
                                            {float(r["window_seconds"]): int(r["remaining"]) for r in windows})
    if len(windows) < len(spend.config.rates):
        return True, None, Checkout(False, 0.0, f"provider {spend.config.name!r} budget rows are missing")
    return True, None, Checkout(False, float(windows[0]["delay"]), refusal_reason(spend.config, windows))


async def settle(pool: AsyncConnectionPool, row: dict[str, Any], answer: Answer | None) -> int | None:
    """Settle the call ``row`` describes, telling the budget ``answer`` (None, or an answer that
    changes nothing: no budget is told), in one statement.

    Returns the call's attempt, or None when the claim is gone (the budget still hears the
    answer: the provider did receive the call).
    """
    answer_params = answer.params() if answer is not None else None
    if answer is None or answer_params is None:
        params = {**row, **_NO_ANSWER, "tightened": None}
    else:
        tightened = answer.event()
        params = {**row, **answer_params, "tightened": None if tightened is None else json.dumps(tightened)}
    async with pool.connection() as conn:
        found = await (await conn.execute(q("calls", "settle_call"), params)).fetchone()
    return None if found is None or found[0] is None else int(found[0])
