"""HubSpot (v2 node: HubSpot's v1 contacts/deals API) and Stripe (form bodies) as n8n's nodes call them."""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_request import Request, check_version, collection, pairs_source
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, lit, name, stmts

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


# -- HubSpot v2 contact search and list (every page, or ``limit`` of them) ---------------------

_CONTACTS = "https://api.hubapi.com/contacts/v1/lists/all/contacts/all"
_SEARCH = "https://api.hubapi.com/crm/v3/objects/contacts/search"


def _listing(node: Node, slot: Slot, provider: str, method: str, url: str, key: str, prepare: str,
             limit_into: str, **holes: Any) -> list[ast.stmt]:
    """The lines of a HubSpot list: every page through ``n8n.hubspot_pages``, or one call with the limit."""
    params = node.settings if node.described else node.parameters
    sent = "json=body" if method == "POST" else "params=query"
    paged = "body=body" if method == "POST" else "params=query"
    return stmts(f"""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
{prepare}
    if n8n.truthy($all):
        $var.extend(await n8n.hubspot_pages(ctx, $provider, $method, $url, $key, {paged}, step=$step))
    else:
        {limit_into} = $limit
        response = await ctx.call($provider, $method, $url, {sent}, step=$step)
        $var.extend(n8n.listed(response, $key))
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider, method=method, url=url,
                 key=key, all=expr.value(params.get("returnAll", False)), limit=expr.value(params.get("limit", 100)),
                 step=slot.step, node=node.name, **holes)


def hubspot_search(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """contact.search (v2): POST crm/v3 search with n8n's sorts, filter groups and additional fields."""
    check_version(node, 2, "HubSpot")
    params = node.settings if node.described else node.parameters
    extra = dict(params.get("additionalFields") or {})
    unknown = sorted(set(extra) - {"direction", "properties", "query", "sortBy"})
    if unknown:
        raise Untranslatable(f"additionalFields.{unknown[0]} is not a HubSpot v2 contact search field (n8n's are "
                             "direction, properties, query, sortBy)")
    groups: list[list[ast.expr]] = []
    for group in (params.get("filterGroupsUi") or {}).get("filterGroupsValues") or []:
        if not isinstance(group, dict) or "filtersUi" not in group:
            continue  # n8n skips a group without filters
        values = (group.get("filtersUi") or {}).get("filterValues") or []
        groups.append([expr.value({k: v for k, v in f.items() if k != "type"}) for f in values])  # n8n drops type
    filtered = "filterGroupsValues" in (params.get("filterGroupsUi") or {})
    return _listing(node, slot, provider, "POST", _SEARCH, "results",
                    "    body = n8n.hubspot_search_body($groups, $extra, filtered=$filtered, node=$node)", "body['limit']",
                    groups=lit(groups), extra=expr.value(extra), filtered=filtered)


def hubspot_contacts(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """contact.getAll (v2): GET the v1 list of all contacts (``count``; every page by ``vidOffset``)."""
    check_version(node, 2, "HubSpot")
    params = node.settings if node.described else node.parameters
    foreign = sorted(set(params) - {"authentication", "resource", "operation", "returnAll", "limit", "additionalFields"})
    extra = dict(params.get("additionalFields") or {})
    foreign += [f"additionalFields.{k}" for k in sorted(set(extra) - {"formSubmissionMode", "listMemberships",
                                                                     "propertiesCollection"})]
    if foreign:
        raise Untranslatable(f"{', '.join(foreign)} {'is' if len(foreign) == 1 else 'are'} not parameters of HubSpot v2 "
                             "contact.getAll: n8n ignores them and lists every contact (a hand-written workflow?); "
                             "remove them, or use contact.search")
    query: list[tuple[str, ast.expr]] = []
    if "formSubmissionMode" in extra:
        query.append(("formSubmissionMode", expr.value(extra["formSubmissionMode"])))
    if "listMemberships" in extra:
        query.append(("showListMemberships", expr.value(extra["listMemberships"])))
    chosen = ((extra.get("propertiesCollection") or {}).get("propertiesValues")) or None
    if chosen is not None:
        query.append(("property", _code.expr("n8n.listed_names($p)", p=expr.value(chosen.get("properties", [])))))
        mode = {"valueAndHistory": "value_and_history", "valueOnly": "value_only"}
        query.append(("propertyMode", lit(mode.get(str(chosen.get("propertyMode", "valueAndHistory")), ""))))
    return _listing(node, slot, provider, "GET", _CONTACTS, "contacts",
                    "    query = n8n.truthy_fields($query)", "query['count']", query=dict_of(query))


# -- HubSpot v2 company create and update (v2 companies API: a list of {name, value}) ---------

_COMPANY_FIELDS = {
    "name": "name", "aboutUs": "about_us", "annualRevenue": "annualrevenue", "city": "city", "closeDate": "closedate",
    "companyDomainName": "domain", "companyOwner": "hubspot_owner_id", "countryRegion": "country",
    "description": "description", "facebookFans": "facebookfans", "googlePlusPage": "googleplus_page",
    "industry": "industry", "isPublic": "is_public", "leadStatus": "hs_lead_status", "lifecycleStatus": "lifecyclestage",
    "linkedinBio": "linkedinbio", "linkedInCompanyPage": "linkedin_company_page", "numberOfEmployees": "numberofemployees",
    "originalSourceType": "hs_analytics_source", "phoneNumber": "phone", "postalCode": "zip", "stateRegion": "state",
    "streetAddress": "address", "streetAddress2": "address2", "targetAccount": "hs_target_account",
    "timezone": "timezone", "totalMoneyRaised": "total_money_raised", "twitterBio": "twitterbio",
    "twitterFollowers": "twitterfollowers", "twitterHandle": "twitterhandle", "type": "type", "websiteUrl": "website",
    "webTechnologies": "web_technologies", "yearFounded": "founded_year",
}


def _company_properties(node: Node, collection_name: str, first: list[tuple[str, ast.expr]]) -> ast.expr:
    """n8n's list: ``first`` as it is, each set field (truthy) by its HubSpot name, then the custom properties."""
    params = node.settings if node.described else node.parameters
    fields = dict(params.get(collection_name) or {})
    custom = ((fields.pop("customPropertiesUi", None) or {}).get("customPropertiesValues")) or []
    known = dict(_COMPANY_FIELDS) if collection_name == "updateFields" else {
        k: v for k, v in _COMPANY_FIELDS.items() if k != "name"}
    foreign = sorted(set(fields) - set(known))
    if foreign:
        raise Untranslatable(f"{collection_name}.{', '.join(foreign[:4])}{' …' if len(foreign) > 4 else ''} "
                             f"{'is' if len(foreign) == 1 else 'are'} not fields of HubSpot v2 company "
                             "(n8n ignores them; a hand-written workflow?): use n8n's field names or custom properties")
    pairs: list[tuple[str, ast.expr]] = []
    for key, api in known.items():
        if key in fields:
            value = expr.value(fields[key])
            if key == "annualRevenue":
                value = call("n8n.text", value)
            elif key == "closeDate":
                value = call("n8n.epoch_ms", value)
            pairs.append((api, value))
    extra: list[ast.expr] = [dict_of([("name", expr.value(p.get("property", ""))), ("value", expr.value(p.get("value")))])
                             for p in custom if isinstance(p, dict)]
    head: list[ast.expr] = [dict_of([("name", k), ("value", v)]) for k, v in first]
    return _code.expr("{'properties': $head + n8n.properties($pairs, key='name') + $extra}",
                      head=ast.List(head, ast.Load()), pairs=pairs_source(pairs), extra=ast.List(extra, ast.Load()))


def hubspot_company_create(node: Node) -> Request:
    """company.create (v2): ``POST /companies/v2/companies`` with the name first, then the set fields."""
    check_version(node, 2, "HubSpot")
    params = node.settings if node.described else node.parameters
    return Request(body=_company_properties(node, "additionalFields", [("name", expr.value(params.get("name", "")))]))


def hubspot_company_update(node: Node) -> Request:
    """company.update (v2): ``PUT /companies/v2/companies/<id>`` with the set fields."""
    check_version(node, 2, "HubSpot")
    return Request(body=_company_properties(node, "updateFields", []))
