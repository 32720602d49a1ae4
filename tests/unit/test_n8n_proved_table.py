"""The estate table's proof column: what proves each translated node, read from the package's copy of the
oracle suites' results (which must equal what the suites prove)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from harness.cli import cli
from harness.platforms.n8n.translate.prove import PROVED_TABLE, proof_of, proved_by_oracle
from tests.oracle import proved


def _node(name: str, kind: str, version: float, x: float = 0, **parameters: Any) -> dict[str, Any]:
    return {"name": name, "type": f"n8n-nodes-base.{kind}", "typeVersion": version, "position": [x, 0],
            "parameters": parameters}


def _chain(*names: str) -> dict[str, Any]:
    return {a: {"main": [[{"node": b, "type": "main", "index": 0}]]} for a, b in zip(names, names[1:], strict=False)}


def test_the_package_copy_of_the_proved_versions_equals_what_the_oracle_suites_prove() -> None:
    shipped = json.loads(PROVED_TABLE.read_text(encoding="utf-8"))
    assert shipped == proved.table(), f"run {proved.COMMAND}"
    assert proved_by_oracle("n8n-nodes-base.if", 2) and proved_by_oracle("n8n-nodes-base.splitInBatches", 3)
    assert proved_by_oracle("n8n-nodes-base.wait", 1.1) and proved_by_oracle("n8n-nodes-base.executeWorkflow", 1.3)
    assert not proved_by_oracle("n8n-nodes-base.if", 9) and not proved_by_oracle("n8n-nodes-base.respondToWebhook", 1.1)


def test_a_call_is_proved_by_the_shadow_run_and_an_unproved_node_says_none() -> None:
    assert proof_of("n8n-nodes-base.slack", 2.2, "post-message") == "shadow"
    assert proof_of("n8n-nodes-base.respondToWebhook", 1.1, "") == "none"
    # a sub-workflow call answered from the recording (its callee is not in the estate): the shadow run
    assert proof_of("n8n-nodes-base.executeWorkflow", 1.3, "ask") == "shadow"
    assert proof_of("n8n-nodes-base.executeWorkflow", 1.3, "") == "oracle"
    assert proof_of("n8n-nodes-base.httpRequest", 4.2, "fetch") == "oracle"


def test_the_estate_table_and_json_say_per_node_what_proves_it_with_totals(tmp_path: Path) -> None:
    estate = tmp_path / "estate"
    estate.mkdir()
    workflow = {"name": "Mixed", "nodes": [
        _node("Start", "manualTrigger", 1), _node("Check", "if", 2, 200),
        _node("Pause", "set", 2, 400, values={"string": [{"name": "a", "value": "b"}]}),
        _node("Post", "slack", 2.1, 600, select="channel", channelId={"__rl": True, "value": "C1", "mode": "id"},
              text="hi")],
        "connections": _chain("Start", "Check", "Pause", "Post")}
    (estate / "mixed.json").write_text(json.dumps(workflow), encoding="utf-8")
    (estate / "plain.json").write_text(json.dumps({"name": "Plain", "nodes": [
        _node("Start", "manualTrigger", 1), _node("Pass", "noOp", 1, 200)], "connections": _chain("Start", "Pass")}))
    out = CliRunner().invoke(cli, ["scaffold", "n8n", str(estate), "--into", str(tmp_path / "a"), "--json",
                                   str(tmp_path / "t.json")])
    assert out.exit_code == 0, out.output
    table = json.loads((tmp_path / "t.json").read_text())
    mixed = next(w for w in table["workflows"] if w["automation"] == "mixed")
    by_node = {n["node"]: (n["status"], n["proved"]) for n in mixed["nodes"]}
    assert by_node["Start"] == ("trigger", None) and by_node["Check"] == ("translated", "oracle")
    assert by_node["Pause"] == ("translated", "none")
    assert by_node["Post"][1] == ("shadow" if by_node["Post"][0] == "translated" else None)
    totals = table["totals"]
    assert totals["proved_oracle"] == 2  # Check, and Plain's NoOp
    assert totals["proved_oracle"] + totals["proved_shadow"] + totals["not_proved"] == totals["translated"] - 2
    assert (f"proof of the {totals['translated'] - 2} translated nodes (triggers apart): 2 proved by the real "
            "n8n's conformance suites") in out.output
    header = next(line for line in out.output.splitlines() if line.strip().startswith("automation"))
    assert header.split()[-5:] == ["proved", "shadow", "import", "its", "executions"]


def test_an_app_node_is_proved_by_the_oracle_per_operation_only() -> None:
    from harness.platforms.n8n.definition import Node

    def telegram(version: float, **parameters: Any) -> Node:
        return Node("Send", "n8n-nodes-base.telegram", version, parameters)

    assert proof_of("n8n-nodes-base.telegram", 1.2, "send", telegram(1.2, chatId="1", text="hi")) == "oracle"
    assert proof_of("n8n-nodes-base.telegram", 1.2, "send", telegram(1.2, operation="sendPhoto")) == "shadow"
    assert proof_of("n8n-nodes-base.telegram", 9, "send", telegram(9, chatId="1", text="hi")) == "shadow"
    assert not proved_by_oracle("n8n-nodes-base.telegram", 1.2)  # a version alone proves no app node
