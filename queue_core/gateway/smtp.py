"""The SMTP transport: a mail provider's calls send their message, answered as JSON.

A provider with ``kind = "smtp"`` (``base_url`` ``smtp://<name>``; in the env var ``dsn_env`` the
server as ``smtp://user:password@host:port``, ``smtps://…`` for TLS from the start, ``?starttls=false``
not to upgrade a plain connection, ``?name=<host>`` the name it greets with) is called like any other:
``ctx.call(provider, "SMTP", "/send", json=mail, step=…)`` goes through budgets, the ledger,
redaction and the modes. Only a live call reaches this transport (mounted on the gateway's live
client for the provider's ``smtp://`` origin); shadow and dry-run calls are answered offline, so
nothing of those modes ever connects to the mail server or sends.

The body (``mail``): ``{"from": address, "to": [addresses], "message": RFC 5322 text}``: the
envelope and the message as the caller built it, without ``Date`` and ``Message-ID``, which are set
here, at sending (so a recorded intent is the same on every run). The answer (200) is what
nodemailer answers n8n with: ``{"accepted", "rejected", "envelope": {"from", "to"}, "messageId",
"response"}`` (the server's reply to the message). A refusal answers 400 (a 5xx reply) or 503 (a
4xx reply, worth retrying) with ``{"error": {"code", "message"}}``; a server that cannot be reached
raises ``httpx.ConnectError``, naming the provider, never the URL (it holds the password).
"""

from __future__ import annotations

import asyncio
import json
import smtplib
import ssl
from collections.abc import Mapping
from email.utils import formatdate, make_msgid
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import httpx

from ..errors import ConfigError
from ..provider import ProviderConfig, ProviderKind

SMTP_HEADER = "X-Cutover-Smtp"


def mounts(providers: Mapping[str, ProviderConfig], environ: Mapping[str, str]) -> dict[str, httpx.AsyncBaseTransport]:
    """Return the transports to mount on the live client: one per SMTP provider, on its ``smtp://`` origin."""
    return {config.base_url: SmtpTransport(config, environ) for config in providers.values()
            if config.kind is ProviderKind.SMTP}


class SmtpTransport(httpx.AsyncBaseTransport):
    """Send a mail provider's calls through its server (one connection per call, closed after it)."""

    def __init__(self, config: ProviderConfig, environ: Mapping[str, str]) -> None:
        self._config, self._environ = config, environ

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        mail = _mail(self._config, await request.aread())
        url = self._environ.get(self._config.dsn_env or "")
        if not url:
            raise ConfigError(f"environment variable {self._config.dsn_env} is not set (provider {self._config.name!r})",
                              source="environment", field=f"tool.cutover.providers.{self._config.name}.dsn_env")
        try:
            status, answer = await asyncio.to_thread(_send, url, mail, self._config.timeout)
        except (OSError, smtplib.SMTPException) as exc:  # its text may name the host: the provider's name is enough
            if isinstance(exc, smtplib.SMTPResponseException):
                status, answer = _refused(exc.smtp_code, exc.smtp_error)
            else:
                raise httpx.ConnectError(f"could not send through the mail server of provider {self._config.name!r} "
                                         f"({type(exc).__name__})", request=request) from None
        return httpx.Response(status, json=answer, headers={SMTP_HEADER: "sent" if status == 200 else "refused"},
                              request=request)


def _mail(config: ProviderConfig, body: bytes) -> dict[str, Any]:
    try:
        mail = json.loads(body or b"null")
    except ValueError:
        mail = None
    if not (isinstance(mail, dict) and isinstance(mail.get("from"), str) and isinstance(mail.get("message"), str)
            and isinstance(mail.get("to"), list) and all(isinstance(t, str) for t in mail["to"])):
        raise ConfigError(f"provider {config.name!r} is a mail server: call it with json={{'from': …, 'to': […], "
                          "'message': <RFC 5322 text>}", field=f"tool.cutover.providers.{config.name}")
    return mail


def _refused(code: int, reply: bytes | str) -> tuple[int, dict[str, Any]]:
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
    return (503 if 400 <= code < 500 else 400), {"error": {"code": code, "message": f"{code} {text}"}}


def _connect(url: str, timeout: float) -> smtplib.SMTP:
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    secure = parts.scheme == "smtps"
    name = query.get("name") or None
    port = parts.port or (465 if secure else 587)
    if secure:
        server: smtplib.SMTP = smtplib.SMTP_SSL(parts.hostname or "", port, local_hostname=name, timeout=timeout,
                                                context=ssl.create_default_context())
    else:
        server = smtplib.SMTP(parts.hostname or "", port, local_hostname=name, timeout=timeout)
        server.ehlo()
        if query.get("starttls", "true") != "false" and server.has_extn("starttls"):  # as nodemailer: when offered
            server.starttls(context=ssl.create_default_context())
            server.ehlo()
    if parts.username or parts.password:
        server.login(unquote(parts.username or ""), unquote(parts.password or ""))
    return server


def _send(url: str, mail: dict[str, Any], timeout: float) -> tuple[int, dict[str, Any]]:
    """Send one message; return the status and the answer (nodemailer's ``info``)."""
    domain = (mail["from"].rsplit("@", 1)[-1] or "localhost").strip("<> ")
    message_id = make_msgid(domain=domain)
    text = f"Date: {formatdate(localtime=False, usegmt=True)}\r\nMessage-ID: {message_id}\r\n" + mail["message"]
    server = _connect(url, timeout)
    try:
        code, reply = server.mail(mail["from"])
        if code != 250:
            return _refused(code, reply)
        accepted: list[str] = []
        rejected: list[str] = []
        for rcpt in mail["to"]:
            code, reply = server.rcpt(rcpt)
            (accepted if code in (250, 251) else rejected).append(rcpt)
        if not accepted:
            return _refused(code, reply)
        code, reply = server.data(text.encode("utf-8"))
        if code != 250:
            return _refused(code, reply)
    finally:
        try:
            server.quit()
        except smtplib.SMTPException:
            server.close()
    return 200, {"accepted": accepted, "rejected": rejected, "envelope": {"from": mail["from"], "to": mail["to"]},
                 "messageId": message_id, "response": f"{code} {reply.decode('utf-8', 'replace')}"}
