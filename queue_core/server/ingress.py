"""``POST /hooks/{source}``: verified webhook deliveries become jobs, once per delivery.

Order of checks, cheapest first, so an unauthenticated sender costs little and learns nothing:
declared Content-Length over the source's limit → 413; the body is read while counting and
refused with 413 as soon as it passes the limit; the signature is checked over the raw bytes
(401, logged with its reason but without the body). An unknown source is read and refused the
same way, under the default limit, with the same 401 body as a bad signature, so a sender cannot
tell which sources exist. Then the body must be JSON (400) and a JSON object (400, ``body``).
Then one job per configured automation is enqueued with
``dedupe_key = "<source>:<delivery id>:<automation>"``, so a sender's retry of the same delivery
finds the jobs it already started; a job the queue refuses (a keyed automation's key missing)
is 422 naming the field. A sender hanging up mid-body is logged in one line, nothing enqueued.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn

from fastapi import Request
from psycopg_pool import AsyncConnectionPool
from starlette.requests import ClientDisconnect

from .. import payload, redaction
from ..job import JobSpec
from ..errors import (
    BodyTooLargeError,
    ClientDisconnectedError,
    EnqueueError,
    IngressRejected,
    MissingFieldError,
    PayloadError,
    VerificationError,
)
from ..queue import Queue
from ..store import ingress as store
from .reply import Reply, wait_for_reply
from .source import DEFAULT_MAX_BODY_BYTES, Source
from .verify import Scheme, verify

log = logging.getLogger("queue_core.server.ingress")

# Every 401 of the ingress, whatever the reason (logged) and whether or not the source exists.
NOT_VERIFIED = ("delivery not verified: unknown source, or a missing or wrong signature, secret or timestamp "
                "(the server's log says which)")


@dataclass(frozen=True)
class VerifiedDelivery:
    """A delivery that passed verification, as handed to an ``on_verified_delivery`` hook.

    ``headers`` are as received (lower-case names) and still hold the signature headers: a hook
    that stores them must redact them. ``duplicate`` is true when every job already existed.
    """

    source: str
    delivery_id: str
    received_at: datetime
    headers: dict[str, str]
    body: bytes
    json: Any
    automations: tuple[str, ...]
    job_ids: tuple[uuid.UUID, ...]
    duplicate: bool


DeliveryHook = Callable[[VerifiedDelivery], Awaitable[None]]


async def read_limited(request: Request, limit: int) -> bytes:
    """Return the request body, refusing with BodyTooLargeError past ``limit`` bytes.

    The declared Content-Length is checked first; the stream is counted as it arrives either
    way (a chunked or lying sender is cut off once it passes the limit, never read whole). A
    sender hanging up mid-body raises ClientDisconnectedError (the app logs it in one line).
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise IngressRejected(400, "Content-Length is not a number")
        if int(declared) > limit:
            raise BodyTooLargeError(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyTooLargeError(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise ClientDisconnectedError(size) from None
    return b"".join(chunks)


def delivery_id(source: Source, headers: Mapping[str, str], body: bytes, parsed: Any) -> str:
    """Return the delivery's id: its id header, else (Stripe) the event id, else the body's sha256.

    A sender's retry repeats the header (or, for Stripe, the event), so the id deduplicates it.
    """
    if source.delivery_id_header and headers.get(source.delivery_id_header, "").strip():
        return headers[source.delivery_id_header].strip()[:200]
    if source.scheme is Scheme.STRIPE and isinstance(parsed, dict) and isinstance(parsed.get("id"), str) and parsed["id"]:
        return str(parsed["id"])[:200]
    return "sha256:" + hashlib.sha256(body).hexdigest()


def safe_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Return ``headers`` without credentials and signatures (what a job may keep): the one
    header policy, ``queue_core.redaction.safe_headers``."""
    return redaction.safe_headers(headers)


def _parse_json(body: bytes) -> Any:
    try:
        parsed = payload.loads(body, where="body")
    except PayloadError as exc:  # names the path, never the value; logged by size only
        raise IngressRejected(400, str(exc), field=exc.field) from None
    if not isinstance(parsed, dict):  # a job's payload is an object; say what came instead
        raise IngressRejected(400, f"body: must be a JSON object, got {payload.json_type(parsed)}", field="body")
    return parsed


async def refuse_unknown(request: Request, name: str) -> NoReturn:
    """Refuse a delivery to a source that is not configured exactly as a bad signature is refused.

    The body is read under the default limit (413 past it) before the 401, as for a source with
    that limit, so neither the answer nor its timing says whether ``name`` exists.
    """
    body = await read_limited(request, DEFAULT_MAX_BODY_BYTES)
    log.warning("hook %r: rejected a delivery of %d bytes: no source of that name is configured", name[:100], len(body))
    raise IngressRejected(401, NOT_VERIFIED)


def has_nul(value: Any) -> bool:
    """Tell whether a JSON value holds a NUL character in any string or key."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(has_nul(v) for v in value)
    if isinstance(value, dict):
        return any(has_nul(k) or has_nul(v) for k, v in value.items())
    return False


async def receive(
    request: Request, source: Source, *, pool: AsyncConnectionPool, queue: Queue,
    now: float, hook: DeliveryHook | None,
) -> dict[str, Any] | Reply:
    """Verify and enqueue one delivery to ``source``; return the response body (status 202), or the
    automation's own answer (a ``Reply``) for a source that holds requests (``respond_timeout_s``).

    Raises IngressRejected (400/401), BodyTooLargeError (413). Nothing is enqueued unless verification
    passed; the hook runs only for a delivery that started at least one new job.
    """
    body = await read_limited(request, source.max_body_bytes)
    headers = {k.lower(): v for k, v in request.headers.items()}
    try:
        verify(source.scheme, source.secret, headers, body, now=int(now), tolerance=source.tolerance_s)
    except VerificationError as exc:
        # Logged without the body or any header value: the reason and the size only.
        log.warning("hook %s: rejected a delivery of %d bytes: %s", source.name, len(body), exc)
        raise IngressRejected(401, NOT_VERIFIED) from None
    parsed = _parse_json(body)
    ident = delivery_id(source, headers, body, parsed)
    received_at = datetime.fromtimestamp(now, UTC)
    first = await _replayed(pool, source, ident, body, received_at)
    if first is not None:
        return await _refuse_replay(pool, source, ident, first, body)
    specs = [
        JobSpec(
            automation=name, payload=parsed, mode=source.mode, dedupe_key=f"{source.name}:{ident}:{name}",
            trigger_id=ident,
            trigger_meta={"source": source.name, "delivery_id": ident, "received_at": received_at.isoformat(),
                          "headers": safe_headers(headers)},
        )
        for name in source.automations
    ]
    keys = [s.dedupe_key for s in specs]
    existing = await store.existing_dedupe_keys(pool, keys)
    try:
        ids = await queue.enqueue_many(specs, actor=f"hook:{source.name}")
    except EnqueueError as exc:  # the body is the payload: name the field as a path into the body
        where = f"payload.{exc.path}" if isinstance(exc, MissingFieldError) else exc.field
        raise IngressRejected(422, str(exc), field=_body_field(where)) from None
    duplicate = all(k in existing for k in keys)
    if hook is not None and not duplicate:
        delivery = VerifiedDelivery(source.name, ident, received_at, headers, body, parsed, source.automations,
                                    tuple(ids), duplicate)
        try:
            await hook(delivery)
        except Exception:  # the jobs are enqueued; a failing tap must not make the sender retry
            log.exception("hook %s: on_verified_delivery failed for delivery %s", source.name, ident)
    answer = {
        "source": source.name, "delivery_id": ident, "duplicate": duplicate,
        "jobs": [{"automation": s.automation, "id": str(i)} for s, i in zip(specs, ids, strict=True)],
    }
    if source.respond_timeout_s:  # held until the automation answers (ctx.respond): queue_core.server.reply
        got = await wait_for_reply(pool, ids[0], source.respond_timeout_s)
        if not isinstance(got, str):
            return got
        if got == "failed":
            raise IngressRejected(500, f"job {ids[0]} of {source.automations[0]!r} failed before it answered")
        answer["reply"] = got
    return answer


def _body_field(field: str | None) -> str:
    # "payload" / "payload.customer_id" / "$.payload.customer_id" -> "body" / "body.customer_id"
    where = (field or "payload").removeprefix("$.")
    return "body" + where.removeprefix("payload") if where.startswith("payload") else where


async def _replayed(pool: AsyncConnectionPool, source: Source, ident: str, body: bytes, at: datetime) -> str | None:
    """Return the first delivery id of this body when it is a replay under a new id, else None.

    Only for sources with a replay window (schemes whose delivery id is unsigned). The body is
    claimed by its sha256 in ``webhook_bodies``; a sender's retry with the same id passes.
    """
    if not source.replay_window_s:
        return None
    params = {"source": source.name, "digest": hashlib.sha256(body).hexdigest(), "delivery_id": ident,
              "now": at, "window_s": source.replay_window_s}
    return await store.first_delivery_of_body(pool, params)


async def _refuse_replay(pool: AsyncConnectionPool, source: Source, ident: str, first: str, body: bytes) -> dict[str, Any]:
    """Answer a replayed body as a duplicate of its first delivery: its jobs, nothing new."""
    keys = [f"{source.name}:{first}:{name}" for name in source.automations]
    digest = hashlib.sha256(body).hexdigest()
    found = await store.refuse_replay(pool, keys, actor=f"hook:{source.name}",
                                      detail=json.dumps({"delivery_id": ident, "first_delivery_id": first, "sha256": digest}))
    # The ids are the sender's headers, not the body; the digest identifies the body without it.
    log.warning("hook %s: refused a replayed body (sha256 %s…) under delivery id %r, first delivered as %r",
                source.name, digest[:16], ident[:80], first[:80])
    return {"source": source.name, "delivery_id": first, "duplicate": True,
            "jobs": [{"automation": name, "id": str(found[key])}
                     for name, key in zip(source.automations, keys, strict=True) if key in found]}
