"""Mail servers as catalogue rows: an SMTP provider (``kind = "smtp"``, ``queue_core.gateway.smtp``).

Its one operation sends a message built by the caller (envelope and RFC 5322 text); the server's
``smtp://user:password@host:port`` URL is the provider's secret, read from ``dsn_env``.
"""

from __future__ import annotations

from harness.catalogue._model import App, Auth, Operation, Secret

MAIL: tuple[App, ...] = (
    App("smtp", "smtp", "smtp://smtp", Secret(Auth.DSN, "SMTP_URL", what="the mail server's smtp://user:password@host:port URL"),
        {"email.send": Operation("email.send", "SMTP", "/send", body=("from", "to", "message"))}),
)
