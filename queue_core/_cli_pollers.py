"""The ``cutover pollers`` commands: ``list`` shows each poller's cursor, last poll and items started.

``register(group)`` adds them to the ``cutover`` group.
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Any

import click

from . import config as _config
from .errors import QueueError

COLUMNS = ("poller", "target", "cursor", "last poll", "polls", "items started", "seen ids kept")


@click.group("pollers")
def pollers_group() -> None:
    """Show the polling triggers (ctx.start_new) and their durable state."""


@pollers_group.command("list")
def pollers_list() -> None:
    """List every poller that has polled: the automation it starts, its durable cursor, when it
    last polled, how many polls and items it started, and how many seen ids it keeps."""
    from . import db
    from .poller import list_pollers

    async def run() -> list[dict[str, Any]]:
        async with db.pool(_config.database_url(), max_size=1) as pool:
            return await list_pollers(pool)

    try:
        rows = asyncio.run(run())
    except QueueError as exc:
        raise click.ClickException(str(exc)) from None
    if not rows:
        click.echo("no pollers (a poller appears after its first ctx.start_new)")
        return
    table = [COLUMNS] + [_cells(r) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    for line in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())


def _cells(row: dict[str, Any]) -> tuple[str, ...]:
    cursor = json.dumps(row["cursor"], sort_keys=True, separators=(",", ":")) if row["cursor"] is not None else "-"
    return (row["poller"], row["target"], cursor, _when(row["last_poll_at"]), str(row["polls"]),
            str(row["items_started"]), str(row["seen"]))


def _when(at: datetime | None) -> str:
    return at.isoformat() if at else "-"


def register(group: click.Group) -> None:
    """Add the ``pollers`` group to ``group``."""
    group.add_command(pollers_group)
