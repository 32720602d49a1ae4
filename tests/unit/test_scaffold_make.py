"""`cutover scaffold make`: blueprints in, automations that run with Make's semantics out."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from harness.cli import cli
from harness.errors import ExportFormatError
from harness.manifest import load_manifest
from harness.platforms.make.definition import load_blueprint
from harness.platforms.make.translate import build, scaffold
from queue_core.context import Trigger
from queue_core.errors import Filtered, TerminalError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "workflows" / "make"


class Offline:
    """The part of the Context a scaffolded scenario uses: decisions, calls answered by step."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.decisions: dict[str, Any] = {}
        self.calls: list[tuple[str, str, str, dict[str, Any]]] = []
        self.answers = answers or {}

    def decide(self, name: str, value: Any) -> None:
        self.decisions[name] = value

    def filter(self, reason: str) -> None:
        raise Filtered(reason)

    def now(self) -> datetime:
        return datetime(2024, 6, 7, 9, 30, tzinfo=UTC)

    async def sleep(self, seconds: float) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, **kwargs: Any) -> httpx.Response:
        self.calls.append((provider, method, url, {"step": step, **kwargs}))
        answer = self.answers.get(step, {"ok": True})
        if isinstance(answer, Exception):
            raise answer
        return httpx.Response(200, json=answer)


def _function(name: str, automation: str) -> Any:
    scaffold = build(load_blueprint(FIXTURES / name), automation, {})
    namespace: dict[str, Any] = {}
    source = scaffold.source.replace(f"@automation({automation!r}, version=1", "@(lambda **_: (lambda f: f))(x=1")
    exec(compile(source, name, "exec"), namespace)
    return namespace[automation.replace("-", "_")]


def _run(name: str, automation: str, body: Any, ctx: Offline | None = None, source: str = "test") -> tuple[Offline, str | None]:
    ctx = ctx or Offline()
    outcome = None
    try:
        asyncio.run(_function(name, automation)(ctx, Trigger("t", None, {}, body, source)))
    except (Filtered, TerminalError) as exc:
        outcome = f"{type(exc).__name__}: {exc}"
    return ctx, outcome


LEAD = "lead-router.blueprint.json"
ENRICHED = {"enrich-company": {"statusCode": 200, "headers": [], "data": {"name": "Globex", "employees": 5200}}}


def test_every_route_whose_filter_passes_runs_in_order_and_the_decision_lists_them() -> None:
    ctx, outcome = _run(LEAD, "lead-router", {"email": "Ana@Globex.example", "domain": " Globex.Example ",
                                              "plan": "enterprise"}, Offline(ENRICHED))
    assert outcome is None
    assert ctx.decisions == {"size-router": "enterprise"}
    assert [c[3]["step"] for c in ctx.calls] == ["enrich-company", "create-enterprise-contact"]
    assert ctx.calls[0][3]["json"] == {"domain": "globex.example"}  # lower(trim(1.domain))
    assert ctx.calls[1][:3] == ("crm", "POST", "https://crm.example.test/v1/contacts")
    assert ctx.calls[1][3]["json"] == {"email": "ana@globex.example", "company": "Globex", "tier": "enterprise", "seats": 1}


def test_two_routes_that_both_pass_are_both_taken() -> None:
    answers = {"enrich-company": {"statusCode": 200, "data": {"name": "Tiny", "employees": 12}}}
    ctx, outcome = _run(LEAD, "lead-router", {"email": "x@tiny.example", "plan": "Enterprise", "seats": 3}, Offline(answers))
    # "Enterprise" passes the enterprise route (text:equal:ci); no domain: the third route too
    assert outcome is None and ctx.decisions == {"size-router": ["enterprise", "no domain"]}
    assert ctx.calls[1][3]["json"]["seats"] == 3


def test_a_router_that_sends_the_bundle_down_no_route_ends_the_run_filtered() -> None:
    answers = {"enrich-company": {"statusCode": 200, "data": {"name": "Acme", "employees": None}}}
    ctx, outcome = _run(LEAD, "lead-router", {"email": "a@acme.example", "domain": "acme.example", "plan": "pro"},
                        Offline(answers))
    assert outcome is not None and outcome.startswith("Filtered: router 'size-router'")
    assert ctx.decisions == {}  # employees is not a number: neither numeric filter passes


def test_a_live_http_answer_is_wrapped_into_makes_bundle() -> None:
    answers = {"enrich-company": {"name": "Globex", "employees": 20}}  # a plain body, as a live call gives
    ctx, outcome = _run(LEAD, "lead-router", {"email": "a@g.example", "domain": "g.example", "plan": "pro"}, Offline(answers))
    assert outcome is None and ctx.decisions == {"size-router": "smb"}
    assert ctx.calls[1][3]["json"]["company"] == "Globex"


def test_an_iterator_loops_and_its_aggregator_collects_the_bundles_its_filter_let_through() -> None:
    body = {"id": "o-1", "lines": [{"sku": "ab", "qty": 2}, {"sku": "cd", "qty": 0}, {"sku": "ef", "qty": "3"}]}
    ctx, outcome = _run("order-lines.blueprint.json", "order-lines", body)
    assert outcome is None
    assert ctx.calls == [("orders", "POST", "https://orders.example.test/v1/summaries",
                          {"step": "post-summary", "json": {"order": "o-1", "lines": "AB x 2, EF x 3", "count": 2}})]


def test_an_aggregator_that_gets_no_bundle_outputs_none() -> None:
    ctx, outcome = _run("order-lines.blueprint.json", "order-lines", {"id": "o-2", "lines": [{"sku": "a", "qty": 0}]})
    assert outcome is None and ctx.calls == []


def test_a_module_filter_stops_the_bundle_without_filtering_the_run() -> None:
    recorded = {"statusCode": 200, "data": {"status": "OK"}}
    ctx, outcome = _run("status-poll.blueprint.json", "status-poll", recorded)
    assert outcome is None and ctx.calls == []  # text:notequal:ci "ok": "OK" is ok


def test_a_replay_starts_from_the_recorded_first_bundle_and_a_live_tick_runs_the_poll() -> None:
    recorded = {"statusCode": 200, "data": {"status": "Degraded"}}
    ctx, outcome = _run("status-poll.blueprint.json", "status-poll", recorded)
    assert outcome is None and [c[3]["step"] for c in ctx.calls] == ["raise-alert"]
    assert ctx.calls[0][3]["json"] == {"message": "Status is degraded", "day": "2024-06-07"}  # formatDate(now; …)
    live = Offline({"get-status": {"status": "major outage"}})
    ctx, outcome = _run("status-poll.blueprint.json", "status-poll", None, live, source="schedule")
    assert [c[:3] for c in ctx.calls] == [("status", "GET", "https://status.example.test/api/v2/status.json"),
                                          ("alerts", "POST", "https://alerts.example.test/v1/alerts")]
    assert ctx.calls[0][3]["params"] == {"component": "api"}


def test_an_ignore_handler_swallows_a_terminal_failure_but_never_a_todo() -> None:
    answers = {"raise-alert": TerminalError("[422] rejected")}
    ctx, outcome = _run("status-poll.blueprint.json", "status-poll", {"statusCode": 200, "data": {"status": "down"}},
                        Offline(answers))
    assert outcome is None
    ctx, outcome = _run("ticket-triage.blueprint.json", "ticket-triage", {"payload": '{"priority": "low", "title": "x"}'})
    assert outcome is not None and "'Log to sheet' is not translated yet" in outcome  # Ignore does not hide it


def test_if_else_runs_the_first_matching_branch_then_continues_after_the_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    from queue_core.compat import make

    queues: list[Any] = []

    class Watch(make.Run):
        def emit(self, module: int, bundle: Any) -> Any:
            if module == 7:  # Get variable, after the Merge
                queues.append(bundle["queue"])
            return super().emit(module, bundle)

    monkeypatch.setattr(make, "Run", Watch)
    channels = []
    for payload in ('{"priority": "URGENT", "title": "down"}', '{"priority": "low", "team": "web"}', '{"priority": "low"}'):
        ctx, outcome = _run("ticket-triage.blueprint.json", "ticket-triage", {"payload": payload})
        assert outcome is not None and "'Log to sheet' is not translated yet" in outcome
        channels += [c[3]["json"]["channel"] for c in ctx.calls]
    assert queues == ["on-call", "web", "backlog"] and channels == queues


def test_an_app_module_with_a_documented_rest_call_is_translated_to_it(tmp_path: Path) -> None:
    ctx, _ = _run("ticket-triage.blueprint.json", "ticket-triage", {"payload": '{"priority": "urgent", "title": "DB down"}'},
                  Offline({"post-to-slack": {"ok": True, "ts": "1.2"}}))
    assert ctx.calls == [("slack", "POST", "https://slack.com/api/chat.postMessage",
                          {"step": "post-to-slack", "json": {"channel": "on-call", "text": "DB down"}})]
    blueprint = {"name": "t", "flow": [
        {"id": 1, "module": "gateway:CustomWebHook", "version": 1, "mapper": {}},
        {"id": 2, "module": "lokalise:getATask", "version": 1, "mapper": {"task_id": "{{1.task.id}}", "project_id": "p.1"}}]}
    (tmp_path / "t.json").write_text(json.dumps(blueprint))
    scaffold = build(load_blueprint(tmp_path / "t.json"), "t", {})
    namespace: dict[str, Any] = {}
    exec(compile(scaffold.source.replace("@automation('t', version=1)", ""), "t", "exec"), namespace)
    ctx = Offline()
    asyncio.run(namespace["t"](ctx, Trigger("x", None, {}, {"task": {"id": 42}}, "test")))
    assert ctx.calls == [("lokalise", "GET", "https://api.lokalise.com/api2/projects/p.1/tasks/42", {"step": "lokalise-getatask-2"})]
    configured = build(load_blueprint(tmp_path / "t.json"), "t", {"api.lokalise.com": "loc"})
    assert configured.providers == {"api.lokalise.com": "loc", "lokalise": "loc"} and not configured.proposals


def test_the_maps_name_steps_decisions_and_providers_as_the_make_importer_does() -> None:
    scaffold = build(load_blueprint(FIXTURES / LEAD), "lead-router", {"crm.example.test": "crm"})
    assert scaffold.steps == {"Lead form": "", "Enrich company": "enrich-company", "Size router": "",
                              "Create enterprise contact": "create-enterprise-contact",
                              "Create SMB contact": "create-smb-contact", "Remember skipped lead": ""}
    assert scaffold.decisions == {"Size router": "size-router"}
    assert scaffold.providers == {"enrich.example.test": "enrich", "crm.example.test": "crm"}
    assert scaffold.proposals == {"enrich": "https://enrich.example.test"}  # crm is configured already
    triage = build(load_blueprint(FIXTURES / "ticket-triage.blueprint.json"), "t", {})
    assert triage.steps["4"] == triage.steps["On call"] == "" and triage.steps["Log to sheet"] == "log-to-sheet"


def test_a_scheduling_beside_the_blueprint_becomes_the_cron() -> None:
    scaffold = build(load_blueprint(FIXTURES / "status-poll.blueprint.json"), "status-poll", {})
    assert scaffold.schedule == {"cron": "*/15 * * * *"} and scaffold.trigger_kind == "schedule"
    assert "schedule='*/15 * * * *'" in scaffold.source
    assert build(load_blueprint(FIXTURES / LEAD), "l", {}).trigger_kind == "webhook"


def test_an_unknown_filter_operator_leaves_the_module_todo_with_the_reason(tmp_path: Path) -> None:
    blueprint = json.loads((FIXTURES / LEAD).read_text())
    blueprint["flow"][2]["routes"][0]["flow"][0]["filter"]["conditions"][0][0]["o"] = "time:greater"
    (tmp_path / "b.json").write_text(json.dumps(blueprint))
    rows = {r.node: (r.status, r.why) for r in build(load_blueprint(tmp_path / "b.json"), "x", {}).rows}
    assert rows["Create enterprise contact"] == ("todo", "filter 'enterprise': filter operator 'time:greater' is not translated")


def test_an_untranslatable_expression_is_kept_verbatim_beside_the_todo(tmp_path: Path) -> None:
    blueprint = json.loads((FIXTURES / "order-lines.blueprint.json").read_text())
    blueprint["flow"][2]["mapper"]["value"] = "{{shuffle(2.sku)}}"
    (tmp_path / "b.json").write_text(json.dumps(blueprint))
    scaffold = build(load_blueprint(tmp_path / "b.json"), "x", {})
    assert ("Line text", "todo") in {(r.node, r.status) for r in scaffold.rows}
    assert '#       "value": "{{shuffle(2.sku)}}"' in scaffold.source and "IML function shuffle() is not translated" in scaffold.source


def test_an_edited_file_is_never_overwritten_without_force(tmp_path: Path) -> None:
    (first,), _ = scaffold(FIXTURES / LEAD, automation="lead-router", into=tmp_path)
    target = tmp_path / "lead_router.py"
    assert first.written and target.exists()
    target.write_text(target.read_text() + "\n# mine\n")
    (again,), _ = scaffold(FIXTURES / LEAD, automation="lead-router", into=tmp_path)
    assert not again.written and "-# mine" in again.diff and target.read_text().endswith("# mine\n")
    (forced,), _ = scaffold(FIXTURES / LEAD, automation="lead-router", into=tmp_path, force=True)
    assert forced.written and "# mine" not in target.read_text()


def test_a_run_log_is_not_a_blueprint_and_the_message_says_what_to_scaffold() -> None:
    with pytest.raises(ExportFormatError, match="this is a run log: scaffold reads the blueprint"):
        scaffold(FIXTURES / "estate" / "run-logs.json", automation=None, into=Path("/nonexistent"))


def test_the_estate_command_scaffolds_every_blueprint_skips_other_files_and_prints_one_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["scaffold", "make", str(FIXTURES / "estate"), "--into", str(tmp_path / "a"),
                                      "--set", str(tmp_path / "set")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["order_lines_summary.py", "status_poll.py"]
    assert "run-logs.json: not a blueprint" in result.output
    table = result.output.split("estate:")[1].splitlines()
    lines = {line.split()[0]: line for line in table[2:] if line.strip() and not line.strip()[0].isdigit()}
    assert "webhook" in lines["order-lines-summary"] and "schedule" in lines["status-poll"]
    assert "scenarios/4321/logs" in lines["status-poll"] and "--definition" in lines["status-poll"]
    assert "2 scenarios: 7 modules translated, 0 TODO" in result.output
    loaded = load_manifest(tmp_path / "set" / "manifest.toml")
    entry = loaded.automations["status-poll"]
    assert entry.steps == {"Get status": "", "Raise alert": "raise-alert"}
    assert entry.providers == {"status.example.test": "status", "alerts.example.test": "alerts"}
    assert loaded.automations["order-lines-summary"].providers["http"] == "orders"  # the importer's MakeRequest name


def test_a_repeater_feeds_a_text_aggregator_that_joins_its_rows(tmp_path: Path) -> None:
    blueprint = {"name": "Countdown", "flow": [
        {"id": 1, "module": "gateway:CustomWebHook", "version": 1, "mapper": {}, "metadata": {"designer": {"name": "Hook"}}},
        {"id": 2, "module": "builtin:BasicRepeater", "version": 1, "mapper": {"start": "{{1.from}}", "repeats": "3", "step": "-1"}},
        {"id": 3, "module": "util:TextAggregator", "version": 1, "parameters": {"feeder": 2, "rowSeparator": "other",
                                                                                 "otherSeparator": " / "},
         "filter": {"name": "odd", "conditions": [[{"a": "{{2.i % 2}}", "o": "number:equal", "b": "1"}]]},
         "mapper": {"value": "#{{2.i}}"}},
        {"id": 4, "module": "http:MakeRequest", "version": 4, "mapper": {
            "url": "https://chat.example.test/post", "method": "post", "contentType": "json", "inputMethod": "jsonString",
            "jsonStringBodyContent": "{\"text\": \"{{3.text}}\"}"}, "metadata": {"designer": {"name": "Post"}}}]}
    (tmp_path / "countdown.json").write_text(json.dumps(blueprint))
    scaffold = build(load_blueprint(tmp_path / "countdown.json"), "countdown", {})
    assert scaffold.todo == 0
    namespace: dict[str, Any] = {}
    exec(compile(scaffold.source.replace("@automation('countdown', version=1)", ""), "countdown", "exec"), namespace)
    ctx = Offline()
    asyncio.run(namespace["countdown"](ctx, Trigger("t", None, {}, {"from": 5}, "test")))
    # 5, 4, 3 from the Repeater; the filter before the aggregator keeps the odd ones
    assert [c[3]["json"] for c in ctx.calls] == [{"text": "#5 / #3"}]


def test_every_route_of_the_definition_is_listed_as_the_importer_names_the_decision() -> None:
    from harness.manifest import AutomationEntry, Coercion, DecisionMap
    from harness.recording import Platform
    from harness.platforms.make.branches import router_branches

    entry = AutomationEntry("lead-router", Platform.MAKE, Coercion.MAKE, decisions={"Size router": DecisionMap("size-router")})
    listed = [(b.node, b.output, b.decision, b.value) for b in router_branches(load_blueprint(FIXTURES / LEAD), entry)]
    assert listed == [("Size router", "enterprise", "size-router", "enterprise"),
                      ("Size router", "smb", "size-router", "smb"),
                      ("Size router", "no domain", "size-router", "no domain")]


def test_names_that_could_break_the_generated_code_stay_inside_strings(tmp_path: Path) -> None:
    blueprint = json.loads((FIXTURES / LEAD).read_text())
    blueprint["name"] = "2024 leads"
    blueprint["flow"][2]["routes"][0]["flow"][0]["filter"]["name"] = "big\nraise SystemExit"
    blueprint["flow"][2]["routes"][2]["flow"].append({"id": 9, "module": "acme:do\nraise SystemExit", "version": 1})
    (tmp_path / "b.json").write_text(json.dumps(blueprint))
    (written,), _ = scaffold(tmp_path / "b.json", automation=None, into=tmp_path / "out")
    assert written.scaffold.automation == "scenario-2024-leads"
    compile(written.path.read_text(), str(written.path), "exec")
    ctx, outcome = _run_source(written.path.read_text(), "scenario_2024_leads", {"email": "a@b.c", "domain": "b.c", "plan": "enterprise"})
    assert outcome is None and ctx.decisions == {"size-router": "big\nraise SystemExit"}


def _run_source(source: str, function: str, body: Any) -> tuple[Offline, str | None]:
    namespace: dict[str, Any] = {}
    exec(compile(source.replace("@automation(", "@(lambda *a, **k: (lambda f: f))("), "gen", "exec"), namespace)
    ctx = Offline(ENRICHED)
    asyncio.run(namespace[function](ctx, Trigger("t", None, {}, body, "test")))
    return ctx, None


@pytest.mark.parametrize(("flow", "field"), [
    ([{"id": "1", "module": "gateway:CustomWebHook"}], "flow[0]"),
    ([{"id": 1, "module": "builtin:BasicRouter", "routes": [{"flow": [{"module": "x:y"}]}]}], "flow[0].routes[0].flow[0]"),
    ([{"id": 1, "module": "builtin:BasicRouter", "routes": ["nope"]}], "flow[0].routes[0].flow"),
    ({"id": 1}, "flow"),
])
def test_a_malformed_blueprint_is_refused_naming_the_file_and_field(tmp_path: Path, flow: Any, field: str) -> None:
    (tmp_path / "bad.json").write_text(json.dumps({"name": "bad", "flow": flow}))
    with pytest.raises(ExportFormatError) as error:
        load_blueprint(tmp_path / "bad.json")
    assert error.value.field == field and str(tmp_path / "bad.json") in str(error.value)
