"""``cutover import`` run through click, on fixture exports, into a temporary recording set."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from harness._cli_recordings import register
from harness.manifest import load_manifest
from harness.recording import iter_pairs, iter_triggers

EXPORTS = Path(__file__).parents[1] / "fixtures" / "exports"


@click.group()
def cli() -> None:
    """Stand-in for the cutover group."""


register(cli)


@pytest.fixture(autouse=True)
def salt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTOVER_REDACTION_SALT", "test-salt")


def _import(*args: str) -> Result:
    return CliRunner().invoke(cli, ["import", *args], catch_exceptions=False)


def test_importing_n8n_executions_writes_a_loadable_set_and_prints_the_summary(tmp_path: Path) -> None:
    into = tmp_path / "2024-06"
    result = _import("n8n", str(EXPORTS / "n8n/executions_list.json"), "--automation", "github-triage", "--into", str(into))
    assert result.exit_code == 0, result.output
    assert "paired (trigger + legacy run): 3" in result.output
    assert "trigger-only (no legacy run to compare): 1" in result.output
    assert "14 days" in result.output
    pairs = list(iter_pairs(into / "github-triage"))
    assert len(pairs) == 4 and sum(trace is not None for _, trace in pairs) == 3
    assert pairs[0][0].headers["x-hub-signature-256"].startswith("redacted:")
    manifest = load_manifest(into / "manifest.toml")
    assert manifest.sources[0].retention_days == 14 and manifest.automations["github-triage"].platform == "n8n"


def test_a_malformed_export_stops_the_import_and_writes_nothing(tmp_path: Path) -> None:
    into = tmp_path / "set"
    result = CliRunner().invoke(cli, ["import", "n8n", str(EXPORTS / "n8n/executions_one_malformed.json"),
                                      "--automation", "github-triage", "--into", str(into)])
    assert result.exit_code == 1
    assert "record 1005, field 'data.resultData.runData'" in result.output
    assert not into.exists()


def test_skip_bad_reports_skipped_records_and_marks_the_set_incomplete(tmp_path: Path) -> None:
    into = tmp_path / "set"
    result = _import("zapier", str(EXPORTS / "zapier/zap_runs_malformed.json"), "--automation", "payment-dunning",
                     "--into", str(into), "--skip-bad")
    assert result.exit_code == 0, result.output
    assert "skipped malformed records: 2" in result.output
    assert "field 'status': expected a status string, got an array" in result.output
    assert load_manifest(into / "manifest.toml").sources[0].skipped_records == 2


def test_a_reimport_replaces_the_automations_files_without_duplicating_triggers(tmp_path: Path) -> None:
    args = ("zapier", str(EXPORTS / "zapier/zap_runs.json"), "--automation", "payment-dunning", "--into", str(tmp_path))
    _import(*args)
    result = _import(*args)
    assert result.exit_code == 0, result.output
    ids = [t.id for t in iter_triggers(tmp_path / "payment-dunning" / "triggers.jsonl")]
    assert len(ids) == len(set(ids)) == 5


def test_csv_import_uses_map_options(tmp_path: Path) -> None:
    maps = ["--map", "run_id=Run", "--map", "received_at=Timestamp", "--map", "status=Outcome", "--map", "path=Steps",
            "--map", "decision.route=Route", "--map", "body.email=Email", "--map", "error=Error"]
    result = _import("csv", str(EXPORTS / "tabular/runs.csv"), "--automation", "lead-router", "--into", str(tmp_path), *maps)
    assert result.exit_code == 0, result.output
    line = (tmp_path / "lead-router" / "legacy.jsonl").read_text().splitlines()[0]
    assert json.loads(line)["decisions"] == {"route": "enterprise"}


def test_make_logs_without_details_pair_with_recorded_triggers_by_time(tmp_path: Path) -> None:
    _import("make", str(EXPORTS / "make/scenario_logs.json"), "--automation", "lead-router", "--into", str(tmp_path))
    (tmp_path / "lead-router" / "legacy.jsonl").unlink()
    result = _import("make", str(EXPORTS / "make/scenario_logs_no_details.json"), "--automation", "lead-router",
                     "--into", str(tmp_path), "--blueprint", str(EXPORTS / "make/blueprint.json"), "--pair-window", "30s")
    assert result.exit_code == 0, result.output
    assert "paired (trigger + legacy run): 3" in result.output


def test_a_bad_pair_window_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["import", "csv", str(EXPORTS / "tabular/runs.csv"), "--automation", "a",
                                      "--into", str(tmp_path), "--pair-window", "soon"])
    assert result.exit_code == 2 and "--pair-window" in result.output


def test_a_missing_salt_is_reported_with_the_variable_to_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUTOVER_REDACTION_SALT")
    result = CliRunner().invoke(cli, ["import", "csv", str(EXPORTS / "tabular/runs.csv"), "--automation", "a",
                                      "--into", str(tmp_path)])
    assert result.exit_code == 1 and "CUTOVER_REDACTION_SALT" in result.output


def test_a_definition_given_as_the_export_exits_non_zero_naming_the_definition_option(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["import", "n8n", str(EXPORTS / "n8n/workflow_download.json"), "--automation", "a",
                                      "--into", str(tmp_path)])
    assert result.exit_code == 1
    assert "n8n workflow" in result.output and "includeData=true" in result.output and "--definition" in result.output


def test_status_only_runs_exit_non_zero_with_the_reason_unless_kept(tmp_path: Path) -> None:
    args = ["import", "zapier", str(EXPORTS / "zapier/zap_runs_api.json"), "--automation", "a", "--into", str(tmp_path)]
    refused = CliRunner().invoke(cli, args)
    assert refused.exit_code == 1 and "nothing replayable" in refused.output and "cutover record" in refused.output
    kept = CliRunner().invoke(cli, [*args, "--keep-unreplayable"])
    assert kept.exit_code == 0 and "evidence depth (what each trace can prove): status: 5" in kept.output
    assert "unknown zap run status 'sleepwalking'" in kept.output


def test_power_automate_imports_with_its_flow_definition(tmp_path: Path) -> None:
    result = _import("power-automate", str(EXPORTS / "power-automate/runs_list.json"), "--automation", "triage",
                     "--into", str(tmp_path), "--definition", str(EXPORTS / "power-automate/flow_definition.json"))
    assert result.exit_code == 0, result.output
    assert "status+path+decisions+outputs: 1" in result.output and "status+path+decisions: 1" in result.output
    line = json.loads((tmp_path / "triage" / "legacy.jsonl").read_text().splitlines()[0])
    assert line["decisions"] == {"Is_high_priority": "true", "Route_by_region": "EU"}
    assert load_manifest(tmp_path / "manifest.toml").automations["triage"].platform == "power-automate"


def test_a_definition_given_to_the_import_becomes_the_entrys_definition_relative_to_the_set(tmp_path: Path) -> None:
    into = tmp_path / "sets" / "2024-06"
    result = _import("n8n", str(EXPORTS / "n8n/executions_api_list_no_workflow.json"), "--automation", "orders",
                     "--into", str(into), "--definition", str(EXPORTS / "n8n/workflow_download.json"),
                     "--keep-unreplayable")
    assert result.exit_code == 0, result.output
    named = load_manifest(into / "manifest.toml").automations["orders"].definition
    assert named is not None and (into / named).resolve() == (EXPORTS / "n8n/workflow_download.json").resolve()
    assert not named.startswith("/")  # relative, so the set moves with its project


def test_an_import_keeps_a_definition_a_person_named_and_names_none_for_a_file_of_several_workflows(tmp_path: Path) -> None:
    args = ["n8n", str(EXPORTS / "n8n/executions_api_list_no_workflow.json"), "--automation", "orders",
            "--into", str(tmp_path), "--keep-unreplayable"]
    assert _import(*args, "--definition", str(EXPORTS / "n8n/workflows_export_all.json")).exit_code == 0
    assert load_manifest(tmp_path / "manifest.toml").automations["orders"].definition is None
    text = (tmp_path / "manifest.toml").read_text()
    (tmp_path / "manifest.toml").write_text(text.replace('coercion = "n8n"\n', 'coercion = "n8n"\ndefinition = "mine.json"\n', 1))
    assert _import(*args, "--definition", str(EXPORTS / "n8n/workflow_download.json")).exit_code == 0
    assert load_manifest(tmp_path / "manifest.toml").automations["orders"].definition == "mine.json"


def _scaffold_then_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> Result:
    from harness._cli_scaffold import scaffold

    monkeypatch.chdir(tmp_path)
    group = click.Group(commands={"scaffold": scaffold})
    register(group)
    runner = CliRunner()
    made = runner.invoke(group, ["scaffold", "n8n", str(EXPORTS / "n8n/workflow_download.json"), "--automation", "orders",
                                 "--into", "automations", "--set", "set"], catch_exceptions=False)
    assert made.exit_code == 0, made.output
    assert load_manifest(tmp_path / "set" / "manifest.toml").automations["orders"].definition
    return runner.invoke(group, ["import", "n8n", str(EXPORTS / "n8n/executions_api_list_no_workflow.json"),
                                 "--automation", "orders", "--into", "set", "--keep-unreplayable", *extra],
                         catch_exceptions=False)


def test_an_import_without_definition_uses_the_definition_the_manifest_entry_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _scaffold_then_import(tmp_path, monkeypatch)
    assert result.exit_code == 0, result.output
    assert "workflow_download.json (the manifest's definition; --definition overrides it)" in result.output
    bare = _import("n8n", str(EXPORTS / "n8n/executions_api_list_no_workflow.json"), "--automation", "orders",
                   "--into", str(tmp_path / "bare"), "--keep-unreplayable")
    assert bare.exit_code == 0, bare.output
    with_definition = (tmp_path / "set" / "orders" / "legacy.jsonl").read_text()
    assert with_definition != (tmp_path / "bare" / "orders" / "legacy.jsonl").read_text()


def test_a_definition_flag_wins_over_the_manifest_entrys_definition(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flag = ["--definition", str(EXPORTS / "n8n/workflow_download.json")]
    assert _scaffold_then_import(tmp_path, monkeypatch, *flag).exit_code == 0
    manifest = tmp_path / "set" / "manifest.toml"
    named = load_manifest(manifest).automations["orders"].definition
    assert named
    manifest.write_text(manifest.read_text().replace(f'definition = "{named}"', 'definition = "gone.json"'))
    args = ["import", "n8n", str(EXPORTS / "n8n/executions_api_list_no_workflow.json"), "--automation", "orders",
            "--into", "set", "--keep-unreplayable"]
    assert CliRunner().invoke(cli, args).exit_code != 0  # the manifest's definition is read without the flag
    result = CliRunner().invoke(cli, [*args, *flag])
    assert result.exit_code == 0, result.output
    assert "the manifest's definition" not in result.output


def test_a_manifest_definition_naming_a_missing_file_stops_the_import(tmp_path: Path) -> None:
    (tmp_path / "manifest.toml").write_text('format = 1\nname = "s"\n[automations.orders]\nplatform = "n8n"\n'
                                            'definition = "gone.json"\n')
    result = CliRunner().invoke(cli, ["import", "n8n", str(EXPORTS / "n8n/executions_api_list_no_workflow.json"),
                                      "--automation", "orders", "--into", str(tmp_path), "--keep-unreplayable"])
    assert result.exit_code != 0
    assert "automations.orders.definition" in result.output and "gone.json does not exist" in result.output


@pytest.mark.parametrize(("maps", "said"), [
    (["--map", "recieved_at=Timestamp"], "--map recieved_at=Timestamp: unknown field (did you mean received_at?)"),
    ([], "no column for received_at: pass --map received_at=COLUMN (columns: Run, Timestamp, Outcome,"),
    (["--map", "received_at=Timestamp", "--map", "status=Outcome", "--map", "decision.route=Rout"],
     "the file has no column 'Rout' (columns: Run, Timestamp,"),
])
def test_csv_map_mistakes_exit_non_zero_naming_the_field_and_the_columns(tmp_path: Path, maps: list[str], said: str) -> None:
    result = CliRunner().invoke(cli, ["import", "csv", str(EXPORTS / "tabular/runs.csv"), "--automation", "lead-router",
                                      "--into", str(tmp_path), *maps])
    assert result.exit_code != 0
    assert said in result.output
    assert not (tmp_path / "lead-router").exists()


def test_the_first_n8n_import_proposes_providers_that_make_call_urls_relative_once_uncommented(tmp_path: Path) -> None:
    args = ["n8n", str(EXPORTS / "n8n/executions_fan_out.json"), "--automation", "orders", "--into", str(tmp_path)]
    assert _import(*args).exit_code == 0
    calls = json.loads((tmp_path / "orders" / "legacy.jsonl").read_text().splitlines()[0])["calls"]
    assert (calls[0]["provider"], calls[0]["url"]) == (None, "https://api.example.com/notify")
    manifest = tmp_path / "manifest.toml"
    text = manifest.read_text()
    assert '# [automations.orders.providers]\n# "api.example.com" = "example"\n' in text
    manifest.write_text(text.replace('# [automations.orders.providers]\n# "api.example.com"',
                                     '[automations.orders.providers]\n"api.example.com"'))
    assert _import(*args).exit_code == 0
    calls = json.loads((tmp_path / "orders" / "legacy.jsonl").read_text().splitlines()[0])["calls"]
    assert (calls[0]["provider"], calls[0]["url"]) == ("example", "/notify")
    assert load_manifest(manifest).automations["orders"].providers == {"api.example.com": "example"}


def test_record_names_an_unset_secret_variable_rather_than_asking_for_the_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOPE_SECRET", raising=False)
    args = ["record", "--into", str(tmp_path), "--automation", "foo", "--verify", "github"]
    given = CliRunner().invoke(cli, [*args, "--secret-env", "NOPE_SECRET"])
    assert given.exit_code == 2 and "the environment variable NOPE_SECRET is not set" in given.output
    missing = CliRunner().invoke(cli, args)
    assert missing.exit_code == 2 and "set --secret-env to a variable holding the webhook secret" in missing.output
