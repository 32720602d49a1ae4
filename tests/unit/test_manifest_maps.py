"""The manifest's steps/decisions maps: proposed on first import, kept through re-imports."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from harness.importer import ImportedRun
from harness.platforms.n8n.history import parse
from harness.manifest import (
    AutomationEntry, Coercion, DecisionMap, Manifest, ExportSource, load_manifest, with_source, write_manifest,
)
from harness.mapping import MapProposal, proposal_from_traces, proposal_lines, propose_maps, slug
from harness.recording import LegacyTrace, Platform, TraceStatus

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports" / "n8n"
NODES = ["Is opened?", "Route", "Add labels", "Post comment"]
BRANCHES = ["Is opened?", "Route"]


def test_a_proposal_drops_branch_nodes_from_the_path_and_keeps_their_decisions() -> None:
    proposal = propose_maps(NODES, BRANCHES, automation="github-triage", triggers=["GitHub Webhook"])
    assert proposal.steps == {"GitHub Webhook": "", "Is opened?": "", "Route": "", "Add labels": "add-labels",
                              "Post comment": "post-comment"}
    assert proposal.decisions == {"Is opened?": "is-opened", "Route": "route"}


def test_slugs_are_lower_case_words_joined_by_hyphens() -> None:
    assert slug("Send Email in Postmark") == "send-email-in-postmark"
    assert slug("  ??  ") == "step"


def test_unmapped_traces_give_their_path_as_nodes_and_their_decision_keys_as_branch_nodes() -> None:
    traces = [LegacyTrace("t1", TraceStatus.SUCCEEDED, Platform.N8N, path=["Is opened?", "Add labels"],
                          decisions={"Is opened?": "true"}),
              LegacyTrace("t2", TraceStatus.SUCCEEDED, Platform.N8N, path=["Is opened?", "Post comment"],
                          decisions={"Is opened?": "false"})]
    proposal = proposal_from_traces("github-triage", traces)
    assert proposal == MapProposal("github-triage", {"Is opened?": "", "Add labels": "add-labels",
                                                     "Post comment": "post-comment"}, {"Is opened?": "is-opened"})


def test_the_commented_proposal_becomes_the_maps_once_uncommented() -> None:
    lines = proposal_lines(propose_maps(NODES, BRANCHES, automation="github-triage"))
    assert all(line.startswith("#") for line in lines)
    uncommented = "\n".join(line[2:] for line in lines if line.startswith("# ") and not line.startswith("# cutover")
                            and "ctx." not in line and "node maps" not in line)
    data = tomllib.loads(uncommented)["automations"]["github-triage"]
    assert data["steps"]["Route"] == "" and data["steps"]["Add labels"] == "add-labels"
    assert data["decisions"]["Is opened?"] == {"name": "is-opened"}


def _manifest() -> Manifest:
    source = ExportSource(Platform.N8N, "github-triage", ("n8n.json",), records=4,
                    imported_at=datetime(2024, 7, 1, tzinfo=UTC))
    entry = AutomationEntry("github-triage", Platform.N8N, Coercion.N8N)
    return with_source(Manifest(name="set"), source, entry)


def test_a_first_import_writes_the_proposal_as_comments_and_no_maps(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    write_manifest(path, _manifest(), proposal=propose_maps(NODES, BRANCHES, automation="github-triage"))
    text = path.read_text()
    assert '# [automations.github-triage.steps]\n# "Is opened?" = ""\n' in text
    assert '# [automations.github-triage.decisions."Is opened?"]\n# name = "is-opened"' in text
    assert load_manifest(path).automations["github-triage"].steps == {}


def test_a_re_import_keeps_the_users_comments_maps_and_order_and_proposes_nothing_again(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    write_manifest(path, _manifest(), proposal=propose_maps(NODES, BRANCHES, automation="github-triage"))
    edited = path.read_text().replace("# [automations.github-triage.steps]", "[automations.github-triage.steps]", 1)
    edited = edited.replace('# Route = ""', 'Route = ""  # the Switch node: ctx.decide("route")')
    edited = 'name = "set"  # June traffic\n' + edited.replace('name = "set"\n', "", 1)
    path.write_text(edited)
    before = load_manifest(path)
    assert before.automations["github-triage"].steps == {"Route": ""}
    newer = ExportSource(Platform.N8N, "github-triage", ("n8n-2.json",), records=9,
                   imported_at=datetime(2024, 8, 1, tzinfo=UTC))
    write_manifest(path, with_source(before, newer, before.automations["github-triage"]),
                   proposal=propose_maps(NODES, BRANCHES, automation="github-triage"))
    text = path.read_text()
    assert text.startswith('name = "set"  # June traffic\n')
    assert 'Route = ""  # the Switch node: ctx.decide("route")' in text
    assert text.count("cutover import proposes these maps") == 1
    after = load_manifest(path)
    assert after.automations["github-triage"].steps == {"Route": ""}
    assert [(s.files, s.records) for s in after.sources] == [(("n8n-2.json",), 9)]


def test_a_rewrite_of_an_unchanged_manifest_changes_no_byte(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text('# hand-written\nformat = 1\nname = "set"\n\n[automations.a]  # the first\nplatform = "csv"\n'
                    'coercion = "strict"\n\n[automations.a.steps]\n# a dropped step\nWebhook = ""\n')
    original = path.read_text()
    write_manifest(path, load_manifest(path))
    assert path.read_text() == original


def test_a_new_automation_is_added_beside_the_existing_ones(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    write_manifest(path, _manifest())
    source = ExportSource(Platform.MAKE, "lead-router", ("make.json",), records=2)
    entry = AutomationEntry("lead-router", Platform.MAKE, Coercion.MAKE, decisions={"Size router": DecisionMap("route")})
    write_manifest(path, with_source(load_manifest(path), source, entry))
    after = load_manifest(path)
    assert sorted(after.automations) == ["github-triage", "lead-router"]
    assert [s.automation for s in after.sources] == ["github-triage", "lead-router"]
    assert after.automations["lead-router"].decisions == {"Size router": DecisionMap("route")}


def test_a_branch_node_mapped_out_of_the_path_keeps_its_decision() -> None:
    entry = AutomationEntry("github-triage", Platform.N8N, Coercion.N8N,
                            steps={"Is opened?": "", "Route": "", "Add labels": "add-labels", "Post comment": "comment"},
                            decisions={"Is opened?": DecisionMap("opened")}, providers={"api.github.com": "github"})
    runs = [item for item in parse(EXPORTS / "executions_list.json", entry) if isinstance(item, ImportedRun)]
    trace = runs[0].trace
    assert trace is not None
    assert trace.path == ["add-labels", "comment"]
    assert trace.decisions == {"opened": "true", "Route": "bug"}


def test_an_entry_with_maps_gets_no_proposal_even_on_its_first_write(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    manifest = _manifest()
    entry = replace(manifest.automations["github-triage"], steps={"Add labels": "add-labels"})
    write_manifest(path, replace(manifest, automations={"github-triage": entry}),
                   proposal=propose_maps(NODES, BRANCHES, automation="github-triage"))
    assert "proposes" not in path.read_text()
