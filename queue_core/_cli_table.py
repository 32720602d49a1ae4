"""The listing both ``cutover schedules list`` and ``cutover pollers list`` print: rows read
from the database through one short-lived pool, as a left-aligned table."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

import click

from . import config as _config
from .errors import QueueError

Fetch = Callable[[Any], Awaitable[list[dict[str, Any]]]]


def print_rows(fetch: Fetch, columns: Sequence[str], cells: Callable[[dict[str, Any]], Sequence[str]],
               empty: str) -> None:
    """Read the rows with ``fetch(pool)`` and print them under ``columns`` (``empty`` when none).

    Raises click.ClickException for a QueueError (no database, a missing migration).
    """
    from . import db

    async def run() -> list[dict[str, Any]]:
        async with db.pool(_config.database_url(), max_size=1) as pool:
            return await fetch(pool)

    try:
        rows = asyncio.run(run())
    except QueueError as exc:
        from ._cli_error import click_error

        raise click_error(exc) from None
    if not rows:
        click.echo(empty)
        return
    table = [tuple(columns)] + [tuple(cells(r)) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(columns))]
    for line in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())


def when(at: datetime | None) -> str:
    """Return a timestamp cell: ISO 8601, or ``-`` when there is none."""
    return at.isoformat() if at else "-"
