"""Assemble the ``cutover serve`` ASGI app and run it with uvicorn.

:func:`create_app` takes either an open pool (tests, embedding) or a database URL (the app opens
and closes its own pool in its lifespan). Extension points: ``on_verified_delivery`` (the
harness's recorder tap), ``replay`` and ``resolve_wait`` (swappable implementations).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.datastructures import Headers
from fastapi.exceptions import RequestValidationError
from psycopg_pool import AsyncConnectionPool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route, Router
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import db, payload
from ..errors import (
    BodyTooLargeError,
    ClientDisconnectedError,
    ConfigError,
    EnqueueError,
    JobBusyError,
    JobNotFoundError,
    MissingFieldError,
    NotCancelableError,
    PayloadError,
    UnknownStepError,
    WaitNotFoundError,
    WaitResolvedError,
)
from ..migrate import available
from ..queue import Queue
from ..registry import Registry
from . import console, control, models, wait
from .api import ServerState, lacks, route_scope, router
from .ingress import DeliveryHook
from .problem import ProblemResponse, problem, validation_problem
from .problem import describe as describe_problems
from .source import DEFAULT_MAX_BODY_BYTES, Source
from .token import Principal, authenticate

log = logging.getLogger("queue_core.server")


# Routes anyone may call: liveness, readiness, the API's own description, and the webhook
# ingress (which authenticates by each source's signature scheme instead of a token), and the
# console (which authenticates by its own session cookie, scopes and CSRF: queue_core.server.console).
PUBLIC_PATHS = frozenset({"/healthz", "/readyz", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc",
                          "/console"})
PUBLIC_PREFIXES = ("/hooks/", "/console/")


def is_public(path: str) -> bool:
    """Tell whether ``path`` is served without a bearer token (every other path needs one)."""
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)


class ControlGate:
    """Authenticate, authorise, then bound, then decode every control request, before any route runs.

    Order: a missing, unknown or revoked bearer token gets 401 whatever the body (nothing of it
    is read); a token lacking the scope of the route it calls gets 403 (nothing read either);
    then a body over ``limit`` bytes gets 413 (a declared Content-Length at once, else while
    counting); then a body that is not JSON gets 400, and JSON that Postgres could not store
    (see :mod:`queue_core.payload`) 422, naming the field. A path no route serves with that
    method goes on unread (404/405). A client hanging up mid-body is logged in one line and
    answered with nothing. The principal is left in ``scope["state"]`` for the routes. Public
    paths pass through untouched.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or is_public(scope["path"]):
            await self.app(scope, receive, send)
            return
        principal = await self._authenticate(scope)
        if isinstance(principal, ProblemResponse):
            await principal(scope, receive, send)
            return
        scope.setdefault("state", {})["principal"] = principal
        route = _matching_route(scope)
        needed = route_scope(route) if route is not None else None
        refusal = lacks(principal, needed) if needed is not None else None
        if refusal is not None:
            await problem(403, refusal)(scope, receive, send)
            return
        if route is None:
            await self.app(scope, receive, send)
            return
        try:
            messages, problem_response = await self._read(scope, receive)
        except ClientDisconnectedError as exc:
            log_disconnect(scope, exc)
            return
        if problem_response is not None:
            await problem_response(scope, receive, send)
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _authenticate(self, scope: Scope) -> Principal | ProblemResponse:
        scheme, _, credentials = Headers(scope=scope).get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not credentials.strip():
            return problem(401, "a bearer token is required (Authorization: Bearer <token>)",
                           headers={"WWW-Authenticate": "Bearer"})
        found = await authenticate(scope["app"].state.cutover.pool, credentials.strip())
        if found is None:
            return problem(401, "the bearer token is unknown or revoked", headers={"WWW-Authenticate": "Bearer"})
        return found

    async def _read(self, scope: Scope, receive: Receive) -> tuple[list[Message], ProblemResponse | None]:
        too_large = problem(413, str(BodyTooLargeError(self.limit)))
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.limit:
            return [], too_large
        messages: list[Message] = []
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnectedError(seen)
            messages.append(message)
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.limit:
                return [], too_large
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body.strip():
            try:
                payload.loads(body, where="body")
            except PayloadError as exc:
                return [], problem(400 if exc.problem == "not_json" else 422, str(exc), field=exc.field,
                                   errors=[{"field": exc.field, "message": str(exc)}])
        return messages, None


def _matching_route(scope: Scope) -> Route | None:
    """Return the route that serves this path with this method, or None (the app answers 404/405)."""
    for route in _routes(scope["app"].router.routes):
        if isinstance(route, Route) and route.matches(scope)[0] is Match.FULL:
            return route
    return None


def log_disconnect(scope: Scope, exc: ClientDisconnectedError) -> None:
    """Log, in one line and without a traceback, that a client hung up mid-body.

    The route's template is logged, not the path, which may hold a wait token or anything else
    the sender chose.
    """
    route = scope.get("route") or _matching_route(scope)
    where = getattr(route, "path_format", None) or "(no route)"
    log.info("%s %s: %s", scope.get("method", "?"), where, exc)


def _routes(routes: Any) -> Any:
    """Yield every route, looking inside the wrappers FastAPI puts around an included router."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        yield from _routes(inner.routes) if inner is not None else (route,)


class AllowHeader:
    """On 405, list in ``Allow`` every method the path supports (Starlette names one route's only)."""

    def __init__(self, app: ASGIApp, router: Router) -> None:
        self.app = app
        self.router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def fixed(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 405:
                allowed: set[str] = set()
                for route in _routes(self.router.routes):
                    if isinstance(route, Route) and route.methods and route.matches(scope)[0] is not Match.NONE:
                        allowed |= route.methods
                headers = [(k, v) for k, v in message["headers"] if k.lower() != b"allow"]
                headers.append((b"allow", ", ".join(sorted(allowed)).encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, fixed)


def _detail(status: int) -> Callable[[Exception], ProblemResponse]:
    return lambda exc: problem(status, str(exc))


def _validation(field: str) -> Callable[[Exception], ProblemResponse]:
    def render(exc: Exception) -> ProblemResponse:
        # A path into the request body, as pydantic's: a payload's missing field is under $.payload.
        where = f"payload.{exc.path}" if isinstance(exc, MissingFieldError) else getattr(exc, "field", None) or field
        where = where if where.startswith("$") else f"$.{where}"
        return problem(422, str(exc), field=where, errors=[{"field": where, "message": str(exc)}])

    return render


def _http(exc: Exception) -> ProblemResponse:
    assert isinstance(exc, StarletteHTTPException)
    return problem(exc.status_code, str(exc.detail), headers=exc.headers)


_ERRORS: dict[type[Exception], Callable[[Exception], ProblemResponse]] = {
    StarletteHTTPException: _http,
    RequestValidationError: lambda exc: validation_problem(exc),  # type: ignore[arg-type]
    JobNotFoundError: _detail(404),
    WaitNotFoundError: _detail(404),
    JobBusyError: _detail(409),
    NotCancelableError: _detail(409),
    BodyTooLargeError: _detail(413),
    WaitResolvedError: _detail(409),
    UnknownStepError: _validation("from_step"),
    EnqueueError: _validation("automation"),
}


async def _disconnected(request: Request, exc: Exception) -> ProblemResponse:
    # A route reading its own body (the webhook ingress) met a client that hung up; no one reads
    # the answer (uvicorn drops it), but the handler keeps it out of the error log.
    assert isinstance(exc, ClientDisconnectedError)
    log_disconnect(request.scope, exc)
    return problem(400, str(exc))


def _install_errors(app: FastAPI) -> None:
    for exc_type, render in _ERRORS.items():
        async def handle(request: Request, exc: Exception, render: Callable[[Exception], ProblemResponse] = render) -> ProblemResponse:
            return render(exc)

        app.add_exception_handler(exc_type, handle)
    app.add_exception_handler(ClientDisconnectedError, _disconnected)


def create_app(
    *,
    pool: AsyncConnectionPool | None = None,
    database_url: str | None = None,
    sources: Mapping[str, Source] | None = None,
    registry: Registry | None = None,
    on_verified_delivery: DeliveryHook | None = None,
    replay: control.JobReplayer | None = None,
    resolve_wait: Callable[..., Awaitable[wait.ResolvedWait]] | None = None,
    clock: Callable[[], float] = time.time,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> FastAPI:
    """Return the app. Exactly one of ``pool`` (owned by the caller) and ``database_url``.

    ``registry``, when given, makes enqueue refuse unknown automations (422) and is checked
    against every source's automations now (ConfigError). ``clock`` returns unix seconds and
    drives the webhook timestamp tolerance.
    """
    if (pool is None) == (database_url is None):
        raise ValueError("pass exactly one of pool and database_url")
    configured = dict(sources or {})
    if registry is not None:
        for src in configured.values():
            for name in src.automations:
                if name not in registry.names():
                    raise ConfigError(f"automation {name!r} is not registered; registered: "
                                      f"{', '.join(registry.names()) or '(none)'}",
                                      field=f"tool.cutover.sources.{src.name}.automations")

    def make_state(p: AsyncConnectionPool) -> ServerState:
        st = ServerState(pool=p, queue=Queue(p, registry=registry), sources=configured, clock=clock,
                         expected_migration=max(m.number for m in available()),
                         on_verified_delivery=on_verified_delivery)
        if replay is not None:
            st.replay = replay
        if resolve_wait is not None:
            st.resolve_wait = resolve_wait
        return st

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if database_url is None:
            yield
            return
        async with db.pool(database_url, min_size=1, max_size=10) as own:
            app.state.cutover = make_state(own)
            yield

    app = FastAPI(
        title="cutover control plane",
        version="1",
        description="Control API (bearer tokens with scopes) and authenticated webhook ingress of `cutover serve`.",
        lifespan=lifespan,
    )
    if pool is not None:
        app.state.cutover = make_state(pool)
    _describe_storable_json(app)
    _install_errors(app)
    app.include_router(router)
    app.include_router(console.router)
    app.add_middleware(ControlGate, limit=max_body_bytes)
    app.add_middleware(AllowHeader, router=app.router)
    return app


_WAIT_TOKEN_IN_PATH = re.compile(r"(/waits/)[^/?\s]+")


class MaskWaitTokens(logging.Filter):
    """Mask the wait token in ``/waits/<token>/resolve`` request lines of the access log."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_WAIT_TOKEN_IN_PATH.sub(r"\1***", a) if isinstance(a, str) else a for a in record.args)
        return True


def _link_storable_json(node: Any) -> None:
    if isinstance(node, dict):
        if node.pop(models.STORABLE_JSON_MARKER, None):
            node["$ref"] = f"#/components/schemas/{models.STORABLE_JSON}"
        for value in node.values():
            _link_storable_json(value)
    elif isinstance(node, list):
        for value in node:
            _link_storable_json(value)


def _describe_storable_json(app: FastAPI) -> None:
    """Add the recursive StorableJson component the request models refer to."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = generate()
            _link_storable_json(document)
            describe_problems(document)
            document.setdefault("components", {}).setdefault("schemas", {})[models.STORABLE_JSON] = \
                models.STORABLE_JSON_SCHEMA
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def serve(app: FastAPI, *, host: str = "127.0.0.1", port: int = 8080, log_level: str = "info") -> None:
    """Run ``app`` with uvicorn until SIGINT/SIGTERM (uvicorn drains in-flight requests)."""
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, server_header=False)
    logging.getLogger("uvicorn.access").addFilter(MaskWaitTokens())
    uvicorn.Server(config).run()
