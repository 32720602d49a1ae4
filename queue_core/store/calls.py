"""A live call's two statements: begin (spend the budget, put the call on record) and settle.

Each is one round trip (queries/calls.sql), fenced by the job's claim like every write of a
running job. Used by the step store (queue_core.store.steps) for a call whose provider has a
rate budget; a call without one begins and settles with steps.sql's ``begin_call`` and
``settle_call``, one round trip each as well.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from psycopg_pool import AsyncConnectionPool

from .._sql import q
from ..budget import Checkout, refusal_reason

if TYPE_CHECKING:
    from ..gateway.record import Answer, Spend


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
            cur = await conn.execute(q("calls", "begin_budgeted_call"), params)
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


async def settle_answered(pool: AsyncConnectionPool, row: dict[str, Any], answer: Answer,
                          answer_params: dict[str, Any]) -> int | None:
    """Settle the call ``row`` describes with the budget's ``answer``, in one statement.

    Returns the call's attempt, or None when the claim is gone (the budget still hears the
    answer: the provider did receive the call).
    """
    tightened = answer.event()
    params = {**row, **answer_params, "tightened": None if tightened is None else json.dumps(tightened)}
    async with pool.connection() as conn:
        found = await (await conn.execute(q("calls", "settle_answered_call"), params)).fetchone()
    return None if found is None or found[0] is None else int(found[0])
