"""Request and response bodies of the control API (pydantic), which the OpenAPI document shows.

Strings that reach Postgres refuse NUL and other control characters up front (422), because
Postgres text and jsonb cannot hold NUL.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from ..states import Mode
from ..store import history
from .ingress import has_nul
from .wait import Decision

NAME_PATTERN = r"^[^\x00-\x1f\x7f]+$"
Name = Annotated[str, Field(min_length=1, max_length=200, pattern=NAME_PATTERN)]
Reason = Annotated[str, Field(min_length=1, max_length=2000, pattern=NAME_PATTERN)]


def _storable(value: Any) -> Any:
    if has_nul(value):
        raise ValueError("must not contain NUL characters (\\u0000): Postgres cannot store them")
    return value


# Any JSON value whose strings and keys hold no NUL: described once, recursively, as a component
# (added to the document by create_app), so the document states exactly what is accepted.
STORABLE_JSON = "StorableJson"
_TEXT = {"type": "string", "pattern": "^[^\\x00]*$"}
STORABLE_JSON_SCHEMA: dict[str, Any] = {
    "description": "Any JSON value; strings and object keys must not contain NUL (Postgres cannot store it).",
    "anyOf": [
        _TEXT, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
        {"type": "array", "items": {"$ref": f"#/components/schemas/{STORABLE_JSON}"}},
        {"type": "object", "propertyNames": _TEXT,
         "additionalProperties": {"$ref": f"#/components/schemas/{STORABLE_JSON}"}},
    ],
}
# pydantic resolves every $ref it emits, so fields carry a marker that create_app turns into the ref.
STORABLE_JSON_MARKER = "x-cutover-storable-json"
Json = Annotated[Any, AfterValidator(_storable), WithJsonSchema({STORABLE_JSON_MARKER: True})]


def _object(value: Any) -> Any:
    # A job's payload is what its automation reads fields from: an object, never a bare value.
    if not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else "null" if value is None else f"a {type(value).__name__}"
        raise ValueError(f"must be a JSON object, got {kind}")
    return value


JsonObject = Annotated[Any, BeforeValidator(_object), AfterValidator(_storable), WithJsonSchema(
    {"type": "object", "additionalProperties": {STORABLE_JSON_MARKER: True}})]


def _iso_text(value: Any) -> Any:
    # JSON has no datetime type: accept only the RFC 3339 text the document promises, never a number.
    if not isinstance(value, str):
        raise ValueError("must be an RFC 3339 date-time string with a UTC offset")
    return value


def _utc(value: datetime) -> datetime:
    # Postgres refuses UTC offsets beyond ±15:59 that RFC 3339 allows; the instant is what counts.
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("is out of range once converted to UTC") from None


Timestamp = Annotated[AwareDatetime, BeforeValidator(_iso_text), AfterValidator(_utc)]


def _iso_query(value: Any) -> Any:
    # A query parameter is always text: a number in it ("0.5") would parse as a Unix time.
    if not isinstance(value, str) or not re.match(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}", value):
        raise ValueError("must be an RFC 3339 date-time with a UTC offset")
    return value


QueryTimestamp = Annotated[AwareDatetime, BeforeValidator(_iso_query), AfterValidator(_utc)]


def _json_integer(value: Any) -> Any:
    # JSON Schema's integer: 3 and 3.0, but not "3" or true.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be an integer")
    return value


Integer = Annotated[int, BeforeValidator(_json_integer)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Error(BaseModel):
    """Every refusal other than a validation error: a message a person can act on."""

    detail: str


class EnqueueRequest(Strict):
    # A limit needs a key to apply to: the document says so (dependentRequired), and so does
    # the validator, so a request the document calls valid is never refused for it.
    model_config = ConfigDict(extra="forbid",
                              json_schema_extra={"dependentRequired": {"concurrency_limit": ["concurrency_key"]}})

    automation: Name
    payload: JsonObject = Field(default_factory=dict, description="The trigger body: a JSON object.")
    priority: Integer = Field(0, ge=0, le=2**31 - 1)
    mode: Mode = Mode.LIVE
    dedupe_key: Name | None = Field(None, description="A repeated key returns the existing job.")
    run_after: Timestamp | None = Field(None, description="Not before this time (default: now).")
    max_attempts: Integer = Field(20, ge=1, le=1000)
    concurrency_key: Name = Field(None, description="At most `concurrency_limit` jobs with this key run at "  # type: ignore[assignment]
                                  "once (default: the automation's declared key of the payload).")
    # Bounded: the queue keeps one slot row per allowed running job of a key.
    concurrency_limit: Annotated[int, Field(ge=1, le=1000), BeforeValidator(_json_integer)] | None = Field(
        None, description="Running jobs per key (default 1); only with `concurrency_key`.")

    @model_validator(mode="after")
    def _limit_has_a_key(self) -> EnqueueRequest:
        if self.concurrency_limit is not None and self.concurrency_key is None:
            raise ValueError("concurrency_limit needs concurrency_key")
        return self


class Enqueued(BaseModel):
    id: uuid.UUID
    automation: str


class CancelRequest(Strict):
    reason: Reason | None = None


class ReplayRequest(Strict):
    reason: Reason = Field(description="Why the job is replayed; kept in its ledger.")
    from_step: Name | None = Field(None, description="A step the job ran; recorded (step-level replay pending).")


class JobAction(BaseModel):
    id: uuid.UUID
    automation: str
    status: str


class PauseRequest(Strict):
    reason: Reason | None = None


class PauseOut(BaseModel):
    kind: str
    name: str
    paused_at: datetime
    paused_by: str
    reason: str | None


class PauseResult(PauseOut):
    created: bool = Field(description="False when it was already paused (the first pause is kept).")


class ResolveWaitBody(Strict):
    decision: Decision
    payload: Json = None


class ResolveWaitRequest(ResolveWaitBody):
    token: Annotated[str, Field(min_length=1, max_length=500, pattern=NAME_PATTERN)] = Field(
        description="The wait token the job handed out.")


class WaitResolved(BaseModel):
    job_id: uuid.UUID


class Job(BaseModel):
    id: uuid.UUID
    automation: str
    automation_version: int
    mode: str
    status: str
    priority: int
    payload: Any
    trigger_meta: Any
    run_after: datetime
    created_at: datetime
    finished_at: datetime | None
    leased_until: datetime | None
    lease_owner: str | None
    claim_count: int
    heartbeat_at: datetime | None
    max_claims: int
    attempt: int
    max_attempts: int
    last_error: str | None
    error_kind: str | None
    dedupe_key: str | None
    trigger_id: str | None
    recording: str | None


class Step(BaseModel):
    step_name: str
    occurrence: int
    position: int
    step_version: int
    status: str
    attempt: int
    started_at: datetime | None
    finished_at: datetime | None
    output: Any
    error: str | None
    idempotency_key: str
    external_ref: str | None


class LedgerEntry(BaseModel):
    seq: int
    at: datetime
    kind: str
    actor: str
    detail: Any


# The values GET /jobs filters on, as the schema's enums (the store's own lists).
JobStatusName = StrEnum("JobStatusName", {name: name for name in history.STATUSES})  # type: ignore[misc]
ModeName = StrEnum("ModeName", {name: name for name in history.MODES})  # type: ignore[misc]
ErrorKindName = StrEnum("ErrorKindName", {name: name for name in history.ERROR_KINDS})  # type: ignore[misc]


class JobSummary(BaseModel):
    """One job of the run history (``GET /jobs``): what a list shows, not its payload or steps."""

    id: uuid.UUID
    automation: str
    automation_version: int
    mode: str
    status: str
    priority: int
    attempt: int
    max_attempts: int
    claim_count: int
    error_kind: str | None
    last_error: str | None
    concurrency_key: str | None
    parent_id: uuid.UUID | None
    trigger_id: str | None
    dedupe_key: str | None
    created_at: datetime
    run_after: datetime
    finished_at: datetime | None


class JobPage(BaseModel):
    jobs: list[JobSummary]
    next: uuid.UUID | None = Field(description="The id of the page's last job when more follow (pass it as "
                                               "`after` for the next page); null on the last page.")


class JobDetail(BaseModel):
    job: Job
    steps: list[Step]
    ledger: list[LedgerEntry]


class Delivery(BaseModel):
    automation: str
    id: uuid.UUID


class HookAccepted(BaseModel):
    source: str
    delivery_id: str
    duplicate: bool = Field(description="True when a previous delivery with this id started the jobs.")
    jobs: list[Delivery]
    reply: str | None = Field(None, description="A source that holds requests (respond_timeout_s): why no answer "
                                                "came — 'none' (the job ended without one) or 'timed out'.")


class Health(BaseModel):
    status: str
