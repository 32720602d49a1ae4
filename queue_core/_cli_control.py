"""The control-plane commands of the ``cutover`` CLI: ``serve`` and ``token create|revoke|list``.

``register(group)`` adds them. The ``serve`` command built by :func:`serve_command` accepts an
optional ``--record`` option when a recorder factory is given (the harness passes one, so that
``queue_core`` never imports ``harness``).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import config as _config
from ._cli_error import usage_error
from .errors import QueueError

# Given the --record directory and the loaded sources, return an on_verified_delivery hook.
RecordHookFactory = Callable[[Path, dict[str, Any]], Any]


def _fail(exc: Exception) -> None:
    from ._cli_error import click_error

    raise click_error(exc)


@click.group("token")
def token_group() -> None:
    """Create, revoke and list the control API's bearer tokens."""


@token_group.command("create")
@click.option("--name", required=True, help="A unique name; the ledger records actions under it.")
@click.option("--scopes", required=True, help="Comma-separated: enqueue, control, replay, read.")
def token_create(name: str, scopes: str) -> None:
    """Create a token and print it once: only its sha256 is stored, it cannot be shown again."""
    from .server.token import create_token, parse_scopes

    try:
        parsed = parse_scopes(scopes)
        token = asyncio.run(_with_pool(lambda pool: create_token(pool, name, parsed)))
    except QueueError as exc:
        _fail(exc)
    click.echo(f"created token {name!r} with scopes {','.join(parsed)}; store it now, it is not shown again:", err=True)
    click.echo(token)


@token_group.command("revoke")
@click.argument("name")
def token_revoke(name: str) -> None:
    """Revoke the token NAME: its next request is refused with 401."""
    from .server.token import revoke_token

    try:
        asyncio.run(_with_pool(lambda pool: revoke_token(pool, name)))
    except QueueError as exc:
        _fail(exc)
    click.echo(f"revoked token {name!r}")


@token_group.command("list")
def token_list() -> None:
    """List tokens: name, first characters, scopes, created, last used, revoked."""
    from .server.token import list_tokens

    try:
        rows = asyncio.run(_with_pool(list_tokens))
    except QueueError as exc:
        _fail(exc)
    for row in rows:
        state = f"revoked {row['revoked_at']:%Y-%m-%d %H:%M}" if row["revoked_at"] else "live"
        used = f"{row['last_used_at']:%Y-%m-%d %H:%M}" if row["last_used_at"] else "never"
        click.echo(f"{row['name']:<20} {row['prefix']}…  {','.join(row['scopes']):<28} last used {used:<16} {state}")


async def _with_pool(action: Callable[[Any], Any]) -> Any:
    from . import db

    async with db.pool(_config.database_url(), max_size=2) as pool:
        return await action(pool)


def serve_command(record: RecordHookFactory | None = None) -> click.Command:
    """Return the ``serve`` command; with ``record``, it also takes ``--record DIR``."""

    @click.command("serve")
    @click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
    @click.option("--port", default=8080, show_default=True, type=int, help="Port to listen on.")
    @click.option("--max-body-bytes", default=1024 * 1024, show_default=True, type=click.IntRange(min=1),
                  help="Largest control-API request body (webhook sources set their own).")
    def serve(host: str, port: int, max_body_bytes: int, record_dir: Path | None = None) -> None:
        """Serve the control API and the webhook ingress (POST /hooks/<source>).

        Webhook sources come from [tool.cutover.sources.<name>] in pyproject.toml, their secrets
        from the environment variables they name. The OpenAPI document is at /openapi.json.
        The project's automations module must import: serve refuses to start (exit 2) rather than
        accept jobs it cannot validate.
        """
        from .server import create_app, serve as run
        from .server.source import load_sources

        try:
            settings = _config.load()
            sys.path.insert(0, str(settings.root))
            sources = load_sources(settings.raw, where=str(settings.root / "pyproject.toml"))
            registry = _registry(settings)
            url = _config.database_url()
            hook = record(record_dir, sources) if record is not None and record_dir is not None else None
            app = create_app(database_url=url, sources=sources, registry=registry,
                             on_verified_delivery=hook, max_body_bytes=max_body_bytes)
        except QueueError as exc:
            raise usage_error(str(exc)) from None
        names = ", ".join(f"{s.name} ({s.scheme.value})" for s in sources.values()) or "none"
        click.echo(f"cutover serve on http://{host}:{port}/  automations: {', '.join(registry.names()) or 'none'}"
                   f"  webhook sources: {names}"
                   + (f"  recording into {record_dir}" if hook else ""), err=True)
        run(app, host=host, port=port)

    if record is not None:
        serve = click.option("--record", "record_dir", type=click.Path(file_okay=False, path_type=Path),
                             help="Also append verified deliveries, redacted, to this recording set.")(serve)
    return serve


def _registry(settings: Any) -> Any:
    """Return the project's registry; raise a usage error (exit 2) naming the module and why it failed.

    Any exception raised while importing the module counts (a module failing at import time
    with a NameError is as unusable as a missing one); its traceback is not printed.
    """
    try:
        return _config.project_registry(settings)
    except QueueError as exc:
        raise usage_error(f"cannot serve: {exc}") from None
    except Exception as exc:  # the user's module raised while importing
        raise usage_error(f"cannot serve: importing automations module {settings.automations!r} failed: "
                          f"{type(exc).__name__}: {exc}") from None


def register(group: click.Group, record: RecordHookFactory | None = None) -> None:
    """Add ``serve`` and the ``token`` group to ``group`` (``record``: see :func:`serve_command`)."""
    group.add_command(serve_command(record))
    group.add_command(token_group)
