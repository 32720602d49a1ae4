"""The console's pages: Runs, Run detail (with cancel and replay), and Dead and failed (with bulk replay).

Each handler asks :mod:`.auth` for the session first (a page needs ``read``; cancel ``control``;
replay ``replay``) and does the work through the functions the control API uses
(:mod:`queue_core.server.control`, :mod:`queue_core.ops`), with the actor ``console:<token name>``.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from ... import ops
from ..._cli_history import step_state
from ...errors import JobBusyError, JobNotFoundError, NotCancelableError, QueueError, UnknownStepError
from ...queue import Queue
from ...store import console as store
from ...store.history import ERROR_KINDS, MODES, STATUSES, JobFilter, list_jobs
from ..control import cancel_job
from ...store.control import job_steps as job_step_rows
from ..token import Scope
from .auth import ConsoleSession, for_action, for_page
from .counts import StatusCounts
from .render import HEADERS, page, refusal, static

PAGE_SIZE = 50
BULK_LIMIT = 1000  # jobs one bulk replay touches at most (the preview says so when a group is larger)
FILTERS = ("automation", "status", "mode", "since", "until", "error", "error_kind")

routes = APIRouter(prefix="/console", include_in_schema=False)


def _st(request: Request) -> Any:
    return request.app.state.cutover


@routes.get("/static/{name}")
async def asset(name: str) -> Response:
    if name not in ("console.css", "console.js"):
        return Response(status_code=404)
    return static(name)


@routes.get("")
@routes.get("/")
async def home() -> Response:
    return RedirectResponse("/console/runs", status_code=303, headers=HEADERS)


def _time(text: str, name: str) -> datetime | None:
    if not text:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise QueueError(f"{name} {text!r}: expected a date and time such as 2024-06-03T09:00") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _filters(request: Request) -> tuple[dict[str, str], JobFilter, uuid.UUID | None]:
    """The runs filters in the query string: as given (for the form and links), as a JobFilter, the cursor."""
    given = {k: request.query_params.get(k, "").strip()[:500] for k in FILTERS}
    where = JobFilter(automation=given["automation"] or None, statuses=(given["status"],) if given["status"] else (),
                      mode=given["mode"] or None, since=_time(given["since"], "since"),
                      until=_time(given["until"], "until"), error_kind=given["error_kind"] or None,
                      error_text=given["error"] or None)
    after = request.query_params.get("after") or None
    try:
        cursor = uuid.UUID(after) if after else None
    except ValueError:
        raise QueueError(f"after {after!r} is not a job id") from None
    return given, where, cursor


async def _runs_context(request: Request) -> dict[str, Any] | Response:
    try:
        given, where, after = _filters(request)
        found = await list_jobs(_st(request).pool, where, limit=PAGE_SIZE, after=after)
    except JobNotFoundError:  # a QueueError too: first
        return refusal(request, 404, "the page's cursor names a job that no longer exists; start from the newest")
    except QueueError as exc:
        return refusal(request, 422, str(exc))
    kept = {k: v for k, v in given.items() if v}
    older = f"/console/runs?{urlencode({**kept, 'after': str(found.next)})}" if found.next else None
    table = f"/console/runs/table?{urlencode({**kept, **({'after': str(after)} if after else {})})}"
    return {"jobs": found.jobs, "older": older, "given": given, "table_url": table, "first_page": after is None}


@routes.get("/runs")
async def runs(request: Request) -> Response:
    """Every job, newest first, filtered; counts per status; the table refreshes itself."""
    session = await for_page(request)
    if isinstance(session, Response):
        return session
    context = await _runs_context(request)
    if isinstance(context, Response):
        return context
    tally = getattr(request.app.state, "console_counts", None)
    if tally is None:
        tally = request.app.state.console_counts = StatusCounts()
    by_status, as_of = await tally.get(_st(request).pool)
    return page(request, "runs.html", session=session, counts=[(s, by_status.get(s, 0)) for s in STATUSES],
                counted_at=as_of,
                statuses=STATUSES, modes=MODES, error_kinds=ERROR_KINDS, **context)


@routes.get("/runs/table")
async def runs_table(request: Request) -> Response:
    """The runs table alone, which the runs page fetches every few seconds and swaps in."""
    session = await for_page(request)
    if isinstance(session, Response):
        return session
    context = await _runs_context(request)
    if isinstance(context, Response):
        return context
    return page(request, "runs_table.html", session=session, **context)


_DONE = {"canceled": "The job was canceled.", "replayed": "The job was put back to run again."}


async def _detail(request: Request, session: ConsoleSession, job_id: uuid.UUID, status: int = 200,
                  message: str | None = None) -> Response:
    st = _st(request)
    try:
        job = await Queue(st.pool).get(job_id)
    except JobNotFoundError:
        return refusal(request, 404, f"no job {job_id}")
    steps = await ops.job_steps(st.pool, job_id)
    timed = {(r["step_name"], r["occurrence"]): r for r in await job_step_rows(st.pool, job_id)}
    for step in steps:
        step["state"] = step_state(step)
        row = timed.get((step["step_name"], step["occurrence"]), {})
        began, ended = row.get("started_at"), row.get("finished_at")
        step["duration"] = f"{(ended - began).total_seconds() * 1000:.0f} ms" if began and ended else ""
    children = await list_jobs(st.pool, JobFilter(parent=job_id), limit=PAGE_SIZE)
    notice = _DONE.get(request.query_params.get("done", ""))
    return page(request, "run.html", status, session=session, job=job, steps=steps,
                ledger=await Queue(st.pool).ledger(job_id), explain=await ops.explain(st.pool, job),
                parent=await store.parent_of(st.pool, job_id), children=children.jobs,
                more_children=children.next is not None, step_names=sorted({s["step_name"] for s in steps}),
                message=message, notice=notice, can_cancel=session.may(Scope.CONTROL),
                can_replay=session.may(Scope.REPLAY))


def _job_id(text: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(text)
    except ValueError:
        return None


@routes.get("/runs/{job_id}")
async def run(request: Request, job_id: str) -> Response:
    """One job: its fields, payload (masked), steps and calls, ledger, explain text, parent, children."""
    session = await for_page(request)
    if isinstance(session, Response):
        return session
    found = _job_id(job_id)
    return refusal(request, 404, "not a job id") if found is None else await _detail(request, session, found)


@routes.post("/runs/{job_id}/cancel")
async def cancel(request: Request, job_id: str) -> Response:
    """Cancel a pending or waiting job (scope ``control``), as POST /jobs/{id}/cancel does."""
    guarded = await for_action(request, Scope.CONTROL)
    if isinstance(guarded, Response):
        return guarded
    session, form = guarded
    found = _job_id(job_id)
    if found is None:
        return refusal(request, 404, "not a job id")
    try:
        await cancel_job(_st(request).pool, found, actor=session.actor, reason=str(form.get("reason") or "")[:500])
    except JobNotFoundError:
        return refusal(request, 404, f"no job {found}")
    except (JobBusyError, NotCancelableError) as exc:
        return await _detail(request, session, found, 409, str(exc))
    return RedirectResponse(f"/console/runs/{found}?done=canceled", status_code=303, headers=HEADERS)


@routes.post("/runs/{job_id}/replay")
async def replay(request: Request, job_id: str) -> Response:
    """Replay a job from scratch or from a step (scope ``replay``), with a required reason."""
    guarded = await for_action(request, Scope.REPLAY)
    if isinstance(guarded, Response):
        return guarded
    session, form = guarded
    found = _job_id(job_id)
    if found is None:
        return refusal(request, 404, "not a job id")
    reason, step = str(form.get("reason") or "").strip()[:500], str(form.get("from_step") or "").strip() or None
    if not reason:
        return await _detail(request, session, found, 422, "a replay needs a reason")
    try:
        await _st(request).replay(_st(request).pool, found, actor=session.actor, reason=reason, from_step=step)
    except JobNotFoundError:
        return refusal(request, 404, f"no job {found}")
    except JobBusyError as exc:
        return await _detail(request, session, found, 409, str(exc))
    except UnknownStepError as exc:
        return await _detail(request, session, found, 422, str(exc))
    return RedirectResponse(f"/console/runs/{found}?done=replayed", status_code=303, headers=HEADERS)


@routes.get("/failing")
async def failing(request: Request) -> Response:
    """The dead and failed jobs grouped by error signature, each with its count and a bulk replay."""
    session = await for_page(request)
    if isinstance(session, Response):
        return session
    groups = await store.failing_groups(_st(request).pool)
    for g in groups:
        g["preview"] = "/console/failing/replay?" + urlencode(
            {"automation": g["automation"], "error_kind": g["error_kind"], "signature": g["signature"]})
    return page(request, "failing.html", session=session, groups=groups, can_replay=session.may(Scope.REPLAY))


def _group(source: Any) -> dict[str, str]:
    return {k: str(source.get(k) or "")[:2000] for k in ("automation", "error_kind", "signature")}


@routes.get("/failing/replay")
async def bulk_preview(request: Request) -> Response:
    """How many jobs a group's bulk replay will touch, and the form (a reason is required)."""
    session = await for_page(request, Scope.REPLAY)
    if isinstance(session, Response):
        return session
    group = _group(request.query_params)
    ids = await store.failing_group_ids(_st(request).pool, **group, limit=BULK_LIMIT + 1)
    return page(request, "bulk.html", session=session, group=group, touches=min(len(ids), BULK_LIMIT),
                more=len(ids) > BULK_LIMIT, limit=BULK_LIMIT, result=None, message=None)


@routes.post("/failing/replay")
async def bulk_replay(request: Request) -> Response:
    """Replay every job of a group (at most BULK_LIMIT), each recorded in its ledger with the reason."""
    guarded = await for_action(request, Scope.REPLAY)
    if isinstance(guarded, Response):
        return guarded
    session, form = guarded
    group, reason = _group(form), str(form.get("reason") or "").strip()[:500]
    st = _st(request)
    if not reason:
        ids = await store.failing_group_ids(st.pool, **group, limit=BULK_LIMIT + 1)
        return page(request, "bulk.html", 422, session=session, group=group, touches=min(len(ids), BULK_LIMIT),
                    more=len(ids) > BULK_LIMIT, limit=BULK_LIMIT, result=None, message="a bulk replay needs a reason")
    replayed, skipped = 0, 0
    for job_id in await store.failing_group_ids(st.pool, **group, limit=BULK_LIMIT):
        try:
            await st.replay(st.pool, job_id, actor=session.actor, reason=reason, from_step=None)
            replayed += 1
        except (JobBusyError, JobNotFoundError):
            skipped += 1  # claimed or deleted since the list was read
    runs = "/console/runs?" + urlencode({"automation": group["automation"]})
    return page(request, "bulk.html", session=session, group=group, touches=0, more=False, limit=BULK_LIMIT,
                result={"replayed": replayed, "skipped": skipped, "runs": runs}, message=None)
