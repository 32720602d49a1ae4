"""The runtime's own steps (children, waits, returned values) are not part of the path a legacy trace is compared on."""

from __future__ import annotations

from harness.shadow.normalize import Rules, reduce_new


def test_child_wait_and_sleep_steps_leave_the_new_path_and_the_automations_steps_stay() -> None:
    trace = {"status": "succeeded", "path": ["fetch", "child:shout-it", "children:0", "child:shout-it#1", "children:1",
                                             "sleep", "token:hold#0", "event:ready", "ctx:returned", "post-comment",
                                             "sleepy", "children-report"]}
    assert reduce_new(trace, Rules())["path"] == ["fetch", "post-comment", "sleepy", "children-report"]


def test_a_legacy_path_that_holds_runtime_steps_loses_them_too() -> None:
    from harness.recording import LegacyTrace, Platform, TraceStatus
    from harness.shadow.normalize import reduce_legacy

    trace = LegacyTrace("t", TraceStatus.SUCCEEDED, Platform.N8N, path=["split", "child:inv-1", "children:0"])
    assert reduce_legacy(trace, Rules())["path"] == ["split"]
