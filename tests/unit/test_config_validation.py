"""One validator checks the whole ``[tool.cutover]`` table, and every command runs it first."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import cli
from queue_core import config
from queue_core.config import find_project, load, validate
from queue_core.errors import ConfigError, ConfigKeyError


def _error(table: dict) -> ConfigKeyError:
    with pytest.raises(ConfigKeyError) as info:
        validate(table)
    return info.value


def test_a_misspelt_gate_key_names_the_file_the_table_and_the_closest_key() -> None:
    error = _error({"gate": {"min_trigers": 3}})
    assert str(error) == "pyproject.toml: [tool.cutover.gate] min_trigers: unknown key (did you mean min_triggers?)"
    assert (error.source, error.table, error.key) == ("pyproject.toml", "tool.cutover.gate", "min_trigers")


def test_an_unknown_key_with_no_close_match_lists_the_known_ones() -> None:
    assert "expected one of automations, gate, providers, schedules, sources" in str(_error({"zzz": 1}))


@pytest.mark.parametrize(("table", "expected"), [
    ({"gate": {"agreement": 99.5}}, "[tool.cutover.gate] agreement: expected a number between 0 and 1"),
    ({"gate": {"min_triggers": -1}}, "[tool.cutover.gate] min_triggers: expected an integer >= 0"),
    ({"gate": {"branch_min": True}}, "[tool.cutover.gate] branch_min: expected an integer >= 0"),
    ({"gate": {"evidence": "everything"}}, "[tool.cutover.gate] evidence: expected one of 'status', 'path'"),
    ({"gate": {"branch_coverage": "all"}}, "[tool.cutover.gate] branch_coverage: expected one of 'legacy', 'definition'"),
    ({"gate": {"automations": {"a": {"agreemnt": 1}}}},
     "[tool.cutover.gate.automations.a] agreemnt: unknown key (did you mean agreement?)"),
    ({"gate": 3}, "[tool.cutover] gate: expected a table"),
    ({"automations": "my-automations"}, "[tool.cutover] automations: expected a module name"),
])
def test_a_bad_gate_or_top_level_value_says_what_was_expected(table: dict, expected: str) -> None:
    assert expected in str(_error(table))


@pytest.mark.parametrize(("entry", "expected"), [
    ({"catch_up": "some"}, "catch_up: expected one of 'latest', 'all', 'none'"),
    ({"catch_up_max": 0}, "catch_up_max: expected an integer >= 1"),
    ({"paused": "yes"}, "paused: expected true or false"),
    ({"payload": "{}"}, "payload: expected a table"),
    ({"cron": ""}, "cron: expected a non-empty string"),
    ({"timezon": "UTC"}, "timezon: unknown key (did you mean timezone?)"),
])
def test_each_schedule_table_is_checked_key_by_key(entry: dict, expected: str) -> None:
    good = {"automation": "a", "cron": "0 * * * *", "timezone": "UTC", "catch_up": "latest",
            "catch_up_max": 3, "paused": False, "payload": {"x": 1}}
    validate({"schedules": {"hourly": good}})
    assert f"[tool.cutover.schedules.hourly] {expected}" in str(_error({"schedules": {"hourly": {**good, **entry}}}))


def test_provider_tables_are_checked_by_the_provider_parser_and_name_file_and_key() -> None:
    error = _error({"providers": {"crm": {"base_url": "https://crm.example", "rate": ["1/q"]}}})
    assert str(error).startswith("pyproject.toml: [tool.cutover.providers.crm] rate")
    assert "expected a rate like" in str(error) and error.field.startswith("tool.cutover.providers.crm.rate")


def test_source_tables_are_checked_without_their_secrets_being_set() -> None:
    validate({"sources": {"gh": {"scheme": "github", "secret_env": "NOT_SET_ANYWHERE", "automations": ["a"]}}})
    assert "[tool.cutover.sources.gh] scheme: expected one of" in str(_error({"sources": {"gh": {"scheme": "gitlab"}}}))


def test_this_projects_own_configuration_is_valid() -> None:
    settings = load(Path(__file__).resolve().parents[2] / "pyproject.toml")
    assert settings.automations == "automations" and "hubspot" in settings.raw["providers"]


def _write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "pyproject.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_the_project_is_the_nearest_pyproject_with_a_cutover_table(tmp_path: Path) -> None:
    outer = _write(tmp_path, '[tool.cutover]\nautomations = "flows"\n')
    _write(tmp_path / "pkg", '[project]\nname = "pkg"\n')
    assert find_project(tmp_path / "pkg" / "deeper") == outer
    _write(tmp_path / "pkg", '[project]\nname = "pkg"\n\n[tool.cutover]\n')
    assert find_project(tmp_path / "pkg" / "deeper") == tmp_path / "pkg" / "pyproject.toml"


def test_load_from_a_subdirectory_roots_the_settings_at_the_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, '[tool.cutover]\nautomations = "flows"\n')
    (tmp_path / "recordings" / "set").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "recordings" / "set")
    settings = load()
    assert (settings.root, settings.automations) == (tmp_path.resolve(), "flows")


def test_load_rejects_a_bad_key_anywhere_in_the_table(tmp_path: Path) -> None:
    path = _write(tmp_path, '[tool.cutover]\nautomations = "flows"\n[tool.cutover.gate]\nmin_trigers = 3\n')
    with pytest.raises(ConfigError, match=r"\[tool.cutover.gate\] min_trigers: unknown key"):
        config.load(path)


@pytest.mark.parametrize("argv", [
    ["worker", "--drain"], ["enqueue", "a", "{}"], ["serve"], ["jobs", "show", "00000000-0000-0000-0000-000000000000"],
    ["migrate"], ["import", "--help-does-not-matter"],
])
def test_every_command_stops_on_a_bad_key_before_any_work(argv: list[str], tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, '[tool.cutover]\n[tool.cutover.gate]\nmin_trigers = 3\n')
    monkeypatch.chdir(tmp_path)
    # A database that cannot be reached: a command that got past the check would fail differently.
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none?connect_timeout=1")
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 2, result.output
    assert "pyproject.toml: [tool.cutover.gate] min_trigers: unknown key (did you mean min_triggers?)" in result.output
