"""The plugin as users run it: ``pytest --shadow recordings/<set>`` in a project directory."""

from __future__ import annotations

import json
import textwrap

import psycopg
import pytest

from tests.plugin.conftest import _router_case, write_set


def test_only_the_sets_items_are_collected_named_set_automation_trigger(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert "recordings/demo/router::r-0" in ids
    assert "recordings/demo/notifier::n-3" in ids
    assert len(ids) == 10
    assert not any("test_own" in line for line in result.outlines)


def test_disagreements_fail_their_items_with_path_legacy_new_and_trigger(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-v")
    result.assert_outcomes(passed=8, failed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*demo/router::r-2*",
        'shadow mismatch: router trigger r-2: decisions.tier "smb" → "enterprise" value_changed (+1 more)',
        "recorded at recordings/demo/router/triggers.jsonl:3",
        "*field path*legacy*new*kind*",
        '*decisions.tier*"smb"*"enterprise"*value_changed*',
        '*calls[[]create[]].body.tier*"smb"*"enterprise"*value_changed [[]side effect[]]*',
    ])


def test_a_raising_automation_is_a_failed_item_showing_the_exception(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-k", "r-4", "-v")
    result.assert_outcomes(failed=1, deselected=9)
    result.stdout.fnmatch_lines([
        "*status*\"succeeded\"*\"failed\"*value_changed*",
        "the new code raised:",
        "*KeyError: 'customer_id'*",
    ])


def test_by_default_the_verdict_leads_and_each_failing_trigger_is_one_line(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/demo")
    result.assert_outcomes(passed=8, failed=2)
    out = result.stdout.str()
    assert "field path" not in out and "the new code raised" not in out and "= FAILURES =" not in out
    verdict, failing = out.index("cutover shadow verdict"), out.index("short test summary info")
    assert verdict < failing
    shadow_lines = [line for line in result.outlines if "shadow mismatch" in line]
    assert len(shadow_lines) == 2 and all(line.startswith("FAILED recordings/demo/router::r-") for line in shadow_lines)
    assert "2 failing trigger(s), one line each below; -v prints every differing field" in out
    verbose = project.runpytest_subprocess("--shadow", "recordings/demo", "-v")
    assert "field path" in verbose.stdout.str() and verbose.ret == result.ret == pytest.ExitCode.TESTS_FAILED
    assert verbose.stdout.str().index("cutover shadow verdict") < verbose.stdout.str().index("= FAILURES =")


def test_the_terminal_summary_gives_verdicts_with_reasons_and_clusters(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/demo")
    result.stdout.fnmatch_lines([
        "*cutover shadow verdict*",
        "notifier*READY*4 compared*100.00%*",
        "router*NOT READY*6 compared*66.67%*",
        "*✗ agreement 66.67% is below the floor 99.00%*",
        "*cluster calls[[]create[]].body.tier value_changed: 1× in 1 triggers [[]side effect[]]*",
        "reports: *index.html*",
    ])
    summary = json.loads((project.path / "reports" / "demo" / "summary.json").read_text())
    assert summary["gate"] == {"ready": ["notifier"], "not_ready": ["router"]}
    assert (project.path / "reports" / "demo" / "disagreements.csv").read_text().count("\n") == 1 + 2 + 4


def test_gate_makes_the_exit_status_the_verdict_and_records_it(project: pytest.Pytester, fresh_db_url: str) -> None:
    not_ready = project.runpytest_subprocess("--shadow", "recordings/demo", "--gate")
    assert not_ready.ret == pytest.ExitCode.TESTS_FAILED
    ready = project.runpytest_subprocess("--shadow", "recordings/demo", "--gate", "-k", "notifier")
    assert ready.ret == pytest.ExitCode.OK
    ready.stdout.fnmatch_lines(["gate verdicts recorded in *: READY notifier; NOT READY none"])
    with psycopg.connect(fresh_db_url) as conn:
        rows = conn.execute("SELECT automation, ready, code_version, recording FROM gate_verdicts "
                            "ORDER BY id").fetchall()
    assert [(a, r, rec) for a, r, _, rec in rows] == [("notifier", True, "demo"), ("router", False, "demo"),
                                                      ("notifier", True, "demo")]
    assert all(len(code) == 16 for _, _, code, _ in rows)


def test_gate_passes_despite_failing_items_when_the_floor_allows_them(project: pytest.Pytester) -> None:
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n[tool.cutover.gate.automations.router]\nagreement = 0.6\n"
                         "max_side_effect_mismatches = 2\n")
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "--gate")
    result.assert_outcomes(passed=8, failed=2)
    assert result.ret == pytest.ExitCode.OK


def test_xdist_workers_share_the_run_and_the_controller_reports(project: pytest.Pytester) -> None:
    # pytest-benchmark, where installed, warns that xdist disables it, and the project's warnings
    # are errors: it has nothing to do with the shadow run.
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-n", "2", "-p", "no:benchmark")
    result.assert_outcomes(passed=8, failed=2)
    result.stdout.fnmatch_lines(["*cutover shadow verdict*", "router*NOT READY*6 compared*"])
    summary = json.loads((project.path / "reports" / "demo" / "summary.json").read_text())
    assert summary["totals"]["compared"] == 10


def test_exitfirst_stops_at_the_first_failing_trigger(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-x", "-p", "no:randomly")
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1 and outcomes.get("passed", 0) < 8


def test_a_replay_process_that_dies_fails_the_items_it_owed_with_its_last_words(project: pytest.Pytester) -> None:
    automations = project.path / "shadow_demo.py"
    automations.write_text(automations.read_text().replace(  # the whole replay process dies
        'raise KeyError("customer_id")', 'print("about to die", flush=True); import os; os._exit(7)'))
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-p", "no:randomly", "--shadow-batch", "3",
                                          "-v", timeout=300)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*router trigger r-2*", "could not be replayed: the replay process 0 (pid *) exited "
                                 "with status 7 while replaying a batch of 3 trigger(s) from router r-2 on; "
                                 "its output ended with:", "about to die"])
    # The batches before the dying one (n-0..n-2, n-3..r-1) were judged as usual; r-4 kills the
    # process in the batch from r-2, and its triggers and the rest fail with the reason instead
    # of hanging the run or vanishing from it.
    result.assert_outcomes(passed=6, failed=4)


def test_last_failed_reruns_only_the_failing_triggers(project: pytest.Pytester) -> None:
    project.runpytest_subprocess("--shadow", "recordings/demo")
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "--lf")
    result.assert_outcomes(failed=2, deselected=8)


def test_named_test_paths_are_collected_alongside_the_set(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "tests", "-k", "own or notifier")
    result.assert_outcomes(passed=5, deselected=6)


def test_an_expired_accepted_difference_fails_and_a_live_one_passes(project: pytest.Pytester) -> None:
    (project.path / "recordings" / "demo" / "accepted.toml").write_text(textwrap.dedent('''
        [[accepted]]
        automation = "router"
        path = "*"
        legacy_status = "succeeded"
        new = "enterprise"
        owner = "ops@example.com"
        reason = "the 1,000-employee threshold moved"
        expires = 2020-01-31

        [[accepted]]
        automation = "router"
        signature = "router status value_changed"
        owner = "dev@example.com"
        reason = "boom triggers are known bad data"
        expires = 2099-12-31

        [[accepted]]
        automation = "notifier"
        path = "decisions.nothing"
        owner = "dev@example.com"
        reason = "never matches"
        expires = 2099-12-31
    '''))
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-k", "router", "-v")
    result.stdout.fnmatch_lines([  # the verdict leads, then the failures' whole text (-v)
        "*accepted difference #1 (router *) is expired since 2020-01-31*",
        "*accepted difference #3 (notifier decisions.nothing, owner dev@example.com) is unused: it matched nothing*",
        "*decisions.tier: accepted difference #1 in *accepted.toml (owner ops@example.com) expired on 2020-01-31*",
    ])
    # r-2 fails (expired entry); r-4's status difference is accepted but its other fields are not.
    summary = json.loads((project.path / "reports" / "demo" / "summary.json").read_text())
    status = {e["index"]: e["status"] for e in summary["accepted"]}
    assert status == {0: "expired", 1: "active", 2: "unused"}
    assert any("expired" in r for r in summary["automations"][0]["verdict"]["failed"])


def test_a_trigger_without_a_legacy_trace_is_skipped_with_the_reason(project: pytest.Pytester) -> None:
    write_set(project.path, unpaired=1)
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-k", "notifier", "-rs")
    result.assert_outcomes(passed=4, skipped=1, deselected=6)
    result.stdout.fnmatch_lines(["*no legacy trace was recorded for this trigger*"])


def test_all_agreeing_triggers_exit_zero_and_junit_lists_them(project: pytest.Pytester) -> None:
    write_set(project.path, router=[_router_case(i, 10 * i, "smb") for i in range(3)])
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "--junitxml=out.xml")
    result.assert_outcomes(passed=7)
    assert result.ret == pytest.ExitCode.OK
    xml = (project.path / "out.xml").read_text()
    assert 'name="r-0"' in xml and 'classname="recordings.demo.router"' in xml


def test_a_missing_set_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("--shadow", "recordings/nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--shadow recordings/nope: not a recording set (no manifest.toml in *"])


def test_a_malformed_recording_line_is_a_collection_error_naming_file_and_line(project: pytest.Pytester) -> None:
    triggers = project.path / "recordings" / "demo" / "router" / "triggers.jsonl"
    triggers.write_text(triggers.read_text() + "{not json\n")
    result = project.runpytest_subprocess("--shadow", "recordings/demo")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*recordings/demo/router/triggers.jsonl:7: not valid JSON*"])


def test_shadow_noise_marks_the_fields_that_disagree_with_themselves(project: pytest.Pytester) -> None:
    automations = project.path / "shadow_demo.py"
    automations.write_text("import random\n" + automations.read_text().replace(  # a decision no replay repeats
        'ctx.decide("urgent", trigger.body["level"] == "high")',
        'ctx.decide("urgent", trigger.body["level"] == "high")\n    ctx.decide("ticket", random.randrange(10**9))'))
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "--shadow-noise", "-k", "notifier", "-v")
    result.assert_outcomes(failed=4, deselected=6)
    # each item's failure marks its disagreement noisy ("[[]" is a literal "[" for fnmatch)
    result.stdout.fnmatch_lines([line for n in range(4) for line in (
        f"*_ demo/notifier::n-{n} _*", "*decisions.ticket*extra_in_new [[]noisy]")])
    summary = json.loads((project.path / "reports" / "demo" / "summary.json").read_text())
    assert summary["noise"] == [{"automation": "notifier", "path": "decisions.ticket", "triggers": 4}]
    html = (project.path / "reports" / "demo" / "index.html").read_text()
    assert "decisions.ticket" in html.split('id="noise"', 1)[1]
    # without the flag, the same disagreement is not marked
    plain = project.runpytest_subprocess("--shadow", "recordings/demo", "-k", "notifier")
    plain.assert_outcomes(failed=4, deselected=6)
    assert "[noisy]" not in plain.stdout.str()
    assert json.loads((project.path / "reports" / "demo" / "summary.json").read_text())["noise"] == []


def test_a_status_only_export_compares_status_alone_and_the_gate_says_its_depth(project: pytest.Pytester) -> None:
    from dataclasses import replace

    from harness.recording import Evidence

    cases = [_router_case(0, 50, "smb"), _router_case(2, 1500, "smb"), _router_case(3, 10, "smb"),
             _router_case(4, 20, "smb", boom=True)]
    write_set(project.path, router=[(t, replace(c, evidence=(Evidence.STATUS,))) for t, c in cases])
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-v")
    # r-2's wrong tier is in decisions and calls, which a status-only export cannot show; r-4's
    # new run fails where the legacy one succeeded, which status does show.
    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines(["shadow mismatch: router trigger r-4*", "legacy run: succeeded   new run: failed*",
                                 "compared: status only — path, decisions, calls, outputs not compared"])
    result.stdout.fnmatch_lines(["router*NOT READY*4 compared*",
                                 "    compared: status only — path, decisions, calls, outputs not compared",
                                 "    ✗ evidence depth status is below the required decisions*"])
    summary = json.loads((project.path / "reports" / "demo" / "summary.json").read_text())
    router = next(a for a in summary["automations"] if a["name"] == "router")
    assert router["evidence"]["depth"] == "status" and router["verdict"]["evidence"] == ["status"]
    assert "compared: status only" in (project.path / "reports" / "demo" / "index.html").read_text()
    pyproject = project.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.cutover.gate.automations.router]\nagreement = 0.7\n'
                         'evidence = "status"\n')
    lowered = project.runpytest_subprocess("--shadow", "recordings/demo")
    lowered.stdout.fnmatch_lines(["router*READY (status only)*4 compared*"])


def test_a_selection_that_matches_no_trigger_leaves_the_last_report_as_it_was(project: pytest.Pytester) -> None:
    project.runpytest_subprocess("--shadow", "recordings/demo")
    summary = project.path / "reports" / "demo" / "summary.json"
    full = summary.read_text()
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-k", "no-such-trigger")
    result.assert_outcomes(deselected=10)
    result.stdout.fnmatch_lines(["*no recorded trigger was replayed*were left as they were*"])
    assert summary.read_text() == full


COUNTING_CONFTEST = '''
import json

seen = {"makereport": 0, "reports": {}}


def pytest_runtest_makereport(item, call):
    seen["makereport"] += 1


def pytest_runtest_logreport(report):
    seen["reports"].setdefault(report.nodeid, []).append([report.when, report.outcome])


def pytest_sessionfinish(session):
    with open("hooks.json", "w") as out:
        json.dump(seen, out)
'''


@pytest.mark.parametrize("replayers", ["2", "0"])
def test_every_item_reports_setup_call_and_teardown_and_passing_ones_skip_pytests_phases(
        project: pytest.Pytester, replayers: str) -> None:
    # A passing item whose result is ready is reported in one step (ShadowItem.report_passed):
    # every logreport hook still gets its three reports, but makereport runs only for the items
    # that take pytest's own protocol (the failing ones, the last of each automation, and with
    # --shadow-replayers 0 the first of each batch, which replays it under pytest's capture).
    (project.path / "conftest.py").write_text(COUNTING_CONFTEST)
    result = project.runpytest_subprocess("--shadow", "recordings/demo", "-p", "no:randomly", "--shadow-replayers",
                                          replayers, "--shadow-batch", "4", "--junitxml=out.xml")
    result.assert_outcomes(passed=8, failed=2)
    seen = json.loads((project.path / "hooks.json").read_text())
    assert len(seen["reports"]) == 10
    for nodeid, reports in seen["reports"].items():
        assert [when for when, _ in reports] == ["setup", "call", "teardown"], nodeid
    failed = sorted(n for n, reports in seen["reports"].items() if ["call", "failed"] in reports)
    assert failed == ["recordings/demo/router::r-2", "recordings/demo/router::r-4"]
    assert 3 * 4 <= seen["makereport"] < 3 * 10  # 2 failing + 2 last-of-automation items at least
    assert (project.path / "out.xml").read_text().count("<testcase ") == 10
