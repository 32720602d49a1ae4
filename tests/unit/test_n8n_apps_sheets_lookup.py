"""Google Sheets v4 reads with row filters and Append or Update Row, as n8n 1.123's node runs them (respx)."""

from __future__ import annotations

import httpx
import respx

from queue_core.compat._n8n_sheets import encode_range, prepare_sheet, upsert_plan
from tests.support.app_calls import run_node, scaffold_node

BASES = {"google-sheets": "https://sheets.googleapis.com"}
DOC = "https://sheets.googleapis.com/v4/spreadsheets/d1"
SHEET = [["Branch ID", "Name", "", "Rate"], ["7", "North"], [], [12, "East", "", 0.5], ["7", "Again", "x"]]
LOCATOR = {"__rl": True, "value": "gid=0", "mode": "list", "cachedResultName": "Sheet1"}


def _properties() -> None:
    sheets = {"sheets": [{"properties": {"sheetId": 5, "title": "Other"}}, {"properties": {"sheetId": 0, "title": "Sheet1"}}]}
    respx.get(DOC, params={"fields": "sheets.properties"}).mock(return_value=httpx.Response(200, json=sheets))


def _read(version: float = 4.7, **params: object) -> dict[str, object]:
    return {"name": "Sheet", "type": "n8n-nodes-base.googleSheets", "typeVersion": version, "parameters": {
        "documentId": {"__rl": True, "value": "d1", "mode": "id"}, "sheetName": LOCATOR, **params}}


def _lookup(version: float, filters: list[dict[str, str]], items: list[dict[str, object]], **params: object
            ) -> tuple[list[dict[str, object]] | None, Exception | None]:
    _properties()
    respx.get(f"{DOC}/values/'Sheet1'").mock(return_value=httpx.Response(200, json={"values": SHEET}))
    _, out, error = run_node(_read(version, filtersUI={"values": filters}, **params), items, BASES)
    return out, error


def test_prepare_sheet_numbers_rows_and_drops_the_empty_rows_and_header_less_empty_columns() -> None:
    assert prepare_sheet([["a", "", "b"], [], ["1", "", ""], ["", "", 2]]) == [
        ["row_number", "a", "b"], [3, "1", ""], [4, "", 2]]


@respx.mock
def test_filters_keep_every_row_whose_column_equals_the_value_as_text_and_all_of_them_by_default() -> None:
    out, error = _lookup(4.7, [{"lookupColumn": "Branch ID", "lookupValue": "={{ $json.id }}"}], [{"id": 7}])
    assert error is None
    assert out == [{"row_number": 2, "Branch ID": "7", "Name": "North", "col_3": "", "Rate": ""},
                   {"row_number": 5, "Branch ID": "7", "Name": "Again", "col_3": "x", "Rate": ""}]


@respx.mock
def test_a_number_cell_matches_its_text_and_first_match_from_v4_6_ends_the_whole_lookup() -> None:
    filters = [{"lookupColumn": "Branch ID", "lookupValue": "12"}, {"lookupColumn": "Name", "lookupValue": "North"}]
    out, _ = _lookup(4.7, filters, [{}], combineFilters="OR", options={"returnFirstMatch": True})
    assert out == [{"row_number": 4, "Branch ID": 12, "Name": "East", "col_3": "", "Rate": 0.5}]


@respx.mock
def test_before_v4_6_first_match_takes_the_first_row_of_each_filter() -> None:
    filters = [{"lookupColumn": "Branch ID", "lookupValue": "12"}, {"lookupColumn": "Name", "lookupValue": "North"}]
    out, _ = _lookup(4.5, filters, [{}], combineFilters="OR", options={"returnFirstMatch": True})
    assert [row["row_number"] for row in out or []] == [4, 2]


@respx.mock
def test_and_filters_need_every_column_to_match_and_a_missing_column_fails_as_n8n_does() -> None:
    filters = [{"lookupColumn": "Branch ID", "lookupValue": "7"}, {"lookupColumn": "Name", "lookupValue": "Again"}]
    out, _ = _lookup(4.7, filters, [{}])
    assert [row["row_number"] for row in out or []] == [5]
    respx.reset()
    _, error = _lookup(4.7, [{"lookupColumn": "Nope", "lookupValue": "1"}], [{}])
    assert error is not None and 'The column "Nope" could not be found' in str(error)


@respx.mock
def test_a_read_with_range_options_n8n_ignores_reads_the_whole_sheet_once_per_item_with_a_note() -> None:
    status, _ = scaffold_node(_read(4.5, options={"rangeDefinition": "specifyRange", "range": "A:F"}))
    assert status.startswith("translated: NOTE: options.range, options.rangeDefinition are not options")
    _properties()
    read = respx.get(f"{DOC}/values/'Sheet1'").mock(return_value=httpx.Response(200, json={"values": SHEET}))
    ctx, out, error = run_node(_read(4.5, options={"range": "A:B"}), [{}, {}], BASES)
    assert error is None and read.call_count == 2 and [call[1] for call in ctx.sent] == ["GET"] * 3
    assert (out or [])[:3] == [{"row_number": 2, "Branch ID": "7", "Name": "North", "col_3": "", "Rate": ""},
                               {"row_number": 4, "Branch ID": 12, "Name": "East", "col_3": "", "Rate": 0.5},
                               {"row_number": 5, "Branch ID": "7", "Name": "Again", "col_3": "x", "Rate": ""}]
    assert len(out or []) == 6


def test_filters_of_a_v4_1_read_are_a_todo_n8n_looks_them_up_together() -> None:
    status, _ = scaffold_node(_read(4.1, filtersUI={"values": [{"lookupColumn": "a", "lookupValue": "1"}]}))
    assert status.startswith("todo") and "v4–v4.1" in status


def _upsert(version: float = 4.5, **options: object) -> dict[str, object]:
    columns = {"mappingMode": "defineBelow", "matchingColumns": ["id"],
               "value": {"id": "={{ $json.id }}", "title": "={{ $json.title }}", "n": "={{ $json.n }}"},
               "schema": [{"id": "id"}, {"id": "title"}, {"id": "n"}]}
    return {"name": "Sheet", "type": "n8n-nodes-base.googleSheets", "typeVersion": version, "parameters": {
        "operation": "appendOrUpdate", "documentId": {"__rl": True, "value": "d1", "mode": "id"},
        "sheetName": LOCATOR, "columns": columns, "options": options}}


def _sheet_routes(values: list[list[object]]) -> None:
    _properties()
    respx.get(f"{DOC}/values/'Sheet1'").mock(return_value=httpx.Response(200, json={"values": values}))
    respx.post(f"{DOC}/values:batchUpdate").mock(return_value=httpx.Response(200, json={}))
    respx.post(f"{DOC}:batchUpdate").mock(return_value=httpx.Response(200, json={}))
    respx.put(url__startswith=f"{DOC}/values/Sheet1!").mock(return_value=httpx.Response(200, json={}))
    respx.post(url__startswith=f"{DOC}/values/Sheet1!").mock(return_value=httpx.Response(200, json={}))


@respx.mock
def test_append_or_update_writes_matching_rows_cells_and_appends_the_others_after_the_last_row() -> None:
    _sheet_routes([["id", "title", "n"], ["a", "old", "1"], ["b", "keep"]])
    items = [{"id": "b", "title": "new", "n": {"k": 1}}, {"id": "c", "title": "added"}]
    ctx, out, error = run_node(_upsert(), items, BASES)
    assert error is None
    assert out == [{"id": "b", "title": "new", "n": {"k": 1}}, {"id": "c", "title": "added", "n": ""}]
    calls = [(method, url.split("d1")[1], body) for _, method, url, body in ctx.sent]
    assert calls[0][:2] == ("GET", "?fields=sheets.properties")
    assert calls[1][:2] == ("GET", "/values/'Sheet1'?valueRenderOption=FORMATTED_VALUE&dateTimeRenderOption=FORMATTED_STRING")
    assert calls[2] == ("POST", "/values:batchUpdate", {"data": [
        {"range": "Sheet1!B3", "values": [["new"]]}, {"range": "Sheet1!C3", "values": [['{"k":1}']]}],
        "valueInputOption": "USER_ENTERED"})
    assert calls[3] == ("POST", ":batchUpdate", {"requests": [
        {"appendDimension": {"sheetId": "0", "dimension": "ROWS", "length": 1}}]})
    assert calls[4] == ("PUT", "/values/Sheet1!4:4?valueInputOption=USER_ENTERED",
                        {"range": "Sheet1!4:4", "values": [["c", "added", ""]]})


@respx.mock
def test_use_append_posts_the_new_rows_with_null_for_unset_columns() -> None:
    _sheet_routes([["id", "title", "n", "extra"], ["a", "old", "1"]])
    ctx, _, error = run_node(_upsert(4.7, useAppend=True, cellFormat="RAW"), [{"id": "z", "title": "t"}], BASES)
    assert error is None
    assert [(m, u.split("d1")[1], b) for _, m, u, b in ctx.sent][2:] == [
        ("POST", "/values/Sheet1!3:3:append?valueInputOption=RAW",
         {"range": "Sheet1!3:3", "values": [["z", "t", "", None]]})]


@respx.mock
def test_a_renamed_column_fails_the_node_with_n8n_s_message_from_v4_4() -> None:
    _sheet_routes([["id", "headline", "n"]])
    _, _, error = run_node(_upsert(4.5), [{"id": "x"}], BASES)
    assert error is not None and "Column names were updated" in str(error) and "title -> headline" in str(error)


def test_upsert_plan_matches_key_cells_read_once_and_encode_range_quotes_a_bare_title() -> None:
    updates, appended = upsert_plan([["k", "v"], [1, "a"]], "S", "k", [{"k": "1", "v": "b"}, {"k": 2}, {"k": 2}])
    assert updates == [{"range": "S!B2", "values": [["b"]]}]
    assert appended == [[2, ""], [2, ""]]
    assert encode_range("My sheet") == "%27My%20sheet%27" or encode_range("My sheet") == "'My%20sheet'"
    assert encode_range("My sheet!A1:B2") == "My%20sheet!A1:B2"
