"""The queue's CLI as a user runs it: migrate, enqueue, worker, jobs show — real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CUTOVER = [sys.executable, "-m", "harness.cli"]


@pytest.fixture
def project(tmp_path: Path, fresh_db_url: str) -> tuple[Path, dict[str, str]]:
    """A user's project: pyproject.toml naming an automations module, and a database."""
    (tmp_path / "pyproject.toml").write_text('[tool.cutover]\nautomations = "myautos"\n')
    (tmp_path / "myautos.py").write_text(textwrap.dedent('''
        from queue_core import automation

        @automation("greet", version=2)
        async def greet(ctx, trigger):
            ctx.decide("name", trigger.body["name"])
    '''))
    env = dict(os.environ, DATABASE_URL=fresh_db_url, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return tmp_path, env


def run(args: list[str], project: tuple[Path, dict[str, str]], ok: bool = True) -> subprocess.CompletedProcess[str]:
    cwd, env = project
    proc = subprocess.run(CUTOVER + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_migrate_reports_an_up_to_date_schema(project):
    assert "schema is up to date" in run(["migrate"], project).stdout


def test_enqueue_then_worker_drain_then_show_prints_the_ledger(project):
    job_id = run(["enqueue", "greet", '{"name": "Ada"}', "--mode", "shadow"], project).stdout.strip()
    drained = run(["worker", "--drain", "--concurrency", "2"], project)
    assert "refusing live jobs of greet" in drained.stderr
    shown = run(["jobs", "show", job_id], project).stdout
    assert "status: succeeded" in shown and "automation_version: 2" in shown
    assert [line.split()[2] for line in shown.splitlines() if line.startswith("  20")] == ["enqueued", "claimed", "succeeded"]
    data = json.loads(run(["jobs", "show", job_id, "--json"], project).stdout)
    assert data["job"]["status"] == "succeeded"


def test_live_job_of_an_ungated_automation_waits_until_overridden(project):
    job_id = run(["enqueue", "greet", '{"name": "Grace"}'], project).stdout.strip()
    run(["worker", "--drain"], project)
    assert "status: pending" in run(["jobs", "show", job_id], project).stdout
    out = run(["worker", "--drain", "--allow-ungated", "greet"], project)
    assert "without a passing gate verdict" in out.stderr
    assert "status: succeeded" in run(["jobs", "show", job_id], project).stdout


def test_bad_input_gets_a_clear_error_not_a_traceback(project):
    unknown = run(["enqueue", "gret", "{}"], project, ok=False)
    assert unknown.returncode == 2
    assert "unknown automation 'gret'; registered: greet; did you mean 'greet'?" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    bad_json = run(["enqueue", "greet", "{name}"], project, ok=False)
    assert bad_json.returncode == 2 and "not JSON" in bad_json.stderr
    missing = run(["jobs", "show", "00000000-0000-0000-0000-00000000abcd"], project, ok=False)
    assert "no job with id 00000000-0000-0000-0000-00000000abcd" in missing.stderr
    negative = run(["enqueue", "greet", "{}", "--priority", "-3"], project, ok=False)
    assert negative.returncode == 2 and "'--priority': -3 is not in the range 0<=x<=2147483647" in negative.stderr


KEYED = '''

@automation("per-customer", concurrency_key="customer_id", concurrency_limit=2)
async def per_customer(ctx, trigger):
    pass


@automation("ship-order", requires=("/order/id",))
async def ship_order(ctx, trigger):
    pass
'''


def jobs_in(project: tuple[Path, dict[str, str]]) -> list[tuple]:
    from tests.support.polling import sql

    return sql(project[1]["DATABASE_URL"], "SELECT automation, concurrency_key, concurrency_limit FROM jobs")


def test_enqueue_refuses_a_job_it_cannot_honour_with_exit_2_naming_the_field(project):
    with (project[0] / "myautos.py").open("a") as f:
        f.write(KEYED)
    cases = {
        ("per-customer", '{"customer_id": null}'): "field 'customer_id': payload has no value for 'customer_id' (null)",
        ("per-customer", '{}'): "concurrency key of automation 'per-customer'",
        ("ship-order", '{"order": {}}'): "field '/order/id': payload has no '/order/id' (missing), which automation",
        ("greet", '[{"name": "Ada"}]'): "field 'payload': must be a JSON object, got an array",
        ("greet", '"Ada"'): "field 'payload': must be a JSON object, got a string",
    }
    for (name, payload), message in cases.items():
        refused = run(["enqueue", name, payload], project, ok=False)
        assert refused.returncode == 2 and message in refused.stderr, (name, payload, refused.stderr)
        assert "Traceback" not in refused.stderr
    assert jobs_in(project) == [], "nothing was written"


def test_enqueue_sets_a_per_job_concurrency_key_and_limit(project):
    with (project[0] / "myautos.py").open("a") as f:
        f.write(KEYED)
    run(["enqueue", "greet", '{"name": "Ada"}', "--concurrency-key", "tenant-1", "--concurrency-limit", "3"], project)
    run(["enqueue", "per-customer", "{}", "--concurrency-key", "acme"], project)
    run(["enqueue", "per-customer", '{"customer_id": 42}'], project)
    assert sorted(jobs_in(project)) == [("greet", "tenant-1", 3), ("per-customer", "42", 2), ("per-customer", "acme", 1)]
    empty = run(["enqueue", "greet", "{}", "--concurrency-key", ""], project, ok=False)
    assert empty.returncode == 2 and "field 'concurrency_key': must be a non-empty string" in empty.stderr
    no_key = run(["enqueue", "greet", "{}", "--concurrency-limit", "2"], project, ok=False)
    assert no_key.returncode == 2 and "field 'concurrency_limit': needs a concurrency key" in no_key.stderr


MARK = "ZZ-PAYLOAD-MARKER-ZZ"
BAD_PAYLOADS = {
    "nul": ('{"note": "%s\\u0000"}' % MARK, "payload field $.note: holds a NUL character"),
    "lone_surrogate": ('{"a": [1, {"b": "%s\\ud800"}]}' % MARK, "payload field $.a[1].b: holds a lone surrogate"),
    "5000_digit_integer": ('{"tag": "%s", "n": %s}' % (MARK, "7" * 5000), "payload field $.n: is an integer of more than 64 digits"),
    "50000_deep": ("[" * 50_000 + '"%s"' % MARK + "]" * 50_000, "payload field $: is nested deeper than 256 levels"),
    "1e400": ('{"tag": "%s", "amount": 1e400}' % MARK, "payload field $.amount: is a number that is not finite"),
    "not_json": ("{%s}" % MARK, "payload field $: is not JSON (line 1, column 2"),
}


@pytest.mark.parametrize(("payload", "message"), BAD_PAYLOADS.values(), ids=BAD_PAYLOADS.keys())
def test_enqueue_refuses_a_payload_postgres_cannot_store_naming_its_field_never_its_value(project, payload, message):
    out = run(["enqueue", "greet", payload], project, ok=False)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and MARK not in out.stderr + out.stdout


def test_enqueue_refuses_a_priority_beyond_the_integer_column(project):
    out = run(["enqueue", "greet", "{}", "--priority", "99999999999"], project, ok=False)
    assert out.returncode == 2 and "99999999999 is not in the range 0<=x<=2147483647" in out.stderr
    assert "Traceback" not in out.stderr


def test_unimportable_automations_module_names_the_setting(project):
    cwd, _ = project
    (cwd / "pyproject.toml").write_text('[tool.cutover]\nautomations = "nope_missing"\n')
    out = run(["worker", "--drain"], project, ok=False)
    assert "tool.cutover.automations" in out.stderr and "nope_missing" in out.stderr


def test_explain_replay_cancel_and_resolve_from_the_command_line(project):
    cwd, env = project
    (cwd / "myautos.py").write_text(textwrap.dedent('''
        from datetime import timedelta
        from queue_core import automation

        @automation("greet", version=2)
        async def greet(ctx, trigger):
            token = await ctx.create_token("ok")
            print("TOKEN", token.token, flush=True)
            answer = await ctx.wait_for_token("ok", timeout=timedelta(days=1))
            ctx.decide("answer", answer.decision)
    '''))
    job_id = run(["enqueue", "greet", "{}", "--mode", "shadow"], project).stdout.strip()
    drained = run(["worker", "--drain"], project)
    token = next(line.split()[1] for line in drained.stdout.splitlines() if line.startswith("TOKEN"))
    explained = run(["jobs", "explain", job_id], project).stdout
    assert "is waiting." in explained and "waiting on token 'ok' until" in explained
    assert run(["waits", "resolve", token, "--decision", "approve"], project).stdout.strip() == "resolved"
    assert "already resolved" in run(["waits", "resolve", token, "--decision", "reject"], project).stdout
    forged = run(["waits", "resolve", token[:-4] + "beef", "--decision", "approve"], project, ok=False)
    assert forged.returncode == 1 and "signature does not match" in forged.stderr
    run(["worker", "--drain"], project)
    assert "status: succeeded" in run(["jobs", "show", job_id], project).stdout
    out = run(["jobs", "replay", job_id, "--reason", "re-check", "--actor", "ops:ada"], project).stdout
    assert "queued for replay from scratch" in out
    run(["jobs", "cancel", job_id, "--reason", "not needed", "--actor", "ops:ada"], project)
    shown = run(["jobs", "show", job_id], project).stdout
    assert "status: canceled" in shown and "replay_requested" in shown and "ops:ada" in shown
    again = run(["jobs", "cancel", job_id, "--reason", "twice"], project, ok=False)
    assert "only pending, waiting or compensating jobs can be canceled" in again.stderr


def test_worker_calls_a_configured_provider_with_the_child_idempotency_key(project):
    import hashlib

    from tests.support.fake_provider import FakeProvider

    cwd, env = project
    with FakeProvider().running() as fake:
        (cwd / "pyproject.toml").write_text(textwrap.dedent(f'''
            [tool.cutover]
            automations = "myautos"

            [tool.cutover.providers.payments]
            base_url = "{fake.url}"
            rate = "20/1s"
            auth_env = "PAYMENTS_TOKEN"
        '''))
        (cwd / "myautos.py").write_text(textwrap.dedent('''
            from queue_core import automation

            @automation("charge")
            async def charge(ctx, trigger):
                r = await ctx.call("payments", "POST", "/charges", json={"amount": 5}, step="charge")
                ctx.decide("status", r.status_code)
        '''))
        env["PAYMENTS_TOKEN"] = "sk_live_do_not_log_me"
        job_id = run(["enqueue", "charge", "{}"], project).stdout.strip()
        out = run(["worker", "--drain", "--allow-ungated", "charge"], project)
        assert "status: succeeded" in run(["jobs", "show", job_id], project).stdout
        (seen,) = fake.requests
        headers = {k.lower(): v for k, v in seen.headers.items()}
        assert headers["idempotency-key"] == hashlib.sha256(f"{job_id}:charge".encode()).hexdigest()
        assert headers["authorization"] == "Bearer sk_live_do_not_log_me"
        ledger = run(["jobs", "show", job_id, "--json"], project).stdout
        assert "sk_live_do_not_log_me" not in ledger + out.stdout + out.stderr


def test_bad_provider_config_names_the_field(project):
    """A bad provider value stops the command before any work, naming the key, with the usage exit status."""
    cwd, _ = project
    (cwd / "pyproject.toml").write_text(
        '[tool.cutover]\nautomations = "myautos"\n[tool.cutover.providers.x]\nbase_url = "http://127.0.0.1:1"\nrate = "lots"\n'
    )
    out = run(["worker", "--drain"], project, ok=False)
    assert out.returncode == 2 and "pyproject.toml: [tool.cutover.providers.x] rate:" in out.stderr


def test_sigterm_stops_claiming_and_puts_unfinished_jobs_back(project):
    import signal
    import time

    cwd, env = project
    (cwd / "myautos.py").write_text(textwrap.dedent('''
        import asyncio
        from queue_core import automation

        @automation("slow")
        async def slow(ctx, trigger):
            print("STARTED", flush=True)
            await asyncio.sleep(60)
    '''))
    job_id = run(["enqueue", "slow", "{}", "--mode", "shadow"], project).stdout.strip()
    proc = subprocess.Popen(CUTOVER + ["worker", "--grace", "0.5"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "STARTED"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert '"released": 1' in err
    shown = run(["jobs", "show", job_id], project).stdout
    assert "status: pending" in shown and "attempt: 0" in shown and "released" in shown


def test_outside_any_project_the_error_says_there_is_no_project_not_a_bad_pyproject(tmp_path, fresh_db_url):
    lone = tmp_path / "not-a-project"
    lone.mkdir()
    # no PYTHONPATH: the repository's own demo package is named `automations`, the default module
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"DATABASE_URL": fresh_db_url}
    proc = run(["enqueue", "greet", "{}"], (lone, env), ok=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert f"no pyproject.toml with a [tool.cutover] table at or above {lone}" in proc.stderr
    assert "field 'tool.cutover.automations'" not in proc.stderr
