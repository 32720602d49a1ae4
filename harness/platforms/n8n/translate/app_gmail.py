"""Gmail v2 *Reply* to a thread (``thread.reply``) as n8n's node runs it (runtime: ``queue_core.compat._n8n_gmail``).

n8n replies to the message the node names (``messageId``; the ``threadId`` parameter is not read:
the thread is the message's own), per item: it reads the message's headers and the account's
address, then sends the reply in the thread. Attachments (``options.attachmentsUi``) are not
translated.
"""

from __future__ import annotations

import ast

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_request import check_version
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold._code import name, stmts

_REPLY_OPTIONS = {"bccList", "ccList", "senderName", "replyToSenderOnly", "replyToRecipientsOnly"}


def gmail_thread_reply(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """thread.reply (Gmail v2+): the message's headers and the account's address read, then the reply sent."""
    check_version(node, 2, "Gmail")
    params = node.settings if node.described else node.parameters
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - _REPLY_OPTIONS)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(_REPLY_OPTIONS))})")
    return stmts("""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    $var.append({'json': await n8n.gmail_thread_reply(ctx, $provider, $message_id, message=$message, html=$html, options=$options, version=$version, step=$step)})
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider,
                 message_id=expr.value(params.get("messageId", "")), message=expr.value(params.get("message", "")),
                 html=params.get("emailType", "text") == "html", options=expr.value(options), version=node.version,
                 step=slot.step, node=node.name)
