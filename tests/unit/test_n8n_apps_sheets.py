"""Google Sheets v4: spreadsheet create as n8n sends it (respx), and the precise TODOs of nodes n8n cannot run as exported."""

from __future__ import annotations

import httpx
import respx

from tests.support.app_calls import run_node, scaffold_node

BASES = {"google-sheets": "https://sheets.googleapis.com"}


def _node(**params: object) -> dict[str, object]:
    return {"name": "Sheet", "type": "n8n-nodes-base.googleSheets", "typeVersion": 4.7, "parameters": params}


@respx.mock
def test_spreadsheet_create_posts_the_title_and_each_sheet_s_properties_and_outputs_the_answer() -> None:
    answer = {"spreadsheetId": "s1", "properties": {"title": "Q3"}}
    respx.post("https://sheets.googleapis.com/v4/spreadsheets").mock(return_value=httpx.Response(200, json=answer))
    node = _node(resource="spreadsheet", title="={{ $json.name }}",
                 sheetsUi={"sheetValues": [{"title": "Top"}, {"title": "Drops", "hidden": True}]},
                 options={"locale": "en_GB"})
    ctx, out, error = run_node(node, [{"name": "Q3"}], BASES)
    assert error is None and out == [answer]
    assert ctx.sent[0][3] == {"properties": {"title": "Q3", "locale": "en_GB"}, "sheets": [
        {"properties": {"title": "Top", "hidden": False}}, {"properties": {"title": "Drops", "hidden": True}}]}


def test_an_empty_sheet_is_a_precise_todo_and_range_options_n8n_s_read_ignores_are_a_loud_note() -> None:
    empty = {"__rl": True, "value": "", "mode": "list"}
    status, _ = scaffold_node(_node(documentId=empty, sheetName=empty, options={}))
    assert status.startswith("todo") and "sheetName is empty" in status
    node = _node(operation="read", documentId={"__rl": True, "value": "d1", "mode": "id"},
                 sheetName={"__rl": True, "value": "gid=0", "mode": "list", "cachedResultName": "Sheet1"},
                 options={"rangeDefinition": "specifyRange", "range": "A:F"})
    status, _ = scaffold_node(node)
    assert status.startswith("translated: NOTE") and "options.range, options.rangeDefinition are not options" in status
    assert "reads the whole sheet" in status
