"""The console's Automations page: each automation's jobs by status over the last hour and day, its
pause (with pause and resume, scope ``control``, through :mod:`queue_core.server.control`), and its
latest go-live gate verdict."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from ...store import console as store
from .. import control
from ..token import Scope
from .auth import for_action, for_page
from .render import HEADERS, page, refusal

NAME = re.compile(r"^[^\x00-\x1f/]{1,200}$")
FAILED = ("failed", "dead", "compensation_failed")

routes = APIRouter(prefix="/console", include_in_schema=False)


def _pool(request: Request) -> Any:
    return request.app.state.cutover.pool


@routes.get("/automations")
async def automations(request: Request) -> Response:
    """Every automation with jobs in the last day, a pause or a gate verdict."""
    session = await for_page(request)
    if isinstance(session, Response):
        return session
    pool = _pool(request)
    rows: dict[str, dict[str, Any]] = {}

    def row(name: str) -> dict[str, Any]:
        return rows.setdefault(name, {"name": name, "hour": {}, "day": {}, "pause": None, "verdict": None})

    for name, status, day, hour in await store.automation_activity(pool):
        row(name)["day"][status], row(name)["hour"][status] = day, hour
    for paused in await control.list_pauses(pool):
        if paused.kind == "automation":
            row(paused.name)["pause"] = paused
    for name, verdict in (await store.latest_verdicts(pool)).items():
        row(name)["verdict"] = verdict
    for r in rows.values():
        for window in ("hour", "day"):
            total = sum(r[window].values())
            failed = sum(r[window].get(s, 0) for s in FAILED)
            r[f"{window}_total"], r[f"{window}_failed"] = total, failed
    return page(request, "automations.html", session=session, rows=sorted(rows.values(), key=lambda r: r["name"]),
                can_pause=session.may(Scope.CONTROL))


async def _toggle(request: Request, name: str, pause: bool) -> Response:
    guarded = await for_action(request, Scope.CONTROL)
    if isinstance(guarded, Response):
        return guarded
    session, form = guarded
    if not NAME.match(name):
        return refusal(request, 422, "not an automation name")
    if pause:
        await control.pause(_pool(request), "automation", name, actor=session.actor,
                            reason=str(form.get("reason") or "").strip()[:500] or None)
    elif await control.resume(_pool(request), "automation", name, actor=session.actor) is None:
        return refusal(request, 404, f"automation {name!r} is not paused")
    return RedirectResponse("/console/automations", status_code=303, headers=HEADERS)


@routes.post("/automations/{name}/pause")
async def pause(request: Request, name: str) -> Response:
    """Pause an automation (its jobs are not claimed); scope ``control``."""
    return await _toggle(request, name, True)


@routes.post("/automations/{name}/resume")
async def resume(request: Request, name: str) -> Response:
    """Resume a paused automation; scope ``control``."""
    return await _toggle(request, name, False)
