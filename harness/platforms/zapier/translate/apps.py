"""Zapier's app steps onto the app catalogue (``harness.catalogue``): each (app, action) as the operation it calls.

``ZAPIER_APPS`` maps an app family (``selected_api`` without version and API suffixes: ``Slack``,
``GoogleSheets``) and action key to a catalogue operation and the small function that maps the
step's params onto its fields. The output of an app step is the app API's JSON response, which is
not the shape Zapier shows for the step: so a step whose output a later step reads stays a TODO
(the call's skeleton named), as does an action the catalogue knows but no function fills in.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.zapier.definition import ZapStep
from harness.platforms.zapier.translate.fields import template, text_of
from harness.platforms.zapier.translate.steps import ZapGen, StepCode, family, unknown_params, var
from harness.scaffold._code import dict_of, lit, stmts

Body = Callable[[ZapStep, set[str]], list[tuple[str, ast.expr]]]
_YES = ("yes", "true", "1")


def _flag(raw: object) -> bool:
    return str(raw).strip().lower() in _YES


_SLACK_PARAMS = {"channel", "text", "as_bot", "username", "icon", "unfurl", "link_names", "add_edit_link",
                 "thread_ts", "reply_broadcast"}


def slack_message(step: ZapStep, known: set[str]) -> list[tuple[str, ast.expr]]:
    """Slack Send Channel Message / Send Direct Message → ``chat.postMessage`` (a user id as channel is a DM)."""
    params = step.params
    extra = unknown_params(step, _SLACK_PARAMS)
    if extra:
        raise Untranslatable(f"params {', '.join(extra)} are not translated")
    if _flag(params.get("add_edit_link")):
        raise Untranslatable("'Include a link to this Zap' appends Zapier's own link to the message, which this "
                             "project cannot write: set add_edit_link off in the Zap, or write the text by hand")
    if not params.get("channel") or params.get("text") in (None, ""):
        raise Untranslatable("the channel or the text is not set")
    body = [("channel", text_of(params["channel"], known)), ("text", text_of(params["text"], known))]
    if _flag(params.get("as_bot", "yes")):
        if params.get("username"):
            body.append(("username", text_of(params["username"], known)))
        icon = params.get("icon")
        if isinstance(icon, str) and icon:
            body.append(("icon_url" if icon.startswith("http") else "icon_emoji", text_of(icon, known)))
    for key, field in (("unfurl", "unfurl_links"), ("link_names", "link_names")):
        if key in params:
            body.append((field, lit(_flag(params[key]))))
    if params.get("thread_ts"):
        body.append(("thread_ts", text_of(params["thread_ts"], known)))
        if _flag(params.get("reply_broadcast")):
            body.append(("reply_broadcast", lit(True)))
    return body


@dataclass(frozen=True)
class AppMapping:
    """One Zapier (app, action): the catalogue app and operation, and how the params fill its body (None: not yet)."""

    app: str
    operation: str
    body: Body | None = None
    own: bool = False  # translated by a function of its own (``sheets.sheets_step``, ``gmail_message``)


ZAPIER_APPS: dict[tuple[str, str], AppMapping] = {
    ("Slack", "channel_message"): AppMapping("slack", "message.postAs", slack_message),
    ("Slack", "direct_message"): AppMapping("slack", "message.postAs", slack_message),
    ("Slack", "private_channel_message"): AppMapping("slack", "message.postAs", slack_message),
    ("Todoist", "new_task"): AppMapping("todoist", "task.create"),
    # translated by their own functions (``sheets.sheets_step``, ``gmail_message``), named here for the coverage table
    ("GoogleSheets", "lookup_row"): AppMapping("google-sheets", "sheet.read", own=True),
    ("GoogleSheets", "update_row"): AppMapping("google-sheets", "sheet.update", own=True),
    ("GoogleSheets", "add_row"): AppMapping("google-sheets", "sheet.append", own=True),
    ("GoogleMail", "message"): AppMapping("gmail", "message.send", own=True),
    ("Gmail", "message"): AppMapping("gmail", "message.send", own=True),
    ("Airtable", "new_record"): AppMapping("airtable", "record.create"),
    ("Notion", "create_database_item"): AppMapping("notion", "databasePage.create"),
}


def app_step(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """An action or search step of an app: the catalogue operation's ``ctx.call``, or its TODO."""
    if family(step.app) == "GoogleSheets":
        from harness.platforms.zapier.translate.sheets import sheets_step

        return sheets_step(step, gen, known)
    if family(step.app) in ("GoogleMail", "Gmail") and step.action == "message":
        return gmail_message(step, gen, known)
    mapping = ZAPIER_APPS.get((family(step.app), step.action))
    if mapping is None:
        raise Untranslatable(f"no catalogue operation for {step.app} action {step.action!r}: write its ctx.call")
    skeleton = catalogue.skeleton(mapping.app, mapping.operation)
    if mapping.body is None:
        raise Untranslatable(f"its params are not mapped onto the catalogue yet; the call: {skeleton}")
    if step.id in gen.referenced:
        raise Untranslatable(f"a later step reads its output, whose fields in Zapier are not the API's response; "
                             f"the call: {skeleton}")
    fields = mapping.body(step, known)
    app, op = catalogue.app(mapping.app), catalogue.operation(mapping.app, mapping.operation)
    provider = gen.providers.get(app.host, app.provider)
    if app.host not in gen.providers:
        gen.proposals[provider] = app.base_url
    gen.hosts[app.host] = provider
    gen.hosts[step.app] = provider  # a detailed zap run names a call's provider after its app
    lines = stmts("$var = await zapier.app_call(ctx, $provider, $method, $path, json=$body, step=$step)",
                  var=var(step), provider=provider, method=op.method, path=op.path, body=dict_of(fields),
                  step=gen.steps[step.id])
    return StepCode(lines, output=var(step), note=f"{op.method} {app.base_url}{op.path} (no later step reads its output)")


_GMAIL = {"to", "cc", "bcc", "subject", "body", "body_type", "from", "from_name", "reply_to", "send_to_groups", "file",
          "signature", "label_ids"}


def gmail_message(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """Gmail Send Email → ``zapier.gmail_send``: the MIME message through the catalogue's ``message.send``."""
    skeleton = catalogue.skeleton("gmail", "message.send")
    params = step.params
    extra = unknown_params(step, _GMAIL)
    if extra:
        raise Untranslatable(f"params {', '.join(extra)} are not translated; the call: {skeleton}")
    for key, why in (("file", "an attachment"), ("signature", "the account's signature"),
                     ("label_ids", "labels added after sending")):
        if params.get(key) not in (None, "", [], False):
            raise Untranslatable(f"{why} ({key}) is not translated; the call: {skeleton}")
    if _flag(params.get("send_to_groups", "false")):
        raise Untranslatable(f"sending to Google Groups (send_to_groups) is not translated; the call: {skeleton}")
    if step.id in gen.referenced:
        raise Untranslatable(f"a later step reads its output, whose fields in Zapier are not documented; the call: {skeleton}")
    if not params.get("to") or params.get("body") in (None, ""):
        raise Untranslatable("To or Body is not set")
    app = catalogue.app("gmail")
    provider = gen.providers.get(app.host, app.provider)
    if app.host not in gen.providers:
        gen.proposals[provider] = app.base_url
    gen.hosts[app.host] = provider
    gen.hosts[step.app] = provider
    kwargs = {key: template(params[name], known) for key, name in (
        ("cc", "cc"), ("bcc", "bcc"), ("reply_to", "reply_to"), ("sender", "from"), ("from_name", "from_name"))
        if params.get(name) not in (None, "", [])}
    lines = stmts("$var = await zapier.gmail_send(ctx, $provider, step=$step, to=$to, subject=$subject, body=$body, "
                  "body_type=$kind, **$kwargs)", var=var(step), provider=provider, step=gen.steps[step.id],
                  to=template(params["to"], known), subject=text_of(params.get("subject", ""), known),
                  body=text_of(params["body"], known), kind=str(params.get("body_type") or "plain"), kwargs=kwargs)
    return StepCode(lines, output=var(step), note="POST users/me/messages/send: the MIME message, base64url")
