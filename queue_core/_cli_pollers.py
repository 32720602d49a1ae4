"""The ``cutover pollers`` commands: ``list`` shows each poller's cursor, last poll and items started.

``register(group)`` adds them to the ``cutover`` group.
"""

from __future__ import annotations

import json
from typing import Any

import click

from ._cli_table import print_rows, when

COLUMNS = ("poller", "target", "cursor", "last poll", "polls", "items started", "seen ids kept")


@click.group("pollers")
def pollers_group() -> None:
    """Show the polling triggers (ctx.start_new) and their durable state."""


@pollers_group.command("list")
def pollers_list() -> None:
    """List every poller that has polled: the automation it starts, its durable cursor, when it
    last polled, how many polls and items it started, and how many seen ids it keeps."""
    from .poller import list_pollers

    print_rows(list_pollers, COLUMNS, _cells, 'no pollers (a poller appears after its first ctx.start_new)')


def _cells(row: dict[str, Any]) -> tuple[str, ...]:
    cursor = json.dumps(row["cursor"], sort_keys=True, separators=(",", ":")) if row["cursor"] is not None else "-"
    return (row["poller"], row["target"], cursor, when(row["last_poll_at"]), str(row["polls"]),
            str(row["items_started"]), str(row["seen"]))


def register(group: click.Group) -> None:
    """Add the ``pollers`` group to ``group``."""
    group.add_command(pollers_group)
