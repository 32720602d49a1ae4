"""Parameters n8n's nodes do not read: translated as n8n runs the node, with a loud note (HubSpot, legacy OpenAI)."""

from __future__ import annotations

from tests.support.app_calls import scaffold_node


def _hubspot(**params: object) -> dict[str, object]:
    return {"name": "H", "type": "n8n-nodes-base.hubspot", "typeVersion": 2, "parameters": {
        "authentication": "appToken", **params}}


def test_a_contact_list_with_search_filters_lists_every_contact_and_says_so() -> None:
    status, source = scaffold_node(_hubspot(resource="contact", operation="getAll", filters={"x": 1},
                                            additionalFields={"properties": ["email"]}))
    assert status.startswith("translated: NOTE: filters, additionalFields.properties are not read")
    assert "lists every contact" in status and "contacts/v1/lists/all/contacts/all" in source


def test_a_company_with_its_name_under_additional_fields_is_a_todo_n8n_refuses_to_run() -> None:
    status, _ = scaffold_node(_hubspot(resource="company", operation="create", additionalFields={"name": "ACME"}))
    assert status.startswith("todo: the required parameter name is empty (a name under additionalFields")
    status, _ = scaffold_node(_hubspot(resource="company", operation="create", name="ACME",
                                       additionalFields={"domain": "acme.test", "city": "Lisbon"}))
    assert status.startswith("translated: NOTE: additionalFields.domain is not read")


def test_a_legacy_openai_node_with_chat_messages_runs_text_complete_and_says_so() -> None:
    node = {"name": "O", "type": "n8n-nodes-base.openAi", "typeVersion": 1, "parameters": {
        "model": "gpt-4o-mini", "messages": {"values": []}, "options": {"temperature": 0.3, "responseFormat": "json"}}}
    status, source = scaffold_node(node)
    assert status.startswith("translated: NOTE: messages, options.responseFormat are not parameters")
    assert "runs text.complete" in status and "'https://api.openai.com/v1/completions'" in source
