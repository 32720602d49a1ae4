"""The project is found from the working directory, wherever the recording set lives, and its
whole ``[tool.cutover]`` table is checked before anything is replayed."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tests.plugin.conftest import PYPROJECT

# The project's pytest settings differ from pytest's defaults in ways the header shows.
PROJECT = PYPROJECT.replace('asyncio_default_fixture_loop_scope = "function"',
                            'asyncio_default_fixture_loop_scope = "function"\nasyncio_mode = "auto"')


def _set_elsewhere(project: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory) -> Path:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "demo"
    shutil.move(str(project.path / "recordings" / "demo"), elsewhere)
    return elsewhere


def test_a_set_outside_the_project_keeps_the_projects_settings_and_reports(
        project: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory) -> None:
    project.makefile(".toml", pyproject=textwrap.dedent(PROJECT))
    elsewhere = _set_elsewhere(project, tmp_path_factory)
    result = project.runpytest_subprocess("--shadow", str(elsewhere), "-p", "no:cacheprovider")
    out = result.stdout.str()
    assert result.ret == 1, out  # the set's one disagreement and one raising trigger fail
    assert f"rootdir: {project.path}" in out and "configfile: pyproject.toml" in out
    assert "asyncio: mode=Mode.AUTO" in out
    assert f"reports in {project.path / 'reports' / 'demo'}" in out
    # The project's automations module (shadow_demo) ran the triggers, under its gate (minimum 3).
    result.stdout.fnmatch_lines(["*notifier*READY*4 compared*", "*2 failed, 8 passed*"])
    summary = (project.path / "reports" / "demo" / "summary.json").read_text()
    assert "4 triggers compared (minimum 3)" in summary
    assert not (elsewhere.parent / "reports").exists()


def test_a_bad_provider_in_the_project_stops_a_run_of_a_set_elsewhere(
        project: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory) -> None:
    project.makefile(".toml", pyproject=textwrap.dedent(PYPROJECT) + '\n[tool.cutover.providers.crm]\nbase_url = "ftp://x"\n')
    result = project.runpytest_subprocess("--shadow", str(_set_elsewhere(project, tmp_path_factory)))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pyproject.toml: [[]tool.cutover.providers.crm[]] base_url: expected an http(s) URL*"])


def test_a_misspelt_gate_key_is_a_usage_error_before_any_replay(project: pytest.Pytester) -> None:
    project.makefile(".toml", pyproject=textwrap.dedent(PYPROJECT).replace("min_triggers = 3", "min_trigers = 3"))
    (project.path / "reports" / "demo").mkdir(parents=True)
    (project.path / "reports" / "demo" / "summary.json").write_text("{}")  # a previous run's
    result = project.runpytest_subprocess("--shadow", "recordings/demo")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: cutover: pyproject.toml: [[]tool.cutover.gate[]] min_trigers: unknown key (did you mean min_triggers?)"])
    assert "collected" not in result.stdout.str()
    assert (project.path / "reports" / "demo" / "summary.json").read_text() == "{}"


def test_a_bad_schedule_value_is_a_usage_error_too(project: pytest.Pytester) -> None:
    project.makefile(".toml", pyproject=textwrap.dedent(PYPROJECT)
                     + '\n[tool.cutover.schedules.nightly]\nautomation = "router"\ncatch_up = "every"\n')
    result = project.runpytest_subprocess("--shadow", "recordings/demo")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*[[]tool.cutover.schedules.nightly[]] catch_up: expected one of 'latest', 'all', 'none'*"])
