"""Notion v2's Simplify against n8n's own: the pages below, reshaped by n8n 1.123's ``simplifyObjects`` and by ``n8n.notion_simplified``.

n8n's Notion node calls api.notion.com, which the oracle cannot reach, so this compares the
reshaping itself: n8n's ``simplifyObjects`` (required from the installed n8n-nodes-base, run by
Node.js) and cutover's over the same pages Notion answers with: every property type n8n's
``simplifyProperty`` knows and one it does not, empty values, Chinese names (change-case 4's
``snakeCase`` keeps ASCII letters and digits only, so they collide on ``property_``, the last one
winning), camel-case and digit names, and pages under a database, a page and the workspace.
And the body the scaffolded *Create Database Page* sends: its date properties and rich-text blocks
against n8n's ``mapProperties`` and ``formatBlocks`` over the same parameters, read as n8n's run reads
them (``getNodeParameters`` filling every entry's defaults: ``includeTime`` true, the workflow's zone).
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import httpx
import pytest
import respx

from queue_core.compat import n8n

from tests.oracle import runner
from tests.oracle.conftest import require_oracle

_TEXT = [{"type": "text", "plain_text": "Hello ", "text": {"content": "Hello "}},
         {"type": "mention", "plain_text": "@ada", "mention": {"type": "user"}},
         {"type": "text", "plain_text": "world"}]
PROPERTIES: dict[str, Any] = {
    "標題": {"type": "title", "title": _TEXT},
    "連結": {"type": "url", "url": "https://example.com/a"},
    "摘要": {"type": "rich_text", "rich_text": _TEXT[:1]},
    "Reading Time": {"type": "number", "number": 7},
    "isDone": {"type": "checkbox", "checkbox": False},
    "HTTPStatus code": {"type": "select", "select": {"name": "open", "color": "red"}},
    "Empty select": {"type": "select", "select": None},
    "Tags": {"type": "multi_select", "multi_select": [{"name": "a"}, {"name": ""}, {"id": "x"}]},
    "Due": {"type": "date", "date": {"start": "2024-03-10", "end": None, "time_zone": None}},
    "Email": {"type": "email", "email": None},
    "Phone": {"type": "phone_number", "phone_number": "+1 555"},
    "Owner": {"type": "people", "people": [{"object": "user", "person": {"email": "ada@example.com"}}, {"object": "user"}]},
    "Created by": {"type": "created_by", "created_by": {"object": "user", "id": "u1"}},
    "Created": {"type": "created_time", "created_time": "2024-03-10T12:00:00.000Z"},
    "Edited": {"type": "last_edited_time", "last_edited_time": "2024-03-11T12:00:00.000Z"},
    "Related": {"type": "relation", "relation": [{"id": "p1"}, {"id": "p2"}], "has_more": False},
    "Score": {"type": "formula", "formula": {"type": "number", "number": 42}},
    "Count": {"type": "rollup", "rollup": {"type": "number", "number": 3, "function": "count"}},
    "Share": {"type": "rollup", "rollup": {"type": "number", "number": 0.25, "function": "percent_empty"}},
    "Names": {"type": "rollup", "rollup": {"type": "array", "function": "show_unique", "array": [
        {"type": "title", "title": _TEXT[:1]}, {"type": "title", "title": _TEXT[:1]}, {"type": "number", "number": 2}]}},
    "Files": {"type": "files", "files": [{"type": "external", "name": "f", "external": {"url": "https://example.com/f.png"}}]},
    "State": {"type": "status", "status": {"name": "Done"}},
    "ID": {"type": "unique_id", "unique_id": {"prefix": "T", "number": 5}},
    "2": {"type": "number", "number": 2},
    "狀態": {"type": "select", "select": {"name": "待閱讀"}},
}
PAGES: list[dict[str, Any]] = [
    {"object": "page", "id": "page-1", "url": "https://www.notion.so/page-1", "parent": {"type": "database_id", "database_id": "db"},
     "properties": PROPERTIES},
    {"object": "page", "id": "page-2", "url": "https://www.notion.so/page-2", "parent": {"type": "database_id", "database_id": "db"},
     "properties": {"Name": {"type": "title", "title": []}, "camelCaseName": {"type": "rich_text", "rich_text": []},
                    "a-b c": {"type": "number", "number": None}}},
    {"object": "page", "id": "page-3", "url": "https://www.notion.so/page-3", "parent": {"type": "page_id", "page_id": "p"},
     "properties": {"title": {"type": "title", "title": _TEXT}}},
    {"object": "page", "id": "page-4", "url": "https://www.notion.so/page-4", "parent": {"type": "workspace", "workspace": True},
     "properties": {"title": {"type": "title", "title": _TEXT[2:]}}},
    {"object": "database", "id": "db-1", "url": "https://www.notion.so/db-1", "title": [{"type": "text", "plain_text": "Reading"}],
     "properties": {}},
]
SCRIPT = """
const { simplifyObjects } = require('n8n-nodes-base/dist/nodes/Notion/shared/GenericFunctions.js');
const pages = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(pages.map((page) => simplifyObjects(page))));
"""


def _n8n(pages: list[dict[str, Any]]) -> list[Any]:
    done = subprocess.run(["node", "-e", SCRIPT], input=json.dumps(pages), cwd=str(runner.install_dir()),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def expected() -> list[Any]:
    require_oracle()
    return _n8n(PAGES)


@pytest.mark.parametrize("index", range(len(PAGES)))
def test_simplify_reshapes_a_notion_object_as_n8n_does(index: int, expected: list[Any]) -> None:
    got = [item["json"] for item in n8n.notion_simplified(httpx.Response(200, json=PAGES[index]))]
    assert json.loads(json.dumps(got)) == expected[index]


def test_chinese_names_collide_on_property_underscore_as_in_n8n(expected: list[Any]) -> None:
    row = expected[0][0]
    assert row["property_"] == "待閱讀" and row["name"] == "Hello "  # the title's first text only
    assert {"property_http_status_code", "property_is_done", "property_reading_time", "property_2"} <= set(row)


# -- the created page's body: date properties and rich-text blocks, against n8n's mapProperties and formatBlocks

ZONE = "Asia/Taipei"
BODY_PARAMETERS: dict[str, Any] = {
    "resource": "databasePage", "databaseId": {"__rl": True, "mode": "id", "value": "db"}, "title": "T",
    "propertiesUi": {"propertyValues": [
        {"key": "收藏日期|date", "date": "2024-03-10T23:30:00.000Z"},
        {"key": "Day|date", "date": "2024-03-10T23:30:00.000Z", "includeTime": False},
        {"key": "Naive|date", "date": "2024-03-10T08:15:00", "timezone": "America/New_York"},
        {"key": "Span|date", "range": True, "dateStart": "2024-03-01", "dateEnd": "2024-03-05T12:00:00+02:00", "timezone": "UTC"},
        {"key": "Reset|date", "date": ""},
        {"key": "摘要|rich_text", "textContent": "plain"},
    ]},
    "blockUi": {"blockValues": [
        {"type": "heading_1", "richText": True, "text": {"text": [{"text": "Title", "annotationUi": {"bold": True, "color": "blue"}}]}},
        {"richText": True, "text": {"text": [
            {"text": "see ", "annotationUi": {}},
            {"text": "here", "isLink": True, "textLink": "https://example.com", "annotationUi": {"underline": True}},
            {"textType": "mention", "mentionType": "date", "date": "2024-03-10", "annotationUi": {}},
            {"textType": "mention", "mentionType": "page", "page": "p-1"},
            {"textType": "equation", "expression": "e=mc^2"}]}},
        {"type": "to_do", "richText": True, "text": {"text": [{"text": "read"}]}},
        {"type": "to_do", "richText": True, "checked": True, "text": {"text": [{"text": "done"}]}},
        {},
        {"type": "bulleted_list_item"},
    ]},
}
BODY_SCRIPT = """
const { NodeHelpers } = require('n8n-workflow');
const { NotionV2 } = require('n8n-nodes-base/dist/nodes/Notion/v2/NotionV2.node.js');
const { mapProperties, formatBlocks } = require('n8n-nodes-base/dist/nodes/Notion/shared/GenericFunctions.js');
const { parameters, zone } = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const notion = new NotionV2({ displayName: 'Notion', name: 'notion', group: ['output'], defaultVersion: 2.2, description: '' });
// the parameters as n8n's run reads them: every entry's defaults filled (getNodeParameters, returnDefaults)
const p = NodeHelpers.getNodeParameters(notion.description.properties, parameters, true, false, { typeVersion: 2, parameters });
process.stdout.write(JSON.stringify({ properties: mapProperties(p.propertiesUi.propertyValues, zone, 2),
  children: formatBlocks(p.blockUi.blockValues) }));
"""


def test_date_properties_and_rich_text_blocks_are_sent_as_n8n_builds_them(monkeypatch: pytest.MonkeyPatch) -> None:
    require_oracle()
    from tests.support.app_calls import run_node

    done = subprocess.run(["node", "-e", BODY_SCRIPT], input=json.dumps({"parameters": BODY_PARAMETERS, "zone": ZONE}),
                          cwd=str(runner.install_dir()), capture_output=True, text=True, timeout=120, check=True)
    theirs = json.loads(done.stdout)
    monkeypatch.setenv("GENERIC_TIMEZONE", ZONE)  # the workflow sets none: the instance's zone, on both sides
    node = {"name": "Page", "type": "n8n-nodes-base.notion", "typeVersion": 2, "parameters": {**BODY_PARAMETERS, "simple": False}}
    with respx.mock:
        respx.get("https://api.notion.com/v1/databases/db").mock(return_value=httpx.Response(200, json={"properties": {}}))
        respx.post("https://api.notion.com/v1/pages").mock(return_value=httpx.Response(200, json={"object": "page"}))
        ctx, _, error = run_node(node, [{}], {"notion": "https://api.notion.com"})
    assert error is None
    sent = ctx.sent[1][3]
    assert {k: v for k, v in sent["properties"].items() if k != ""} == theirs["properties"]
    assert sent["children"] == theirs["children"]
    assert theirs["properties"]["收藏日期"]["date"]["start"] == "2024-03-11T07:30:00+08:00"
