"""HubSpot v2 contact search and list: n8n's body and query, every page or the limit, and its items (respx)."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlsplit

import httpx
import respx

from tests.support.app_calls import run_node, scaffold_node

BASES = {"hubspot": "https://api.hubapi.com"}
SEARCH = "https://api.hubapi.com/crm/v3/objects/contacts/search"
CONTACTS = "https://api.hubapi.com/contacts/v1/lists/all/contacts/all"
FOUND = {"id": "51", "properties": {"email": "ada@x.test"}, "archived": False}


def _node(operation: str, version: float = 2.1, **params: object) -> dict[str, object]:
    return {"name": "Hub", "type": "n8n-nodes-base.hubspot", "typeVersion": version,
            "parameters": {"authentication": "appToken", "operation": operation, **params}}


FILTERS = {"filterGroupsValues": [{"filtersUi": {"filterValues": [{"propertyName": "email|string",
                                                                 "value": "={{ $json.email }}"}]}}]}


@respx.mock
def test_search_posts_n8n_s_sorts_and_filters_with_the_limit_and_outputs_the_results() -> None:
    respx.post(SEARCH).mock(return_value=httpx.Response(200, json={"total": 1, "results": [FOUND]}))
    ctx, out, error = run_node(_node("search", filterGroupsUi=FILTERS), [{"email": "ada@x.test"}], BASES)
    assert error is None
    assert ctx.sent == [("hub", "POST", SEARCH, {
        "sorts": [{"propertyName": "createdate", "direction": "DESCENDING"}],
        "filterGroups": [{"filters": [{"propertyName": "email", "value": "ada@x.test", "operator": "EQ"}]}],
        "limit": 100})]
    assert out == [FOUND]


@respx.mock
def test_search_return_all_follows_paging_after_and_assigns_the_additional_fields_onto_the_body() -> None:
    respx.post(SEARCH).mock(side_effect=[
        httpx.Response(200, json={"results": [FOUND], "paging": {"next": {"after": "100"}}}),
        httpx.Response(200, json={"results": [{"id": "52"}]})])
    node = _node("search", returnAll=True, additionalFields={"sortBy": "email", "properties": ["email"]})
    ctx, out, error = run_node(node, [{}], BASES)
    assert error is None and len(ctx.sent) == 2
    first, second = ctx.sent
    assert parse_qsl(urlsplit(first[2]).query) == [("limit", "250"), ("count", "100")]
    assert first[3] == {"sorts": [{"propertyName": "email", "direction": "DESCENDING"}], "sortBy": "email",
                        "properties": ["email"], "limit": 100}
    assert second[3] == {**first[3], "after": "100"}
    assert out == [FOUND, {"id": "52"}]


@respx.mock
def test_get_all_lists_contacts_by_count_or_every_page_by_vid_offset() -> None:
    respx.get(CONTACTS).mock(side_effect=[
        httpx.Response(200, json={"contacts": [{"vid": 1}], "has-more": True, "vid-offset": 1}),
        httpx.Response(200, json={"contacts": [{"vid": 2}], "has-more": False, "vid-offset": 2})])
    ctx, out, error = run_node(_node("getAll", version=2, returnAll=True), [{}], BASES)
    assert error is None and out == [{"vid": 1}, {"vid": 2}]
    assert [parse_qsl(urlsplit(u).query) for _, _, u, _ in ctx.sent] == [
        [("limit", "250"), ("count", "100")], [("limit", "250"), ("count", "100"), ("vidOffset", "1")]]
    assert all(body is None for *_, body in ctx.sent)
    respx.get(CONTACTS).mock(return_value=httpx.Response(200, json={"contacts": [{"vid": 3}], "has-more": True}))
    ctx, out, error = run_node(_node("getAll", version=2, limit=7), [{}], BASES)
    assert error is None and out == [{"vid": 3}]
    assert parse_qsl(urlsplit(ctx.sent[0][2]).query) == [("count", "7")]


def test_operations_n8n_s_hubspot_v2_does_not_have_are_precise_todos_and_foreign_parameters_a_note() -> None:
    status, _ = scaffold_node(_node("create", version=2, resource="contact"))
    assert status.startswith("todo") and "has no contact.create operation" in status and "upsert" in status
    status, _ = scaffold_node(_node("getAll", version=2, filters={"x": 1}))  # n8n ignores it: a loud note
    assert status.startswith("translated: NOTE: filters is not read") and "n8n ignores" in status


def test_more_than_three_filter_groups_fail_as_n8n_does() -> None:
    groups = {"filterGroupsValues": [FILTERS["filterGroupsValues"][0]] * 4}
    _, out, error = run_node(_node("search", filterGroupsUi=groups), [{"email": "a@x.test"}], BASES)
    assert error is not None and "You can only have 3 filter groups" in str(error) and out is None
    assert json.dumps(groups)  # the parameters themselves stay JSON


@respx.mock
def test_company_update_puts_the_set_fields_by_hubspot_name_then_the_custom_properties() -> None:
    respx.put("https://api.hubapi.com/companies/v2/companies/77").mock(
        return_value=httpx.Response(200, json={"companyId": 77}))
    node = _node("update", version=2, resource="company", companyId="={{ $json.id }}", updateFields={
        "companyDomainName": "acme.test", "city": "", "annualRevenue": 1200,
        "customPropertiesUi": {"customPropertiesValues": [{"property": "tier", "value": ""}]}})
    ctx, out, error = run_node(node, [{"id": 77}], BASES)
    assert error is None and out == [{"companyId": 77}]
    assert ctx.sent[0][3] == {"properties": [{"name": "annualrevenue", "value": "1200"},
                                             {"name": "domain", "value": "acme.test"},
                                             {"name": "tier", "value": ""}]}  # an empty city is not sent


@respx.mock
def test_company_create_sends_the_name_first_and_foreign_fields_are_a_note() -> None:
    respx.post("https://api.hubapi.com/companies/v2/companies").mock(return_value=httpx.Response(200, json={"ok": 1}))
    ctx, _, error = run_node(_node("create", version=2, resource="company", name="Acme",
                                   additionalFields={"industry": "Retail"}), [{}], BASES)
    assert error is None and ctx.sent[0][3] == {"properties": [{"name": "name", "value": "Acme"},
                                                               {"name": "industry", "value": "Retail"}]}
    status, _ = scaffold_node(_node("create", version=2, resource="company", name="Acme", additionalFields={"domain": "x"}))
    assert status.startswith("translated: NOTE: additionalFields.domain is not read")  # n8n ignores it
