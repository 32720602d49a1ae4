"""Fuzzing enqueue (CLI and API): mutated JSON from our own fixtures, deep nesting and random
bytes get a typed refusal (exit 2 / a 4xx problem) or a job, never a traceback or a 5xx."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from queue_core import db
from queue_core.cli import cli
from queue_core.server import create_app, create_token
from tests.support.control import client

# Our own fixtures: trigger bodies shaped like the automations' (lead, issue, invoice).
FIXTURES = [
    {"email": "ada@example.com", "domain": "example.com", "employees": 1200, "tags": ["a", "b"]},
    {"action": "opened", "issue": {"number": 7, "title": "Crash", "labels": [{"name": "bug"}]}},
    {"id": "evt_1", "type": "invoice.paid", "data": {"object": {"amount": 1999, "paid": True, "note": None}}},
]
NASTY_TEXT = ["\\u0000", "\\ud800", "\\udfff", "\\ud83d\\ude00", "\"", "\\", "\n", "é"]
NASTY_NUMBERS = ["1e400", "-1e400", "NaN", "Infinity", "7" * 5000, "-" + "9" * 70, "1" * 64, "0.1e-400", "01", "1.", "-"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A fixture's JSON text with one part replaced by something nasty, or cut short."""
    text = json.dumps(draw(st.sampled_from(FIXTURES)))
    kind = draw(st.sampled_from(["text", "number", "deep", "cut", "bytes"]))
    if kind == "text":
        at = draw(st.sampled_from([i + 1 for i, c in enumerate(text) if c == '"']))
        return text[:at] + draw(st.sampled_from(NASTY_TEXT)) + text[at:]
    if kind == "number":
        return text.replace(draw(st.sampled_from(["1200", "7", "1999", "true", "null"])),
                            draw(st.sampled_from(NASTY_NUMBERS)), 1)
    if kind == "deep":
        depth = draw(st.sampled_from([255, 257, 1_000, 50_000]))
        return "[" * depth + text + "]" * depth
    if kind == "cut":
        return text[: draw(st.integers(0, len(text) - 1))]
    return draw(st.binary(max_size=64)).decode("utf-8", "surrogateescape")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, db_url: str) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "pyproject.toml").write_text('[tool.cutover]\nautomations = "fuzz_autos"\n')
    (root / "fuzz_autos.py").write_text('from queue_core import automation\n\n\n@automation("noop")\n'
                                        'async def noop(ctx, trigger):\n    pass\n')
    yield root


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          derandomize=True)
@given(payload=mutated(), priority=st.sampled_from(["0", "5", "-1", "2147483648", "99999999999", "x"]))
def test_cli_enqueue_answers_a_job_or_a_usage_error_never_a_traceback(project, db_url, monkeypatch, payload, priority):
    monkeypatch.chdir(project)
    monkeypatch.setenv("DATABASE_URL", db_url)
    result = CliRunner().invoke(cli, ["enqueue", "noop", payload, "--priority", priority])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 2), result.output
    assert "Traceback" not in result.output


async def _token(db_url: str) -> str:
    async with db.pool(db_url, max_size=1) as pool:
        return await create_token(pool, "fuzz-enqueue", ("enqueue",))


@pytest.fixture(scope="module")
def api(db_url: str) -> Iterator[tuple[str, str]]:
    yield db_url, asyncio.run(_token(db_url))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          derandomize=True)
@given(payload=mutated(), extra=st.sampled_from(['', ', "priority": 1e400', ', "priority": 99999999999',
                                                   ', "max_attempts": ' + "9" * 5000, ', "mode": "\\u0000"']))
def test_api_enqueue_answers_202_or_a_4xx_problem_never_a_5xx(api, payload, extra):
    db_url, token = api
    body = ('{"automation": "noop", "payload": ' + payload + extra + "}").encode("utf-8", "surrogateescape")

    async def post() -> tuple[int, str, str]:
        async with db.pool(db_url, max_size=2) as pool:
            async with client(create_app(pool=pool), token) as c:
                response = await c.post("/jobs", content=body, headers={"content-type": "application/json"})
        return response.status_code, response.headers["content-type"], response.text

    status, media, text = asyncio.run(post())
    assert status == 202 or (400 <= status < 500 and media == "application/problem+json"), (status, text)
