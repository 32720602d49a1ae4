"""`jobs explain` sentences, from a job row and its context (pure)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from queue_core.ops import explain_lines

NOW = datetime(2024, 6, 1, 12, tzinfo=timezone.utc)


def job(**kw):
    base = dict(id="j1", automation="lead-router", mode="shadow", status="pending", priority=0,
                run_after=NOW - timedelta(seconds=1), attempt=0, max_attempts=20, last_error=None,
                error_kind=None, lease_owner=None, leased_until=None, heartbeat_at=None, finished_at=None)
    base.update(kw)
    return base


def facts(**kw):
    base = dict(now=NOW, open_waits=None, pause=None, ahead=0, last_event=None, any_passing_verdict=None)
    base.update(kw)
    return base


def test_due_job_says_how_many_are_ahead():
    assert explain_lines(job(), facts(ahead=12))[-1] == "due now; 12 due jobs are ahead of it by priority and age."


def test_snoozed_for_a_rate_budget_names_the_budget_reason():
    j = job(run_after=NOW + timedelta(seconds=3))
    last = {"kind": "budget_wait", "detail": {"error": "provider 'hubspot' rate budget (100/10s) is spent"}}
    line = explain_lines(j, facts(last_event=last))[-1]
    assert line.startswith("snoozed for") and "(waiting for a rate budget)" in line and "hubspot" in line


def test_paused_automation_and_ungated_live_job_are_both_said():
    lines = explain_lines(job(mode="live"), facts(pause={"paused_by": "token:ops", "paused_at": NOW, "reason": "CRM migration"}))
    assert any("is paused by token:ops" in line and "CRM migration" in line for line in lines)
    assert any("no passing go-live verdict" in line for line in lines)


def test_running_job_names_its_lease_or_its_expiry():
    live = job(status="running", lease_owner="host:1", leased_until=NOW + timedelta(seconds=20), heartbeat_at=NOW)
    assert "leased by host:1 until" in explain_lines(live, facts())[-1]
    expired = job(status="running", lease_owner="host:1", leased_until=NOW - timedelta(seconds=1))
    assert "expired" in explain_lines(expired, facts())[-1] and "reclaims it" in explain_lines(expired, facts())[-1]


def test_waiting_and_dead_jobs_say_on_what_and_why():
    waits = [{"name": "manager", "kind": "token", "wake_at": NOW + timedelta(days=2), "on_timeout": "fail"}]
    assert "waiting on token 'manager' until" in explain_lines(job(status="waiting"), facts(open_waits=waits))[-1]
    dead = job(status="dead", last_error="dead: claimed 6 times in a row without an outcome")
    assert explain_lines(dead, facts())[-1] == "dead because: dead: claimed 6 times in a row without an outcome"


def test_a_due_retry_names_its_last_error_with_kind_and_attempt():
    j = job(attempt=2, last_error="KeyError: 'customer_id'", error_kind="retryable")
    lines = explain_lines(j, facts())
    assert lines[-2].startswith("due now;")
    assert lines[-1] == "its last error (retryable, attempt 2 of 20): KeyError: 'customer_id'"


def test_a_running_or_waiting_job_that_failed_before_names_its_last_error():
    running = job(status="running", attempt=1, last_error="RuntimeError: boom", error_kind="retryable",
                  lease_owner="host:1", leased_until=NOW + timedelta(seconds=20), heartbeat_at=NOW)
    assert explain_lines(running, facts())[-1] == "its last error (retryable, attempt 1 of 20): RuntimeError: boom"
    waiting = job(status="waiting", attempt=3, last_error="RuntimeError: flaky", error_kind="retryable")
    assert "RuntimeError: flaky" in explain_lines(waiting, facts())[-1]


def test_the_last_error_is_said_once_and_a_snooze_reason_is_not_called_an_error():
    scheduled = job(run_after=NOW + timedelta(seconds=30), attempt=1, last_error="RuntimeError: boom",
                    error_kind="retryable")
    lines = explain_lines(scheduled, facts(last_event={"kind": "retry_scheduled", "detail": {"error": "RuntimeError: boom"}}))
    assert sum("RuntimeError: boom" in line for line in lines) == 1
    failed = job(status="failed", attempt=1, last_error="TerminalError: closed", error_kind="terminal")
    assert sum("TerminalError: closed" in line for line in explain_lines(failed, facts())) == 1
    snoozed = job(attempt=0, last_error="waiting for the CRM", error_kind=None)
    assert explain_lines(snoozed, facts())[-1].startswith("due now;")
