"""Notion (v2.2) cases for ``app_oracle``: block.append, with the Notion API's reply (PATCH
/v1/blocks/{id}/children: a list of the appended block objects). The Notion-Version header is compared."""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

NOTION = "n8n-nodes-base.notion"
KEY = Credential("notionApi", {"apiKey": TOKEN})


def _block(kind: str, text: str) -> dict[str, object]:
    return {"object": "block", "id": "c02fc1d3-db8b-45c5-a222-27595b15aea7", "type": kind, "has_children": False,
            "archived": False, "created_time": "2024-01-01T00:00:00.000Z", "last_edited_time": "2024-01-01T00:00:00.000Z",
            kind: {"rich_text": [{"type": "text", "text": {"content": text, "link": None}, "plain_text": text,
                                  "href": None}], "color": "default"}}


_APPENDED = {"object": "list", "results": [_block("paragraph", "chunk one")], "next_cursor": None, "has_more": False,
             "type": "block", "block": {}}
_ITEMS = ({"notionPageId": "59833787-2cf9-4fdf-8782-e53db20768a5", "chunk": "chunk one"},
          {"notionPageId": "59833787-2cf9-4fdf-8782-e53db20768a5", "chunk": "chunk two, ünïcode"})

CASES = [
    AppCase("notion v2.2 block.append paragraph", NOTION, 2.2,
            {"blockId": {"__rl": True, "mode": "id", "value": "={{ $json.notionPageId }}"},
             "blockUi": {"blockValues": [{"textContent": "={{ $json.chunk }}"}]}, "resource": "block"},
            KEY, [Reply("PATCH", "/v1/blocks/*/children", _APPENDED)], items=_ITEMS, headers=("notion-version",)),
    AppCase("notion v2.2 block.append heading", NOTION, 2.2,
            {"blockId": {"__rl": True, "mode": "id", "value": "={{ $json.notionPageId }}"},
             "blockUi": {"blockValues": [{"textContent": "Recap", "type": "heading_1"}]}, "resource": "block"},
            KEY, [Reply("PATCH", "/v1/blocks/*/children", {**_APPENDED, "results": [_block("heading_1", "Recap")]})],
            items=_ITEMS[:1], headers=("notion-version",)),
]
