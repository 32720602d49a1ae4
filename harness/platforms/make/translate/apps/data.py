"""Make's data apps onto the catalogue: Airtable records, Supabase's API call, ClickUp tasks, Fatture in Cloud.

- Airtable (v3 modules): Create a record posts ``{"fields": …, "typecast": …}`` to
  ``/v0/{base}/{table}``; Update a record patches ``/v0/{base}/{table}/{id}``; Get a record reads
  it; Search records lists it (``filterByFormula``, ``sort``, ``view``, ``fields[]``, paged by
  ``offset`` up to the module's Limit). Make outputs each record as ``id``, ``createdTime`` and its
  fields by name (by id with "Use Column ID", ``returnFieldsByFieldId``), as the estate's
  ``metadata.interface`` blocks list them. A record's value is sent as the field's type in the
  module's ``expect`` spec reads it (a number field as a number).
- ``<app>:makeAnApiCall`` (Supabase): the module's url (relative to the connection's base URL),
  method, headers, query and body text, as sent; Make outputs ``body``, ``headers``, ``statusCode``.
- ClickUp: Get tasks of a list (GET ``/api/v2/list/{list_id}/task``, a bundle per task up to Limit)
  and Edit a task (PUT ``/api/v2/task/{task_id}``; its answer, the task, is the bundle).
- Fatture in Cloud: List received documents (GET ``/c/{company_id}/received_documents``, a bundle per
  document of ``data[]``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps._call import field, fields, guarded, number, op_call, provider_of, required
from harness.platforms.make.translate.base import Gen, ModuleCode, var
from harness.platforms.make.translate.iml import template
from harness.scaffold import _credential
from harness.scaffold._code import call, dict_of, lit, stmts

_TYPES = {"number": "make.apps.num", "uinteger": "make.apps.num", "integer": "make.apps.num",
          "boolean": "make.apps.flag"}


def _spec(module: Module, key: str) -> dict[str, str]:
    """Return the field types of a collection field's ``expect`` spec, by field name (none when the module
    does not carry its blueprint metadata)."""
    metadata = getattr(module, "metadata", None) or {}
    for entry in metadata.get("expect") or []:
        if isinstance(entry, dict) and entry.get("name") == key:
            return {str(s.get("name")): str(s.get("type")) for s in entry.get("spec") or [] if isinstance(s, dict)}
    return {}


def _record(module: Module) -> ast.expr:
    record = module.mapper.get("record")
    if record in (None, ""):  # no field filled in: a record of no fields, as Make creates it
        record = {}
    if not isinstance(record, dict):
        raise Untranslatable("the record's fields are not a collection")
    types = _spec(module, "record")
    pairs: list[tuple[str, ast.expr]] = []
    for key, raw in record.items():
        value = template(raw)
        converter = _TYPES.get(types.get(key, ""))
        pairs.append((key, call(converter, value, key) if converter == "make.apps.num" else
                      call(converter, value) if converter else value))
    return dict_of(pairs)


def _table(module: Module) -> dict[str, Any]:
    return {"base": required(module, "base"), "table": required(module, "table")}


def _by_id(module: Module) -> list[tuple[str, Any]]:
    return [("returnFieldsByFieldId", True)] if module.mapper.get("useColumnId") is True else []


def airtable_create(module: Module, gen: Gen) -> ModuleCode:
    """Airtable Create a record: POST ``/v0/{base}/{table}``; the record as Make outputs it."""
    body = dict_of([("fields", _record(module)), ("typecast", call("make.apps.flag", template(module.mapper.get("typecast")))),
                    *_by_id(module)])
    return op_call(module, gen, "airtable", "record.create", shape="airtable.record", path=_table(module), json=body)


def airtable_update(module: Module, gen: Gen) -> ModuleCode:
    """Airtable Update a record: PATCH ``/v0/{base}/{table}/{id}`` with the fields filled in."""
    body = dict_of([("fields", _record(module)), ("typecast", call("make.apps.flag", template(module.mapper.get("typecast")))),
                    *_by_id(module)])
    return op_call(module, gen, "airtable", "record.patch", shape="airtable.record",
                   path={**_table(module), "id": required(module, "id", "Record ID")}, json=body)


def airtable_get(module: Module, gen: Gen) -> ModuleCode:
    """Airtable Get a record: GET ``/v0/{base}/{table}/{id}``."""
    params = dict_of(_by_id(module)) if _by_id(module) else None
    return op_call(module, gen, "airtable", "record.get", shape="airtable.record",
                   path={**_table(module), "id": required(module, "id", "Record ID")}, params=params)


def airtable_search(module: Module, gen: Gen) -> ModuleCode:
    """Airtable Search records: GET ``/v0/{base}/{table}`` paged by ``offset``; a bundle per record, up to Limit."""
    pairs: list[tuple[str, Any]] = [("filterByFormula", field(module, "formula")), ("view", field(module, "view")),
                                    ("maxRecords", number(module, "maxRecords")), *_by_id(module)]
    chosen = module.mapper.get("fields")
    if chosen not in (None, "", []):
        pairs.append(("fields[]", template(chosen)))
    for n, sort in enumerate(module.mapper.get("sort") or []):
        if not isinstance(sort, dict) or not sort.get("field"):
            raise Untranslatable("a sort has no field")
        pairs += [(f"sort[{n}][field]", template(sort["field"])),
                  (f"sort[{n}][direction]", template(sort.get("direction") or "asc"))]
    params = dict_of([(k, v) for k, v in pairs if v is not None])
    return op_call(module, gen, "airtable", "record.search", shape="airtable.records", path=_table(module), many=True,
                   params=params, limit=field(module, "maxRecords"))


def _pairs(raw: Any, what: str) -> list[tuple[ast.expr, ast.expr]]:
    pairs = []
    for entry in raw if isinstance(raw, list) else []:
        if not isinstance(entry, dict):
            continue
        key = entry.get("key", entry.get("name", ""))
        if not isinstance(key, str) or not key:
            raise Untranslatable(f"a {what} has no name")
        if _credential.is_credential_name(key):
            continue  # the connection's credential: the provider sends it (auth_env)
        pairs.append((template(key), template(entry.get("value", ""))))
    return pairs


# the catalogue app whose provider an app's "Make an API call" module shares (one connection, one provider)
_API_APPS = {"slack": "slack", "airtable": "airtable", "openai-gpt-3": "openai", "gemini-ai": "gemini",
             "discord": "discord", "clickup": "clickup", "twilio": "twilio", "notion": "notion", "hubspotcrm": "hubspot",
             "stripe": "stripe", "asana": "asana", "fatture-in-cloud": "fatture-in-cloud",
             "instagram-business": "instagram-business", "facebook-pages": "facebook-pages"}
_API_CALL_APPS = ("supabase", "attio", "pinterest", "shopify", "monday", "trello", "todoist", "mailchimp", "webflow",
                  "wordpress", "typeform", "calendly", "pipedrive", "zoho-crm", "salesforce", "brevo", "activecampaign",
                  "klaviyo", "dropbox", "zoom", "github", "jira", "zendesk", "intercom", "anthropic-claude",
                  "perplexity-ai", "elevenlabs", "apify", "linkedin", "microsoft-email", *_API_APPS)
_API_CALL_NAMES = ("makeAnApiCall", "makeApiCall", "MakeAnApiCall", "MakeAPICall")
_API_CALL_FIELDS = {"url", "method", "headers", "qs", "body"}


def api_call(module: Module, gen: Gen) -> ModuleCode:
    """``<app>:makeAnApiCall``: the module's request to the connection's base URL; ``body``, ``headers``, ``statusCode``."""
    url = module.mapper.get("url")
    if not isinstance(url, str) or not url:
        raise Untranslatable("the module has no URL")
    if "://" in url.split("{{", 1)[0]:
        raise Untranslatable("an absolute URL in an API call module (Make prefixes the connection's base URL)")
    extra = sorted(k for k, v in module.mapper.items() if k not in _API_CALL_FIELDS and v not in (None, "", []))
    if extra:
        raise Untranslatable(f"{module.app}: the fields {', '.join(extra)} are not those of a plain API call")
    known = _API_APPS.get(module.package)
    provider = provider_of(catalogue.app(known), module, gen) if known else gen.providers.get(module.package, module.package)
    if not known:
        gen.proposals.setdefault(provider, f"https://<the base URL of {module.package}'s API calls>")
        gen.hosts[module.package] = provider
    headers = ast.List([ast.Tuple([k, v], ast.Load()) for k, v in _pairs(module.mapper.get("headers"), "header")], ast.Load())
    query = ast.List([ast.Tuple([k, v], ast.Load()) for k, v in _pairs(module.mapper.get("qs"), "query field")], ast.Load())
    body = module.mapper.get("body")
    lines = stmts("$var = await make.apps.api_call(ctx, $provider, $method, $url, step=$step, headers=$headers, "
                  "params=$query, body=$body)", var=var(module), provider=provider,
                  method=str(module.mapper.get("method") or "GET").upper(), url=template(url), step=gen.steps[module.id],
                  headers=headers, query=query, body=lit(None) if body in (None, "") else template(body))
    return ModuleCode(lines, bundle=var(module), note=f"the provider {provider}'s base_url must be the base Make prefixes "
                                                       "to this module's URL (its help page names it); the credential goes there")


def clickup_tasks(module: Module, gen: Gen) -> ModuleCode:
    """ClickUp Get tasks of a list: GET ``/api/v2/list/{list_id}/task`` page by page; a bundle per task up to Limit."""
    params = fields(module, {"archived": "archived", "include_closed": "include_closed", "subtasks": "subtasks",
                             "order_by": "order_by", "reverse": "reverse", "statuses": "statuses[]",
                             "assignees": "assignees[]"}, flags=("archived", "include_closed", "subtasks", "reverse"))
    for entry in module.mapper.get("dates") or []:
        if not isinstance(entry, dict) or not entry.get("dateId"):
            raise Untranslatable("a date filter has no date")
        params.keys.append(lit(str(entry["dateId"])))
        params.values.append(call("make.apps.epoch_ms", template(entry.get("value"))))
    params.keys.append(lit("page"))
    params.values.append(lit(0))
    return op_call(module, gen, "clickup", "task.getAll", shape="clickup.tasks", many=True,
                   path={"list_id": required(module, "list_id", "List")}, params=params, limit=field(module, "limit"))


def clickup_edit(module: Module, gen: Gen) -> ModuleCode:
    """ClickUp Edit a task (advanced): PUT ``/api/v2/task/{task_id}``; the task it answers is the bundle."""
    for unread in ("contentType", "content", "time_estimate_in", "time_estimate"):
        if module.mapper.get(unread) not in (None, ""):
            raise Untranslatable(f"ClickUp Edit a task: the {unread} field is not translated")
    assignees = module.mapper.get("assignees")
    if isinstance(assignees, dict) and any(v not in (None, "", []) for v in assignees.values()):
        raise Untranslatable("ClickUp Edit a task: assignees to add or remove are not translated")
    body = fields(module, {"name": "name", "status": "status", "priority": "priority", "parent": "parent",
                           "archived": "archived"}, numbers=("priority",), flags=("archived",),
                  texts=("name", "status", "parent"))
    for date in ("due_date", "start_date"):
        value = field(module, date)
        if value is not None:
            body.keys += [lit(date), lit(f"{date}_time")]
            body.values += [call("make.apps.epoch_ms", value), call("make.apps.flag", template(module.mapper.get(f"{date}_time")))]
    return op_call(module, gen, "clickup", "task.update", shape="body", path={"task_id": required(module, "task_id", "Task ID")},
                   json=body)


def fic_received(module: Module, gen: Gen) -> ModuleCode:
    """Fatture in Cloud List received documents: GET ``/c/{company_id}/received_documents``; a bundle per document."""
    params = fields(module, {"documentType": "type", "q": "q", "sort": "sort"})
    params.keys += [lit("fieldset"), lit("per_page"), lit("page")]
    params.values += [lit("detailed"), lit(100), lit(1)]
    return op_call(module, gen, "fatture-in-cloud", "receivedDocument.list", shape="fic.documents", many=True,
                   path={"company_id": required(module, "companyId", "Company")}, params=params,
                   limit=field(module, "limit"),
                   note="fieldset=detailed: the documents' payments_list and attachment_url are in it")


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = guarded({
    "airtable:ActionCreateRecord": airtable_create, "airtable:ActionUpdateRecords": airtable_update,
    "airtable:ActionGetRecord": airtable_get, "airtable:ActionSearchRecords": airtable_search,
    **{f"{app}:{name}": api_call for app in _API_CALL_APPS for name in _API_CALL_NAMES},
    "clickup:getListTasks": clickup_tasks, "clickup:editATaskAdvanced": clickup_edit,
    "fatture-in-cloud:listReceivedDocuments": fic_received,
})
OPERATIONS: dict[str, tuple[str, str]] = {
    "airtable:ActionCreateRecord": ("airtable", "record.create"), "airtable:ActionUpdateRecords": ("airtable", "record.patch"),
    "airtable:ActionGetRecord": ("airtable", "record.get"), "airtable:ActionSearchRecords": ("airtable", "record.search"),
    "clickup:getListTasks": ("clickup", "task.getAll"), "clickup:editATaskAdvanced": ("clickup", "task.update"),
    "fatture-in-cloud:listReceivedDocuments": ("fatture-in-cloud", "receivedDocument.list"),
}
