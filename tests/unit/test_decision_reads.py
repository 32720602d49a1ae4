"""A differing decision's exemplar shows the trigger fields the new code read before it, redacted (issue 23).

The runtime notes, per ``ctx.decide``, the trigger fields read so far (shadow and dry-run only);
the judge hands them to the decision's disagreement, redacted; the failure text (``-v``), the
disagreement rows, the clusters' exemplars and the HTML report show them.
"""

from __future__ import annotations

import copy
import json
import pickle
import uuid
from datetime import date, datetime, timezone
from typing import Any

from harness.manifest import Coercion
from harness.recording import LegacyTrace, Platform, TraceStatus
from harness.shadow._html import render
from harness.shadow._mismatch import describe
from harness.shadow._reads import redact_reads
from harness.shadow.cases import Replayed
from harness.shadow.cluster import clusters, frame
from harness.shadow.index import TriggerRef
from harness.shadow.judge import judge
from harness.shadow.normalize import Rules
from harness.shadow.outcome import result_lines
from queue_core import Context
from queue_core._reads import ReadLog, watch
from queue_core.job import ClaimedJob
from queue_core.states import Mode

ISSUE = {"action": "opened", "issue": {"title": "Bug: login fails", "labels": [{"name": "p1"}], "number": 7}}


def _context(mode: Mode) -> Context:
    now = datetime.now(timezone.utc)
    job = ClaimedJob(uuid.uuid4(), "triage", 1, mode, 0, json.loads(json.dumps(ISSUE)),
                     {"headers": {"authorization": "Bearer x", "x-github-event": "issues"}}, 0, 5, 1, now, now,
                     "t-1", None, False)
    return Context(job, None, worker="w")  # type: ignore[arg-type]  # no pool: decide runs no statement


def _triage(ctx: Context) -> None:
    event = ctx.trigger.body
    ctx.decide("opened", event.get("action") == "opened")
    issue = event["issue"]
    labels = {str(label.get("name", "")).lower() for label in issue.get("labels") or []}
    title = str(issue.get("title") or "")
    ctx.decide("route", "bug" if title.startswith("bug:") or "bug" in labels else "other")


def test_a_shadow_run_notes_the_trigger_fields_each_decision_had_read() -> None:
    ctx = _context(Mode.SHADOW)
    _triage(ctx)
    assert ctx.trace.reads == {
        "opened": {"body.action": "opened"},
        "route": {"body.action": "opened", "body.issue.labels[0].name": "p1", "body.issue.title": "Bug: login fails"},
    }
    assert ctx.trace.as_dict()["reads"] == ctx.trace.reads
    assert ctx.trace.decisions == {"opened": True, "route": "other"}  # 'Bug:' is not 'bug:'


def test_a_live_run_hands_the_code_the_plain_trigger_and_notes_nothing() -> None:
    ctx = _context(Mode.LIVE)
    _triage(ctx)
    assert type(ctx.trigger.body) is dict and ctx.trace.reads == {} and "reads" not in ctx.trace.as_dict()


def test_the_read_noting_views_behave_as_the_plain_values() -> None:
    log = ReadLog()
    body, headers = watch(json.loads(json.dumps(ISSUE)), {"x-a": "1"}, log)
    assert isinstance(body, dict) and isinstance(body["issue"]["labels"], list)
    body["issue"]["seen"] = True
    assert body["issue"]["seen"] is True  # a change the code makes to a nested value stays
    assert json.loads(json.dumps(body)) == {**ISSUE, "issue": {**ISSUE["issue"], "seen": True}}
    assert type(copy.deepcopy(body)) is dict and type(pickle.loads(pickle.dumps(body))) is dict
    assert "missing" not in body and body.get("other", 3) == 3 and headers["x-a"] == "1"
    fields = log.snapshot()
    assert fields["body.missing"] is None and fields["body.other"] is None and fields["headers.x-a"] == "1"


def test_read_fields_are_redacted_before_they_leave_the_judge() -> None:
    fields = redact_reads({"headers.authorization": "Bearer abc", "body.api_token": "t0k3n", "headers.x-github-event":
                           "issues", "body.note": "use Bearer abcdef123456 here", "body.title": "Bug: x"})
    assert fields == {"headers.authorization": "[redacted]", "body.api_token": "***", "headers.x-github-event": "issues",
                      "body.note": "use Bearer *** here", "body.title": "Bug: x"}


REF = TriggerRef("triage", "t-1", 0, 0, 1, 0, 1)


def _outcome() -> Any:
    ctx = _context(Mode.SHADOW)
    _triage(ctx)
    trace = ctx.trace.as_dict()
    legacy = LegacyTrace("t-1", TraceStatus.SUCCEEDED, Platform.N8N, decisions={"opened": True, "route": "bug"})
    run = Replayed(0, "triage", "t-1", "succeeded", 1, None, trace)
    return judge(REF, legacy, [run], Rules(Coercion.N8N), [], date(2024, 7, 1))


def test_the_differing_decisions_disagreement_carries_its_read_fields_to_the_rows_and_the_text() -> None:
    outcome = _outcome()
    assert [d.path for d in outcome.disagreements] == ["decisions.route"]
    assert outcome.reads["decisions.route"]["body.issue.title"] == "Bug: login fails"
    _, rows = result_lines(outcome)
    [row] = [json.loads(line) for line in rows.splitlines()]
    assert row["reads"]["body.issue.title"] == "Bug: login fails"
    text = describe(outcome, None, [], None)
    assert ('decisions.route: decided having read body.action = "opened", body.issue.labels[0].name = "p1", '
            'body.issue.title = "Bug: login fails"') in text


def test_the_clusters_exemplar_and_the_html_report_show_the_read_fields() -> None:
    _, lines = result_lines(_outcome())
    rows = [{**json.loads(line), "seq": 0} for line in lines.splitlines()]
    [cluster] = clusters(frame(rows))
    [exemplar] = cluster.exemplars
    assert exemplar["reads"]["body.issue.title"] == "Bug: login fails"
    summary = {"recording": {"name": "x", "description": "", "window": None}, "mode": "shadow",
               "gate": {"ready": [], "not_ready": []}, "automations": [], "totals": {"compared": 0, "triggers": 0,
               "agreement": 0.0}, "clusters": [cluster.as_dict()], "accepted": [], "accepted_file": None,
               "noise_check": False, "noise": [], "errors": []}
    page = render(summary, {})
    assert "trigger fields read before this decision:" in page
    assert "<code>body.issue.title</code> = <code>&quot;Bug: login fails&quot;</code>" in page
