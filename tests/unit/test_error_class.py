"""When both runs failed, why they failed is compared in one vocabulary (issue 23).

The n8n importer reads the class from the node error n8n recorded (its name, httpCode, Node's error
code or n8n's fixed message for it); the new side's is read from the error the queue recorded.
Equal causes agree, different ones disagree on ``error_class``; where a side records no class the
class is not compared, and the row, the failure text and the verdict's evidence line say so.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

import pytest

from harness.error_class import ErrorClass, of_new_error
from harness.errors import RecordingError
from harness.manifest import AutomationEntry, Coercion, Manifest, Platform
from harness.platforms.n8n.error_class import classify
from harness.platforms.n8n.history import parse_execution_runs
from harness.recording import LegacyTrace, TraceStatus, trace_from_json, trace_to_json
from harness.shadow._mismatch import describe
from harness.shadow.cases import Replayed
from harness.shadow.gate import GateConfig, GateRules
from harness.shadow.index import TriggerRef
from harness.shadow.judge import judge
from harness.shadow.normalize import Rules
from harness.shadow.outcome import result_lines
from harness.shadow.report import RunInfo, build_summary

GATEWAY_404 = ("TerminalError: github POST /repos/o/r/issues/1/labels (step 'add-labels'): 404 client error; "
               "HTTP 404; content-type=application/json")


@pytest.mark.parametrize(("error", "expected"), [
    ({"name": "NodeApiError", "message": "The resource you are requesting could not be found", "httpCode": "404"},
     ErrorClass.HTTP_4XX),
    ({"name": "NodeApiError", "message": "Bad gateway - the service failed to handle your request", "httpCode": "502"},
     ErrorClass.HTTP_5XX),
    ({"name": "NodeApiError", "message": "The service is receiving too many requests from you", "httpCode": "429"},
     ErrorClass.RATE_LIMITED),
    ({"name": "NodeApiError", "httpCode": None,
      "message": "The connection timed out, consider setting the 'Retry on Fail' option in the node settings"},
     ErrorClass.TIMEOUT),
    ({"name": "NodeApiError", "message": "timeout of 10000ms exceeded", "code": "ECONNABORTED"}, ErrorClass.TIMEOUT),
    ({"name": "NodeApiError", "message": "The service refused the connection - perhaps it is offline"},
     ErrorClass.CONNECTION),
    ({"name": "NodeApiError", "message": "getaddrinfo ENOTFOUND api.example.test"}, ErrorClass.CONNECTION),
    ({"name": "ExpressionError", "message": "invalid syntax"}, ErrorClass.EXPRESSION),
    ({"name": "NodeOperationError", "message": "Invalid expression",
      "context": {"functionality": "pairedItem", "type": "paired_item_no_connection"}}, ErrorClass.EXPRESSION),
    ({"name": "NodeOperationError", "message": "Wrong type: 'abc' is a string but was expecting a number"},
     ErrorClass.VALIDATION),
    ({"name": "NodeOperationError", "message": "'amount' expects a number but we got 'abc'"}, ErrorClass.VALIDATION),
    ({"name": "NodeOperationError", "message": "No sheet with that name"}, ErrorClass.OTHER),
    ({"name": "TimeoutExecutionCancelledError", "message": "The execution was cancelled because it timed out"},
     ErrorClass.TIMEOUT),
])
def test_an_n8n_node_error_maps_onto_the_shared_vocabulary(error: dict[str, Any], expected: ErrorClass) -> None:
    assert classify(error) is expected


def test_an_n8n_error_that_is_no_object_records_no_class() -> None:
    assert classify("boom") is None
    assert classify({}) is None


@pytest.mark.parametrize(("error", "expected"), [
    (GATEWAY_404, ErrorClass.HTTP_4XX),
    ("attempts exhausted (1/1): RetryableError: github POST /x (step 'add-labels'): 502 server error; HTTP 502",
     ErrorClass.HTTP_5XX),
    ("attempts exhausted (1/1): RetryableError: github GET /x (step 'search'): timeout; ReadTimeout: timed out",
     ErrorClass.TIMEOUT),
    ("RetryableError: github GET /x (step 'search'): connection error; ConnectError: refused", ErrorClass.CONNECTION),
    ("TerminalError: github POST /x (step 'a'): provider 'github' answered 429 Too Many Requests 5 times to this "
     "call (max_rate_limited = 5); giving up; HTTP 429", ErrorClass.RATE_LIMITED),
    ("NodeFailed: Set: 'amount' expects a number but we got 'abc'", ErrorClass.VALIDATION),
    ("N8nConditionError: Wrong type: '5' is a string but was expecting a number", ErrorClass.VALIDATION),
    ("WaitTimeoutError: the approval token was not resolved in 3 days", ErrorClass.TIMEOUT),
    ("KeyError: 'title'", ErrorClass.OTHER),
])
def test_the_new_runs_recorded_error_maps_onto_the_same_vocabulary(error: str, expected: ErrorClass) -> None:
    assert of_new_error(error) is expected


@pytest.mark.parametrize("error", [None, "", "something went wrong",
                                   "TodoNode: node 'Compute' is not translated yet (TODO: x)"])
def test_a_new_error_without_a_class_or_an_unfinished_run_gives_no_class(error: str | None) -> None:
    assert of_new_error(error) is None


ENTRY = AutomationEntry("flow", Platform.N8N, Coercion.N8N, steps={"Webhook": "", "Add labels": "add-labels"})


def _failed_execution(error: dict[str, Any]) -> dict[str, Any]:
    nodes = [{"name": "Webhook", "type": "n8n-nodes-base.webhook", "typeVersion": 2, "parameters": {}},
             {"name": "Add labels", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2,
              "parameters": {"method": "POST", "url": "https://api.github.test/x"}}]
    run_data = {
        "Webhook": [{"startTime": 1, "executionStatus": "success", "source": [],
                     "data": {"main": [[{"json": {"headers": {}, "body": {"n": 1}}}]]}}],
        "Add labels": [{"startTime": 2, "executionStatus": "error", "source": [{"previousNode": "Webhook"}],
                        "error": error}],
    }
    return {"id": 9, "status": "error", "startedAt": "2024-06-01T00:00:00.000Z",
            "workflowData": {"name": "w", "nodes": nodes},
            "data": {"resultData": {"runData": run_data, "error": error}}}


def test_the_n8n_importer_records_the_class_of_the_error_that_ended_the_run() -> None:
    error = {"name": "NodeApiError", "message": "Bad gateway - the service failed to handle your request",
             "httpCode": "502", "node": {"name": "Add labels"}}
    [run] = parse_execution_runs(_failed_execution(error), ENTRY, "x.json", "9")
    assert run.trace is not None and run.trace.status is TraceStatus.FAILED
    assert run.trace.error_class == "http_5xx" and run.trace.failed_node == "Add labels"
    again = trace_from_json(trace_to_json(replace(run.trace, trigger_id="t-1")), "legacy.jsonl", 1)
    assert again.error_class == "http_5xx"


def test_a_legacy_line_with_an_unknown_error_class_is_refused_naming_the_field() -> None:
    line = {"trigger_id": "t", "status": "failed", "platform": "n8n", "error_class": "http_404"}
    with pytest.raises(RecordingError, match="error_class.*expected one of http_4xx"):
        trace_from_json(line, "legacy.jsonl", 3)


REF = TriggerRef("flow", "t-1", 0, 0, 1, 0, 1)


def _judge(legacy: LegacyTrace, error: str) -> Any:
    trace = {"status": "failed", "error": error}
    run = Replayed(0, "flow", "t-1", "failed", 1, error, trace)
    return judge(REF, legacy, [run], Rules(Coercion.N8N), [], date(2024, 7, 1))


def _legacy(error_class: str | None) -> LegacyTrace:
    return LegacyTrace("t-1", TraceStatus.FAILED, Platform.N8N, error="Add labels: Not found", error_class=error_class)


def test_two_failed_runs_with_the_same_cause_agree_and_the_row_says_the_class_was_compared() -> None:
    outcome = _judge(_legacy("http_4xx"), GATEWAY_404)
    assert outcome.verdict == "agreed"
    assert outcome.error_class == {"legacy": "http_4xx", "new": "http_4xx", "compared": True}
    assert '"error_class": {"compared": true' in result_lines(outcome)[0]


def test_two_failed_runs_with_different_causes_disagree_on_error_class() -> None:
    outcome = _judge(_legacy("timeout"), GATEWAY_404)
    assert outcome.verdict == "disagreed"
    assert [(d.path, d.kind, d.legacy, d.new) for d in outcome.disagreements] == [
        ("error_class", "value_changed", "timeout", "http_4xx")]
    text = describe(outcome, None, [], None)
    assert "error class compared: legacy timeout, new http_4xx (differ)" in text
    assert "error_class" in text.splitlines()[0]  # the headline names the field


def test_a_legacy_run_without_a_class_is_not_compared_on_it_and_says_so() -> None:
    outcome = _judge(_legacy(None), GATEWAY_404)
    assert outcome.verdict == "agreed"
    assert outcome.error_class == {"legacy": None, "new": "http_4xx", "compared": False,
                                   "not_compared": "no error class recorded by the legacy run"}
    assert "error class not compared (no error class recorded by the legacy run)" in describe(outcome, None, [], None)


def test_the_verdicts_evidence_counts_the_failed_runs_whose_class_was_compared() -> None:
    def row(trigger: str, found: dict[str, Any]) -> dict[str, Any]:
        return {"automation": "flow", "trigger_id": trigger, "seq": int(trigger[1:]), "verdict": "agreed",
                "legacy_status": "failed", "new_status": "failed", "legacy_branches": [], "new_branches": [],
                "error": None, "exception": None, "noisy": [], "error_class": found}

    rows = [row("t1", _judge(_legacy("http_4xx"), GATEWAY_404).error_class),
            row("t2", _judge(_legacy(None), GATEWAY_404).error_class),
            row("t3", _judge(_legacy(None), GATEWAY_404).error_class)]
    info = RunInfo("recordings/x", "shadow", 0, False, None, {"flow": "beef"}, {"flow": "n8n"}, {})
    summary = build_summary(info, Manifest(name="x"), {}, rows, [], [], set(), GateConfig(GateRules(min_triggers=1)))
    [automation] = summary["automations"]
    assert automation["evidence"]["compared"].endswith(
        "both runs failed in 3 trigger(s): error class compared in 1; not compared in 2 "
        "(no error class recorded by the legacy run)")
    assert automation["evidence"]["error_class"]["compared"] == 1
