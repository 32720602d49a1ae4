"""The one reader of pyproject.toml (queue_core.config.read_table): one error policy for every
section, naming the file, the TOML line where tomllib gives it, and the key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from queue_core import config
from queue_core.errors import ConfigError


def _pyproject(folder: Path, text: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_cutover_table_and_its_sub_tables_are_returned(tmp_path: Path) -> None:
    path = _pyproject(tmp_path, '[tool.cutover]\nautomations = "flows"\n[tool.cutover.gate]\nmin_triggers = 5\n')
    assert config.read_table(path) == {"automations": "flows", "gate": {"min_triggers": 5}}
    assert config.read_table(path, "gate") == {"min_triggers": 5}


def test_an_absent_table_or_no_project_is_empty(tmp_path: Path) -> None:
    path = _pyproject(tmp_path, '[project]\nname = "x"\n')
    assert config.read_table(path) == {}
    assert config.read_table(path, "providers") == {}
    assert config.read_table(None, "gate") == {}


def test_a_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found") as info:
        config.read_table(tmp_path / "nope.toml", "providers")
    assert info.value.source == str(tmp_path / "nope.toml")


def test_a_toml_syntax_error_names_the_file_and_the_line(tmp_path: Path) -> None:
    path = _pyproject(tmp_path, '[tool.cutover]\nautomations = "flows"\n[tool.cutover.gate\nmin_triggers = 5\n')
    with pytest.raises(ConfigError, match="not valid TOML") as info:
        config.read_table(path, "gate")
    assert (info.value.source, info.value.line) == (str(path), 3)
    assert str(info.value).startswith(f"{path}: not valid TOML") and "line 3" in str(info.value)


def test_text_that_is_not_utf8_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b'[tool.cutover]\nautomations = "fl\xffows"\n')
    with pytest.raises(ConfigError, match="not UTF-8") as info:
        config.read_table(path)
    assert info.value.source == str(path)


@pytest.mark.parametrize(("text", "keys", "field", "shown"), [
    ('tool = "cutover"\n', (), "tool", ", field 'tool': expected a table, got str 'cutover'"),
    ("[tool]\ncutover = 3\n", (), "tool.cutover", ": [tool] cutover: expected a table, got int 3"),
    ("[tool.cutover]\ngate = [1]\n", ("gate",), "tool.cutover.gate",
     ": [tool.cutover] gate: expected a table, got list [1]"),
    ("[tool.cutover.gate]\nautomations = 1\n", ("gate", "automations"), "tool.cutover.gate.automations",
     ": [tool.cutover.gate] automations: expected a table, got int 1"),
])
def test_a_value_that_is_not_a_table_names_the_file_and_the_key_path(
        tmp_path: Path, text: str, keys: tuple[str, ...], field: str, shown: str) -> None:
    path = _pyproject(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        config.read_table(path, *keys)
    assert (info.value.source, info.value.field) == (str(path), field)
    assert str(info.value) == f"{path}{shown}"


def test_finding_the_project_stops_at_a_malformed_pyproject_with_its_line(tmp_path: Path) -> None:
    _pyproject(tmp_path, "[tool.cutover]\nautomations = flows\n")
    below = tmp_path / "recordings" / "2024-06"
    below.mkdir(parents=True)
    with pytest.raises(ConfigError, match="not valid TOML") as info:
        config.find_project(below)
    assert info.value.line == 2


def test_the_project_table_is_found_from_a_folder_below_it(tmp_path: Path) -> None:
    _pyproject(tmp_path, '[tool.cutover.providers.crm]\nbase_url = "https://crm.test"\n')
    below = tmp_path / "recordings"
    below.mkdir()
    assert config.project_table("providers", start=below) == {"crm": {"base_url": "https://crm.test"}}
    assert config.project_table("gate", start=below) == {}


def test_loading_the_settings_follows_the_same_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = _pyproject(tmp_path, "[tool]\ncutover = 3\n")
    with pytest.raises(ConfigError) as info:
        config.load(path)
    assert (info.value.source, info.value.field) == ("pyproject.toml", "tool.cutover")
