"""Branch coverage from the definition: every IF/Switch output and the recorded runs that took it."""

from __future__ import annotations

from pathlib import Path

from harness.coverage import coverage, definition_branches, untaken
from harness.platforms.n8n.branches import branches
from harness.manifest import AutomationEntry, Coercion, DecisionMap
from harness.recording import LegacyTrace, Platform, TraceStatus
from harness.platforms.n8n.definition import load_workflows

ROUTER = Path(__file__).parent.parent / "fixtures" / "workflows" / "n8n" / "order-router.workflow.json"


def _entry(**kwargs: object) -> AutomationEntry:
    return AutomationEntry("order-router", Platform.N8N, Coercion.N8N, **kwargs)  # type: ignore[arg-type]


def _trace(decisions: dict[str, object]) -> LegacyTrace:
    return LegacyTrace("t", TraceStatus.SUCCEEDED, Platform.N8N, decisions=dict(decisions))


def test_every_output_of_every_branch_node_is_listed_with_the_importers_names() -> None:
    found = branches(load_workflows(ROUTER)[0], _entry())
    assert [(b.node, b.output) for b in found] == [
        ("Is paid?", "true"), ("Is paid?", "false"), ("Route", "large"), ("Route", "domestic"), ("Route", "other")]
    assert {b.decision for b in found} == {"Is paid?", "Route"}


def test_decision_maps_rename_branches_and_translate_their_values() -> None:
    entry = _entry(decisions={"Route": DecisionMap("route", {"large": "big"})}, steps={"Is paid?": "paid-check"})
    found = definition_branches(ROUTER, entry)
    assert ("route", "big") in [(b.decision, b.value) for b in found]
    assert ("paid-check", "true") in [(b.decision, b.value) for b in found]


def test_branches_no_recorded_run_took_are_the_untaken_ones() -> None:
    entry = _entry(decisions={"Is paid?": DecisionMap("paid"), "Route": DecisionMap("route")})
    found = definition_branches(ROUTER, entry)
    # the importer records the extra fallback output by its name ("other", renameFallbackOutput), as the scaffold does
    traces = [_trace({"paid": "true", "route": "large"}), _trace({"paid": "true", "route": ["large", "other"]}),
              _trace({"paid": "false"})]
    counts = {(c.branch.node, c.branch.output): c.taken for c in coverage(found, traces)}
    assert counts == {("Is paid?", "true"): 2, ("Is paid?", "false"): 1, ("Route", "large"): 2,
                      ("Route", "domestic"): 0, ("Route", "other"): 1}
    assert [(b.node, b.output) for b in untaken(coverage(found, traces))] == [("Route", "domestic")]
