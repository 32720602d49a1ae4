"""The ``cutover schedules`` commands: ``list`` shows each schedule, its ticks and its pause.

``register(group)`` adds them to the ``cutover`` group.
"""

from __future__ import annotations

from typing import Any

import click

from ._cli_table import print_rows, when

COLUMNS = ("name", "automation", "cron", "timezone", "catch_up", "last tick", "next tick", "paused")


@click.group("schedules")
def schedules_group() -> None:
    """Show the cron schedules the workers produce ticks for."""


@schedules_group.command("list")
def schedules_list() -> None:
    """List every schedule: automation, cron, timezone, last and next tick, and whether it is
    paused (in its declaration, or by a pause of its automation). Workers sync the declared
    schedules when they start; one no worker has synced yet is not listed."""
    from ._ticker import list_schedules

    print_rows(list_schedules, COLUMNS, _cells, 'no schedules (workers sync the declared ones when they start)')


def _cells(row: dict[str, Any]) -> tuple[str, ...]:
    paused = ", ".join(why for why, on in (("declared", row["paused_in_config"]),
                                           ("automation paused", row["automation_paused"])) if on)
    return (row["name"], row["automation"], row["cron"], row["timezone"], row["catch_up"],
            when(row["last_tick"]), when(row["next_tick"]), paused or "no")


def register(group: click.Group) -> None:
    """Add the ``schedules`` group to ``group``."""
    group.add_command(schedules_group)
