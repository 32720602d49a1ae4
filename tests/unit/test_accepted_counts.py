"""An accepted entry's count is in triggers, the unit of the verdict's accepted count."""

from __future__ import annotations

from datetime import date
from typing import Any

from harness.manifest import Manifest
from harness.shadow.accepted import Entry, Usage, usage
from harness.shadow.gate import GateConfig, GateRules
from harness.shadow.report import RunInfo, build_summary


def _result(trigger: str, verdict: str) -> dict[str, Any]:
    return {"automation": "triage", "trigger_id": trigger, "seq": int(trigger[1:]), "verdict": verdict,
            "legacy_status": "failed", "new_status": "succeeded", "legacy_branches": [], "new_branches": [],
            "error": None, "exception": None, "noisy": []}


def _difference(trigger: str, path: str, accepted_by: int | None) -> dict[str, Any]:
    return {"automation": "triage", "trigger_id": trigger, "seq": int(trigger[1:]), "signature": f"triage {path} value_changed",
            "pattern": path, "path": path, "kind": "value_changed", "legacy": "a", "new": "b", "side_effect": False,
            "accepted_by": accepted_by, "expired_by": None, "noisy": False}


# t1 and t2 failed on a 502 (status and path differ: two differences each), t3 differs in status only;
# t4's status difference is accepted but its route is not: the verdict counts it disagreeing.
DIFFERENCES = [_difference("t1", "status", 0), _difference("t1", "path[0]", 0),
               _difference("t2", "status", 0), _difference("t2", "path[0]", 0),
               _difference("t3", "status", 0),
               _difference("t4", "status", 0), _difference("t4", "decisions.route", None)]
RESULTS = [_result("t1", "accepted"), _result("t2", "accepted"), _result("t3", "accepted"),
           _result("t4", "disagreed"), _result("t5", "agreed")]


def test_usage_counts_accepted_triggers_and_names_the_differences_behind_them() -> None:
    assert usage(DIFFERENCES) == {0: Usage(triggers=3, differences=5, still_disagreeing=1)}


def test_the_entry_matched_count_is_the_verdicts_accepted_count() -> None:
    entry = Entry(0, "triage", "maria@acme.test", "n8n failed on a GitHub 502", date(2030, 1, 1), path="*")
    info = RunInfo("recordings/x", "shadow", 0, False, None, {"triage": "beef"}, {"triage": "n8n"}, {})
    summary = build_summary(info, Manifest(name="x"), {}, RESULTS, DIFFERENCES, [entry], set(),
                            GateConfig(GateRules(min_triggers=1)))
    [automation] = summary["automations"]
    [used] = summary["accepted"]
    assert automation["accepted"] == 3
    assert used["matched"] == automation["accepted"]  # not the 6 differences it matched
    assert (used["matched_differences"], used["still_disagreeing"], used["status"]) == (5, 1, "active")
