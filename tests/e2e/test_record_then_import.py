"""The recommended flow where run history holds no trigger bodies: record, then import and pair.

Deliveries go through the recorder tap (its ASGI app, on a fixed clock) into a set; the tool's
run history is then imported with ``cutover import`` and each run pairs with a recorded delivery
by delivery id or, failing that, by time: the set gets traces whose triggers carry real bodies.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import click
import httpx
import pytest
from click.testing import CliRunner, Result

from harness._cli_recordings import register
from harness.recorder import RecorderConfig, build_app
from harness.recording import TraceStatus, iter_pairs
from harness.manifest import Redaction
from harness.redact import policy_from_settings

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports"


@click.group()
def cli() -> None:
    """Stand-in for the cutover group."""


register(cli)


@pytest.fixture(autouse=True)
def salt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTOVER_REDACTION_SALT", "test-salt")


def _record(into: Path, automation: str, deliveries: list[tuple[datetime, dict[str, str], dict[str, object]]]) -> None:
    clock: Iterator[datetime] = iter([at for at, _, _ in deliveries])
    config = RecorderConfig(into, automation, policy_from_settings(Redaction(), b"test-salt"))
    app = build_app(config, clock=lambda: next(clock))

    async def send() -> list[int]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://recorder") as client:
            return [(await client.post("/hook", content=json.dumps(body), headers=headers)).status_code
                    for _, headers, body in deliveries]

    assert asyncio.run(send()) == [202] * len(deliveries)


def _import(*args: str) -> Result:
    return CliRunner().invoke(cli, ["import", *args], catch_exceptions=False)


def _at(text: str, offset_ms: int) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC) + timedelta(milliseconds=offset_ms)


def test_make_logs_pair_by_time_with_recorded_webhook_deliveries(tmp_path: Path) -> None:
    times = ["2024-07-03T09:00:00", "2024-07-03T09:05:00", "2024-07-03T09:10:00", "2024-07-03T09:15:00", "2024-07-03T09:20:00"]
    _record(tmp_path, "lead-router", [(_at(t, 400), {}, {"email": f"lead{i}@example.com"}) for i, t in enumerate(times)])
    result = _import("make", str(EXPORTS / "make/scenario_logs_api.json"), "--automation", "lead-router",
                     "--into", str(tmp_path), "--blueprint", str(EXPORTS / "make/blueprint.json"), "--pair-window", "30s")
    assert result.exit_code == 0, result.output
    assert "paired (trigger + legacy run): 4" in result.output and "4 by time window" in result.output
    assert "evidence depth (what each trace can prove): status: 4" in result.output
    pairs = [(t, trace) for t, trace in iter_pairs(tmp_path / "lead-router") if trace is not None]
    assert [t.body["email"] for t, _ in pairs] == ["lead0@example.com", "lead1@example.com", "lead3@example.com", "lead4@example.com"]
    assert pairs[1][1].status is TraceStatus.FAILED and pairs[1][1].failed_step == "Clearbit lookup"


def test_power_automate_runs_pair_by_client_tracking_id_before_time(tmp_path: Path) -> None:
    run = "08584700000000000002000000002CU02"
    far = datetime(2024, 7, 1, 15, 0, tzinfo=UTC)  # hours from the run: only the tracking id can pair it
    _record(tmp_path, "triage", [(far, {"x-ms-client-tracking-id": f"track-{run}"}, {"ticket": "T-200"})])
    result = _import("power-automate", str(EXPORTS / "power-automate/runs_list.json"), "--automation", "triage",
                     "--into", str(tmp_path), "--definition", str(EXPORTS / "power-automate/flow_definition.json"))
    assert result.exit_code == 0, result.output
    assert "1 with the export's own trigger, 1 by delivery id, 0 by time window" in result.output
    paired = {t.body.get("ticket"): trace for t, trace in iter_pairs(tmp_path / "triage") if trace is not None}
    assert paired["T-200"].raw_run_id == run and paired["T-200"].decisions == {"Is_high_priority": "false"}


def test_zapier_api_runs_pair_by_time_and_keep_their_zapfile_path(tmp_path: Path) -> None:
    _record(tmp_path, "triage", [(_at("2024-07-01T09:00:00", 50), {}, {"priority": "high"}),
                                 (_at("2024-07-01T09:05:00", 20), {}, {"priority": "low"})])
    result = _import("zapier", str(EXPORTS / "zapier/zap_runs_api.json"), "--automation", "triage", "--into",
                     str(tmp_path), "--definition", str(EXPORTS / "zapier/zapfile_gdpr_v1.json"), "--pair-window", "10s")
    assert result.exit_code == 0, result.output
    assert "2 by time window" in result.output and "legacy-only (no trigger to replay): 3" in result.output
    pairs = {t.body["priority"]: trace for t, trace in iter_pairs(tmp_path / "triage") if trace is not None}
    assert pairs["high"].path == ["FilterAPI:filter", "Alert on-call"] and pairs["low"].status is TraceStatus.FILTERED
