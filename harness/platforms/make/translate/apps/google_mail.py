"""Make's Gmail modules (``google-email:*``): each becomes one ``make.googlemail.<module>(…)`` call.

The mapper's fields map onto the catalogue's ``gmail`` operations (``message.send``,
``message.reply``, ``message.get``, ``attachment.get``): ``to``/``cc``/``bcc`` (arrays of
addresses), ``subject``, the HTML body (v2 ``html``; v4 ``content`` with ``bodyType`` ``rawHtml``),
``attachments`` (``filename``, ``data``), ``threadId`` and ``replyMode`` for a reply, ``messageId``
for attachments. Make's Email app (``email:ActionSendEmail``) sends through the project's SMTP
provider (``queue_core.gateway.smtp``); an empty From is the connection's address (``MAKE_EMAIL_FROM``). A v4 body of type ``collection`` (text blocks and images that Make renders into
its own HTML) is a TODO: that rendering is not documented. Watch emails is in ``..triggers``.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps.google_common import awaited, only, required
from harness.platforms.make.translate.base import Gen, ModuleCode

__all__ = ["OPERATIONS", "TRANSLATORS"]

GMAIL = "https://gmail.googleapis.com"


def _html(module: Module) -> object:
    mapper = module.mapper
    if module.version < 3:
        return mapper.get("html", "")
    if mapper.get("bodyType") != "rawHtml":
        raise Untranslatable(f"a body of type {mapper.get('bodyType')!r} (Make renders its text blocks and images "
                             "into HTML of its own) is not translated; rawHtml is")
    return mapper.get("content", "")


def _plain(module: Module) -> None:
    if module.mapper.get("emailHeaders") or module.mapper.get("signature"):
        raise Untranslatable("custom email headers and signatures are not translated")


def send(module: Module, gen: Gen) -> ModuleCode:
    """Send an email: ``POST users/me/messages/send`` with the MIME message (``raw``)."""
    required(module, "to")
    _plain(module)
    only(module, "to", "subject", "html", "content", "bodyType", "from", "cc", "bcc", "attachments", "contents")
    mapper = module.mapper
    return awaited(module, gen, "googlemail.send", GMAIL, to=mapper["to"], subject=mapper.get("subject", ""),
                   html=_html(module), sender=mapper.get("from") or "", cc=mapper.get("cc") or [],
                   bcc=mapper.get("bcc") or [], attachments=mapper.get("attachments") or [])


def reply(module: Module, gen: Gen) -> ModuleCode:
    """Reply to an email: the thread read, then ``messages/send`` in the thread to its last message's sender (or all)."""
    required(module, "threadId")
    _plain(module)
    only(module, "threadId", "replyMode", "bodyType", "content", "contents", "from", "attachments")
    mapper = module.mapper
    if mapper.get("replyMode", "sender") not in ("sender", "all"):
        raise Untranslatable(f"reply mode {mapper.get('replyMode')!r} is not translated")
    return awaited(module, gen, "googlemail.reply", GMAIL, thread=mapper["threadId"], html=_html(module),
                   mode=mapper.get("replyMode", "sender"), sender=mapper.get("from") or "",
                   attachments=mapper.get("attachments") or [])


def list_attachments(module: Module, gen: Gen) -> ModuleCode:
    """List email attachments: one bundle per attachment of the message."""
    required(module, "messageId")
    only(module, "messageId", "include", "returnAttachmentData")
    include = module.mapper.get("include") or ["attachment"]
    if not isinstance(include, list) or not set(include) <= {"attachment", "media"}:
        raise Untranslatable(f"include {include!r} is not translated (attachment, media are)")
    return awaited(module, gen, "googlemail.list_attachments", GMAIL, many=True, message=module.mapper["messageId"],
                   data=bool(module.mapper.get("returnAttachmentData", True)), attachments="attachment" in include,
                   media="media" in include)


def smtp_send(module: Module, gen: Gen) -> ModuleCode:
    """Make's Email app, Send an email: the message through the project's SMTP provider (catalogue ``smtp``)."""
    m = module.mapper
    required(module, "to")
    only(module, "to", "subject", "contentType", "text", "html", "cc", "bcc", "from", "replyTo", "priority",
         "attachments", "references", "headers", "inReplyTo", "sender")
    extra = [k for k in ("attachments", "references", "headers", "inReplyTo", "sender") if m.get(k) not in (None, "", [])]
    if extra or m.get("priority") not in (None, "", "normal"):
        raise Untranslatable(f"the Email module's {(extra or ['priority'])[0]} is not translated")
    if m.get("contentType", "html") not in ("html", "text"):
        raise Untranslatable(f"content type {m.get('contentType')!r} is not translated")
    return awaited(module, gen, "googlemail.smtp_send", "smtp://smtp",
                   note="the SMTP provider: kind = \"smtp\", its server URL in dsn_env; an empty From is the "
                        "connection's address, read from MAKE_EMAIL_FROM; Make documents no output fields (the bundle is empty)",
                   sender=m.get("from") or "", to=m["to"], subject=m.get("subject", ""),
                   content=m.get("html") if m.get("contentType", "html") == "html" and "html" in m else m.get("text", ""),
                   html=m.get("contentType", "html") == "html", cc=m.get("cc") or [], bcc=m.get("bcc") or [],
                   reply_to=m.get("replyTo") or "")


def send_me(module: Module, gen: Gen) -> ModuleCode:
    """Email, Send me an email: to the Make account's own address, which no blueprint holds."""
    raise Untranslatable("Send me an email goes to the Make account's own address (not in the blueprint): "
                         "use an Email Send an email to that address")


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = {
    "email:ActionSendEmail": smtp_send, "email:ActionSendMeEmail": send_me,
    "google-email:ActionSendEmail": send, "google-email:sendAnEmail": send, "google-email:replyToAnEmail": reply,
    "google-email:listEmailAttachments": list_attachments,
}

# module type -> (catalogue app, operation): the call each makes, for the catalogue's table (operation x platform)
OPERATIONS: dict[str, tuple[str, str]] = {
    "google-email:ActionSendEmail": ("gmail", "message.send"), "google-email:sendAnEmail": ("gmail", "message.send"),
    "google-email:replyToAnEmail": ("gmail", "message.reply"),
    "google-email:listEmailAttachments": ("gmail", "attachment.get"), "email:ActionSendEmail": ("smtp", "email.send"),
}
