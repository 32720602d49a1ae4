"""Automation names given on the command line that no automation has are refused with the closest one."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from harness.cli import cli
from harness.manifest import load_manifest

EXPORT = Path(__file__).parents[1] / "fixtures" / "exports" / "n8n" / "executions_list.json"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project registering handle-ticket and welcome; the working directory for the test.

    (Names no other test module registers: in-process runs share one registry.)"""
    (tmp_path / "pyproject.toml").write_text('[tool.cutover]\nautomations = "namedautos"\n')
    (tmp_path / "namedautos.py").write_text(textwrap.dedent('''
        from queue_core import automation

        @automation("handle-ticket", version=1)
        async def handle_ticket(ctx, trigger):
            ctx.decide("ok", True)

        @automation("welcome", version=1)
        async def welcome(ctx, trigger):
            ctx.decide("ok", True)
    '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CUTOVER_REDACTION_SALT", "test-salt")
    monkeypatch.delenv("DATABASE_URL", raising=False)  # the imports need none
    return tmp_path


def _cutover(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def test_the_worker_refuses_an_allow_ungated_name_no_automation_has(
        project: Path, fresh_db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", fresh_db_url)  # --drain: a worker that started would stop soon
    result = _cutover("worker", "--drain", "--allow-ungated", "handle-tiket")
    assert result.exit_code == 2, result.output
    assert "no automation is registered as 'handle-tiket' (did you mean 'handle-ticket'?)" in result.stderr
    assert "Registered: " in result.stderr and "handle-ticket, " in result.stderr


def _import(project: Path, automation: str, *extra: str) -> Result:
    return _cutover("import", "n8n", str(EXPORT), "--automation", automation, "--into", str(project / "set"), *extra)


def test_an_import_into_a_misspelt_manifest_automation_is_refused_naming_the_closest(project: Path) -> None:
    assert _import(project, "paired-items").exit_code == 0
    result = _import(project, "paired-itme")
    assert result.exit_code == 2, result.output
    assert "'paired-itme' is no automation of" in result.stderr and "(did you mean 'paired-items'?)" in result.stderr
    assert not (project / "set" / "paired-itme").exists()
    assert set(load_manifest(project / "set" / "manifest.toml").automations) == {"paired-items"}


def test_an_import_under_a_misspelt_registered_name_is_refused(project: Path) -> None:
    result = _import(project, "handle-tiket")
    assert result.exit_code == 2, result.output
    assert "(did you mean 'handle-ticket'?)" in result.stderr


def test_an_import_into_a_new_automation_says_it_is_new(project: Path) -> None:
    result = _import(project, "order-router")
    assert result.exit_code == 0, result.output
    assert "new automation 'order-router'" in result.output
    again = _import(project, "order-router")
    assert again.exit_code == 0 and "new automation" not in again.output


def test_new_imports_a_name_close_to_a_known_one(project: Path) -> None:
    assert _import(project, "welcomer").exit_code == 2  # close to welcome: taken for a typo without --new
    result = _import(project, "welcomer", "--new")
    assert result.exit_code == 0, result.output
    assert "new automation 'welcomer'" in result.output
    assert (project / "set" / "welcomer" / "triggers.jsonl").is_file()
