"""The operations console of ``cutover serve``, under ``/console``: server-rendered pages (Jinja2,
autoescaped; a few lines of the console's own JavaScript refresh the runs table), signed in with a
control token exchanged for a session cookie (see :mod:`.auth`). The bearer ControlGate lets
``/console`` through: these routes authenticate by the session and check scopes and CSRF themselves.
"""

from __future__ import annotations

from fastapi import APIRouter

from . import auth, automations, pages

PREFIX = "/console"

# Each module's routes carry the whole path (their routers have the prefix), so a walk over the
# app's routes (the ControlGate's, the tests') sees /console/... and never a bare /login.
router = APIRouter()
router.include_router(auth.routes)
router.include_router(pages.routes)
router.include_router(automations.routes)

__all__ = ["PREFIX", "router"]
