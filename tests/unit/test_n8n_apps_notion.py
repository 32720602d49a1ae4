"""Notion v2: block append (n8n's PATCH of the block's children) and database page create, Simplify on and off (respx answers)."""

from __future__ import annotations

import httpx
import respx

from queue_core.compat import n8n
from tests.support.app_calls import run_node, scaffold_node

BASES = {"notion": "https://api.notion.com"}


def _node(version: float, block: dict[str, object], blocks: list[dict[str, object]]) -> dict[str, object]:
    return {"name": "Append", "type": "n8n-nodes-base.notion", "typeVersion": version,
            "parameters": {"resource": "block", "blockId": block, "blockUi": {"blockValues": blocks}}}


@respx.mock
def test_append_patches_the_children_with_n8n_s_notion_version_and_outputs_the_answer() -> None:
    answer = {"object": "list", "results": [{"object": "block", "id": "b1"}]}
    route = respx.patch("https://api.notion.com/v1/blocks/page-42/children").mock(
        return_value=httpx.Response(200, json=answer))
    node = _node(2.2, {"__rl": True, "mode": "id", "value": "={{ $json.page }}"},
                 [{"textContent": "Minutes", "type": "heading_1"}, {"textContent": "={{ $json.text }}"}])
    ctx, out, error = run_node(node, [{"page": "page-42", "text": "hello"}], BASES)
    assert error is None and route.call_count == 1
    assert route.calls[0].request.headers["Notion-Version"] == "2021-08-16"
    assert ctx.sent[0][3] == {"children": [
        {"object": "block", "type": "heading_1", "heading_1": {"text": [{"text": {"content": "Minutes"}}]}},
        {"object": "block", "type": "paragraph", "paragraph": {"text": [{"text": {"content": "hello"}}]}}]}
    assert out == [answer]


def test_before_v2_2_the_block_id_is_cut_out_of_a_page_url_as_n8n_does() -> None:
    assert n8n.notion_page_id("https://www.notion.so/My-Page-0123abcd") == "0123abcd"
    assert n8n.notion_page_id("https://www.notion.so/x?v=1&p=fe12") == "fe12"
    assert n8n.notion_page_id("0123abcd") == "0123abcd"
    status, source = scaffold_node(_node(2, {"__rl": True, "mode": "id", "value": "abc"}, []))
    assert status.startswith("translated") and "n8n.notion_page_id('abc')" in source


def test_a_block_chosen_by_url_or_with_rich_text_stays_a_todo() -> None:
    status, _ = scaffold_node(_node(2.2, {"__rl": True, "mode": "url", "value": "https://www.notion.so/p-1"}, []))
    assert status.startswith("todo") and "choose it by id" in status
    status, _ = scaffold_node(_node(2.2, {"__rl": True, "mode": "id", "value": "b"},
                                    [{"type": "paragraph", "richText": True}]))
    assert status.startswith("todo") and "rich text" in status


@respx.mock
def test_database_page_create_reads_the_title_key_once_then_posts_n8n_s_body_per_item() -> None:
    db = "2ca31cc6-fd56-8079-8a58-d74ec1097a36"
    respx.get(f"https://api.notion.com/v1/databases/{db}").mock(return_value=httpx.Response(200, json={
        "properties": {"Name": {"type": "title"}, "Tags": {"type": "multi_select"}}}))
    respx.post("https://api.notion.com/v1/pages").mock(return_value=httpx.Response(200, json={"object": "page"}))
    node = {"name": "Page", "type": "n8n-nodes-base.notion", "typeVersion": 2.2, "parameters": {
        "resource": "databasePage", "simple": False, "title": "={{ $json.t }}",
        "databaseId": {"__rl": True, "mode": "list", "value": db},
        "propertiesUi": {"propertyValues": [
            {"key": "Tags|multi_select", "multiSelectValue": "a, b"}, {"key": "Stage|select", "selectValue": ""},
            {"key": "Link|url", "urlValue": "", "ignoreIfEmpty": True}, {"key": "Note|rich_text", "textContent": "n"}]},
        "options": {"icon": "👓", "iconType": "emoji"}}}
    ctx, out, error = run_node(node, [{"t": "First"}, {"t": ""}], BASES)
    assert error is None and [s[1] for s in ctx.sent] == ["GET", "POST", "POST"] and out == [{"object": "page"}] * 2
    first, second = ctx.sent[1][3], ctx.sent[2][3]
    assert first == {"parent": {"database_id": db}, "properties": {
        "Name": {"title": [{"text": {"content": "First"}}]},
        "Tags": {"type": "multi_select", "multi_select": [{"name": "a"}, {"name": "b"}]},
        "Stage": {"type": "select", "select": None},
        "Note": {"rich_text": [{"text": {"content": "n"}}]}}, "children": [], "icon": {"emoji": "👓"}}
    assert "Name" not in second["properties"]  # an empty title is not sent


@respx.mock
def test_database_page_create_with_simplify_on_outputs_the_page_reshaped_as_n8n_does() -> None:
    respx.get("https://api.notion.com/v1/databases/d").mock(return_value=httpx.Response(200, json={
        "properties": {"標題": {"type": "title"}}}))
    page = {"object": "page", "id": "p1", "url": "https://www.notion.so/p1", "parent": {"type": "database_id"},
            "properties": {"標題": {"type": "title", "title": [{"type": "text", "plain_text": "Hi"}]},
                           "Reading Time": {"type": "number", "number": 7}}}
    respx.post("https://api.notion.com/v1/pages").mock(return_value=httpx.Response(200, json=page))
    node = {"name": "Page", "type": "n8n-nodes-base.notion", "typeVersion": 2, "parameters": {
        "resource": "databasePage", "databaseId": {"__rl": True, "mode": "id", "value": "d"}, "title": "Hi"}}
    status, source = scaffold_node(node)
    assert status.startswith("translated") and "n8n.notion_simplified(response)" in source
    _, out, error = run_node(node, [{}], BASES)
    assert error is None
    assert out == [{"id": "p1", "name": "Hi", "url": "https://www.notion.so/p1", "property_": "Hi", "property_reading_time": 7}]


def test_database_page_create_with_simplify_given_by_an_expression_is_a_todo() -> None:
    node = {"name": "Page", "type": "n8n-nodes-base.notion", "typeVersion": 2, "parameters": {
        "resource": "databasePage", "simple": "={{ $json.s }}", "databaseId": {"__rl": True, "mode": "id", "value": "d"}}}
    status, _ = scaffold_node(node)
    assert status.startswith("todo") and "Simplify given by an expression" in status
