"""An n8n workflow's static data (``$getWorkflowStaticData``) for the Code nodes that use it, kept in Postgres.

n8n keeps one static data object per workflow, ``{"global": {...}, "node:<name>": {...}}``: a
Code node gets ``$getWorkflowStaticData('global')`` or ``('node')`` (its own part), and after an
execution that changed it n8n saves the whole object back, whether the execution succeeded or
failed (never in a manual run), last writer wins (n8n's ``WorkflowStaticDataService``).

Here a run reads the object once, when its first such Code node runs, and keeps it on the
``Flow`` (``flow.static_data``) for the rest of the run; each Code node that changed it writes
the whole object back as it ends (it succeeded or failed: n8n saves it either way), in one
statement fenced by the job's claim, so a job whose lease was lost writes nothing and stops
(LeaseLostError). Writing at the node's end rather than the run's gives the same stored object
after every run that ends, and keeps a change a crash would have lost.

Concurrent jobs of one automation: last writer wins, as in n8n; a write that replaced a version
the run had not read (another job wrote in between) adds a ``static_data_overwritten`` ledger
event to the job. A job retried from the top runs its Code nodes again over the static data its
earlier attempt saved (n8n's retry of an execution starts at the failed node).

Live jobs use the ``static_data`` table; shadow and dry-run jobs use ``replay_static_data`` of
their recording set, so the replayed triggers see the static data evolve as their jobs run and
the live row is never read or written. A context that is not a job's (a proof's) keeps the
static data for the run only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..context import Context, job_run
from ..states import Mode
from ..store import static_data as store

Items = list[dict[str, Any]]


@dataclass
class HeldStaticData:
    """The static data one run holds: the object, and the version it read or last wrote."""

    data: dict[str, Any] = field(default_factory=dict)
    version: int = 0


def _recording(ctx: Context) -> str | None:
    """None for a live job (the live row); the recording set of a shadow or dry-run job."""
    return None if ctx.mode == Mode.LIVE.value else (job_run(ctx).job.recording or "")


async def held(flow: Any) -> HeldStaticData:
    """Return the run's static data, read from the store on first use."""
    if flow.static_data is None:
        ctx = flow.ctx
        if isinstance(ctx, Context):
            run = job_run(ctx)
            found = await store.read(run.pool, run.automation, recording=_recording(ctx))
            flow.static_data = HeldStaticData(found.data, found.version)
        else:
            flow.static_data = HeldStaticData()
    return flow.static_data  # type: ignore[no-any-return]


async def save(flow: Any, state: HeldStaticData) -> None:
    """Write the run's static data back, fenced by the job's claim (LeaseLostError when it is gone)."""
    ctx = flow.ctx
    if not isinstance(ctx, Context):
        return
    run = job_run(ctx)
    saved = await store.save(run.pool, run.automation, state.data, job_id=run.job_id, claim=run.job.claim_count,
                             recording=_recording(ctx))
    if saved is None:
        raise run.lease_lost()
    if saved.replaced is not None and saved.replaced != state.version:
        await run.ledger("static_data_overwritten", {"read_version": state.version, "replaced_version": saved.replaced})
    state.version = saved.version


async def code_static(flow: Any, node: str, source: str, items: Items, *, mode: str = "runOnceForAllItems",
                      kind: str = "code", workflow: dict[str, Any] | None = None, zone: str | None = None) -> Items:
    """Run a Code node that uses ``$getWorkflowStaticData`` (as ``n8n.code``), with the workflow's
    static data; write it back when the node changed it. Record and return the node's items."""
    from ._n8n_code import run_node

    state = await held(flow)
    before = json.dumps(state.data, sort_keys=True)
    try:
        out = run_node(flow, node, source, items, mode=mode, kind=kind, workflow=workflow, zone=zone,
                       static=state.data)
    finally:
        if json.dumps(state.data, sort_keys=True) != before:
            await save(flow, state)
    return flow.emit(node, out)  # type: ignore[no-any-return]
