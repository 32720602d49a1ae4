"""The app catalogue: every app operation a legacy tool's steps call, described once, as data.

An :class:`App` is a provider (its name in ``[tool.cutover.providers]``, its base URL and the
secret it needs); each of its :class:`Operation` rows is one REST call: method, path template
(``{name}`` placeholders are the operation's path fields), the JSON (or form) body fields, the
query fields, and how its results page. Nothing here knows n8n, Make or Zapier: each tool's
translator maps its own step parameters onto these fields (``harness.platforms.n8n.translate.apps``
for n8n), so a new tool reuses the table, and a new app operation is a new row in ``_apps``.

:func:`skeleton` writes the precise TODO of an operation a translator cannot (yet) fill in: the
call it makes and the secret it needs.
"""

from __future__ import annotations

from harness.catalogue._apps import APPS
from harness.catalogue._apps_more import MORE
from harness.catalogue._apps_legacy import LEGACY
from harness.catalogue._ai import AI_APPS
from harness.catalogue._mail import MAIL
from harness.catalogue._rows_google import GOOGLE
from harness.catalogue._rows_make_apps import MAKE_APPS
from harness.catalogue._rows_power_automate import POWER_AUTOMATE
from harness.catalogue._rows_zapier import ZAPIER_ROWS
from harness.catalogue._model import App, Auth, Operation, Pagination, Secret

__all__ = ["App", "Auth", "Operation", "Pagination", "Secret", "app", "apps", "merged", "operation", "skeleton"]




def merged(*tables: dict[str, App] | tuple[App, ...]) -> dict[str, App]:
    """Return one table of the row files' apps: an app in several files (the Google Sheets rows the n8n
    translator reads, the ones a Make or Zapier translator adds) has the union of their operations.

    A later file's app replaces an earlier one's base URL and secret only when it has operations
    of its own; the same operation written twice must be the same row, or the catalogue does not
    load (ValueError naming it): one operation, one meaning, whichever tool reads it.
    """
    out: dict[str, App] = {}
    for table in tables:
        for entry in (table.values() if isinstance(table, dict) else table):
            seen = out.get(entry.name)
            if seen is None:
                out[entry.name] = entry
                continue
            if (seen.provider, seen.base_url) != (entry.provider, entry.base_url):
                raise ValueError(f"app {entry.name!r} is two apps: {seen.provider} at {seen.base_url} "
                                 f"and {entry.provider} at {entry.base_url}")
            for op_name, op in entry.operations.items():
                if op_name in seen.operations and seen.operations[op_name] != op:
                    raise ValueError(f"app {entry.name!r}: operation {op_name!r} is written twice, differently")
            out[entry.name] = App(seen.name, seen.provider, seen.base_url, seen.secret or entry.secret,
                                  {**seen.operations, **entry.operations})
    return out


# Later row files' apps add operations to earlier ones (the AI providers' rows over _apps' first openai/gemini).
_ALL: dict[str, App] = merged(APPS, MORE, AI_APPS, MAIL, LEGACY, GOOGLE, MAKE_APPS, POWER_AUTOMATE, ZAPIER_ROWS)


def apps() -> dict[str, App]:
    """Return every app of the catalogue by name."""
    return _ALL


def app(name: str) -> App:
    """Return the app ``name``; raise KeyError naming the known apps."""
    table = apps()
    if name not in table:
        raise KeyError(f"the app catalogue has no app {name!r} (known: {', '.join(sorted(table))})")
    return table[name]


def operation(app_name: str, name: str) -> Operation:
    """Return the operation ``name`` of app ``app_name``; raise KeyError naming the app's operations."""
    found = app(app_name).operations.get(name)
    if found is None:
        known = ", ".join(app(app_name).operations)
        raise KeyError(f"app {app_name!r} has no operation {name!r} (known: {known})")
    return found


def skeleton(app_name: str, name: str) -> str:
    """Return the TODO text of an operation: the call it makes (provider, method, URL, fields) and its secret."""
    entry, op = app(app_name), operation(app_name, name)
    if op.method == "SQL":  # a database operation: no URL, the statement's parts
        parts = [f"{entry.provider}: {op.name} on the database", f"fields {', '.join(op.body)}"]
    else:
        parts = [f"{entry.provider}: {op.method} {entry.base_url}{op.path}"]
    if op.body and op.method != "SQL":
        parts.append(f"{'form' if op.form else 'JSON'} body fields {', '.join(op.body)}")
    if op.query:
        parts.append(f"query {', '.join(op.query)}")
    if op.note:
        parts.append(op.note)
    if entry.secret is not None:
        secret = entry.secret
        where = {Auth.BEARER: "as a bearer token (the provider's auth_env)", Auth.PATH: "as a URL path segment",
                 Auth.BASIC: "as basic auth", Auth.HEADER: f"in header {secret.name}",
                 Auth.QUERY: f"in query parameter {secret.name}", Auth.DSN: "as the connection string"}[secret.auth]
        parts.append(f"needs {secret.what or 'its credential'} from ${secret.env} {where}")
    return "; ".join(parts)
