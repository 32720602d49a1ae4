"""n8n's app nodes onto the app catalogue: each (resource, operation) as the catalogue operation it calls.

``N8N_APPS`` maps an n8n node type (``n8n-nodes-base.<short type>``) to a catalogue app
(``harness.catalogue``: provider, base URL, method, path, fields, secret) and, per n8n
(resource, operation), the catalogue operation and the small translator that maps the node's
parameters onto its fields (``app_request``, ``app_crm``, ``app_docs``, ``app_message``). The
resource and operation an export leaves out are n8n's defaults for the node's typeVersion (the
node's description, ``Node.settings``). An operation the catalogue knows but no translator fills
in, or one it does not know, raises ``Untranslatable``: the node stays a TODO whose text is the
call's skeleton (provider, method, URL, body fields) and the secret it needs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.n8n import descriptions
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import app_crm, app_docs, app_files, app_message, app_notion, app_tables, app_tasks, expr
from harness.platforms.n8n.translate.app_request import Params, Request, fields
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold import _code
from harness.scaffold._code import call, lit, name, stmts

Whole = Callable[[Node, Slot, str], list[ast.stmt]]


def _no_request(node: Node) -> Request:
    return Request()


@dataclass(frozen=True)
class Mapping:
    """One n8n (resource, operation): the catalogue operation and how the node's parameters fill it.

    ``request`` None: the catalogue knows the call but its parameters are not translated yet.
    """

    operation: str
    request: Callable[[Node], Request] | None = _no_request
    whole: Whole | None = None  # the node's lines, when not one call per item
    since: float = 0  # the first typeVersion whose parameters the translator reads


@dataclass(frozen=True)
class N8nApp:
    """An n8n app node type: its catalogue app, operations, and defaults for exports older than descriptions."""

    app: str
    operations: dict[tuple[str, str], Mapping]
    defaults: dict[str, str] = field(default_factory=dict)  # "" -> resource; resource -> operation
    placeholders: dict[str, Callable[[Any, Node], ast.expr]] = field(default_factory=dict)  # (raw value, node)


_SHEET_PATH: dict[str, Callable[[Any, Node], ast.expr]] = {"documentId": lambda raw, _: app_docs.sheet_document(raw),
                                                          "sheetName": lambda raw, _: app_docs.sheet_title(raw)}
N8N_APPS: dict[str, N8nApp] = {
    "github": N8nApp("github", {
        ("issue", "create"): Mapping("issue.create", fields("title", "body")),
        ("issue", "createComment"): Mapping("issue.createComment", fields("body")),
        ("issue", "get"): Mapping("issue.get"),
        ("issue", "lock"): Mapping("issue.lock"),
        ("issue", "edit"): Mapping("issue.edit", None),
        ("repository", "getIssues"): Mapping("repository.getIssues", None),
        ("user", "invite"): Mapping("user.invite", app_tasks.github_invite),
        ("file", "create"): Mapping("file.create", whole=app_tasks.github_file),
        ("file", "edit"): Mapping("file.edit", whole=app_tasks.github_file),
    }, {"": "issue", "issue": "create"}),
    "slack": N8nApp("slack", {
        ("message", "post"): Mapping("message.post", fields("channel", "text", aliases={"channel": "channelId"})),
        ("message", "update"): Mapping("message.update", None),
        ("message", "sendAndWait"): Mapping("message.post", app_message.slack_send_and_wait),
        ("message", "delete"): Mapping("message.delete", None),
        ("reaction", "add"): Mapping("reaction.add", None),
        ("channel", "history"): Mapping("channel.history", None),
        ("user", "info"): Mapping("user.info", None),
        ("user", "lookupByEmail"): Mapping("user.lookupByEmail", whole=app_message.slack_lookup_by_email),
        ("channel", "invite"): Mapping("channel.invite", app_message.slack_invite, since=2),
        ("channel", "create"): Mapping("channel.create", app_message.slack_create, since=2),
    }, {"": "message", "message": "post"}),
    "hubspot": N8nApp("hubspot", {
        ("contact", "upsert"): Mapping("contact.upsert", app_crm.hubspot_upsert),
        ("contact", "get"): Mapping("contact.get", app_crm.hubspot_get),
        ("deal", "create"): Mapping("deal.create", app_crm.hubspot_deal),
        ("contact", "search"): Mapping("contact.search", whole=app_crm.hubspot_search),
        ("contact", "getAll"): Mapping("contact.getAll", whole=app_crm.hubspot_contacts),
        ("company", "create"): Mapping("company.create", app_crm.hubspot_company_create),
        ("company", "update"): Mapping("company.update", app_crm.hubspot_company_update),
    }, {"": "contact", "contact": "upsert"}),
    "stripe": N8nApp("stripe", {
        ("customer", "create"): Mapping("customer.create", app_crm.stripe_customer),
        ("customer", "get"): Mapping("customer.get"),
        ("charge", "create"): Mapping("charge.create", app_crm.stripe_charge),
    }, {"customer": "get"}),
    "googleSheets": N8nApp("google-sheets", {
        ("sheet", "append"): Mapping("sheet.append", app_docs.sheet_append),
        ("sheet", "read"): Mapping("sheet.read", app_docs.sheet_read),
        ("sheet", "update"): Mapping("sheet.update", whole=app_docs.sheet_update),
        ("sheet", "appendOrUpdate"): Mapping("sheet.appendOrUpdate", None),
        ("sheet", "clear"): Mapping("sheet.clear", None),
        ("sheet", "delete"): Mapping("sheet.delete", None),
        ("spreadsheet", "create"): Mapping("spreadsheet.create", app_docs.spreadsheet_create),
    }, {"": "sheet", "sheet": "read"}, _SHEET_PATH),
    "airtable": N8nApp("airtable", {
        ("record", "create"): Mapping("record.create", app_docs.airtable_create),
        ("record", "get"): Mapping("record.get", whole=app_tables.airtable_get),
        ("record", "search"): Mapping("record.search", whole=app_tables.airtable_search),
        ("record", "update"): Mapping("record.update", whole=app_tables.airtable_update),
        ("record", "upsert"): Mapping("record.upsert", None),
        ("record", "deleteRecord"): Mapping("record.deleteRecord", None),
    }, {"": "record"}),
    "notion": N8nApp("notion", {
        ("page", "create"): Mapping("page.create", app_docs.notion_page),
        ("databasePage", "create"): Mapping("databasePage.create", whole=app_notion.database_page),
        ("databasePage", "getAll"): Mapping("databasePage.getAll", None),
        ("databasePage", "update"): Mapping("databasePage.update", None),
        ("block", "append"): Mapping("block.append", app_notion.notion_append),
    }, {"": "page", "page": "create"}, {"blockId": lambda _, node: app_notion.block_id(node)}),
    "telegram": N8nApp("telegram", {
        ("message", "sendMessage"): Mapping("message.sendMessage", app_message.telegram_send),
        ("message", "sendPhoto"): Mapping("message.sendPhoto", None),
        ("message", "sendDocument"): Mapping("message.sendDocument", whole=app_files.telegram_upload),
        ("message", "editMessageText"): Mapping("message.editMessageText", None),
        ("message", "deleteMessage"): Mapping("message.deleteMessage", None),
        ("chat", "get"): Mapping("chat.get", None),
        ("callback", "answerQuery"): Mapping("callback.answerQuery", None),
        ("file", "get"): Mapping("file.get", whole=app_files.telegram_file_get),
        ("message", "sendAudio"): Mapping("message.sendAudio", whole=app_files.telegram_upload),
    }, {"": "message", "message": "sendMessage"}, {"token": lambda raw, _: app_message.telegram_token(raw)}),
    "gmail": N8nApp("gmail", {
        ("message", "send"): Mapping("message.send", app_message.gmail_send, since=2),
        ("message", "reply"): Mapping("message.reply", None),
        ("message", "get"): Mapping("message.get", app_message.gmail_get),
        ("message", "getAll"): Mapping("message.getAll", None),
        ("message", "addLabels"): Mapping("message.addLabels", app_message.gmail_labels("addLabelIds"), since=2),
        ("message", "removeLabels"): Mapping("message.removeLabels", app_message.gmail_labels("removeLabelIds"), since=2),
        ("message", "markAsRead"): Mapping("message.markAsRead", app_message.gmail_unread("removeLabelIds"), since=2),
        ("message", "markAsUnread"): Mapping("message.markAsUnread", app_message.gmail_unread("addLabelIds"), since=2),
        ("draft", "create"): Mapping("draft.create", app_message.gmail_draft, since=2),
        ("thread", "reply"): Mapping("thread.reply", None),
    }, {"": "message", "message": "send"}),
    "asana": N8nApp("asana", {
        ("task", "create"): Mapping("task.create", app_tasks.asana_task), ("task", "get"): Mapping("task.get", None),
        ("subtask", "create"): Mapping("subtask.create", app_tasks.asana_subtask),
        ("task", "getAll"): Mapping("task.getAll", None), ("task", "update"): Mapping("task.update", None),
    }, {"": "task", "task": "create"}),
    "googleDrive": N8nApp("google-drive", {
        ("file", "upload"): Mapping("file.upload", whole=app_tasks.drive_upload), ("file", "download"): Mapping("file.download", None),
        ("fileFolder", "search"): Mapping("fileFolder.search", None),
        ("folder", "create"): Mapping("folder.create", app_tasks.drive_folder, since=3),
    }, {"": "file", "file": "upload"}),
    "googleBigQuery": N8nApp("bigquery", {
        ("record", "create"): Mapping("record.create", None),
        ("database", "executeQuery"): Mapping("database.executeQuery", whole=app_tables.bigquery_query),
        ("database", "insert"): Mapping("record.create", None),
    }, {"": "database", "database": "executeQuery"}),
    "postgres": N8nApp("postgres", {
        ("database", op): Mapping(f"database.{op}", None)
        for op in ("executeQuery", "insert", "update", "select", "upsert", "deleteTable")
    }, {"": "database", "database": "insert"}),
}
APP_TYPES = tuple(sorted(N8N_APPS))


def _choice(node: Node, entry: N8nApp) -> tuple[str, str]:
    """Return the node's (resource, operation): the export's, else n8n's default for its version."""
    params, described = node.parameters, node.settings if node.described else {}
    resource = str(params.get("resource") or described.get("resource") or entry.defaults.get("", ""))
    operation = str(params.get("operation") or (described.get("operation") if not params.get("resource")
                                                or described.get("resource") == resource else None)
                    or entry.defaults.get(resource, ""))
    if not resource or not operation:
        missing = "resource" if not resource else "operation"
        raise Untranslatable(f"{node.short_type}: the workflow file names no {missing} (n8n leaves a default out)"
                             " and no description of this version says it: set it in the workflow")
    return resource, operation


def _operation(node: Node) -> tuple[N8nApp, catalogue.App, str, str, Mapping, catalogue.Operation]:
    entry = N8N_APPS[node.short_type]
    app = catalogue.app(entry.app)
    resource, operation = _choice(node, entry)
    found = entry.operations.get((resource, operation))
    offered = _described_operations(node, resource)
    if offered is not None and operation not in offered:
        raise Untranslatable(f"{node.short_type} v{node.version:g} has no {resource}.{operation} operation (n8n's "
                             f"{resource} operations: {', '.join(offered) or 'none'}): n8n cannot run this node as "
                             "exported; choose one of them in the workflow")
    if found is None and not node.described and descriptions.described_versions(node.type):
        known = ", ".join(f"v{v:g}" for v in descriptions.described_versions(node.type))
        raise Untranslatable(f"{node.short_type} v{node.version:g} is newer than the n8n whose node descriptions this "
                             f"translator reads ({known}): its {resource}.{operation} is not mapped")
    if found is None:
        mapped = ", ".join(f"{r}.{o}" for r, o in entry.operations)
        raise Untranslatable(f"{node.short_type} {resource}.{operation} has no REST mapping here (the app catalogue maps: {mapped})")
    op = app.operations[found.operation]
    if found.request is None and found.whole is None:
        raise Untranslatable(f"{node.short_type} {resource}.{operation} parameters are not translated; the call: "
                             f"{catalogue.skeleton(entry.app, found.operation)}{_detail(node, op)}")
    if node.version < found.since:
        raise Untranslatable(f"{node.short_type} v{node.version:g} {resource}.{operation} parameters are not "
                             f"translated (v{found.since:g}+ are); the call: {catalogue.skeleton(entry.app, found.operation)}")
    return entry, app, resource, operation, found, op


def _described_operations(node: Node, resource: str) -> list[str] | None:
    """Return the operations n8n's description of the node's version offers for ``resource`` (None: not described)."""
    described = descriptions.properties(node.type, node.version)
    if described is None:
        return None
    offered: list[str] = []
    for prop in described:
        shown = (prop.get("displayOptions") or {}).get("show") or {}
        if prop.get("name") == "operation" and resource in (shown.get("resource") or [resource]):
            offered += [str(o.get("value") if isinstance(o, dict) else o) for o in prop.get("options") or []]
    return offered or None


def _detail(node: Node, op: catalogue.Operation) -> str:
    """Return what this node fills in of a skeleton's fields (a Postgres query, a table), from its parameters."""
    params = node.settings if node.described else node.parameters
    shown = []
    for key in ("query", "table", "schema", "operation"):
        value = params.get(key)
        if isinstance(value, dict):  # a resource locator
            value = value.get("cachedResultName") or value.get("value")
        if value not in (None, "") and (key != "operation" or op.method == "SQL"):
            text = " ".join(str(value).split())
            shown.append(f"{key} {text[:160]!r}")
    return f" (this node: {', '.join(shown)})" if shown else ""


def _url(entry: N8nApp, app: catalogue.App, path: str, params: Params, node: Node) -> ast.expr:
    """Return the call's URL: the base and path, each ``{param}`` from the node's parameters."""
    parts: list[ast.expr] = []
    pos = 0
    for match in re.finditer(r"\{(\w+)\}", path):
        parts.append(lit((app.base_url if not parts else "") + path[pos:match.start()]))
        key, raw = match.group(1), params.get(match.group(1))
        if key in entry.placeholders:
            parts.append(entry.placeholders[key](raw, node))
        else:
            if isinstance(raw, dict):  # resource locator {"__rl": true, "mode": …, "value": …}
                if raw.get("mode") == "url":
                    raise Untranslatable(f"the {key} parameter is a URL (resource locator mode 'url'): give the id")
                raw = raw.get("value")
            if raw is None or raw == "":
                raise Untranslatable(f"the {key} parameter is missing")
            parts.append(expr.value(raw))
        pos = match.end()
    parts.append(lit((app.base_url if not parts else "") + path[pos:]))
    return call("n8n.concat", *parts)


def app_node(node: Node, slot: Slot) -> NodeCode:
    """Translate an app node whose operation is in ``N8N_APPS``: one call (or n8n's two) per item."""
    entry, app, resource, operation, found, op = _operation(node)
    provider = slot.providers.get(app.host, app.provider)
    proposals = {} if app.host in slot.providers else {provider: app.base_url}
    heading = [comment(node), _code.comment(f"{app.provider}: {resource}.{operation} → {op.method} {app.base_url}{op.path}")]
    if found.whole is not None:
        lines = heading + found.whole(node, slot, provider)
        return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)
    assert found.request is not None
    request = found.request(node)
    kwargs: dict[str, ast.expr] = {}
    if request.query is not None:
        kwargs["params"] = request.query
    if request.headers is not None:
        kwargs["headers"] = request.headers
    if request.body is not None:
        kwargs["data" if request.form else "json"] = call("n8n.form_fields", request.body) if request.form else request.body
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
        url=_url(entry, app, op.path, node.parameters, node), kwargs=kwargs, step=slot.step,
        profile=app_crm.hubspot_profile(provider, app.base_url, slot.step) if upsert else [], items=request.items,
        node=node.name)]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)
