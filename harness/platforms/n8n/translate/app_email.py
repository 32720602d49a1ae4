"""Translate n8n's Send Email node (v1; v2, operation send): one SMTP provider call per item.

The message is built at run time as nodemailer builds n8n's (``n8n.email_send``) and sent with
``ctx.call(provider, "SMTP", "/send", json=mail)``, the catalogue's ``smtp`` provider (``kind =
"smtp"``, ``queue_core.gateway.smtp``): live it goes to the mail server, shadow and dry-run answer
it offline (nothing is sent). The node's output is the server's answer (nodemailer's ``info``).
"""

from __future__ import annotations

import ast

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, comment
from harness.scaffold._code import call, name, stmts

_FORMATS = {"text": ("text",), "html": ("html",), "both": ("text", "html")}
_OPTIONS = {"ccEmail": "cc", "bccEmail": "bcc", "replyTo": "reply_to"}


def email_node(node: Node, slot: Slot) -> NodeCode:
    """Send Email v1, v2 send: the fields per item, its format's parts; attachments and Send and Wait are TODOs."""
    skeleton = catalogue.skeleton("smtp", "email.send")
    if node.version not in (1, 2):
        raise Untranslatable(f"Send Email v{node.version:g} is not translated (v1 and v2 are); the call: {skeleton}")
    params = node.settings
    if node.version == 1:  # text and html both sent (an empty one left out), cc and bcc beside them
        params = {**params, "emailFormat": "both", "options": {
            **{k: params[k] for k in ("ccEmail", "bccEmail", "attachments") if params.get(k)},
            **(node.parameters.get("options") or {})}}
    if params.get("operation", "send") != "send":
        raise Untranslatable(f"Send Email {params.get('operation')!r} waits for a reply: not translated; the call: {skeleton}")
    if node.on_error != "stop":
        raise Untranslatable("Send Email set to continue on error is not translated: its error item carries "
                             "nodemailer's message, which this runtime does not reproduce")
    options = (params if node.version == 1 else node.parameters).get("options") or {}  # v2: an option left out is unset
    if options.get("attachments"):
        raise Untranslatable(f"attachments (the item's binary properties {options['attachments']!r}) are not "
                             f"translated: this runtime carries no binary data; the call: {skeleton}")
    fmt = str(params.get("emailFormat", "text"))
    if fmt not in _FORMATS:
        raise Untranslatable(f"email format {fmt!r} is not one of n8n's (text, html, both)")
    attribution = options.get("appendAttribution", False) is True  # v2: unset means off
    if attribution and fmt != "text":
        raise Untranslatable("the n8n attribution in an HTML email links to n8n with this instance's id, which the "
                             "scaffold cannot know: set options.appendAttribution to false")
    app = catalogue.app("smtp")
    provider = slot.providers.get(app.host, app.provider)
    proposals = {} if app.host in slot.providers else {provider: app.base_url}
    fields: dict[str, ast.expr] = {"sender": expr.value(params.get("fromEmail", "")),
                                   "to": expr.value(params.get("toEmail", "")),
                                   "subject": expr.value(params.get("subject", ""))}
    fields.update({part: expr.value(params.get(part, "")) for part in _FORMATS[fmt]})
    fields.update({key: expr.value(options[option]) for option, key in _OPTIONS.items() if option in options})
    inp = slot.inputs[0] if slot.inputs else ast.List([], ast.Load())
    source = ("items = $inp\n$var: n8n.Items = []\nfor i, item in enumerate(items):\n"
              "    mail = $mail\n"
              "    response = await ctx.call($provider, 'SMTP', '/send', json=mail, step=$step)\n"
              "    $var.extend(n8n.email_items(response))\n"
              "if items:\n    flow.emit($node, $var)")
    mail = call("n8n.email_send", **fields, attribution=attribution) if attribution else call("n8n.email_send", **fields)
    lines = [comment(node), *stmts(source, inp=inp, var=name(slot.var), mail=mail, provider=provider,
                                   step=slot.step, node=node.name)]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals)


TRANSLATORS = {"emailSend": email_node}
