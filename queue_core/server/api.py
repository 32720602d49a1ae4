"""The routes of ``cutover serve``: control API (bearer tokens), webhook ingress, health, metrics.

Every control route declares the scope it needs (a ``Require`` dependency); the app's
ControlGate authenticates and checks that scope before the body is read, so a caller without a
valid token gets 401, and one lacking the scope 403, whatever it sends. Each route is a thin
adapter: the work is done by ``control``, ``wait``, ``ingress`` and ``metrics``.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, Security
from fastapi.responses import PlainTextResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from psycopg_pool import AsyncConnectionPool

from ..errors import IngressRejected
from ..job import JobSpec
from ..queue import Queue
from . import control, ingress, metrics, models, wait
from .control import JobReplayer
from .ingress import DeliveryHook
from .reply import Reply
from .problem import problem as problem_response
from .source import Source
from .token import Principal, Scope, authenticate


@dataclass
class ServerState:
    """What the routes need, set on ``app.state.cutover`` by :func:`~queue_core.server.app.create_app`."""

    pool: AsyncConnectionPool
    queue: Queue
    sources: dict[str, Source]
    clock: Callable[[], float]
    expected_migration: int
    on_verified_delivery: DeliveryHook | None = None
    replay: JobReplayer = field(default=control.replay_job)
    resolve_wait: Callable[..., Awaitable[wait.ResolvedWait]] = field(default=wait.resolve_wait)


def state(request: Request) -> ServerState:
    value: ServerState = request.app.state.cutover
    return value


_bearer = HTTPBearer(auto_error=False, description="A token from `cutover token create`.")
_AUTH_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": models.Error, "description": "Missing, unknown or revoked token."},
    403: {"model": models.Error, "description": "The token lacks the scope this endpoint needs."},
}


class Require:
    """A dependency admitting only bearer tokens that hold ``scope`` (the gate reads ``scope``)."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    async def __call__(
        self, request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)]
    ) -> Principal:
        # The app's ControlGate authenticated the token and checked this scope before the body
        # was read; this re-checks both when the router is mounted without the gate.
        principal: Principal | None = getattr(request.state, "principal", None)
        if principal is None and credentials is not None:
            principal = await authenticate(state(request).pool, credentials.credentials)
        if principal is None:
            raise HTTPException(401, "a valid bearer token is required (Authorization: Bearer <token>)",
                                headers={"WWW-Authenticate": "Bearer"})
        refusal = lacks(principal, self.scope)
        if refusal is not None:
            raise HTTPException(403, refusal)
        request.state.principal = principal
        return principal


def lacks(principal: Principal, scope: Scope) -> str | None:
    """Return why ``principal`` may not use an endpoint needing ``scope``, or None if it may."""
    return None if scope.value in principal.scopes else f"token {principal.name!r} lacks the {scope.value!r} scope"


def require(scope: Scope) -> Require:
    """Return a dependency admitting only bearer tokens that hold ``scope``."""
    return Require(scope)


def route_scope(route: object) -> Scope | None:
    """Return the scope a route's ``require`` dependency asks for (None: the route needs none)."""
    dependant = getattr(route, "dependant", None)
    for dependency in getattr(dependant, "dependencies", ()):
        if isinstance(dependency.call, Require):
            return dependency.call.scope
    return None


class PauseKind(StrEnum):
    AUTOMATION = "automation"
    PROVIDER = "provider"


State = Annotated[ServerState, Depends(state)]
JobId = Annotated[uuid.UUID, Path(description="The job's id.")]
PauseName = Annotated[str, Path(min_length=1, max_length=200, pattern=models.NAME_PATTERN)]
Responses = dict[int | str, dict[str, Any]]
_404: Responses = {404: {"model": models.Error, "description": "No such job."}}
_409: Responses = {409: {"model": models.Error, "description": "The job's status does not allow this."}}
_413: Responses = {400: {"model": models.Error, "description": "The request body is not JSON."},
        413: {"model": models.Error, "description": "The request body is over the limit."}}

router = APIRouter()


@router.post("/jobs", status_code=202, response_model=models.Enqueued, tags=["jobs"], responses={**_AUTH_ERRORS, **_413})
async def enqueue_job(
    body: models.EnqueueRequest, st: State, who: Annotated[Principal, Depends(require(Scope.ENQUEUE))]
) -> models.Enqueued:
    """Enqueue one job (scope ``enqueue``); a repeated ``dedupe_key`` returns the existing job.

    An automation ``serve`` does not know, or a job its queue refuses (a keyed automation's key
    missing), gets 422 naming the field.
    """
    spec = JobSpec(automation=body.automation, payload=body.payload, priority=body.priority, mode=body.mode,
                   dedupe_key=body.dedupe_key, run_after=body.run_after, max_attempts=body.max_attempts,
                   concurrency_key=body.concurrency_key, concurrency_limit=body.concurrency_limit)
    job_id = await st.queue.enqueue(spec, actor=who.actor)
    return models.Enqueued(id=job_id, automation=body.automation)


@router.get("/jobs", response_model=models.JobPage, tags=["jobs"], responses={
    **_AUTH_ERRORS, 404: {"model": models.Error, "description": "`after` names no job."}})
async def list_jobs(
    st: State, who: Annotated[Principal, Depends(require(Scope.READ))],
    automation: Annotated[str | None, Query(min_length=1, max_length=200, pattern=models.NAME_PATTERN)] = None,
    status: Annotated[list[models.JobStatusName] | None, Query(description="Repeatable: jobs in any of these.")] = None,
    mode: models.ModeName | None = None,
    since: Annotated[models.QueryTimestamp | None, Query(description="Created at or after (ISO 8601 with offset).")] = None,
    until: Annotated[models.QueryTimestamp | None, Query(description="Created before (ISO 8601 with offset).")] = None,
    error_kind: models.ErrorKindName | None = None,
    error: Annotated[str | None, Query(min_length=1, max_length=500, pattern=models.NAME_PATTERN,
                                       description="A text the last error contains (case-insensitive).")] = None,
    concurrency_key: Annotated[str | None, Query(min_length=1, max_length=500, pattern=models.NAME_PATTERN)] = None,
    parent: uuid.UUID | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    after: Annotated[uuid.UUID | None, Query(description="The `next` of the page before: jobs after that one.")] = None,
) -> Any:
    """The run history (scope ``read``): jobs newest first, filtered, one keyset page at a time;
    an ``after`` naming no job (deleted since) gets 404."""
    from ..errors import JobNotFoundError, QueueError
    from ..store.history import JobFilter, list_jobs as page_of

    try:
        where = JobFilter(automation=automation, statuses=tuple(str(s) for s in status or ()),
                          mode=str(mode) if mode else None, since=since, until=until,
                          error_kind=str(error_kind) if error_kind else None, error_text=error,
                          concurrency_key=concurrency_key, parent=parent)
        page = await page_of(st.pool, where, limit=limit, after=after)
    except JobNotFoundError:
        raise  # 404
    except QueueError as exc:
        raise HTTPException(422, str(exc)) from None
    return models.JobPage.model_validate({"jobs": page.jobs, "next": page.next})


@router.get("/jobs/{job_id}", response_model=models.JobDetail, tags=["jobs"], responses={**_AUTH_ERRORS, **_404})
async def read_job(job_id: JobId, st: State, who: Annotated[Principal, Depends(require(Scope.READ))]) -> Any:
    """Read a job with its steps and its ledger (scope ``read``)."""
    return await control.read_job(st.pool, job_id)


@router.post("/jobs/{job_id}/cancel", response_model=models.JobAction, tags=["jobs"],
             responses={**_AUTH_ERRORS, **_404, **_409, **_413})
async def cancel_job(
    job_id: JobId, st: State, who: Annotated[Principal, Depends(require(Scope.CONTROL))],
    body: models.CancelRequest | None = None,
) -> models.JobAction:
    """Cancel a pending or waiting job (scope ``control``); a running job gets 409."""
    done = await control.cancel_job(st.pool, job_id, actor=who.actor, reason=body.reason if body else None)
    return models.JobAction(id=done.job_id, automation=done.automation, status=done.status)


@router.post("/jobs/{job_id}/replay", response_model=models.JobAction, tags=["jobs"],
             responses={**_AUTH_ERRORS, **_404, **_409, **_413})
async def replay_job(
    job_id: JobId, body: models.ReplayRequest, st: State, who: Annotated[Principal, Depends(require(Scope.REPLAY))]
) -> models.JobAction:
    """Run a job again as a new attempt (scope ``replay``): from scratch, or from ``from_step``
    keeping the outputs of earlier steps; who asked and why go to its ledger.

    A job running under a live lease gets 409; an unknown ``from_step`` gets 422.
    """
    done = await st.replay(st.pool, job_id, actor=who.actor, reason=body.reason, from_step=body.from_step)
    return models.JobAction(id=done.job_id, automation=done.automation, status=done.status)


@router.get("/pauses", response_model=list[models.PauseOut], tags=["pauses"], responses=_AUTH_ERRORS)
async def list_pauses(st: State, who: Annotated[Principal, Depends(require(Scope.READ))]) -> Any:
    """List paused automations and providers (scope ``read``)."""
    return [models.PauseOut(**vars(p)) for p in await control.list_pauses(st.pool)]


@router.put("/pauses/{kind}/{name}", response_model=models.PauseResult, tags=["pauses"],
            responses={**_AUTH_ERRORS, **_413})
async def pause(
    kind: PauseKind, name: PauseName, st: State, who: Annotated[Principal, Depends(require(Scope.CONTROL))],
    body: models.PauseRequest | None = None,
) -> models.PauseResult:
    """Pause an automation (its jobs are not claimed) or a provider (scope ``control``)."""
    found, created = await control.pause(st.pool, kind.value, name, actor=who.actor, reason=body.reason if body else None)
    return models.PauseResult(**vars(found), created=created)


@router.delete("/pauses/{kind}/{name}", response_model=models.PauseOut, tags=["pauses"],
               responses={**_AUTH_ERRORS, 404: {"model": models.Error, "description": "It is not paused."}})
async def resume(
    kind: PauseKind, name: PauseName, st: State, who: Annotated[Principal, Depends(require(Scope.CONTROL))]
) -> models.PauseOut:
    """Resume a paused automation or provider (scope ``control``); returns the pause removed."""
    found = await control.resume(st.pool, kind.value, name, actor=who.actor)
    if found is None:
        raise HTTPException(404, f"{kind.value} {name!r} is not paused")
    return models.PauseOut(**vars(found))


_WAIT_ERRORS: Responses = {
    **_AUTH_ERRORS, **_413,
    404: {"model": models.Error, "description": "No wait has this token (forged, malformed, or its job is gone)."},
    409: {"model": models.Error, "description": "The wait was resolved already."},
}


@router.post("/waits/resolve", response_model=models.WaitResolved, tags=["waits"], responses=_WAIT_ERRORS)
async def resolve_wait(
    body: models.ResolveWaitRequest, st: State, who: Annotated[Principal, Depends(require(Scope.CONTROL))]
) -> models.WaitResolved:
    """Approve or reject a waiting job's token with a payload (scope ``control``); the job wakes.

    The token travels in the body, which keeps it out of access logs and proxies' URLs.
    """
    done = await st.resolve_wait(st.pool, body.token, body.decision, body.payload, actor=who.actor)
    return models.WaitResolved(job_id=done.job_id)


@router.post("/waits/{token}/resolve", response_model=models.WaitResolved, tags=["waits"], responses=_WAIT_ERRORS)
async def resolve_wait_at(
    token: Annotated[str, Path(min_length=1, max_length=500, pattern=models.NAME_PATTERN)],
    body: models.ResolveWaitBody, st: State, who: Annotated[Principal, Depends(require(Scope.CONTROL))],
) -> models.WaitResolved:
    """The same, at the ``resume_url`` a wait hands out (``ctx`` wait tokens); scope ``control``.

    ``cutover serve`` masks the token in its access log.
    """
    done = await st.resolve_wait(st.pool, token, body.decision, body.payload, actor=who.actor)
    return models.WaitResolved(job_id=done.job_id)


@router.get("/metrics", response_class=PlainTextResponse, tags=["operations"], responses={
    **{code: {"description": spec["description"],
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
       for code, spec in _AUTH_ERRORS.items()},
    200: {"content": {"text/plain": {"schema": {"type": "string"}}}, "description": "Prometheus text format 0.0.4."}})
async def metrics_text(st: State, who: Annotated[Principal, Depends(require(Scope.READ))]) -> PlainTextResponse:
    """Queue depth by automation and status, claims, reclaims, retries, budget waits (scope ``read``)."""
    return PlainTextResponse(await metrics.render(st.pool), media_type=metrics.CONTENT_TYPE)


@router.get("/healthz", response_model=models.Health, tags=["operations"])
async def healthz() -> models.Health:
    """Liveness: the process answers (no database round trip, no token)."""
    return models.Health(status="ok")


@router.get("/readyz", response_model=models.Health, tags=["operations"],
            responses={503: {"model": models.Error, "description": "Database unreachable or not migrated."}})
async def readyz(st: State) -> Any:
    """Readiness: the database answers and every migration this release ships is applied."""
    problem = await control.readiness(st.pool, st.expected_migration)
    if problem is not None:
        return problem_response(503, problem)
    return models.Health(status="ready")


@router.post("/hooks/{source}", status_code=202, response_model=models.HookAccepted, tags=["hooks"],
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {}}}}},
             responses={
                 400: {"model": models.Error, "description": "Verified, but the body is not a storable JSON object."},
                 401: {"model": models.Error, "description": "Unknown source, or its signature, secret or "
                                                             "timestamp did not verify (one answer for all)."},
                 413: {"model": models.Error, "description": "Body over the source's limit."},
                 422: {"model": models.Error, "description": "A job of the body was refused (e.g. its "
                                                             "concurrency key is missing); names the field."},
                 500: {"model": models.Error, "description": "A source that holds requests: the job failed "
                                                             "before it answered."},
                 "2XX": {"description": "A source that holds requests (respond_timeout_s): the automation's "
                                        "own answer (ctx.respond), its status, headers and body."}})
async def hook(source: str, request: Request, st: State) -> Any:
    """Receive a webhook delivery from a configured source; verified deliveries become jobs.

    Authenticated by the source's scheme (standard-webhooks, github, stripe, shopify, bearer),
    not by an API token. A repeated delivery id returns the jobs it started (``duplicate``).
    An unknown source gets the 401 a bad signature gets.
    """
    configured = st.sources.get(source)
    try:
        if configured is None:
            await ingress.refuse_unknown(request, source)
        answer = await ingress.receive(request, configured, pool=st.pool, queue=st.queue, now=st.clock(),
                                       hook=st.on_verified_delivery)
        if isinstance(answer, Reply):  # a held request: the automation's own answer (ctx.respond)
            content, media_type = answer.rendered()
            return Response(content, status_code=answer.status, headers=answer.headers,
                            media_type=answer.headers.get("content-type", media_type))
        return answer
    except IngressRejected as exc:
        return problem_response(exc.status, exc.message, field=exc.field)
