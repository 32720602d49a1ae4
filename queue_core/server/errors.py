"""Errors of the control plane and the webhook ingress (all under ``QueueError``)::

    QueueError
    ├── VerificationError     a webhook delivery's signature, secret or timestamp is wrong (401)
    ├── BodyTooLargeError     a request body is over the configured limit (413)
    ├── ClientDisconnectedError  the client hung up before sending the whole body (nothing answers)
    ├── TokenError            a token cannot be created or revoked (bad scope, name taken, unknown)
    ├── WaitNotFoundError     no wait has that token: forged, malformed or its job is gone (404)
    └── WaitResolvedError     the wait was resolved already (409)

Messages never contain a bearer token, a webhook secret or a request body.
"""

from __future__ import annotations

from ..errors import QueueError


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
