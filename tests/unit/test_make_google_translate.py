"""Make's Google modules as the translator reads them: a field it does not read is a TODO naming it, never dropped."""

from __future__ import annotations

from harness.platforms.make.definition import Module
from harness.platforms.make.translate.base import Gen
from harness.platforms.make.translate.modules import translate


def _module(app: str, mapper: dict, parameters: dict | None = None, version: int = 2) -> Module:
    return Module(id=5, app=app, version=version, label=f"{app}#5", mapper=mapper, parameters=parameters or {})


def _gen() -> Gen:
    return Gen({}, steps={5: "step-5"})


def test_an_unread_mapper_field_is_a_todo_naming_it() -> None:
    code = translate(_module("google-sheets:addRow", {"spreadsheetId": "1", "sheetId": "S", "values": {"0": "a"},
                                                      "tableRange": "A1:B9"}), _gen())
    assert code.todo == "the tableRange field is not translated"


def test_an_empty_unread_field_is_no_obstacle() -> None:
    code = translate(_module("google-sheets:addRow", {"spreadsheetId": "1", "sheetId": "S", "values": {"0": "a"},
                                                      "tableRange": ""}), _gen())
    assert code.todo is None


def test_a_missing_required_field_is_a_todo() -> None:
    assert translate(_module("google-sheets:updateRow", {"spreadsheetId": "1", "sheetId": "S", "values": {"0": "a"}}),
                     _gen()).todo == "the rowNumber field is not mapped"


def test_gmail_collection_body_is_a_todo_with_its_reason() -> None:
    code = translate(_module("google-email:sendAnEmail", {"to": ["a@example.com"], "bodyType": "collection",
                                                          "contents": [{"text": "hi"}]}, version=4), _gen())
    assert code.todo is not None and "collection" in code.todo


def test_sheets_and_calendar_share_no_provider_by_accident() -> None:
    gen = _gen()
    translate(_module("google-sheets:getSheetContent", {"spreadsheetId": "1", "sheetId": "S", "range": "A1:B2"}), gen)
    assert gen.hosts["google-sheets"] == gen.hosts["sheets.googleapis.com"] == "sheets"


def test_every_operation_named_exists_in_the_catalogue_and_is_translated() -> None:
    import harness.catalogue as catalogue
    from harness.platforms.make.translate.apps import google, google_drive, google_mail

    for area in (google, google_mail, google_drive):
        for module_type, (app, operation) in area.OPERATIONS.items():
            assert module_type in area.TRANSLATORS, module_type
            assert catalogue.operation(app, operation) is not None


def test_a_date_mapped_into_a_cell_is_written_as_make_writes_it() -> None:
    from datetime import UTC, datetime
    from decimal import Decimal

    from queue_core.compat._make_google import cell_value

    assert cell_value(datetime(2024, 6, 3, 9, 30, tzinfo=UTC)) == "2024-06-03T09:30:00.000Z"
    assert (cell_value(None), cell_value(Decimal("2")), cell_value(Decimal("2.5")), cell_value("x")) == ("", 2, 2.5, "x")
