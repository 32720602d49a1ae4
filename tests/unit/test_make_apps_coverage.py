"""The catalogue's coverage table (operation × platform) and the Make areas' OPERATIONS it reads."""

from __future__ import annotations

from harness import catalogue
from harness.catalogue import coverage
from harness.platforms.make.translate.apps import app_translators
from harness.platforms.make.translate.apps._catalogue_map import make_operations


def test_the_table_lists_every_catalogue_operation() -> None:
    table = coverage.rows(coverage.platform_tables())
    listed = {(r.app, r.operation) for r in table}
    expected = {(a.name, o.name) for a in catalogue.apps().values() for o in a.operations.values()}
    assert listed == expected
    text = coverage.markdown(table)
    for app_name, op_name in expected:
        assert f"| {app_name} | {op_name} |" in text


def test_make_column_names_the_module_types() -> None:
    table = {(r.app, r.operation): r.steps for r in coverage.rows(coverage.platform_tables())}
    assert "airtable:ActionCreateRecord" in table[("airtable", "record.create")]["Make"]
    assert "twilio:SendSMS" in table[("twilio", "message.create")]["Make"]
    # a core APP_CALLS row of modules.py, matched by the URL it calls
    assert "slack:CreateMessage" in table[("slack", "message.post")]["Make"]
    assert table[("airtable", "record.create")]["Power Automate"] == []


def test_an_operation_outside_the_catalogue_is_named() -> None:
    tables = {"Make": {("airtable", "record.fly"): ["airtable:Fly"], ("airtable", "record.create"): ["x"]}}
    assert coverage.strays(tables) == [("Make", ("airtable", "record.fly"), ["airtable:Fly"])]
    text = coverage.markdown(coverage.rows(tables), coverage.strays(tables))
    assert "| Make | airtable | record.fly | `airtable:Fly` |" in text
    assert "record.fly" not in coverage.markdown(coverage.rows(tables))


def test_every_make_operation_exists_and_is_translated() -> None:
    found = make_operations()
    translated = app_translators()
    assert found, "no area declares OPERATIONS"
    for module_type, (app_name, op_name) in found.items():
        assert module_type in translated
        catalogue.operation(app_name, op_name)


def test_main_writes_the_markdown(tmp_path) -> None:
    target = tmp_path / "docs" / "catalogue.md"
    assert coverage.main(["--write", str(target)]) == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# The app catalogue: operation × platform")
    assert "| n8n | Make | Zapier | Power Automate |" in text
