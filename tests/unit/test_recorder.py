"""The standalone recorder: GitHub signature verification, redaction, appending deliveries."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import httpx

from harness.errors import RecorderError
from harness.recorder import RecorderConfig, Verifier, build_app, signature_matches
from queue_core.server.verify import github_signature
from harness.recording import iter_triggers
from harness.redact import RedactionPolicy

SECRET = b"It's a Secret to Everybody"
POLICY = RedactionPolicy(b"salt")
AT = datetime(2024, 6, 3, 9, 12, tzinfo=UTC)


def test_github_signature_matches_githubs_documented_example() -> None:
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert github_signature(SECRET, b"Hello, World!") == expected
    assert signature_matches(SECRET, b"Hello, World!", expected)


@pytest.mark.parametrize("header", [None, "", "sha256=00", "sha1=757107ea0eb2509fc211221cce984b8a37570b6d"])
def test_verification_rejects_missing_or_wrong_signatures(header: str | None) -> None:
    assert not signature_matches(SECRET, b"Hello, World!", header)


def test_a_verifying_recorder_needs_a_secret(tmp_path: Path) -> None:
    with pytest.raises(RecorderError, match="needs a secret"):
        RecorderConfig(tmp_path, "github-triage", POLICY, Verifier.GITHUB, None)


def _post(tmp_path: Path, body: bytes, headers: dict[str, str]) -> httpx.Response:
    config = RecorderConfig(tmp_path, "github-triage", POLICY, Verifier.GITHUB, SECRET)
    app = build_app(config, clock=lambda: AT)

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://recorder") as client:
            return await client.post("/hooks/github", content=body, headers=headers)

    return asyncio.run(send())


def test_a_verified_delivery_is_redacted_and_appended(tmp_path: Path) -> None:
    body = json.dumps({"action": "opened", "issue": {"number": 1}}).encode()
    headers = {"X-GitHub-Delivery": "d-1", "X-Hub-Signature-256": github_signature(SECRET, body),
               "Authorization": "Bearer token", "Content-Type": "application/json"}
    response = _post(tmp_path, body, headers)
    assert (response.status_code, response.json()) == (202, {"id": "d-1"})
    [trigger] = list(iter_triggers(tmp_path / "github-triage" / "triggers.jsonl"))
    assert (trigger.id, trigger.received_at, trigger.body["issue"]) == ("d-1", AT, {"number": 1})
    assert trigger.headers["authorization"].startswith("redacted:")
    assert trigger.headers["x-hub-signature-256"].startswith("redacted:")


def test_a_delivery_with_a_bad_signature_is_refused_and_not_recorded(tmp_path: Path) -> None:
    response = _post(tmp_path, b'{"a": 1}', {"X-Hub-Signature-256": "sha256=00"})
    assert response.status_code == 401
    assert not (tmp_path / "github-triage" / "triggers.jsonl").exists()


def test_a_delivery_that_is_not_a_json_object_is_refused(tmp_path: Path) -> None:
    body = b"[1, 2]"
    response = _post(tmp_path, body, {"X-Hub-Signature-256": github_signature(SECRET, body)})
    assert response.status_code == 400
