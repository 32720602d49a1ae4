"""Checking a JobSpec before it is enqueued: every refusal names the job (its index) and field.

Pure: no connection, nothing written. The queue, the CLI and child enqueues share these checks,
so a spec refused in one place is refused with the same message everywhere.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import EnqueueError, MissingFieldError
from .job import JobSpec
from .keys import new_job_id
from .payload import check_job, json_type
from .registry import Automation, Registry
from .states import Mode

def validate(index: int, spec: JobSpec, registry: Registry | None) -> dict[str, Any]:
    """Check one spec and return its column values; raise EnqueueError naming job and field."""
    version, mode, key, limit = checked(index, spec, registry)
    return {
        "ord": index, "id": str(new_job_id()), "automation": spec.automation, "version": version,
        "mode": mode.value, "priority": spec.priority, "payload": spec.payload, "meta": spec.trigger_meta,
        "run_after": spec.run_after.isoformat() if spec.run_after else None, "dedupe_key": spec.dedupe_key,
        "max_attempts": spec.max_attempts, "max_claims": spec.max_claims, "trigger_id": spec.trigger_id,
        "recording": spec.recording, "key": key, "key_limit": limit,
    }


def checked(index: int | None, spec: JobSpec, registry: Registry | None) -> tuple[int, Mode, str | None, int | None]:
    """Check one spec; return its version, mode, concurrency key and limit.

    The payload must be a JSON object; with a registry, the automation must be registered and
    the payload must hold its required fields and (unless the spec sets one) its key.
    """
    if not isinstance(spec.automation, str) or not spec.automation:
        raise EnqueueError("must be a non-empty string", field="automation", index=index)
    auto = registry.get(spec.automation) if registry is not None else None
    version = spec.automation_version if spec.automation_version is not None or auto is None else auto.version
    mode = _check_columns(index, spec)
    if not isinstance(spec.payload, dict):
        raise EnqueueError(f"must be a JSON object, got {json_type(spec.payload)}", field="payload", index=index)
    check_job(spec, index)  # before Postgres, whose errors would quote the payload into its log
    try:
        if auto is not None:
            auto.check_required(spec.payload)
        key, limit = _concurrency(index, spec, auto)
    except MissingFieldError as exc:
        raise exc.at(index) from None
    return version or 1, mode, key, limit


def _check_columns(index: int | None, spec: JobSpec) -> Mode:
    """Check the spec's scalar fields (priority, mode, attempts, run_after); return its mode."""
    if not isinstance(spec.priority, int) or isinstance(spec.priority, bool) or spec.priority < 0:
        raise EnqueueError(f"must be an integer >= 0, got {spec.priority!r}", field="priority", index=index)
    try:
        mode = Mode(spec.mode)
    except ValueError:
        raise EnqueueError(
            f"must be one of {', '.join(m.value for m in Mode)}, got {spec.mode!r}", field="mode", index=index
        ) from None
    for name in ("max_attempts", "max_claims"):
        value = getattr(spec, name)
        if not isinstance(value, int) or value < 1:
            raise EnqueueError(f"must be an integer >= 1, got {value!r}", field=name, index=index)
    if spec.run_after is not None and spec.run_after.tzinfo is None:
        raise EnqueueError("must be timezone-aware", field="run_after", index=index)
    return mode


def _concurrency(index: int | None, spec: JobSpec, auto: Automation | None) -> tuple[str | None, int | None]:
    """The job's concurrency key and limit: the spec's own, else the automation's declared ones.

    Raises MissingFieldError when a keyed automation's payload has no key (and the spec sets
    none), EnqueueError for a bad key or limit, or for a limit with no key to apply to.
    """
    key, limit = spec.concurrency_key, spec.concurrency_limit
    if key is None and auto is not None and auto.concurrency_key is not None:
        try:
            key = auto.key_of(spec.payload)
        except KeyError as exc:  # a key function's own lookup
            raise EnqueueError(str(exc.args[0]), field="payload", index=index) from None
        limit = auto.concurrency_limit if limit is None else limit
    if key is None:
        if limit is not None:
            raise EnqueueError("needs a concurrency key to apply to (the job's own, or its automation's)",
                               field="concurrency_limit", index=index)
        return None, None
    if not isinstance(key, str) or not key:
        raise EnqueueError(f"must be a non-empty string, got {key!r}", field="concurrency_key", index=index)
    limit = 1 if limit is None else limit
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise EnqueueError(f"must be an integer >= 1, got {limit!r}", field="concurrency_limit", index=index)
    return key, limit


def jobs_json(rows: list[dict[str, Any]]) -> str:
    """Encode the batch once; when that fails, find the job and field at fault."""
    try:
        return json.dumps(rows, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):
        for row in rows:
            _check_json(row["payload"], "payload", row["ord"])
            _check_json(row["meta"], "trigger_meta", row["ord"])
        raise


def _check_json(value: Any, field: str, index: int) -> None:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise EnqueueError(f"is not JSON-serialisable: {exc}", field=field, index=index) from None
