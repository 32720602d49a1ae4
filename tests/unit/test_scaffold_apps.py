"""`cutover scaffold n8n`: app nodes (HubSpot, Stripe, Google Sheets) become the REST calls n8n makes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.platforms.n8n.translate import calls as _calls
from harness.platforms.n8n.translate.module import TRANSLATORS, build
from harness.platforms.n8n.translate.prove import _OfflineContext
from harness.platforms.n8n.definition import load_workflows
from queue_core.compat import n8n
from queue_core.context import Trigger
from queue_core.gateway import prepare
from queue_core.provider import ProviderConfig

FIXTURES = Path(__file__).parent.parent / "fixtures" / "workflows" / "n8n"
WORKFLOW = FIXTURES / "crm-apps.workflow.json"
CONTENT = FIXTURES / "content-apps.workflow.json"
BASES = {"hubspot": "https://api.hubapi.com", "stripe": "https://api.stripe.com",
         "google-sheets": "https://sheets.googleapis.com"}
OTHER_BASES = {"airtable": "https://api.airtable.com", "notion": "https://api.notion.com",
               "telegram": "https://api.telegram.org"}
SIGNUP = {"email": "ada@example.test", "first": "Ada", "last": "Lovelace", "plan": "pro", "vid": 901,
          "amount": 1200, "stripe_id": "cus_42"}
ANSWERS = {  # (method, URL without query) -> the recorded response body
    ("POST", "https://api.hubapi.com/contacts/v1/contact/createOrUpdate/email/ada@example.test"): {"vid": 901, "isNew": True},
    ("GET", "https://api.hubapi.com/contacts/v1/contact/vid/901/profile"): {"vid": 901, "properties": {}},
    ("POST", "https://api.hubapi.com/deals/v1/deal"): {"dealId": 77},
    ("GET", "https://api.stripe.com/v1/customers/cus_42"): {"id": "cus_42", "object": "customer"},
    ("POST", "https://api.stripe.com/v1/customers"): {"id": "cus_43", "object": "customer"},
    ("POST", "https://api.stripe.com/v1/charges"): {"id": "ch_1", "object": "charge"},
    ("GET", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values/Plans"):
        {"range": "Plans!A1:C3", "values": [["plan", "price", "note"], ["free", 0], ["pro", 12, "popular"]]},
    ("GET", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id"):  # n8n reads the sheets' titles first
        {"sheets": [{"properties": {"sheetId": 0, "title": "Plans"}}, {"properties": {"sheetId": 12345, "title": "Q3"}}]},
    ("GET", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values/'Plans'"):
        {"range": "Plans!A1:C3", "values": [["plan", "price", "note"], ["free", 0], ["pro", 12, "popular"]]},
    ("GET", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values/'Q3'"): {"values": [["q"], [3]]},
    ("POST", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values/Q3%20leads:append"): {"updates": {}},
    ("GET", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values/Customers"):
        {"values": [["email", "plan", "note"], ["bob@example.test", "free"], [], ["ada@example.test", "free", "old"]]},
    ("POST", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values:batchUpdate"): {"totalUpdatedCells": 2},
    ("POST", "https://api.airtable.com/v0/appK3yBase/tblArt1cles"): {"id": "rec1", "fields": {"Title": "Tides"}},
    ("POST", "https://api.notion.com/v1/pages"): {"object": "page", "id": "p1"},
}


def test_every_app_of_the_table_is_translated_by_the_scaffold() -> None:
    assert set(_calls.APP_TYPES) <= set(TRANSLATORS)
    assert {"github", "slack", "hubspot", "stripe", "googleSheets"} <= set(_calls.APP_TYPES)


class Recording(_OfflineContext):
    """A context whose calls are built as the gateway sends them (URL, body bytes) and answered from ANSWERS."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, str, str, Any]] = []
        self.headers: list[dict[str, str]] = []

    async def call(self, provider: str, method: str, url: str, **kwargs: Any) -> Any:
        step = kwargs.pop("step")
        request = prepare(ProviderConfig(provider, {**BASES, **OTHER_BASES}[provider]), method, url,
                          json=kwargs.get("json"), params=kwargs.get("params"), headers=kwargs.get("headers"), key="k",
                          data=kwargs.get("data"))
        body = None if request.body is None else (
            request.body.decode() if "data" in kwargs else json.loads(request.body))
        self.sent.append((step, request.method, request.url, body))
        self.headers.append(dict(request.headers))
        return httpx.Response(200, json=ANSWERS[(request.method, request.url.split("?")[0])])


def _scaffold(path: Path = WORKFLOW, **changes: dict[str, Any]) -> Any:
    (workflow,) = load_workflows(path)
    for name, params in changes.items():
        workflow.nodes[name.replace("_", " ")].parameters.update(params)
    return build(workflow, "crm-apps", {})


def _run(scaffold: Any, keep: set[str], ctx: Recording | None = None) -> tuple[Recording, n8n.Flow | None,
                                                                              Exception | None]:
    """Run the generated code with only the nodes in ``keep`` connected to the trigger."""
    source = scaffold.source.replace("@automation('crm-apps', version=1)", "")
    start = next(r.node for r in scaffold.rows if r.status == "trigger").lower()
    for row in scaffold.rows:
        if row.status != "trigger" and row.node not in keep:  # cut the node off: its input is empty
            var = row.node.lower().replace(" ", "_")
            source = source.replace(f"    items = {start}\n    {var}:", f"    items = []\n    {var}:")
            source = source.replace(f"    if {start}:\n        raise n8n.TodoNode({row.node!r}",
                                    f"    if []:\n        raise n8n.TodoNode({row.node!r}")
    namespace: dict[str, Any] = {}
    exec(compile(source, "gen", "exec"), namespace)
    ctx = ctx or Recording()
    error = None
    try:
        asyncio.run(namespace["crm_apps"](ctx, Trigger("t", None, {}, SIGNUP, "test")))
    except Exception as exc:  # the run's failure is what some tests assert
        error = exc
    return ctx, (ctx.n8n_flows[-1] if ctx.n8n_flows else None), error


def test_hubspot_upsert_posts_the_set_properties_then_reads_the_profile_back_as_n8n_does() -> None:
    ctx, _, error = _run(_scaffold(), {"Upsert contact"})
    assert error is None
    assert ctx.sent == [
        ("upsert-contact", "POST", "https://api.hubapi.com/contacts/v1/contact/createOrUpdate/email/ada@example.test",
         {"properties": [{"property": "firstname", "value": "Ada"}, {"property": "lastname", "value": "Lovelace"},
                         {"property": "signup_plan", "value": "pro"}]}),
        ("upsert-contact", "GET", "https://api.hubapi.com/contacts/v1/contact/vid/901/profile", None)]


def test_hubspot_upsert_with_resolve_data_makes_one_call() -> None:
    ctx, _, error = _run(_scaffold(Upsert_contact={"options": {"resolveData": True}}), {"Upsert contact"})
    assert error is None and [s[1] for s in ctx.sent] == ["POST"]


def test_hubspot_contact_get_and_deal_create_send_n8n_s_requests() -> None:
    ctx, _, error = _run(_scaffold(), {"Get contact", "Create deal"})
    assert error is None
    assert ctx.sent == [
        ("get-contact", "GET", "https://api.hubapi.com/contacts/v1/contact/vid/901/profile?showListMemberships=true",
         None),
        ("create-deal", "POST", "https://api.hubapi.com/deals/v1/deal",
         {"properties": [{"name": "dealstage", "value": "appointmentscheduled"},
                         {"name": "dealname", "value": "Signup ada@example.test"},
                         {"name": "closedate", "value": 1719792000000}, {"name": "amount", "value": 1200},
                         {"name": "pipeline", "value": "default"}], "associations": {}})]


def test_stripe_customer_get_reads_the_customer() -> None:
    ctx, flow, error = _run(_scaffold(), {"Get customer"})
    assert error is None
    assert ctx.sent == [("get-customer", "GET", "https://api.stripe.com/v1/customers/cus_42", None)]
    assert flow is not None and flow.outputs["Get customer"][0] == [{"json": {"id": "cus_42", "object": "customer"}}]


def test_sheets_append_sends_one_row_in_the_schema_s_column_order_and_outputs_what_it_wrote() -> None:
    ctx, flow, error = _run(_scaffold(), {"Log signup"})
    assert error is None
    assert ctx.sent == [("log-signup", "POST", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values/"
                         "Q3%20leads:append?valueInputOption=USER_ENTERED", {"values": [["ada@example.test", "", "pro"]]})]
    assert flow is not None and flow.outputs["Log signup"][0] == [{"json": {"email": "ada@example.test", "plan": "pro"}}]


def test_sheets_read_turns_rows_into_items_keyed_by_the_header_with_row_numbers() -> None:
    ctx, flow, error = _run(_scaffold(), {"Read plans"})
    assert error is None
    assert ctx.sent == [
        ("read-plans", "GET", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id?fields=sheets.properties", None),
        ("read-plans", "GET", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values/'Plans'"
         "?valueRenderOption=UNFORMATTED_VALUE&dateTimeRenderOption=FORMATTED_STRING", None)]
    assert flow is not None and flow.outputs["Read plans"][0] == [
        {"json": {"row_number": 2, "plan": "free", "price": 0, "note": ""}},
        {"json": {"row_number": 3, "plan": "pro", "price": 12, "note": "popular"}}]


def test_sheets_update_reads_the_sheet_then_writes_the_matched_row_s_cells_in_one_batch() -> None:
    ctx, flow, error = _run(_scaffold(), {"Update plan"})
    assert error is None
    assert ctx.sent == [
        ("update-plan", "GET", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values/Customers"
         "?valueRenderOption=UNFORMATTED_VALUE&dateTimeRenderOption=FORMATTED_STRING", None),
        ("update-plan", "POST", "https://sheets.googleapis.com/v4/spreadsheets/1AbC-sheet_id/values:batchUpdate",
         {"data": [{"range": "Customers!B4", "values": [["pro"]]}, {"range": "Customers!C4", "values": [[""]]}],
          "valueInputOption": "USER_ENTERED"})]
    assert flow is not None and flow.outputs["Update plan"][0] == [
        {"json": {"email": "ada@example.test", "plan": "pro", "note": ""}}]


def test_sheets_update_of_a_row_that_is_not_there_writes_nothing_and_outputs_nothing() -> None:
    columns = {"mappingMode": "defineBelow", "value": {"email": "nobody@example.test", "plan": "x"},
               "matchingColumns": ["email"], "schema": []}
    ctx, flow, error = _run(_scaffold(Update_plan={"columns": columns}), {"Update plan"})
    assert error is None and [s[1] for s in ctx.sent] == ["GET"]
    assert flow is not None and flow.outputs["Update plan"][0] == []


@pytest.mark.parametrize(("node", "changes", "why"), [
    ("Create company", {"operation": "searchByDomain"}, "hubspot company.searchByDomain has no REST mapping here"),
    ("Get customer", {"operation": "delete"}, "stripe customer.delete has no REST mapping here"),
])
def test_an_unmapped_operation_fails_the_item_naming_the_node(node: str, changes: dict[str, Any], why: str) -> None:
    scaffold = _scaffold(**{node.replace(" ", "_"): changes})
    assert {r.node: r.status for r in scaffold.rows}[node] == "todo"
    ctx, _, error = _run(scaffold, {node})
    assert isinstance(error, n8n.TodoNode) and error.node == node and why in str(error)
    assert ctx.sent == []


def test_an_unknown_parameter_is_a_todo_naming_it() -> None:
    scaffold = _scaffold(Create_deal={"additionalFields": {"dealName": "x", "associatedCompanyMagic": 1}})
    row = {r.node: r for r in scaffold.rows}["Create deal"]
    assert row.status == "todo" and "additionalFields.associatedCompanyMagic is not translated" in row.why


def test_a_read_of_a_sheet_chosen_by_id_looks_its_title_up_as_n8n_does() -> None:
    ctx, flow, error = _run(_scaffold(Read_plans={"sheetName": {"__rl": True, "value": "12345", "mode": "id"}}),
                            {"Read plans"})
    assert error is None and ctx.sent[1][2].split("?")[0].endswith("/values/'Q3'")
    assert flow is not None and flow.outputs["Read plans"][0] == [{"json": {"row_number": 2, "q": 3}}]


def test_each_app_gets_its_provider_and_a_proposed_base_url_unless_configured() -> None:
    scaffold = _scaffold()
    assert scaffold.proposals == BASES
    configured = build(load_workflows(WORKFLOW)[0], "crm-apps", {"api.hubapi.com": "crm"})
    assert "hubspot" not in configured.proposals and "ctx.call('crm', 'GET'" in configured.source
    assert scaffold.steps["Log signup"] == "log-signup" and scaffold.steps["Create company"] == "create-company"


def test_stripe_form_fields_flatten_nested_values_as_stripe_reads_them() -> None:
    assert n8n.form_fields({"name": "Ada", "metadata": {"plan": "pro"}, "items": [{"price": "p_1"}], "x": None,
                            "live": True}) == {"name": "Ada", "metadata[plan]": "pro", "items[0][price]": "p_1",
                                               "live": "true"}


def test_stripe_creates_send_form_bodies_as_stripe_takes_them() -> None:
    ctx, flow, error = _run(_scaffold(), {"Create customer", "Charge"})
    assert error is None
    assert ctx.sent == [
        ("create-customer", "POST", "https://api.stripe.com/v1/customers", "email=ada%40example.test&name=Ada+Lovelace"),
        ("charge", "POST", "https://api.stripe.com/v1/charges",
         "amount=1200&currency=eur&customer=cus_42&description=Pro+plan&source=tok_visa")]
    assert ctx.headers[0]["Content-Type"] == "application/x-www-form-urlencoded"
    assert flow is not None and flow.outputs["Charge"][0] == [{"json": {"id": "ch_1", "object": "charge"}}]


ARTICLE = {"title": "Tides", "words": 900, "summary": "On the moon's pull."}


def _run_content(keep: set[str], **changes: dict[str, Any]) -> tuple[Recording, n8n.Flow | None, Exception | None]:
    global SIGNUP
    saved, SIGNUP = SIGNUP, ARTICLE
    try:
        return _run(_scaffold(CONTENT, **changes), keep)
    finally:
        SIGNUP = saved


def test_airtable_create_posts_the_mapped_fields_with_typecast() -> None:
    ctx, flow, error = _run_content({"Record article"})
    assert error is None
    assert ctx.sent == [("record-article", "POST", "https://api.airtable.com/v0/appK3yBase/tblArt1cles",
                         {"typecast": True, "fields": {"Title": "Tides", "Words": 900}})]
    assert flow is not None and flow.outputs["Record article"][0] == [{"json": {"id": "rec1", "fields": {"Title": "Tides"}}}]


def test_notion_page_create_sends_the_title_blocks_icon_and_notion_version() -> None:
    ctx, _, error = _run_content({"Draft page"})
    assert error is None
    assert ctx.sent == [("draft-page", "POST", "https://api.notion.com/v1/pages", {
        "parent": {"page_id": "59833787-2cf9-4fdf-8782-e53db20768a5"},
        "properties": {"title": [{"text": {"content": "Tides"}}]},
        "children": [{"object": "block", "type": "paragraph", "paragraph": {"text": [{"text": {"content": "On the moon's pull."}}]}},
                     {"object": "block", "type": "to_do", "to_do": {"checked": False, "text": [{"text": {"content": "Review"}}]}}],
        "icon": {"emoji": "📝"}})]
    assert ctx.headers[0]["Notion-Version"] == "2021-08-16"


def test_notion_with_simplify_on_is_a_todo_since_n8n_reshapes_the_page() -> None:
    scaffold = _scaffold(CONTENT, Draft_page={"simple": True})
    row = {r.node: r for r in scaffold.rows}["Draft page"]
    assert row.status == "todo" and "Simplify is on" in row.why


def test_telegram_send_message_is_translated_with_the_token_as_the_gateways_path_placeholder() -> None:
    scaffold = _scaffold(CONTENT)
    assert {r.node: r.status for r in scaffold.rows}["Tell the channel"] == "translated"
    assert "'https://api.telegram.org/bot', '__auth_env__', '/sendMessage'" in scaffold.source
