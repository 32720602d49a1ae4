"""The mutant loader leaves the real module and registry alone; the gate's ``min_mutation_score`` rule."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from harness.mutate import store
from harness.mutate.load import SwappableRegistry, load_mutant
from harness.mutate.mutator import compile_mutant, mutants
from harness.shadow.gate import AutomationStats, judge, parse_gate
from queue_core.registry import default_registry

MODULE = textwrap.dedent('''\
    from queue_core import automation


    @automation("mutant-load-probe", version=1)
    async def probe(ctx, trigger):
        ctx.decide("big", trigger.body["n"] > 10)
    ''')
GOOD = AutomationStats("router", 200, 200, 0, {"tier=smb": 3})


def test_a_mutant_loads_into_a_registry_of_its_own_and_swaps_back(tmp_path: Path) -> None:
    path = tmp_path / "probe_mod.py"
    path.write_text(MODULE)
    [compare] = [m for m in mutants(MODULE) if m.kind == "compare"]
    [loaded] = load_mutant(compile_mutant(MODULE, compare.number, str(path)), "probe_mod", str(path))
    assert loaded.name == "mutant-load-probe" and "mutant-load-probe" not in default_registry
    assert path.read_text() == MODULE and not (tmp_path / "__pycache__").exists()
    [original] = load_mutant(compile(MODULE, str(path), "exec"), "probe_mod", str(path))
    registry = SwappableRegistry([original])
    with registry.swapped([loaded]):
        assert registry.get("mutant-load-probe") is loaded
    assert registry.get("mutant-load-probe") is original


def _measure(root: Path, code_version: str, killed: int, mutants_: int = 10) -> None:
    data = {"automation": "router", "code_version": code_version, "set": "demo", "measured_at": "2026-01-01T00:00:00+00:00",
            "mutants": mutants_, "killed": killed, "survived": mutants_ - killed, "score": killed / mutants_,
            "results": []}
    out = store.measurement_dir(root, "demo", "router")
    out.mkdir(parents=True)
    (out / store.MUTATION_FILE).write_text(json.dumps(data))


def test_min_mutation_score_unset_reads_nothing(tmp_path: Path) -> None:
    rules = parse_gate({"min_triggers": 1}, str(tmp_path / "pyproject.toml")).rules_for("router")
    assert judge(GOOD, rules, "c0de").ready


def test_without_a_measurement_of_this_code_version_the_gate_is_not_ready(tmp_path: Path) -> None:
    _measure(tmp_path, "0ther", killed=10)
    rules = parse_gate({"min_triggers": 1, "min_mutation_score": 0.5}, str(tmp_path / "pyproject.toml")).rules_for("router")
    verdict = judge(GOOD, rules, "c0de")
    assert not verdict.ready
    assert verdict.failed == ("no mutation measurement of code version c0de (the gate requires a mutation score of at "
                              "least 50.00%; run cutover shadow mutate SET --automation router)",)


def test_a_score_below_the_floor_is_not_ready_and_one_at_it_is(tmp_path: Path) -> None:
    _measure(tmp_path, "c0de", killed=7)
    low = parse_gate({"min_triggers": 1, "min_mutation_score": 0.8}, str(tmp_path / "pyproject.toml"))
    verdict = judge(GOOD, low.rules_for("router"), "c0de")
    assert verdict.failed == ("mutation score 70.00% is below the floor 80.00% (7 of 10 mutants killed by set demo; "
                              "3 mutant(s) not pinned down by the recordings)",)
    ok = parse_gate({"min_triggers": 1, "automations": {"router": {"min_mutation_score": 0.7}}},
                    str(tmp_path / "pyproject.toml"))
    verdict = judge(GOOD, ok.rules_for("router"), "c0de")
    assert verdict.ready and "mutation score 70.00% ≥ floor 70.00% (7 of 10 mutants killed by set demo)" in verdict.met


def test_the_section_escapes_and_lists_every_survivor() -> None:
    data = {"automation": "r<1>", "code_version": "c0de", "mutants": 2, "killed": 1, "survived": 1, "score": 0.5,
            "module": "m.py", "results": [
                {"status": "killed", "line": 3, "kind": "compare", "before": "a", "after": "b"},
                {"status": "survived", "line": 9, "kind": "constant", "before": "'<b>'", "after": "'XX<b>XX'",
                 "reason": "no agreeing recorded trigger reaches this line"}]}
    html = store.html_section([data])
    assert "r&lt;1&gt;" in html and "<td>9</td>" in html and "&#x27;XX&lt;b&gt;XX&#x27;" in html
    assert "<td>3</td>" not in html
    assert store.html_section([]) == ""
