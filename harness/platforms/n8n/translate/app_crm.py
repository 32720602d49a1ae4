"""HubSpot (v2 node: HubSpot's v1 contacts/deals API) and Stripe (form bodies) as n8n's nodes call them."""

from __future__ import annotations

import ast

from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_request import Request, check_version, collection, pairs_source
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, lit, stmts

# -- HubSpot (v2 node: HubSpot's v1 contacts/deals API, as n8n calls it) ------------------------

_HUBSPOT_CONTACT_FIELDS = {
    "city": "city", "companyName": "company", "country": "country", "description": "description",
    "firstName": "firstname", "industry": "industry", "jobTitle": "jobtitle", "lastName": "lastname",
    "leadStatus": "hs_lead_status", "lifeCycleStage": "lifecyclestage", "message": "message",
    "mobilePhoneNumber": "mobilephone", "phoneNumber": "phone", "postalCode": "zip", "stateRegion": "state",
    "streetAddress": "address", "websiteUrl": "website", "workEmail": "work_email", "contactOwner": "hubspot_owner_id",
}


def _custom_properties(node: Node, collection: str) -> list[tuple[str, ast.expr]]:
    ui = (node.parameters.get(collection) or {}).get("customPropertiesUi") or {}
    return [(str(p.get("property", "")), expr.value(p.get("value"))) for p in ui.get("customPropertiesValues") or []]


def hubspot_upsert(node: Node) -> Request:
    check_version(node, 2, "HubSpot")
    extra = dict(node.parameters.get("additionalFields") or {})
    extra.pop("customPropertiesUi", None)
    pairs = collection(Node(node.name, node.type, node.version, {"additionalFields": extra}),
                        "additionalFields", _HUBSPOT_CONTACT_FIELDS)
    custom = _custom_properties(node, "additionalFields")
    listed = _code.expr("$a + $b", a=lit(pairs), b=lit(custom)) if custom else lit(pairs)
    return Request(body=_code.expr("{'properties': n8n.properties($listed)}", listed=listed))


def hubspot_get(node: Node) -> Request:
    check_version(node, 2, "HubSpot")
    query = collection(node, "additionalFields", {"formSubmissionMode": "formSubmissionMode",
                                                   "listMemberships": "showListMemberships"})
    return Request(query=dict_of(query) if query else None)


def hubspot_deal(node: Node) -> Request:
    check_version(node, 2, "HubSpot")
    extra = dict(node.parameters.get("additionalFields") or {})
    owner = extra.pop("dealOwner", None)
    close = extra.pop("closeDate", None)
    links = {k: extra.pop(k) for k in ("associatedCompany", "associatedVids") if k in extra}
    extra.pop("customPropertiesUi", None)
    name = extra.pop("dealName", None)
    plain = collection(Node(node.name, node.type, node.version, {"additionalFields": extra}), "additionalFields",
                        {"amount": "amount", "dealType": "dealtype", "pipeline": "pipeline", "description": "description"})
    # n8n's order: stage, name, owner, close date, amount, type, pipeline, description, custom
    pairs: list[tuple[str, ast.expr]] = [("dealstage", expr.value(node.parameters.get("stage", "")))]
    if name is not None:
        pairs.append(("dealname", expr.value(name)))
    if owner is not None:
        pairs.append(("hubspot_owner_id", expr.value(owner.get("value") if isinstance(owner, dict) else owner)))
    if close is not None:
        pairs.append(("closedate", call("n8n.epoch_ms", expr.value(close))))
    pairs += plain + _custom_properties(node, "additionalFields")
    names = {"associatedCompany": "associatedCompanyIds", "associatedVids": "associatedVids"}
    associations = dict_of((names[k], expr.value(v)) for k, v in links.items())
    return Request(body=_code.expr("{'properties': n8n.properties($pairs, key='name'), 'associations': $links}",
                                   pairs=pairs_source(pairs), links=associations))


# -- Stripe (form-encoded bodies, as Stripe's API takes them) ----------------------------------

def _stripe_form(pairs: list[tuple[str, ast.expr]]) -> Request:
    return Request(body=dict_of(pairs), form=True)


def stripe_customer(node: Node) -> Request:
    plain = collection(node, "additionalFields", {"description": "description", "email": "email", "phone": "phone"})
    return _stripe_form([("name", expr.value(node.parameters.get("name", "")))] + plain)


def stripe_charge(node: Node) -> Request:
    params = node.parameters
    plain = collection(node, "additionalFields", {"description": "description", "receipt_email": "receipt_email"})
    return _stripe_form([("customer", expr.value(params.get("customerId", ""))),
                         ("currency", _code.expr("n8n.text($c).lower()", c=expr.value(params.get("currency", "")))),
                         ("amount", expr.value(params.get("amount", 0))),
                         ("source", expr.value(params.get("source", "")))] + plain)


def hubspot_profile(provider: str, base: str, step: str) -> list[ast.stmt]:
    """n8n's HubSpot upsert without "resolve data" reads the contact's profile back (and keeps ``isNew``)."""
    return stmts("""
upserted = response.json()
response = await ctx.call($provider, 'GET', n8n.concat($url, upserted.get('vid'), '/profile'), step=$step)
response = n8n.with_fields(response, {'isNew': upserted.get('isNew')})
""", provider=provider, url=base + "/contacts/v1/contact/vid/", step=step)
