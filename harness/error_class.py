"""The error class of a failed run: one small vocabulary both sides of a comparison are mapped onto.

When the legacy run and the new run both failed, where they stopped (``failed_at``) is compared,
and so is *why*, at the grain both sides can honestly be read at::

    http_4xx       a provider answered 4xx (not 408 or 429)
    rate_limited   a provider answered 429
    http_5xx       a provider answered 5xx
    timeout        a request or the run timed out (408, ETIMEDOUT, a durable wait that ran out)
    connection     no answer at all: refused, reset, unknown host, DNS
    expression     an expression could not be evaluated (n8n's ExpressionError, paired-item errors)
    validation     a value had the wrong type or shape (n8n's "Wrong type", "expects a number")
    other          a recorded error none of the above fits

Each side says what it recorded: an n8n execution's node error (its ``name``, ``httpCode``, Node's
error ``code`` and n8n's fixed messages for those codes; :mod:`harness.platforms.n8n.error_class`)
is read at import and kept as the legacy trace's ``error_class``; the new run's is read here from
the error the queue recorded (:func:`of_new_error`): the exception class that ended the run (its
text begins ``ClassName: ``) and, for a provider call, the gateway's classification (``404 client
error``, ``timeout``, ``connection error``). Where a side records no class (``None``), the class is
*not compared*, and the verdict says so. Pure.
"""

from __future__ import annotations

import re
from enum import StrEnum


class ErrorClass(StrEnum):
    """Why a run failed, in the vocabulary both sides are compared in (see the module docstring)."""

    HTTP_4XX = "http_4xx"
    RATE_LIMITED = "rate_limited"
    HTTP_5XX = "http_5xx"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    EXPRESSION = "expression"
    VALIDATION = "validation"
    OTHER = "other"


ERROR_CLASSES: tuple[str, ...] = tuple(str(c) for c in ErrorClass)

# Messages that say a value had the wrong type or shape, as n8n words them and as the scaffold's
# runtime (queue_core.compat) repeats them.
_VALIDATION = re.compile(
    r"wrong type|expects an? \w+ but we got|needs to be valid json|invalid json|is not a valid (number|date|boolean)"
    r"|cannot be converted to|could not be converted", re.I)
_EXPRESSION = re.compile(r"invalid expression|can.t get data for expression|expression (error|evaluation)", re.I)
_GATEWAY = re.compile(r"\(step '[^']*'\): (?P<reason>[^;]+)")
_STATUS = re.compile(r"^(?P<status>[1-5]\d\d)\b")
_EXHAUSTED = re.compile(r"^attempts exhausted \(\d+/\d+\): ")
_CLASS = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_.]*): ")

# Exception classes of the new side, by name, whose class says the cause on its own.
_BY_NAME = {
    "RateLimited": ErrorClass.RATE_LIMITED,
    "TimeoutError": ErrorClass.TIMEOUT, "ReadTimeout": ErrorClass.TIMEOUT, "ConnectTimeout": ErrorClass.TIMEOUT,
    "WriteTimeout": ErrorClass.TIMEOUT, "PoolTimeout": ErrorClass.TIMEOUT, "TimeoutException": ErrorClass.TIMEOUT,
    "WaitTimeoutError": ErrorClass.TIMEOUT, "ChildWaitTimeoutError": ErrorClass.TIMEOUT,
    "ConnectError": ErrorClass.CONNECTION, "ConnectionError": ErrorClass.CONNECTION,
    "ConnectionRefusedError": ErrorClass.CONNECTION, "ConnectionResetError": ErrorClass.CONNECTION,
    "N8nConditionError": ErrorClass.VALIDATION, "MakeConditionError": ErrorClass.VALIDATION,
    "MakeFunctionError": ErrorClass.VALIDATION, "MissingFieldError": ErrorClass.VALIDATION,
    "PayloadError": ErrorClass.VALIDATION,
}
# The scaffold's "not translated yet": such a run is unfinished, judged on its own, never by class.
_UNFINISHED = frozenset({"TodoNode", "TodoModule"})


def of_http_status(status: int) -> ErrorClass | None:
    """Return the class of a failing HTTP status (None for a status that is no failure)."""
    if status == 408:
        return ErrorClass.TIMEOUT
    if status == 429:
        return ErrorClass.RATE_LIMITED
    if 400 <= status < 500:
        return ErrorClass.HTTP_4XX
    if 500 <= status < 600:
        return ErrorClass.HTTP_5XX
    return None


def of_message(message: str) -> ErrorClass | None:
    """Return the class a message's own words give (validation, expression), else None."""
    if _EXPRESSION.search(message):
        return ErrorClass.EXPRESSION
    if _VALIDATION.search(message):
        return ErrorClass.VALIDATION
    return None


def _of_gateway_reason(reason: str) -> ErrorClass | None:
    reason = reason.strip()
    found = _STATUS.match(reason)
    if found:
        return of_http_status(int(found.group("status")))
    if reason.startswith("timeout") or "request timeout" in reason:
        return ErrorClass.TIMEOUT
    if reason.startswith("connection error"):
        return ErrorClass.CONNECTION
    if "429" in reason:
        return ErrorClass.RATE_LIMITED
    return None


def of_new_error(error: object) -> ErrorClass | None:
    """Return the class of a replayed run's recorded error (``"ClassName: message"``), else None.

    None when the run recorded no error text, when the text names no exception class, and for
    an unfinished run (TodoNode/TodoModule: judged as unfinished, never by its class).
    """
    if not isinstance(error, str) or not error:
        return None
    text = _EXHAUSTED.sub("", error, count=1)
    named = _CLASS.match(text)
    if named is None:
        return None
    name = named.group("name").rsplit(".", 1)[-1]
    if name in _UNFINISHED:
        return None
    message = text[named.end():]
    gateway = _GATEWAY.search(message)
    if gateway is not None and (found := _of_gateway_reason(gateway.group("reason"))) is not None:
        return found
    if name in _BY_NAME:
        return _BY_NAME[name]
    return of_message(message) or ErrorClass.OTHER
