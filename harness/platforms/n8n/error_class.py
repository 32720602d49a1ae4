"""The error class of a failed n8n execution, read from the node error its export records.

n8n stores the error that ended a run in ``data.resultData.error`` and on the failing node's task
(``runData.<node>[i].error``): an object with ``name`` (the class: ``NodeApiError``,
``NodeOperationError``, ``ExpressionError``, ``TimeoutExecutionCancelledError`` …), ``message``,
``description``, ``context`` and, for an API error, ``httpCode`` (a string such as ``"404"``; null
when no response came). Without a status, a transport failure is known by Node's error code
(``ETIMEDOUT``, ``ECONNREFUSED`` …) or by the fixed message n8n puts in its place ("The connection
timed out, …"). These are mapped onto :class:`harness.error_class.ErrorClass`; an execution whose
error is not an object records no class (``None``: not compared). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.error_class import ErrorClass, of_http_status, of_message

_TIMEOUT_CODES = ("ETIMEDOUT", "ESOCKETTIMEDOUT", "ECONNABORTED")  # axios names a timeout ECONNABORTED
_CONNECTION_CODES = ("ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH",
                     "EPIPE")
# The messages n8n shows in place of those codes (n8n-workflow's NodeError), by their opening words.
_TIMEOUT_MESSAGES = ("the connection timed out", "the connection was aborted", "the execution was cancelled "
                     "because it timed out")
_CONNECTION_MESSAGES = ("the service refused the connection", "the connection cannot be established",
                        "the connection to the server was closed unexpectedly", "the dns server returned an error",
                        "the host is unreachable", "the server closed the connection unexpectedly")


def _status(value: Any) -> int | None:
    text = str(value).strip() if isinstance(value, str | int) and not isinstance(value, bool) else ""
    return int(text) if text.isdigit() and 100 <= int(text) <= 599 else None


def _context(error: Mapping[str, Any]) -> Mapping[str, Any]:
    context = error.get("context")
    return context if isinstance(context, Mapping) else {}


def _words(error: Mapping[str, Any]) -> str:
    context = _context(error)
    parts = [error.get("message"), error.get("description"), error.get("code"), context.get("messageTemplate")]
    return " ".join(str(p) for p in parts if isinstance(p, str))


def classify(error: Any) -> ErrorClass | None:
    """Return the class of one n8n error object (None when it is not an object with a name or message)."""
    if not isinstance(error, Mapping) or not (error.get("name") or error.get("message")):
        return None
    status = _status(error.get("httpCode"))
    if status is not None and (found := of_http_status(status)) is not None:
        return found
    words = _words(error)
    lowered = words.lower()
    if any(code in words for code in _TIMEOUT_CODES) or lowered.startswith(_TIMEOUT_MESSAGES) \
            or "timeout of " in lowered or str(error.get("name")) == "TimeoutExecutionCancelledError":
        return ErrorClass.TIMEOUT
    if any(code in words for code in _CONNECTION_CODES) or lowered.startswith(_CONNECTION_MESSAGES):
        return ErrorClass.CONNECTION
    context = _context(error)
    name = str(error.get("name") or "")
    if name.startswith("Expression") or context.get("functionality") == "pairedItem" \
            or str(context.get("type", "")).startswith("paired_item"):
        return ErrorClass.EXPRESSION
    return of_message(words) or ErrorClass.OTHER


def execution_error_class(result: Mapping[str, Any], failing_tasks: Sequence[Mapping[str, Any]]) -> str | None:
    """Return the class of the error that ended an execution (``resultData.error``, else the last
    failing node's), as a string of the vocabulary; None when neither is recorded."""
    error = result.get("error") or (failing_tasks[-1].get("error") if failing_tasks else None)
    found = classify(error)
    return None if found is None else str(found)
