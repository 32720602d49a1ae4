"""Telegram (the bot token as a secret path segment), Gmail (a MIME message) and Slack channels as n8n's nodes call them.

Telegram's Bot API takes the token in the path (``/bot<token>/sendMessage``): the generated URL
holds the gateway's placeholder ``__auth_env__`` there, which the gateway replaces with the
provider's ``auth_env`` value only on the wire (``queue_core.gateway``), so no record, trace or
log ever holds the token. Gmail's ``messages/send`` takes the message as base64url MIME text in
``raw``, which ``n8n.mime_message`` builds with Python's ``email`` package.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_request import Request, collection
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, lit, name, stmts

SECRET_SEGMENT = "__auth_env__"  # queue_core.gateway.request.SECRET_SEGMENT
_TELEGRAM_FIELDS = {"disable_notification": "disable_notification", "disable_web_page_preview": "disable_web_page_preview",
                    "parse_mode": "parse_mode", "reply_to_message_id": "reply_to_message_id",
                    "message_thread_id": "message_thread_id", "appendAttribution": "appendAttribution"}


def telegram_token(raw: object) -> ast.expr:
    """Return the path segment of the bot token: the gateway's placeholder, never the token."""
    return lit(SECRET_SEGMENT)


def telegram_send(node: Node) -> Request:
    """sendMessage: chat_id, text and the additional fields, with n8n's defaults per version.

    n8n sends ``parse_mode`` Markdown unless one is chosen, turns the link preview off for text
    with no URL (and, from v1.2, unless the option says otherwise), and from v1.1 appends its
    attribution line unless ``appendAttribution`` is off (the link without the n8n instance id,
    which only the n8n instance knows).
    """
    params = node.settings if node.described else node.parameters
    if params.get("replyMarkup", "none") not in ("none", None):
        raise Untranslatable("a reply keyboard (replyMarkup) is not translated")
    chosen = dict(collection(node if not node.described else Node(node.name, node.type, node.version, params),
                             "additionalFields", _TELEGRAM_FIELDS))
    fields = [(k, v) for k, v in chosen.items() if k != "appendAttribution"]
    attribution = chosen.get("appendAttribution", ast.Constant(node.version >= 1.1))
    body = _code.expr("n8n.telegram_message($chat, $text, $fields, attribution=$attribution, version=$version)",
                      chat=expr.value(params.get("chatId", "")), text=expr.value(params.get("text", "")),
                      fields=dict_of(fields), attribution=attribution, version=node.version)
    return Request(body=body)


def gmail_send(node: Node) -> Request:
    """messages/send (Gmail v2): To, Subject, a text or HTML message, Cc/Bcc/sender name and reply-to."""
    params = node.settings if node.described else node.parameters
    options = dict(params.get("options") or {})
    # senderName is left out: n8n reads the account's address first (GET /gmail/v1/users/me/profile)
    known = {"ccList": "cc", "bccList": "bcc", "replyTo": "reply_to", "appendAttribution": "attribution"}
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(known))})")
    kwargs = {known[k]: expr.value(v) for k, v in options.items()}
    kwargs.setdefault("attribution", ast.Constant(node.version >= 2.1))
    html = params.get("emailType", "html") == "html"
    raw = call("n8n.mime_message", expr.value(params.get("sendTo", "")), expr.value(params.get("subject", "")),
               expr.value(params.get("message", "")), html=html)
    raw.keywords += [ast.keyword(k, v) for k, v in kwargs.items()]
    return Request(body=dict_of([("raw", raw)]))


def gmail_labels(field: str) -> Callable[[Node], Request]:
    """messages/{id}/modify with the node's ``labelIds`` as ``addLabelIds`` or ``removeLabelIds``."""
    def build(node: Node) -> Request:
        params = node.settings if node.described else node.parameters
        return Request(body=dict_of([(field, expr.value(params.get("labelIds", [])))]))
    return build


def gmail_unread(field: str) -> Callable[[Node], Request]:
    """messages/{id}/modify taking (mark as read) or giving (mark as unread) the UNREAD label."""
    def build(node: Node) -> Request:
        return Request(body=dict_of([(field, ["UNREAD"])]))
    return build


_CHANNEL = _code.expr("[{'json': n8n.get(response.json(), 'channel') or {}}]")  # n8n outputs the response's channel
_SLACK_SET_ASIDE = ("thread_ts", "ephemeral", "botProfile")


def slack_post(node: Node) -> Request:
    """chat.postMessage (Slack v2): the channel's or user's id, the text (or the blocks), then every other option
    as n8n puts it into the body (``Object.assign(body, otherOptions)``); the answer's ``ts`` becomes
    ``message_timestamp`` (``n8n.slack_answer``).

    The "Automated with this n8n workflow" link (``includeLinkToWorkflow``, on by default from v2.1) is
    not appended: it links to the n8n instance and workflow the automation leaves behind. Ephemeral
    messages and attachments are not translated.
    """
    params = node.settings if node.described else node.parameters
    other = dict(params.get("otherOptions") or {})
    if other.get("ephemeral"):
        raise Untranslatable("otherOptions.ephemeral (chat.postEphemeral) is not translated")
    kind = params.get("messageType", "text")
    if params.get("select", "channel") != "user":
        locator = params.get("channelId")
        if params.get("select", "channel") != "channel" or (
                (locator.get("value") if isinstance(locator, dict) else locator) in (None, "")):
            legacy = " (the export's 'channel' parameter is not one Slack v2 reads)" if "channel" in node.parameters else ""
            raise Untranslatable(f"no channel is chosen (select, channelId){legacy}: n8n refuses to run the workflow ('The workflow has "
                                 "issues'); choose the channel in the workflow")
        target = expr.value(_locator(locator))
    else:
        user = params.get("user") or {}
        target = expr.value(_locator(user))
        if isinstance(user, dict) and user.get("mode") == "username":
            target = _code.expr("(lambda t: t if t.startswith('@') else '@' + t)(n8n.text($t))", t=target)
    if kind == "text":
        content: ast.expr = dict_of([("text", expr.value(params.get("text", "")))])
    elif kind == "block":
        content = call("n8n.slack_blocks", expr.value(params.get("blocksUi", "")), expr.value(params.get("text", "")))
    else:
        raise Untranslatable(f"messageType {kind!r} is not translated (text, block are)")
    extra: list[tuple[str, ast.expr]] = []
    if params.get("authentication", "accessToken") == "accessToken" and other.get("sendAsUser") not in ("", None):
        extra.append(("username", expr.value(other["sendAsUser"])))
    reply = ((other.get("thread_ts") or {}).get("replyValues") or {}) if isinstance(other.get("thread_ts"), dict) else {}
    if reply.get("thread_ts"):
        extra.append(("thread_ts", expr.value(reply["thread_ts"])))
    if "reply_broadcast" in reply:
        extra.append(("reply_broadcast", expr.value(reply["reply_broadcast"])))
    profile = ((other.get("botProfile") or {}).get("imageValues") or {}) if isinstance(other.get("botProfile"), dict) else {}
    if profile:
        key = "icon_url" if profile.get("profilePhotoType") == "image" else "icon_emoji"
        extra.append((key, expr.value(profile.get(key))))
    extra += [(k, expr.value(v)) for k, v in other.items() if k not in _SLACK_SET_ASIDE]
    body = ast.Dict([ast.Constant("channel"), None, None], [target, content, dict_of(extra)])
    return Request(body=body, items=_code.expr("n8n.slack_answer(response)"))


def _locator(raw: object) -> object:
    return raw.get("value") if isinstance(raw, dict) else raw


def slack_invite(node: Node) -> Request:
    """conversations.invite (Slack v2): the channel and the users, comma-joined."""
    params = node.parameters
    users = params.get("userIds") or []
    if expr.is_expression(users):
        joined: ast.expr = call("n8n.text", expr.value(users))
    else:
        joined = _code.expr("','.join(n8n.text(u) for u in $users)", users=[expr.value(u) for u in users])
    return Request(body=dict_of([("channel", expr.value(_locator(params.get("channelId", "")))), ("users", joined)]),
                   items=_CHANNEL)



def slack_create(node: Node) -> Request:
    """conversations.create (Slack v2): the name (a leading '#' dropped) and whether it is private."""
    params = node.settings if node.described else node.parameters
    name = expr.value(_locator(params.get("channelId", "")))
    private = params.get("channelVisibility", "public") == "private"
    return Request(body=dict_of([("name", _code.expr("n8n.text($n).removeprefix('#')", n=name)),
                                 ("is_private", private)]), items=_CHANNEL)


def slack_lookup_by_email(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """user.lookupByEmail (Slack v2.5+, described from n8n 2.x): GET users.lookupByEmail?email=…, the answer's user.

    Slack answers an unknown address with HTTP 200 and ``{"ok": false, "error": "users_not_found"}``;
    n8n's node then fails with ``Slack error response: "users_not_found"`` — or, with On Error
    "Continue", outputs ``{"error": <that message>}`` for the item and goes on, as translated here.
    A failed call (the gateway's retry or error) is not such an answer and is not continued.
    """
    if node.version < 2.5:
        raise Untranslatable(f"slack v{node.version:g} has no user.lookupByEmail (v2.5+ have)")
    if node.on_error not in ("stop", "continue"):
        raise Untranslatable(f"On Error {node.on_error!r} is not translated (stop and continue are)")
    params = node.settings if node.described else node.parameters
    return stmts("""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    response = await ctx.call($provider, 'GET', $url, params={'email': n8n.text($email)}, step=$step)
    answer = response.json()
    if isinstance(answer, dict) and answer.get('ok') is False:
        error = 'Slack error response: "' + n8n.text(answer.get('error')) + '"'
        if not $keep:
            raise n8n.NodeFailed($prefix + error)
        $var.append({'json': {'error': error}})
        continue
    $var.append({'json': (answer.get('user') if isinstance(answer, dict) else None) or {}, 'pairedItem': {'item': i}})
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider,
                 url="https://slack.com/api/users.lookupByEmail", email=expr.value(params.get("email", "")),
                 step=slot.step, keep=node.on_error == "continue", prefix=f"{node.name}: ", node=node.name)


def gmail_draft(node: Node) -> Request:
    """drafts.create (Gmail v2): the MIME message (``n8n.mime_message``) as ``message.raw``; Gmail's draft is the item.

    A draft in a thread (options.threadId: n8n reads the thread's last Message-ID first), a sender
    alias and attachments are not translated.
    """
    params = node.settings if node.described else node.parameters
    options = dict(params.get("options") or {})
    known = {"sendTo": "to", "ccList": "cc", "bccList": "bcc", "replyTo": "reply_to"}
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(known))})")
    raw = call("n8n.mime_message", expr.value(options.get("sendTo", "")), expr.value(params.get("subject", "")),
               expr.value(params.get("message", "")), html=params.get("emailType", "text") == "html")
    raw.keywords += [ast.keyword(known[k], expr.value(v)) for k, v in options.items() if k != "sendTo"]
    return Request(body=dict_of([("message", dict_of([("raw", raw)]))]))


def telegram_binary(node: Node) -> Request:
    """sendAudio and the other uploads by file id or URL: not translated yet (a precise TODO); with Binary File
    they are ``app_files.telegram_upload``."""
    params = node.settings if node.described else node.parameters
    operation = params.get("operation", "sendAudio")
    raise Untranslatable(f"{operation} parameters are not translated; the call: telegram: POST "
                         f"https://api.telegram.org/bot<token>/{operation} with chat_id and the file id or URL")


def slack_send_and_wait(node: Node) -> Request:
    """message.sendAndWait: a message with a form or buttons, then a wait for the person's answer: a precise TODO."""
    raise Untranslatable("message.sendAndWait posts the message (chat.postMessage) with a link to n8n's own form and "
                         "then waits for a person's answer on n8n's resume webhook, which no REST call carries: post "
                         "the message with ctx.call and resume on your own webhook automation")


def gmail_get(node: Node) -> Request:
    """message.get: n8n parses the message (format raw, with its mail parser) or simplifies its metadata: a TODO."""
    params = node.settings if node.described else node.parameters
    if (params.get("options") or {}).get("downloadAttachments"):
        raise Untranslatable("message.get with Download Attachments asks for format=raw, parses the MIME text with "
                             "n8n's mail parser (mailparser's simpleParser: its json fields) and puts each attachment "
                             "into the item's binary properties ('attachment_0', …, prefix options.dataPropertyAttachmentsPrefixName): "
                             "not translated; the call: GET https://gmail.googleapis.com/gmail/v1/users/me/messages/{id}?format=raw "
                             "($GMAIL_TOKEN), then each attachment as an entry of queue_core.compat._n8n_binary")
    from harness import catalogue

    simple = params.get("simple", True)
    raise Untranslatable(f"message.get is not translated: n8n asks for format={'metadata' if simple else 'raw'} and "
                         f"{'simplifies the headers' if simple else 'parses the MIME text with its mail parser'}; the "
                         f"call: {catalogue.skeleton('gmail', 'message.get')}")
