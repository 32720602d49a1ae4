"""Errors raised by the provider gateway (to be folded into ``queue_core.errors``)::

    QueueError
    ├── ProviderNotConfiguredError  ctx.call named a provider missing from [tool.cutover.providers]
    │   └── StandInURLError         ...and a replay's stand-in for it got an absolute URL
    ├── ForeignURLError             an absolute URL points outside the provider's base_url
    ├── NetworkBlockedError         a dry_run/shadow call tried to reach the network
    ├── IdempotencyConflictError    a step's key was reused with a different request
    └── SignatureError              a Standard Webhooks secret or signature is unusable/wrong

Each carries its structured fields as attributes; messages never contain secrets.
"""

from __future__ import annotations

from .errors import QueueError


class ProviderNotConfiguredError(QueueError):
    """``ctx.call`` named a provider that ``[tool.cutover.providers]`` does not configure."""

    def __init__(self, provider: str, known: list[str]) -> None:
        known_s = ", ".join(sorted(known)) or "(none configured)"
        super().__init__(
            f"provider {provider!r} is not configured in pyproject.toml "
            f"[tool.cutover.providers.{provider}]; configured: {known_s}"
        )
        self.provider = provider
        self.known = known


class StandInURLError(ProviderNotConfiguredError):
    """A replay's stand-in for an unconfigured provider was given an absolute URL.

    A shadow replay stands in for a provider the recording names but pyproject.toml does not
    configure; an absolute URL shows where the provider really lives, so the message proposes
    the ``base_url`` to configure (the URL's origin).
    """

    def __init__(self, provider: str, url: str, origin: str) -> None:
        QueueError.__init__(
            self,
            f"provider {provider!r} is not configured in pyproject.toml: add "
            f"[tool.cutover.providers.{provider}] with base_url = \"{origin}\"",
        )
        self.provider = provider
        self.known: list[str] = []
        self.url = url
        self.origin = origin


class ForeignURLError(QueueError):
    """An absolute URL given to ``ctx.call`` lies outside the provider's ``base_url``.

    Refused because the provider's credentials would otherwise be sent to another host.
    """

    def __init__(self, provider: str, url: str, base_url: str) -> None:
        super().__init__(
            f"provider {provider!r}: url {url!r} is outside its base_url {base_url!r}; "
            "pass a path relative to base_url"
        )
        self.provider = provider
        self.url = url
        self.base_url = base_url


class NetworkBlockedError(QueueError):
    """A call in ``dry_run`` or ``shadow`` mode tried to reach a host it may not reach."""

    def __init__(self, mode: str, url: str) -> None:
        super().__init__(
            f"network access blocked in {mode} mode: {url} (only live jobs reach providers; "
            "shadow jobs reach only a configured sandbox_url)"
        )
        self.mode = mode
        self.url = url


class IdempotencyConflictError(QueueError):
    """A step's idempotency key was reused for a request different from the one first sent."""

    def __init__(self, step: str, stored_fingerprint: str, new_fingerprint: str) -> None:
        super().__init__(
            f"step {step!r}: its idempotency key was first used for request {stored_fingerprint} "
            f"and is now reused for a different request {new_fingerprint}; a step must send "
            "the same method, URL and body on every attempt (use a new step name otherwise)"
        )
        self.step = step
        self.stored_fingerprint = stored_fingerprint
        self.new_fingerprint = new_fingerprint


class SignatureError(QueueError):
    """A Standard Webhooks secret is malformed, or a signature does not verify."""
