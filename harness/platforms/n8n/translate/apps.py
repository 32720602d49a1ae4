"""App nodes as data: each (resource, operation) an n8n app node offers, as the REST call it makes.

``APPS`` maps an n8n node type (``n8n-nodes-base.<short type>``) to its provider, base URL and a
table of operations; each operation names the method, the path (``{param}`` placeholders are
node parameters, resource locators included) and a small translator that returns the Python
source of the body and query. The calls are the ones the n8n node itself sends (read from the
node's source), so the generated code's effect and items match the workflow's. Sources are
``ast`` nodes (``harness.scaffold._code``). An operation or
a parameter not in the table raises ``Untranslatable`` naming it: the node stays a TODO.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, lit, name, stmts

Params = dict[str, Any]


@dataclass(frozen=True)
class Request:
    """The Python expressions of one call's parts (None: not sent) and how its items come out."""

    body: ast.expr | None = None
    query: ast.expr | None = None
    headers: ast.expr | None = None
    items: ast.expr = field(default_factory=lambda: _code.expr("n8n.response_items(response)"))  # for one call
    form: bool = False  # Stripe: the body is form-encoded


@dataclass(frozen=True)
class Operation:
    """One app operation: method, path under the app's base URL, and its request translator."""

    method: str
    path: str
    request: Callable[[Node], Request] = lambda node: Request()
    whole: Callable[[Node, Slot, str], list[ast.stmt]] | None = None  # the node's lines, when not one call per item


@dataclass(frozen=True)
class App:
    """An app node type: its provider, base URL, default resource/operation, and operations."""

    provider: str
    base: str
    operations: dict[tuple[str, str], Operation]
    defaults: dict[str, str] = field(default_factory=dict)  # "" -> resource; resource -> operation
    unsupported: str | None = None  # why no operation of the app is translated


# -- small translators -------------------------------------------------------------------------

def _fields(*names: str, aliases: dict[str, str] | None = None) -> Callable[[Node], Request]:
    """A JSON body of the named parameters (a missing one is sent as ``""``)."""
    def build(node: Node) -> Request:
        params = node.parameters
        pairs = []
        for key in names:
            raw = params.get(key, params.get((aliases or {}).get(key, ""), ""))
            pairs.append((key, expr.value(raw)))
        return Request(body=dict_of(pairs))
    return build


def _collection(node: Node, collection: str, known: dict[str, str]) -> list[tuple[str, ast.expr]]:
    """Return (API name, value) for each set option of a collection; raise on an unknown one."""
    chosen = node.parameters.get(collection) or {}
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        raise Untranslatable(f"{collection}.{unknown[0]} is not translated (translated: {', '.join(sorted(known))})")
    return [(known[key], expr.value(chosen[key])) for key in known if key in chosen]


def _pairs_source(pairs: list[tuple[str, ast.expr]]) -> ast.expr:
    return lit(pairs)


def _check_version(node: Node, at_least: float, app: str) -> None:
    if node.version < at_least:
        raise Untranslatable(f"{app} v{node.version:g} parameters are not translated (v{at_least:g}+ are)")


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


def _hubspot_upsert(node: Node) -> Request:
    _check_version(node, 2, "HubSpot")
    extra = dict(node.parameters.get("additionalFields") or {})
    extra.pop("customPropertiesUi", None)
    pairs = _collection(Node(node.name, node.type, node.version, {"additionalFields": extra}),
                        "additionalFields", _HUBSPOT_CONTACT_FIELDS)
    custom = _custom_properties(node, "additionalFields")
    listed = _code.expr("$a + $b", a=lit(pairs), b=lit(custom)) if custom else lit(pairs)
    return Request(body=_code.expr("{'properties': n8n.properties($listed)}", listed=listed))


def _hubspot_get(node: Node) -> Request:
    _check_version(node, 2, "HubSpot")
    query = _collection(node, "additionalFields", {"formSubmissionMode": "formSubmissionMode",
                                                   "listMemberships": "showListMemberships"})
    return Request(query=dict_of(query) if query else None)


def _hubspot_deal(node: Node) -> Request:
    _check_version(node, 2, "HubSpot")
    extra = dict(node.parameters.get("additionalFields") or {})
    owner = extra.pop("dealOwner", None)
    close = extra.pop("closeDate", None)
    links = {k: extra.pop(k) for k in ("associatedCompany", "associatedVids") if k in extra}
    extra.pop("customPropertiesUi", None)
    name = extra.pop("dealName", None)
    plain = _collection(Node(node.name, node.type, node.version, {"additionalFields": extra}), "additionalFields",
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
                                   pairs=_pairs_source(pairs), links=associations))


# -- Stripe (form-encoded bodies, as Stripe's API takes them) ----------------------------------

def _stripe_form(pairs: list[tuple[str, ast.expr]]) -> Request:
    return Request(body=dict_of(pairs), form=True)


def _stripe_customer(node: Node) -> Request:
    plain = _collection(node, "additionalFields", {"description": "description", "email": "email", "phone": "phone"})
    return _stripe_form([("name", expr.value(node.parameters.get("name", "")))] + plain)


def _stripe_charge(node: Node) -> Request:
    params = node.parameters
    plain = _collection(node, "additionalFields", {"description": "description", "receipt_email": "receipt_email"})
    return _stripe_form([("customer", expr.value(params.get("customerId", ""))),
                         ("currency", _code.expr("n8n.text($c).lower()", c=expr.value(params.get("currency", "")))),
                         ("amount", expr.value(params.get("amount", 0))),
                         ("source", expr.value(params.get("source", "")))] + plain)


# -- Google Sheets v4 (spreadsheets.values) ----------------------------------------------------

_SHEET_OPTIONS = {"cellFormat"}


def _value_input(node: Node) -> str:
    options = node.parameters.get("options") or {}
    unknown = sorted(set(options) - _SHEET_OPTIONS)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: cellFormat)")
    return str(options.get("cellFormat") or ("RAW" if node.version < 4.1 else "USER_ENTERED"))


def _mapped(columns: dict[str, Any]) -> tuple[str, ast.expr]:
    """Return a node's ``columns`` mapping mode and the fields it sends: those it defines, or the item's."""
    mode = columns.get("mappingMode", "defineBelow")
    if mode == "defineBelow":
        return mode, expr.value(columns.get("value") or {})
    if mode == "autoMapInputData":
        return mode, _code.expr("n8n.get(item, 'json') or {}")
    raise Untranslatable(f"columns.mappingMode {mode!r} is not translated")


def _sheet_append(node: Node) -> Request:
    _check_version(node, 4, "Google Sheets")
    columns = node.parameters.get("columns") or {}
    ids = [str(c.get("id")) for c in columns.get("schema") or [] if not c.get("removed")]
    if not ids:
        raise Untranslatable("the node's column schema is empty: n8n reads the header row at run time")
    _, values = _mapped(columns)
    return Request(body=_code.expr("{'values': [n8n.sheet_row($ids, $values)]}", ids=ids, values=values),
                   query=lit({"valueInputOption": _value_input(node)}),
                   items=_code.expr("[{'json': dict($values)}]", values=values))


def _sheet_read(node: Node) -> Request:
    _check_version(node, 4, "Google Sheets")
    filters = (node.parameters.get("filtersUI") or {}).get("values")
    if filters:
        raise Untranslatable("row filters (filtersUI) are not translated: filter the read rows in Python")
    options = dict(node.parameters.get("options") or {})
    formatting = ((options.pop("outputFormatting", None) or {}).get("values")) or {}
    if options:
        raise Untranslatable(f"options.{sorted(options)[0]} is not translated (translated: outputFormatting)")
    query = {"valueRenderOption": formatting.get("general", "UNFORMATTED_VALUE"),
             "dateTimeRenderOption": formatting.get("date", "FORMATTED_STRING")}
    return Request(query=lit(query), items=_code.expr("n8n.sheet_rows(response)"))


_DOC_URL = re.compile(r"/spreadsheets/d/([0-9A-Za-z_-]+)")


def _sheet_document(raw: Any) -> ast.expr:
    """Return the expression of a spreadsheet id from ``documentId`` (id, list or URL mode)."""
    locator = raw if isinstance(raw, dict) else {"mode": "id", "value": raw}
    value = locator.get("value")
    if locator.get("mode") == "url":
        match = _DOC_URL.search(str(value)) if not expr.is_expression(value) else None
        if match is None:
            raise Untranslatable("documentId is a URL computed by an expression: give the spreadsheet id")
        return lit(match.group(1))
    return expr.value(value)


def _sheet_choice(raw: Any) -> Any:
    """Return a sheet's title parameter (text or an expression): the values API takes a title, not a gid."""
    locator = raw if isinstance(raw, dict) else {"mode": "name", "value": raw}
    mode, value = locator.get("mode"), locator.get("value")
    if mode == "name" and value not in (None, ""):
        return value
    if locator.get("cachedResultName"):
        return str(locator["cachedResultName"])
    raise Untranslatable(f"sheetName is chosen by {mode} ({value!r}) with no sheet title recorded: "
                         "n8n looks the title up; choose the sheet by name")


def _sheet_name(raw: Any) -> ast.expr:
    """Return the expression of a sheet's title."""
    return expr.value(_sheet_choice(raw))


def _sheet_title(raw: Any) -> ast.expr:
    """Return the expression of a sheet's title as one URL path segment."""
    title = _sheet_choice(raw)
    return call("n8n.quote_path", expr.value(title)) if expr.is_expression(title) else lit(quote(str(title), safe=""))


def _sheet_update(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """n8n's *Update Row* (all items at once): read the sheet, match rows on the column, one batchUpdate."""
    _check_version(node, 4, "Google Sheets")
    params = node.parameters
    columns = params.get("columns") or {}
    match = list(columns.get("matchingColumns") or [])
    if len(match) != 1:
        raise Untranslatable("update matches on one column in n8n; this node names "
                             f"{len(match)} (columns.matchingColumns)")
    mode, values = _mapped(columns)
    record = (_code.expr("{k: '' if v is None else v for k, v in $values.items()}", values=values)
              if mode == "defineBelow" else call("dict", values))
    document, title = _sheet_document(params.get("documentId")), _sheet_name(params.get("sheetName"))
    var = name(slot.var)
    # n8n outputs the written values when any row changed (Define Below), the input items always (Auto-Map)
    written = stmts("$var = [{'json': r} for r in records]", var=var) if mode == "defineBelow" else []
    always = stmts("$var = list(items)", var=var) if mode != "defineBelow" else []
    return stmts("""
items = $inp
$var: n8n.Items = []
if items:
    records = [$record for i, item in enumerate(items)]
    response = await ctx.call($provider, 'GET', n8n.concat($base, $document, '/values/', $path), params={'valueRenderOption': 'UNFORMATTED_VALUE', 'dateTimeRenderOption': 'FORMATTED_STRING'}, step=$step)
    data = n8n.sheet_updates(response, n8n.text($title), $match, records)
    if data:
        await ctx.call($provider, 'POST', n8n.concat($base, $document, '/values:batchUpdate'), json={'data': data, 'valueInputOption': $input_option}, step=$step)
        $written
    $always
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=var, record=record, provider=provider,
                 base="https://sheets.googleapis.com/v4/spreadsheets/", document=document,
                 path=_sheet_title(params.get("sheetName")), step=slot.step, title=title, match=match[0],
                 input_option=_value_input(node), written=written, always=always, node=node.name)


# -- Airtable v2 (records) and Notion v2 (pages) ----------------------------------------------

def _airtable_create(node: Node) -> Request:
    _check_version(node, 2, "Airtable")
    options = dict(node.parameters.get("options") or {})
    typecast = bool(options.pop("typecast", False))
    if options:
        raise Untranslatable(f"options.{sorted(options)[0]} is not translated (translated: typecast)")
    _, fields = _mapped(node.parameters.get("columns") or {})
    return Request(body=dict_of([("typecast", typecast), ("fields", fields)]))


_NOTION_TEXT_BLOCKS = {"paragraph", "heading_1", "heading_2", "heading_3", "toggle", "to_do", "bulleted_list_item",
                       "numbered_list_item"}


def _notion_block(block: dict[str, Any]) -> ast.expr:
    kind = str(block.get("type", "paragraph"))
    if kind not in _NOTION_TEXT_BLOCKS or block.get("richText"):
        raise Untranslatable(f"a {kind!r} block{' with rich text' if block.get('richText') else ''} is not translated "
                             "(plain-text blocks are)")
    inner = [("text", _code.expr("[{'text': {'content': $text}}]", text=expr.value(block.get("textContent", ""))))]
    if kind == "to_do":
        inner.insert(0, ("checked", expr.value(block.get("checked"))))
    return dict_of([("object", "block"), ("type", kind), (kind, dict_of(inner))])


def _notion_page(node: Node) -> Request:
    _check_version(node, 2, "Notion")
    params = node.parameters
    if params.get("simple", True) is not False:
        raise Untranslatable("Simplify is on: n8n reshapes the created page (simplifyObjects); "
                             "turn Simplify off in the workflow, or write the reshaping")
    page = params.get("pageId")
    if not isinstance(page, dict) or page.get("mode") != "id":
        raise Untranslatable("the parent page is chosen by URL or from a list: n8n reads its id from the URL; "
                             "choose it by id")
    options = dict(params.get("options") or {})
    icon = options.pop("icon", None)
    if options.pop("iconType", "emoji") != "emoji" or options:
        raise Untranslatable("a file icon or another option is not translated (translated: an emoji icon)")
    blocks = [_notion_block(b) for b in (params.get("blockUi") or {}).get("blockValues") or []]
    body = [("parent", dict_of([("page_id", expr.value(page.get("value")))])),
            ("properties", _code.expr("{'title': [{'text': {'content': $title}}]}",
                                      title=expr.value(params.get("title", "")))),
            ("children", blocks)]
    if icon:
        body.append(("icon", dict_of([("emoji", expr.value(icon))])))
    return Request(body=dict_of(body), headers=lit({"Notion-Version": "2021-08-16"}))


# -- the table ---------------------------------------------------------------------------------

_GITHUB = "/repos/{owner}/{repository}/issues"
APPS: dict[str, App] = {
    "github": App("github", "https://api.github.com", {
        ("issue", "create"): Operation("POST", _GITHUB, _fields("title", "body")),
        ("issue", "createComment"): Operation("POST", _GITHUB + "/{issueNumber}/comments", _fields("body")),
        ("issue", "get"): Operation("GET", _GITHUB + "/{issueNumber}"),
        ("issue", "lock"): Operation("PUT", _GITHUB + "/{issueNumber}/lock"),
    }, {"": "issue", "issue": "create"}),
    "slack": App("slack", "https://slack.com", {
        ("message", "post"): Operation("POST", "/api/chat.postMessage",
                                       _fields("channel", "text", aliases={"channel": "channelId"})),
    }, {"": "message", "message": "post"}),
    "hubspot": App("hubspot", "https://api.hubapi.com", {
        ("contact", "upsert"): Operation("POST", "/contacts/v1/contact/createOrUpdate/email/{email}", _hubspot_upsert),
        ("contact", "get"): Operation("GET", "/contacts/v1/contact/vid/{contactId}/profile", _hubspot_get),
        ("deal", "create"): Operation("POST", "/deals/v1/deal", _hubspot_deal),
    }, {"": "contact", "contact": "upsert"}),
    "stripe": App("stripe", "https://api.stripe.com", {
        ("customer", "create"): Operation("POST", "/v1/customers", _stripe_customer),
        ("customer", "get"): Operation("GET", "/v1/customers/{customerId}"),
        ("charge", "create"): Operation("POST", "/v1/charges", _stripe_charge),
    }, {"customer": "get"}),
    "googleSheets": App("google-sheets", "https://sheets.googleapis.com", {
        ("sheet", "append"): Operation("POST", "/v4/spreadsheets/{documentId}/values/{sheetName}:append", _sheet_append),
        ("sheet", "read"): Operation("GET", "/v4/spreadsheets/{documentId}/values/{sheetName}", _sheet_read),
        ("sheet", "update"): Operation("POST", "/v4/spreadsheets/{documentId}/values:batchUpdate", whole=_sheet_update),
    }, {"": "sheet", "sheet": "read"}),
    "airtable": App("airtable", "https://api.airtable.com", {
        ("record", "create"): Operation("POST", "/v0/{base}/{table}", _airtable_create),
    }, {"": "record"}),
    "notion": App("notion", "https://api.notion.com", {
        ("page", "create"): Operation("POST", "/v1/pages", _notion_page),
    }, {"": "page", "page": "create"}),
    "telegram": App("telegram", "https://api.telegram.org", {}, unsupported=(
        "Telegram's Bot API takes the bot token in the URL path (/bot<token>/sendMessage) and the gateway keeps "
        "credentials in headers: write the call with the token from configuration")),
    "gmail": App("gmail", "https://gmail.googleapis.com", {}, unsupported=(
        "Gmail sends a MIME message n8n composes (base64url in 'raw'): build the message and POST "
        "/gmail/v1/users/me/messages/send by hand")),
}
APP_TYPES = tuple(sorted(APPS))
_PLACEHOLDERS: dict[str, Callable[[Any], ast.expr]] = {"documentId": _sheet_document, "sheetName": _sheet_title}


def _operation(node: Node) -> tuple[App, str, str, Operation]:
    app = APPS[node.short_type]
    if app.unsupported:
        raise Untranslatable(app.unsupported)
    params = node.parameters
    resource = str(params.get("resource") or app.defaults.get("", ""))
    operation = str(params.get("operation") or app.defaults.get(resource, ""))
    if not resource or not operation:
        raise Untranslatable(f"{node.short_type}: the workflow file names no {'resource' if not resource else 'operation'}"
                             " (n8n leaves a default out): set it in the workflow and scaffold again")
    found = app.operations.get((resource, operation))
    if found is None:
        mapped = ", ".join(f"{r}.{o}" for r, o in app.operations)
        raise Untranslatable(f"{node.short_type} {resource}.{operation} has no REST mapping here (mapped: {mapped})")
    return app, resource, operation, found


def _url(app: App, path: str, params: Params) -> ast.expr:
    """Return the call's URL: the base and path, each ``{param}`` from the node's parameters."""
    parts: list[ast.expr] = []
    pos = 0
    for match in re.finditer(r"\{(\w+)\}", path):
        parts.append(lit((app.base if not parts else "") + path[pos:match.start()]))
        key, raw = match.group(1), params.get(match.group(1))
        if key in _PLACEHOLDERS:
            parts.append(_PLACEHOLDERS[key](raw))
        else:
            if isinstance(raw, dict):  # resource locator {"__rl": true, "mode": …, "value": …}
                if raw.get("mode") == "url":
                    raise Untranslatable(f"the {key} parameter is a URL (resource locator mode 'url'): give the id")
                raw = raw.get("value")
            if raw is None or raw == "":
                raise Untranslatable(f"the {key} parameter is missing")
            parts.append(expr.value(raw))
        pos = match.end()
    parts.append(lit((app.base if not parts else "") + path[pos:]))
    return call("n8n.concat", *parts)


def app_node(node: Node, slot: Slot) -> NodeCode:
    """Translate an app node whose operation is in ``APPS``: one call (or n8n's two) per item."""
    app, resource, operation, op = _operation(node)
    host = app.base.split("://", 1)[1]
    provider = slot.providers.get(host, app.provider)
    proposals = {} if host in slot.providers else {provider: app.base}
    heading = [comment(node), _code.comment(f"{app.provider}: {resource}.{operation} → {op.method} {app.base}{op.path}")]
    if op.whole is not None:
        lines = heading + op.whole(node, slot, provider)
        return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)
    request = op.request(node)
    kwargs: dict[str, ast.expr] = {}
    if request.query is not None:
        kwargs["params"] = request.query
    if request.headers is not None:
        kwargs["headers"] = request.headers
    if request.body is not None:
        if request.form:
            kwargs["data"] = call("n8n.form_fields", request.body)
        else:
            kwargs["json"] = request.body
    upsert = (resource, operation) == ("contact", "upsert") and not (node.parameters.get("options") or {}).get("resolveData")
    lines = [*heading, *stmts("""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    response = await ctx.call($provider, $method, $url, **$kwargs, step=$step)
    $profile
    $var.extend($items)
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider, method=op.method,
        url=_url(app, op.path, node.parameters), kwargs=kwargs, step=slot.step,
        profile=_hubspot_profile(provider, app.base, slot.step) if upsert else [], items=request.items,
        node=node.name)]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)


def _hubspot_profile(provider: str, base: str, step: str) -> list[ast.stmt]:
    """n8n's HubSpot upsert without "resolve data" reads the contact's profile back (and keeps ``isNew``)."""
    return stmts("""
upserted = response.json()
response = await ctx.call($provider, 'GET', n8n.concat($url, upserted.get('vid'), '/profile'), step=$step)
response = n8n.with_fields(response, {'isNew': upserted.get('isNew')})
""", provider=provider, url=base + "/contacts/v1/contact/vid/", step=step)
