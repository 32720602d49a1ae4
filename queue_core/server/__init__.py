"""``cutover serve``: the control API and the authenticated webhook ingress (FastAPI + uvicorn)."""

from __future__ import annotations

from .app import create_app, serve
from .control import Transition, cancel_job, replay_job
from .ingress import DeliveryHook, VerifiedDelivery
from .source import Source, load_sources
from .token import Principal, Scope, create_token, revoke_token
from .verify import Scheme, verify
from .wait import Decision, resolve_wait
from ..errors import BodyTooLargeError, TokenError, VerificationError, WaitNotFoundError, WaitResolvedError

__all__ = [
    "BodyTooLargeError",
    "Decision",
    "DeliveryHook",
    "Principal",
    "Scheme",
    "Scope",
    "Source",
    "TokenError",
    "Transition",
    "VerificationError",
    "VerifiedDelivery",
    "WaitNotFoundError",
    "WaitResolvedError",
    "cancel_job",
    "create_app",
    "create_token",
    "load_sources",
    "replay_job",
    "resolve_wait",
    "revoke_token",
    "serve",
    "verify",
]
