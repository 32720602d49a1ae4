"""The catalogue's values: an app, its secret, its operations and their pagination (frozen dataclasses)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum


class Auth(StrEnum):
    """Where an app's secret goes on each call."""

    BEARER = "bearer"  # Authorization: Bearer <secret> (the provider's auth_env)
    PATH = "path"  # a URL path segment (Telegram's /bot<token>/): never logged
    BASIC = "basic"  # Authorization: Basic base64(user:password)
    HEADER = "header"  # a named header (X-Api-Key: <secret>)
    QUERY = "query"  # a named query parameter (?key=<secret>)
    DSN = "dsn"  # a database connection string (Postgres)


@dataclass(frozen=True)
class Secret:
    """The credential an app needs: how it is sent and the environment variable that holds it."""

    auth: Auth
    env: str  # the NAME of the environment variable (never its value)
    name: str = ""  # the header or query parameter name (HEADER, QUERY)
    what: str = ""  # what it is, for a person configuring it


@dataclass(frozen=True)
class Pagination:
    """How an operation's results page: the request field that moves on and the response field that says where to."""

    style: str  # "cursor" | "offset" | "page" | "link"
    request: str  # the query (or body) field sent for the next page
    response: str = ""  # the response field holding the next cursor (dotted), "" for offset/page styles
    limit: str = ""  # the page-size field, if any


@dataclass(frozen=True)
class Operation:
    """One app operation: the REST call it makes."""

    name: str  # "<resource>.<operation>", e.g. "issue.create"
    method: str
    path: str  # under the app's base URL; "{field}" placeholders are path fields
    body: tuple[str, ...] = ()  # JSON body fields, in the order the app documents them
    query: tuple[str, ...] = ()
    form: bool = False  # the body is form-encoded (Stripe) instead of JSON
    pagination: Pagination | None = None
    note: str = ""  # what a translator must know beyond the fields (a MIME body, a read-then-write)

    @property
    def path_fields(self) -> tuple[str, ...]:
        """Return the path template's placeholders, in order."""
        return tuple(re.findall(r"\{(\w+)\}", self.path))


@dataclass(frozen=True)
class App:
    """An app: its provider, base URL, secret and operations."""

    name: str  # the catalogue's name, e.g. "github"
    provider: str  # the provider name proposed for [tool.cutover.providers]
    base_url: str
    secret: Secret | None
    operations: dict[str, Operation] = field(default_factory=dict)

    @property
    def host(self) -> str:
        """Return the base URL's host (what configured providers are matched on)."""
        return self.base_url.split("://", 1)[1].split("/", 1)[0]
