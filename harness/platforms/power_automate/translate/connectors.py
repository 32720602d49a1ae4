"""HTTP and the connector actions: each one ``ctx.call`` (``power_automate.http``) where the call is known.

- ``Http``: the request as written (method, uri, headers, queries, body); its ``authentication``
  is the provider's to configure, never copied (a secret in it neither);
- connector actions (``OpenApiConnection``: ``host.apiId`` + ``operationId`` + flattened
  ``parameters``; ``ApiConnection``: ``host.connection`` + ``method`` + ``path``) that are one
  documented REST call: "Send an HTTP request" of Office 365 Groups (to Microsoft Graph) and of
  SharePoint (to the site's REST API), Office 365 Outlook "Send an email (V2)" (Graph's sendMail,
  the catalogue's ``microsoft-graph`` rows), Teams "Post message in a chat or channel" as the user
  in a channel (Graph's channel messages) and "Post card in a chat or channel" (the same, the card
  attached), Teams "Add a member to a team" (Graph's team members), Office 365 Users "Get user
  profile (V2)" / "Get manager (V2)" / "Get my profile (V2)" with Select fields (Graph's user),
  SharePoint "Delete item" (the site's REST API), and an
  Outlook ``ApiConnection`` to a ``/codeless/v1.0/`` path (the connector's proxy of Graph). Any other
  connector operation is a TODO naming the call. ``CATALOGUE`` maps each onto its catalogue row.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from harness.catalogue import app, operation
from harness.errors import Untranslatable
from harness.platforms.power_automate.definition import FlowAction, PowerAutomateFlow, obj
from harness.platforms.power_automate.translate.gen import ActionCode, FlowBuild, api_of, operation_of
from harness.platforms.power_automate.translate.values import literal, value
from harness.scaffold import _credential
from harness.scaffold._code import call, dict_of, lit, name
from harness.scaffold._module import slug, unique
from harness.scaffold._provider import provider_for

def _step(action: FlowAction, gen: FlowBuild) -> str:
    return gen.steps.setdefault(action.name, unique(slug(action.name), set(gen.steps.values())))


def _provider(url: Any, gen: FlowBuild) -> str:
    provider, base, proposals = provider_for(url, gen.providers)
    gen.proposals.update(proposals)
    gen.hosts[base.split("://", 1)[1].split(":")[0]] = provider
    return provider


def _headers(raw: Any, action: FlowAction) -> tuple[ast.expr, list[str]]:
    """Return the headers (a credential written in clear left out: the provider sends it) and notes."""
    if raw is None:
        return lit(None), []
    if not isinstance(raw, dict):
        return value(raw), []
    kept, notes = [], []
    for key, item in raw.items():
        if _credential.is_credential_name(str(key)) and literal(item):
            notes.append(f"header {key} held a credential: not copied, configure it on the provider")
            continue
        kept.append((key, value(item)))
    return dict_of(kept), notes


def _computed_host(uri: str) -> bool:
    """Whether the uri's scheme and host are not written out (``@variables('Next Link')``, ``@{…}/path``)."""
    return not re.match(r"^https?://[^/@{}?#]+(?:[/?#]|$)", uri.strip(), re.I)


def _call(action: FlowAction, gen: FlowBuild, provider: str | None, method: Any, uri: ast.expr, *, headers: ast.expr | None = None,
          queries: ast.expr | None = None, body: ast.expr | None = None) -> list[ast.stmt]:
    kwargs: dict[str, ast.expr] = {"step": lit(_step(action, gen))}
    for key, part in (("headers", headers), ("queries", queries), ("body", body)):
        if part is not None and not (isinstance(part, ast.Constant) and part.value is None):
            kwargs[key] = part
    if provider is None:  # the host is computed: the runtime picks the configured provider by the URL's base
        kwargs["action"] = lit(action.name)
    return [ast.Return(ast.Await(call("power_automate.http", name("ctx"), lit(provider),
                                      value(method) if not isinstance(method, ast.expr) else method, uri, **kwargs)))]


# Query parameters that carry a key in a URL (an Azure Function's ?code=, a SAS ?sig=) besides the credential names
_URL_SECRETS = ("code", "sig", "signature")


def _no_secret_in(uri: str) -> None:
    """Refuse a URL whose written query holds a credential: it would be copied into the module."""
    query = uri.split("?", 1)[1] if "?" in uri else ""
    for pair in query.split("&"):
        key, _, written = pair.partition("=")
        if written and not written.startswith("@") and (
                _credential.is_credential_name(key) or key.lower() in _URL_SECRETS):
            raise Untranslatable(f"the uri carries a credential in its query ({key}=…): move it to the provider's "
                                 "auth, then translate the call")


def http(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """HTTP: one call to ``uri``; its outputs ``{statusCode, headers, body}``."""
    inputs = action.inputs if isinstance(action.inputs, dict) else {}
    uri = inputs.get("uri")
    if not isinstance(uri, str) or not uri:
        raise Untranslatable("the action has no uri")
    _no_secret_in(uri)
    notes: list[str] = []
    provider: str | None
    if _computed_host(uri):
        provider = None
        notes.append("the host is computed: the call goes to the configured provider whose base_url the URL starts "
                     "with (none: the action fails naming the URL's origin)")
    else:
        provider = _provider(uri, gen)
    headers, dropped_headers = _headers(inputs.get("headers"), action)
    notes += dropped_headers
    auth = inputs.get("authentication")
    if auth is not None:
        kind = auth.get("type") if isinstance(auth, dict) else "expression"
        notes.append(f"authentication ({kind}): configure it on the provider (its secret is not copied)")
    queries, dropped = _headers(inputs.get("queries"), action)
    notes += [n.replace("header", "query parameter") for n in dropped]
    lines = _call(action, gen, provider, inputs.get("method", "GET"), value(uri), headers=headers, queries=queries,
                  body=value(inputs["body"]) if "body" in inputs else None)
    return ActionCode(lines, note="; ".join(notes))


def _parameters(action: FlowAction) -> dict[str, Any]:
    params = (action.inputs or {}).get("parameters") if isinstance(action.inputs, dict) else None
    return params if isinstance(params, dict) else {}


def _groups_request(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Office 365 Groups "Send an HTTP request": to Microsoft Graph, the Uri given whole."""
    params = _parameters(action)
    uri = params.get("Uri")
    if not isinstance(uri, str) or not uri.startswith("https://graph.microsoft.com/"):
        raise Untranslatable("its Uri is not a literal https://graph.microsoft.com/ URL")
    headers: dict[str, Any] = dict(params.get("CustomHeaders") or {}) if isinstance(params.get("CustomHeaders"), dict) else {}
    if params.get("ContentType"):
        headers["Content-Type"] = params["ContentType"]
    head, notes = _headers(headers or None, action)
    lines = _call(action, gen, _provider(uri, gen), params.get("Method", "GET"), value(uri), headers=head,
                  body=value(params["Body"]) if "Body" in params else None)
    return ActionCode(lines, note="; ".join(["Graph with the connection's user: configure the provider's token", *notes]))


def _sharepoint_request(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """SharePoint "Send an HTTP request to SharePoint": the site (``dataset``) + ``uri`` (its REST API)."""
    params = _parameters(action)
    site, uri = params.get("dataset"), params.get("parameters/uri")
    if site is None or not isinstance(uri, str):
        raise Untranslatable("the site (dataset) or the uri is missing")
    note = "the site's REST API with the connection's user: configure the provider's token"
    if isinstance(site, str) and site.startswith("https://"):
        provider = _provider(site, gen)
    else:  # the site is computed: one provider for the tenant's SharePoint
        provider = gen.providers.get("sharepoint.com", "sharepoint")
        gen.proposals.setdefault(provider, "https://<tenant>.sharepoint.com")
        note += "; the site URL is computed: set the provider's base_url to your tenant's SharePoint host"
    url = call("power_automate.site_url", value(site), value(uri))
    head, notes = _headers(params.get("parameters/headers"), action)
    lines = _call(action, gen, provider, params.get("parameters/method", "GET"), url, headers=head,
                  body=value(params["parameters/body"]) if "parameters/body" in params else None)
    return ActionCode(lines, note="; ".join([note, *notes]))


def _site_provider(site: Any, gen: FlowBuild) -> tuple[str, str]:
    """Return (the provider of a SharePoint site, a note): the site's host, or the tenant's when it is computed."""
    if isinstance(site, str) and site.startswith("https://"):
        return _provider(site, gen), ""
    provider = gen.providers.get("sharepoint.com", "sharepoint")
    gen.proposals.setdefault(provider, "https://<tenant>.sharepoint.com")
    return provider, "the site URL is computed: set the provider's base_url to your tenant's SharePoint host"


def _sharepoint_delete(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """SharePoint "Delete item": the site's REST API deletes the list item (POST + X-HTTP-Method: DELETE,
    IF-MATCH: *, learn.microsoft.com/sharepoint/dev/sp-add-ins/working-with-lists-and-list-items-with-rest);
    the list by id (``lists(guid'…')``) or by title. The connector returns no body."""
    params = _parameters(action)
    site, table, item = params.get("dataset"), params.get("table"), params.get("id")
    if site is None or table is None or item is None:
        raise Untranslatable("the site (dataset), the list (table) or the item (id) is missing")
    provider, note = _site_provider(site, gen)
    url = call("power_automate.sharepoint_item_url", value(site), value(table), value(item))
    head = dict_of([("Accept", lit("application/json;odata=nometadata")), ("IF-MATCH", lit("*")),
                    ("X-HTTP-Method", lit("DELETE"))])
    lines = _call(action, gen, provider, "POST", url, headers=head)
    return ActionCode(lines, note="; ".join(n for n in ("SharePoint REST: the list item deleted (any version)", note) if n))


# SharePoint item operations whose connector output is not what the site's REST API returns
_SHAREPOINT_RESHAPED = {"GetItems", "GetItem", "PostItem", "PatchItem"}

# Connector operations over a documented API whose output the connector reshapes: why each is left to write
_RESHAPED = {
    ("office365", "GetEmailsV3"): "Outlook's messages come back flattened (from, toRecipients as text, isHtml…), "
                                  "not as Graph's message",
    ("office365", "MoveV2"): "the moved message comes back flattened, not as Graph's message",
    ("office365", "ReplyToV3"): "the reply's To/Cc/Subject/attachments map onto Graph's createReply + send, not one call",
    ("excelonlinebusiness", "GetItems"): "the rows come back keyed by column header with @odata.etag and "
                                         "ItemInternalId, which Graph's workbook rows do not have",
    ("excelonlinebusiness", "AddRowV2"): "the row comes back keyed by column header, which Graph's workbook row is not",
    ("planner", "CreateTask_V3"): "its assignments are user ids or emails separated by ';', Graph's an object of "
                                  "assignments by id (an email needs a lookup)",
    ("onedriveforbusiness", "CreateFile"): "the connector answers a BlobMetadata (Id, Name, Path…), not Graph's driveItem",
    ("approvals", "StartAndWaitForAnApproval"): "the Approvals service has no documented REST API outside its "
                                                "connector: a message to the approvers and a durable wait "
                                                "(ctx.create_token / ctx.wait_for_token) for their outcome are to write",
}


def _graph(action: FlowAction, gen: FlowBuild, op_name: str, path: ast.expr, body: ast.expr | None) -> list[ast.stmt]:
    graph, op = app("microsoft-graph"), operation("microsoft-graph", op_name)
    return _call(action, gen, _provider(graph.base_url, gen), op.method,
                 call("power_automate.text", ast.BinOp(lit(graph.base_url), ast.Add(), path)), body=body)


def _send_email(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Office 365 Outlook "Send an email (V2)": Graph's sendMail as the connection's user."""
    params = _parameters(action)
    known = {"emailMessage/To", "emailMessage/Subject", "emailMessage/Body", "emailMessage/Cc", "emailMessage/Bcc",
             "emailMessage/Importance", "emailMessage/From", "emailMessage/ReplyTo", "emailMessage/Attachments"}
    extra = sorted(set(params) - known)
    if extra:
        raise Untranslatable(f"Send an email (V2) with {', '.join(extra)} is not translated (sensitivity, …)")
    message = call("power_automate.graph_mail", value(params.get("emailMessage/To")),
                   value(params.get("emailMessage/Subject", "")), value(params.get("emailMessage/Body", "")),
                   cc=value(params.get("emailMessage/Cc")), bcc=value(params.get("emailMessage/Bcc")),
                   importance=value(params.get("emailMessage/Importance", "Normal")),
                   sender=value(params.get("emailMessage/From")), reply_to=value(params.get("emailMessage/ReplyTo")),
                   attachments=value(params.get("emailMessage/Attachments")))
    return ActionCode(_graph(action, gen, "mail.send", lit("/v1.0/me/sendMail"), message),
                      note="Graph POST /v1.0/me/sendMail (the body as HTML)")


def _teams_target(params: dict[str, Any], what: str) -> tuple[str, ast.expr]:
    """Return (the catalogue operation, the Graph path) a Teams post as the user goes to: a channel
    (``body/recipient/groupId`` + ``channelId``, flattened or as one object) or a group chat (its id)."""
    if params.get("poster") != "User" or params.get("location") not in ("Channel", "Group chat"):
        raise Untranslatable(f"posting {what}as {params.get('poster')!r} in {params.get('location')!r} is not translated "
                             "(as 'User' in 'Channel' or 'Group chat' is: the Flow bot posts through the Bot Framework)")
    recipient = params.get("body/recipient")
    if params.get("location") == "Group chat":
        if recipient is None or isinstance(recipient, dict | list):
            raise Untranslatable("the group chat (body/recipient: the chat's id) is missing")
        return "chatMessage.create", ast.JoinedStr([
            lit("/v1.0/chats/"), ast.FormattedValue(call("power_automate.text", value(recipient)), -1, None),
            lit("/messages")])
    nested = recipient if isinstance(recipient, dict) else {}
    group = params.get("body/recipient/groupId", nested.get("groupId"))
    channel = params.get("body/recipient/channelId", nested.get("channelId"))
    if group is None or channel is None:
        raise Untranslatable("the team (groupId) or the channel (channelId) is missing")
    return "channelMessage.create", ast.JoinedStr([
        lit("/v1.0/teams/"), ast.FormattedValue(call("power_automate.text", value(group)), -1, None),
        lit("/channels/"), ast.FormattedValue(call("power_automate.text", value(channel)), -1, None), lit("/messages")])


def _teams_post(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Teams "Post message in a chat or channel" as the user in a channel or a group chat: Graph's channel
    messages (learn.microsoft.com/graph/api/channel-post-messages) or chat messages (…/chat-post-messages)."""
    params = _parameters(action)
    op, path = _teams_target(params, "")
    body = call("power_automate.channel_message", value(params.get("body/messageBody", "")),
                value(params.get("body/subject")))
    where = "chats/{chat}" if op == "chatMessage.create" else "teams/{team}/channels/{channel}"
    return ActionCode(_graph(action, gen, op, path, body), note=f"Graph POST /v1.0/{where}/messages (HTML)")


def _team_member(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Teams "Add a member to a team": Graph's team members, the user bound by id (an owner when ``body/owner``)."""
    params = _parameters(action)
    team, user = params.get("teamId"), params.get("body/userId")
    if team is None or user is None:
        raise Untranslatable("the team (teamId) or the user (body/userId) is missing")
    path = ast.JoinedStr([lit("/v1.0/teams/"), ast.FormattedValue(call("power_automate.text", value(team)), -1, None),
                          lit("/members")])
    body = call("power_automate.team_member", value(user), value(params.get("body/owner", False)))
    return ActionCode(_graph(action, gen, "teamMember.add", path, body),
                      note="Graph POST /v1.0/teams/{team}/members (the user by id)")


def _teams_card(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Teams "Post card in a chat or channel" as the user in a channel or a group chat: Graph's message with the
    adaptive card as its one attachment (learn.microsoft.com/graph/api/channel-post-messages, "adaptive card")."""
    params = _parameters(action)
    op, path = _teams_target(params, "a card ")
    card = params.get("body/messageBody")
    if card is None:
        raise Untranslatable("the card (body/messageBody) is missing")
    where = "chats/{chat}" if op == "chatMessage.create" else "teams/{team}/channels/{channel}"
    return ActionCode(_graph(action, gen, op, path, call("power_automate.channel_card", value(card))),
                      note=f"Graph POST /v1.0/{where}/messages, the card as an attachment")


# Office 365 Users: (operation) -> (catalogue operation, Graph path after /v1.0, reads the user ``id``)
_USERS = {"UserProfile_V2": ("user.get", "/users/", ""), "Manager_V2": ("user.manager", "/users/", "/manager"),
          "MyProfile_V2": ("me.get", "/me", "")}


def _users(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """Office 365 Users "Get user profile (V2)" / "Get manager (V2)" / "Get my profile (V2)": Graph's user,
    with the action's ``$select`` (the connector sends it to Graph: the body is those fields)."""
    op = operation_of(action)
    catalogue_op, head, tail = _USERS[op]
    params = _parameters(action)
    select = params.get("$select")
    if select is None or select == "":
        raise Untranslatable(f"{op} without Select fields returns the connector's own default field list (wider than "
                             "Graph's default): set Select fields ($select) on the action, then it translates")
    parts: list[ast.expr] = [lit("/v1.0" + head)]
    if op != "MyProfile_V2":
        user = params.get("id")
        if user is None:
            raise Untranslatable("the user (id: UPN or object id) is missing")
        parts.append(ast.FormattedValue(call("power_automate.path_segment", value(user)), -1, None))
    if tail:
        parts.append(lit(tail))
    graph, spec = app("microsoft-graph"), operation("microsoft-graph", catalogue_op)
    url = call("power_automate.text", ast.BinOp(lit(graph.base_url), ast.Add(), ast.JoinedStr(parts)))
    lines = _call(action, gen, _provider(graph.base_url, gen), spec.method, url,
                  queries=dict_of([("$select", value(select))]))
    return ActionCode(lines, note=f"Graph GET {spec.path}?$select=… (the fields the action selects)")


OPERATIONS: dict[tuple[str, str], Callable[[FlowAction, FlowBuild], ActionCode]] = {
    ("teams", "PostCardToConversation"): _teams_card,
    ("office365users", "UserProfile_V2"): _users,
    ("sharepointonline", "DeleteItem"): _sharepoint_delete,
    ("office365users", "Manager_V2"): _users,
    ("office365users", "MyProfile_V2"): _users,
    ("office365groups", "HttpRequest"): _groups_request,
    ("sharepointonline", "HttpRequest"): _sharepoint_request,
    ("office365", "SendEmailV2"): _send_email,
    ("teams", "PostMessageToConversation"): _teams_post,
    ("teams", "AddMemberToTeam"): _team_member,
}

# (connector, operation) -> (catalogue app, operation) of the operations above that call a catalogue row
# (harness.catalogue.coverage reads it)
CATALOGUE: dict[tuple[str, str], tuple[str, str]] = {
    ("office365", "SendEmailV2"): ("microsoft-graph", "mail.send"),
    ("teams", "PostMessageToConversation"): ("microsoft-graph", "channelMessage.create"),
    ("teams", "PostCardToConversation"): ("microsoft-graph", "channelMessage.create"),
    ("teams", "AddMemberToTeam"): ("microsoft-graph", "teamMember.add"),
    ("office365groups", "HttpRequest"): ("microsoft-graph", "request"),
    ("office365users", "UserProfile_V2"): ("microsoft-graph", "user.get"),
    ("office365users", "Manager_V2"): ("microsoft-graph", "user.manager"),
    ("office365users", "MyProfile_V2"): ("microsoft-graph", "me.get"),
}


def _codeless(action: FlowAction, gen: FlowBuild) -> ActionCode | None:
    """An Outlook ApiConnection to ``/codeless/v1.0/…``: the connector's proxy of that Graph path."""
    inputs = action.inputs if isinstance(action.inputs, dict) else {}
    path = inputs.get("path")
    if api_of(action, gen.flow) != "office365" or not isinstance(path, str) or not path.startswith("/codeless/v1.0/"):
        return None
    url = "https://graph.microsoft.com" + path.removeprefix("/codeless")
    lines = _call(action, gen, _provider("https://graph.microsoft.com", gen), inputs.get("method", "get"), value(url),
                  queries=value(inputs["queries"]) if "queries" in inputs else None,
                  body=value(inputs["body"]) if "body" in inputs else None)
    return ActionCode(lines, note="the Outlook connector's Graph proxy: Graph " + path.removeprefix("/codeless"))


def connector(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """A connector action: the operations above, else a TODO naming the call."""
    api, op = api_of(action, gen.flow), operation_of(action)
    translator = OPERATIONS.get((api, op))
    if translator is not None:
        return translator(action, gen)
    found = _codeless(action, gen) if action.kind == "ApiConnection" else None
    if found is not None:
        return found
    if (api, op) in _RESHAPED:
        raise Untranslatable(f"connector {api} operation {op}: {_RESHAPED[api, op]}: write the ctx.call and the mapping")
    if api == "sharepointonline" and op in _SHAREPOINT_RESHAPED:
        raise Untranslatable(f"SharePoint {op}: the connector's item is not the site REST API's (choice, person and "
                             "lookup columns become objects, {Link}/{Name}/{Identifier}… are added): write the ctx.call "
                             "to _api/web/lists(...)/items and the mapping of this list's columns")
    inputs = action.inputs if isinstance(action.inputs, dict) else {}
    where = f" ({str(inputs.get('method', 'get')).upper()} {inputs['path']})" if "path" in inputs else ""
    raise Untranslatable(f"connector {api} operation {op}{where} is not in the catalogue: write the ctx.call to "
                         "the service's REST endpoint")


def webhook(action: FlowAction, gen: FlowBuild) -> ActionCode:
    """A connector action that waits for a callback (an approval): not translated, named."""
    api, op = api_of(action, gen.flow), operation_of(action)
    why = _RESHAPED.get((api, op), "")
    raise Untranslatable(f"{action.kind} {api}/{op} waits for a callback (ctx.create_token / ctx.wait_for_token)"
                         + (f": {why}" if why else ": write it by hand"))


TRANSLATORS: dict[str, Callable[[FlowAction, FlowBuild], ActionCode]] = {
    "Http": http, "ApiConnection": connector, "OpenApiConnection": connector,
    "ApiConnectionWebhook": webhook, "OpenApiConnectionWebhook": webhook,
}
