"""Wait tokens: derived (HMAC of the job id and wait name under a per-database secret), never stored.

A token reads ``wt.<job id>.<name, base64url>.<mac>``: the resolver learns which job and which
wait it names and checks the mac without any stored copy; a replay derives the same token again.
The waits table keeps only the token's sha256. The secret lives in ``cutover_secrets``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import uuid
from dataclasses import dataclass
from typing import Any

from .errors import WaitTokenError


@dataclass(frozen=True)
class WaitToken:
    """A token the outside world uses to resolve a wait, and the URL to post the decision to."""

    token: str
    resume_url: str


@dataclass(frozen=True)
class Resolution:
    """How a wait ended: the decision (e.g. ``approve``/``reject``) and its payload."""

    name: str
    decision: str | None
    payload: Any
    token: str | None = None
    resume_url: str | None = None


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _unb64(text: str) -> str:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()


def _mac(secret: str, job_id: uuid.UUID, name: str) -> str:
    return hmac.new(secret.encode(), f"{job_id}:{name}".encode(), hashlib.sha256).hexdigest()[:40]


def make_token(secret: str, job_id: uuid.UUID, name: str) -> WaitToken:
    """Derive the token of wait ``name`` in job ``job_id`` (the same every time)."""
    token = f"wt.{job_id}.{_b64(name)}.{_mac(secret, job_id, name)}"
    base = os.environ.get("CUTOVER_PUBLIC_URL", "http://127.0.0.1:8080").rstrip("/")
    return WaitToken(token, f"{base}/waits/{token}/resolve")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_token(secret: str, token: str) -> tuple[uuid.UUID, str]:
    """Return (job id, wait name) of a genuine token; raise WaitTokenError otherwise.

    The mac is compared in constant time.
    """
    parts = token.split(".")
    if len(parts) != 4 or parts[0] != "wt":
        raise WaitTokenError("not a wait token")
    try:
        job_id, name = uuid.UUID(parts[1]), _unb64(parts[2])
    except (ValueError, UnicodeDecodeError):
        raise WaitTokenError("not a wait token") from None
    if not hmac.compare_digest(_mac(secret, job_id, name), parts[3]):
        raise WaitTokenError("wait token signature does not match")
    return job_id, name
