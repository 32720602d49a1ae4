"""Signing in to the console and guarding its pages and actions.

A control token (``cutover token create``) is posted once to ``/console/login`` and exchanged for a
session: a random id (256 bits) in an HttpOnly, SameSite=Strict cookie (Secure when the request
came over https) that expires after :data:`SESSION_S`. The database keeps the id's sha256, the hash
of the token, the session's CSRF secret and the expiry (``console_sessions``); every request looks
the session up joined to its live token, so a revoked token ends its sessions at their next
request. A page needs a session whose token holds ``read`` (signed out: 303 to the login); an
action (POST) needs a session (else 401), the scope it names (else 403) and the session's CSRF
token in its form, compared in constant time (else 403), all before anything is done. A POST
whose Origin names another host (another site's form) is refused too, the sign-in included.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from ...store import console as store
from ..token import Principal, Scope, authenticate, hash_token
from .render import HEADERS, page, refusal

COOKIE = "cutover_console"
SESSION_S = 8 * 3600
MAX_FORM_BYTES = 64 * 1024


@dataclass(frozen=True)
class ConsoleSession:
    """A signed-in console user: the token's principal (never the token), the CSRF token of its forms."""

    principal: Principal
    csrf: str
    session_hash: str

    @property
    def actor(self) -> str:
        """The actor the ledger records for what this session does."""
        return f"console:{self.principal.name}"

    def may(self, scope: Scope) -> bool:
        return scope.value in self.principal.scopes


def _pool(request: Request) -> Any:
    return request.app.state.cutover.pool


async def current(request: Request) -> ConsoleSession | None:
    """The session the request's cookie names, if it is live and its token is not revoked."""
    raw = request.cookies.get(COOKIE, "")
    if not raw or len(raw) > 100:
        return None
    digest = hashlib.sha256(raw.encode()).hexdigest()
    found = await store.session(_pool(request), digest)
    if found is None or not hmac.compare_digest(found[3].encode(), digest.encode()):
        return None
    name, scopes, csrf, _ = found
    return ConsoleSession(Principal(name=name, scopes=frozenset(scopes)), csrf, digest)


def _lacks(session: ConsoleSession, scope: Scope) -> str:
    return f"token {session.principal.name!r} lacks the {scope.value!r} scope"


async def for_page(request: Request, scope: Scope = Scope.READ) -> ConsoleSession | Response:
    """The session a page may be shown to, or the answer instead: 303 to the login, or 403."""
    session = await current(request)
    if session is None:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/console/login?next={quote(target, safe='')}", status_code=303, headers=HEADERS)
    for needed in dict.fromkeys((Scope.READ, scope)):  # every page needs read, some more
        if not session.may(needed):
            return refusal(request, 403, _lacks(session, needed))
    return session


async def for_action(request: Request, scope: Scope) -> tuple[ConsoleSession, dict[str, str]] | Response:
    """The session and form of an action needing ``scope``, or the refusal: 401 signed out, 403
    lacking the scope, 413 a form over 64 KiB, 403 a missing or wrong CSRF token."""
    session = await current(request)
    if session is None:
        return refusal(request, 401, "sign in to the console first")
    if not session.may(scope):
        return refusal(request, 403, _lacks(session, scope))
    if _cross_site(request):
        return refusal(request, 403, "a form posted from another site is refused")
    form = await _form(request)
    if form is None:
        return refusal(request, 413, f"the form is over {MAX_FORM_BYTES} bytes")
    sent = form.get("csrf")
    if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), session.csrf.encode()):
        return refusal(request, 403, "the form's CSRF token is missing or wrong; reload the page and try again")
    return session, form


def _cross_site(request: Request) -> bool:
    """A POST a browser sent from another origin (its Origin header names another host): refused,
    the sign-in included (no one is signed in to someone else's session by another site's form)."""
    origin = request.headers.get("origin")
    if origin is None:
        return False  # not a browser's cross-origin POST (browsers send Origin on those)
    if origin == "null":  # an opaque origin: a sandboxed frame, or a page whose policy hides it
        return True
    return urlsplit(origin).netloc.lower() != request.headers.get("host", "").lower()


async def _form(request: Request) -> dict[str, str] | None:
    """The request's urlencoded form (its last value per name), or None when over MAX_FORM_BYTES."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_FORM_BYTES:
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    # The console's forms are urlencoded (a browser's default); parsed here, so the console needs no
    # multipart parser (python-multipart, which starlette's request.form() would require).
    if body and not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return {}
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=100))


def _next(target: str | None) -> str:
    """Where to go after signing in: a console path only (no open redirect)."""
    if target and target.startswith("/console/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/console/runs"


routes = APIRouter(prefix="/console", include_in_schema=False)


@routes.get("/login")
async def login_form(request: Request, next: str | None = None) -> Response:
    return page(request, "login.html", session=None, next=_next(next), message=None)


@routes.post("/login")
async def login(request: Request) -> Response:
    """Exchange a control token for a session cookie; an unknown or revoked token gets 401."""
    if _cross_site(request):
        return refusal(request, 403, "a form posted from another site is refused")
    form = await _form(request)
    if form is None:
        return refusal(request, 413, f"the form is over {MAX_FORM_BYTES} bytes")
    token, target = form.get("token"), _next(str(form.get("next") or ""))
    principal = await authenticate(_pool(request), token.strip()) if isinstance(token, str) else None
    if principal is None:
        return page(request, "login.html", 401, session=None, next=target,
                    message="That token is unknown or revoked.")
    session_id, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    ttl = float(getattr(request.app.state, "console_session_s", SESSION_S))
    assert isinstance(token, str)
    await store.create_session(_pool(request), session_hash=hashlib.sha256(session_id.encode()).hexdigest(),
                               token_hash=hash_token(token.strip()), csrf_secret=csrf, ttl_s=ttl)
    answer = RedirectResponse(target, status_code=303, headers=HEADERS)
    answer.set_cookie(COOKIE, session_id, max_age=int(ttl), path="/console", httponly=True, samesite="strict",
                      secure=request.url.scheme == "https")
    return answer


@routes.post("/logout")
async def logout(request: Request) -> Response:
    """End the session (its row is deleted) and clear the cookie."""
    guarded = await for_action(request, Scope.READ)
    if isinstance(guarded, Response):
        return guarded
    await store.delete_session(_pool(request), guarded[0].session_hash)
    answer = RedirectResponse("/console/login", status_code=303, headers=HEADERS)
    answer.delete_cookie(COOKIE, path="/console", httponly=True, samesite="strict")
    return answer
