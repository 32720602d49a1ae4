"""The ``cutover schedules`` commands: ``list`` shows each schedule, its ticks and its pause.

``register(group)`` adds them to the ``cutover`` group.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import click

from . import config as _config
from .errors import QueueError

COLUMNS = ("name", "automation", "cron", "timezone", "catch_up", "last tick", "next tick", "paused")


@click.group("schedules")
def schedules_group() -> None:
    """Show the cron schedules the workers produce ticks for."""


@schedules_group.command("list")
def schedules_list() -> None:
    """List every schedule: automation, cron, timezone, last and next tick, and whether it is
    paused (in its declaration, or by a pause of its automation). Workers sync the declared
    schedules when they start; one no worker has synced yet is not listed."""
    from . import db
    from ._ticker import list_schedules

    async def run() -> list[dict[str, Any]]:
        async with db.pool(_config.database_url(), max_size=1) as pool:
            return await list_schedules(pool)

    try:
        rows = asyncio.run(run())
    except QueueError as exc:
        raise click.ClickException(str(exc)) from None
    if not rows:
        click.echo("no schedules (workers sync the declared ones when they start)")
        return
    table = [COLUMNS] + [_cells(r) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    for line in table:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())


def _cells(row: dict[str, Any]) -> tuple[str, ...]:
    paused = ", ".join(why for why, on in (("declared", row["paused_in_config"]),
                                           ("automation paused", row["automation_paused"])) if on)
    return (row["name"], row["automation"], row["cron"], row["timezone"], row["catch_up"],
            _when(row["last_tick"]), _when(row["next_tick"]), paused or "no")


def _when(at: datetime | None) -> str:
    return at.isoformat() if at else "-"


def register(group: click.Group) -> None:
    """Add the ``schedules`` group to ``group``."""
    group.add_command(schedules_group)
