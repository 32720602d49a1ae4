"""Make branch coverage: router routes, error handlers and If-else branches, named as the importer records them.

The blueprint is written here in Make's export format; the round trips import a scenario log
(the module-level form: ``modules[{id, status, output}]``) with ``cutover import make``'s parser.
"""

from __future__ import annotations

from typing import Any

from harness.coverage import coverage
from harness.manifest import AutomationEntry, Coercion, DecisionMap
from harness.platforms.make.branches import blueprint_branches
from harness.platforms.make.definition import load_blueprint
from harness.platforms.make.history import parse_log
from harness.recording import LegacyTrace, Platform


def _module(ident: int, app: str, name: str | None = None, **extra: Any) -> dict[str, Any]:
    designer = {"designer": {"name": name}} if name else {}
    return {"id": ident, "module": app, "version": 1, "mapper": {}, "parameters": {}, "metadata": designer, **extra}


BLUEPRINT = {"name": "leads", "metadata": {"instant": True}, "flow": [
    _module(1, "gateway:CustomWebHook", "Hook"),
    _module(2, "http:ActionSendData", "Enrich", mapper={"url": "https://api.test/enrich"},
            onerror=[_module(20, "builtin:Ignore")]),
    _module(3, "builtin:BasicRouter", "Route", routes=[
        {"flow": [_module(4, "http:ActionSendData", "Big", filter={"name": "big", "conditions": []})]},
        {"flow": [_module(5, "http:ActionSendData", "Small")]},
        {"flow": []},
    ]),
    _module(6, "builtin:IfElse", "Check", branches=[
        {"label": "vip", "conditions": [[{"a": "{{1.vip}}", "o": "boolean:equal", "b": "true"}]],
         "flow": [_module(7, "builtin:BasicRouter", "Inner", routes=[{"flow": [_module(8, "util:SetVariable2")]}])]},
        {"type": "else", "flow": [_module(9, "util:SetVariable2")]},
    ]),
]}


def _entry(**kwargs: Any) -> AutomationEntry:
    return AutomationEntry("leads", Platform.MAKE, Coercion.MAKE, **kwargs)


def _branches(tmp_path: Any, entry: AutomationEntry | None = None) -> list[Any]:
    import json

    path = tmp_path / "blueprint.json"
    path.write_text(json.dumps(BLUEPRINT))
    return blueprint_branches(load_blueprint(path), entry or _entry())


def _log(tmp_path: Any, ran: list[int], entry: AutomationEntry | None = None) -> LegacyTrace:
    import json

    path = tmp_path / "blueprint.json"
    path.write_text(json.dumps(BLUEPRINT))
    modules = [{"id": 1, "status": "success", "output": [{"email": "a@b.test"}]}]
    modules += [{"id": i, "status": "success", "output": [{}]} for i in ran]
    log = {"id": "e1", "status": 1, "timestamp": "2024-06-01T10:00:00Z", "scenarioId": 7, "modules": modules}
    trace = parse_log(log, load_blueprint(path), entry or _entry(), "logs.json", "#1").trace
    assert trace is not None
    return trace


def test_every_route_error_handler_and_if_else_branch_is_listed(tmp_path: Any) -> None:
    found = _branches(tmp_path)
    assert [(b.node, b.kind, b.output, b.read) for b in found] == [
        ("Enrich", "error-handler", "error", "ran"),
        ("Route", "router", "big", "decision"), ("Route", "router", "1", "decision"),
        ("Route", "router", "2", "unreadable"),  # an empty route: no module can show it ran
        ("Check", "if-else", "vip", "ran"), ("Check", "if-else", "else", "ran"),
        ("Inner", "router", "0", "ran"),  # inside an If-else branch: the importer records no decision for it
    ]


def test_the_taken_branches_are_the_ones_the_imported_log_shows(tmp_path: Any) -> None:
    found = _branches(tmp_path)
    trace = _log(tmp_path, [2, 20, 3, 4, 6, 7, 8])  # Enrich failed into its handler; big route; vip; inner route
    taken = {(c.branch.node, c.branch.output): c.taken for c in coverage(found, [trace], Coercion.MAKE)}
    assert taken == {("Enrich", "error"): 1, ("Route", "big"): 1, ("Route", "1"): 0, ("Route", "2"): None,
                     ("Check", "vip"): 1, ("Check", "else"): 0, ("Inner", "0"): 1}
    other = _log(tmp_path, [2, 3, 5, 6, 9])
    taken = {(c.branch.node, c.branch.output): c.taken for c in coverage(found, [other], Coercion.MAKE)}
    assert taken[("Route", "1")] == 1 and taken[("Check", "else")] == 1 and taken[("Enrich", "error")] == 0


def test_decision_and_step_maps_rename_what_the_importer_renames(tmp_path: Any) -> None:
    entry = _entry(decisions={"Route": DecisionMap("route", {"big": "large"})}, steps={"20": "ignored-error"})
    found = _branches(tmp_path, entry)
    assert ("route", "large") in [(b.decision, b.value) for b in found]
    handler = next(b for b in found if b.kind == "error-handler")
    assert handler.steps == ("ignored-error",)
    trace = _log(tmp_path, [2, 20, 3, 4], entry)
    taken = {(c.branch.node, c.branch.output): c.taken for c in coverage(found, [trace], Coercion.MAKE)}
    assert taken[("Enrich", "error")] == 1 and taken[("Route", "big")] == 1


def test_a_handler_mapped_out_of_the_path_cannot_be_shown(tmp_path: Any) -> None:
    handler = next(b for b in _branches(tmp_path, _entry(steps={"20": ""})) if b.kind == "error-handler")
    assert handler.read == "unreadable" and "mapped to" in handler.note
