"""The standalone recorder: a local tap that appends verified, redacted deliveries to a set.

``cutover record --into recordings/<set> --automation NAME`` serves ``POST /`` (and any path) on
127.0.0.1. With ``--verify github --secret-env VAR`` each delivery's ``X-Hub-Signature-256`` is
checked against the raw body before anything is stored; a bad or missing signature gets 401 and
is not recorded. Accepted deliveries are redacted and appended to ``<automation>/triggers.jsonl``
as one line each, and answered with 202 and the trigger id.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from harness.errors import RecorderError
from harness.importer.pairing import DELIVERY_HEADERS
from harness.recording import TRIGGERS_FILE, RecordedTrigger, dump_line, trigger_to_json
from harness.redact import RedactionPolicy, redact_trigger
from queue_core.errors import VerificationError
from queue_core.server.verify import verify_github

GITHUB_SIGNATURE_HEADER = "x-hub-signature-256"


class Verifier(StrEnum):
    """Which sender's signature scheme a recorder checks."""

    NONE = "none"
    GITHUB = "github"


def signature_matches(secret: bytes, body: bytes, header: str | None) -> bool:
    """Tell whether ``header`` is GitHub's signature of ``body``: the server's check
    (:func:`queue_core.server.verify.verify_github`, constant-time), as a yes or no."""
    try:
        verify_github(secret, {GITHUB_SIGNATURE_HEADER: header or ""}, body, 0, 0)
    except VerificationError:
        return False
    return True


@dataclass(frozen=True)
class RecorderConfig:
    """Where and how a recorder stores deliveries."""

    directory: Path
    automation: str
    policy: RedactionPolicy
    verifier: Verifier = Verifier.NONE
    secret: bytes | None = None

    def __post_init__(self) -> None:
        if self.verifier is not Verifier.NONE and not self.secret:
            raise RecorderError(f"--verify {self.verifier} needs a secret (--secret-env names the variable)")


def delivery_trigger(headers: dict[str, str], body: dict[str, Any], received_at: datetime) -> RecordedTrigger:
    """Build the trigger for one delivery: its id is the sender's delivery id, else a new uuid."""
    lower = {name.lower(): value for name, value in headers.items()}
    ident = next((lower[h] for h in DELIVERY_HEADERS if lower.get(h)), None) or str(uuid.uuid4())
    return RecordedTrigger(ident, received_at, lower, body, "recorder")


def build_app(config: RecorderConfig, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> FastAPI:
    """Return the recorder's ASGI app; it appends to ``<directory>/<automation>/triggers.jsonl``."""
    target = config.directory / config.automation / TRIGGERS_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    lock = asyncio.Lock()

    async def receive(request: Request) -> JSONResponse:
        raw = await request.body()
        if config.verifier is Verifier.GITHUB:
            assert config.secret is not None
            if not signature_matches(config.secret, raw, request.headers.get(GITHUB_SIGNATURE_HEADER)):
                return JSONResponse({"error": "signature does not match"}, status_code=401)
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse({"error": "body is not JSON"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "body is not a JSON object"}, status_code=400)
        trigger, _ = redact_trigger(delivery_trigger(dict(request.headers), body, clock()), config.policy)
        async with lock:
            with target.open("a", encoding="utf-8", newline="\n") as handle:
                handle.write(dump_line(trigger_to_json(trigger)))
        return JSONResponse({"id": trigger.id}, status_code=202)

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)  # one catch-all route, no API pages
    app.add_route("/{path:path}", receive, methods=["POST"])
    return app


def serve(config: RecorderConfig, host: str = "127.0.0.1", port: int = 8787) -> None:
    """Run the recorder until interrupted."""
    import uvicorn

    uvicorn.run(build_app(config), host=host, port=port, log_level="info")
