"""A click group whose subcommands are imported when they run, not when ``cutover --help`` lists them.

A lazy command is a row of a table: its name, where it lives (``"module:attr"``, the attribute a
click command or a function returning one) and the first paragraph of its help, which is all the
group's own ``--help`` shows. Other packages add rows through the ``cutover.commands`` entry-point
group: each entry point names a :class:`CommandTable` (``harness._cli_commands:COMMANDS``), read
once, the first time the group lists or looks up a command. A table whose ``available()`` says
no (its package's extra is not installed) lists nothing, and naming one of its commands says
which extra to install.
"""

from __future__ import annotations

import importlib
from gettext import gettext as _
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import click

ENTRY_POINT_GROUP = "cutover.commands"


@dataclass(frozen=True)
class LazyCommand:
    """A subcommand known by name, target and help until it is invoked."""

    target: str  # "module:attr"
    help: str  # the first paragraph of the command's help, for the group's listing

    def load(self) -> click.Command:
        """Import the target and return its command (calling it first when it is a factory)."""
        module_name, _, attr = self.target.partition(":")
        value: Any = getattr(importlib.import_module(module_name), attr)
        if not isinstance(value, click.Command):
            value = value()
        if not isinstance(value, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        return value


@dataclass(frozen=True)
class CommandTable:
    """Commands one package adds to the ``cutover`` group.

    ``available`` tells whether the package can run them here (its dependencies are installed,
    checked without importing them); ``missing`` is what to tell a user who asks for one when not.
    """

    commands: Mapping[str, LazyCommand]
    available: Callable[[], bool] = lambda: True
    missing: str = ""


class LazyGroup(click.Group):
    """A ``click.Group`` that also takes :class:`CommandTable` rows, imported on first use.

    Commands added the usual way (``@group.command``, ``add_command``) win over table rows, and a
    later table's row over an earlier one's (so a package can replace a command with a richer
    one). The entry points' tables come after the group's own, in the order they are found.
    """

    def __init__(self, *args: Any, tables: list[CommandTable] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tables: list[CommandTable] = []
        self._discovered = False
        for table in tables or []:
            self._add(table)

    def _add(self, table: CommandTable) -> None:
        if all(known is not table for known in self._tables):
            self._tables.append(table)

    def add_table(self, table: CommandTable) -> None:
        """Add ``table``'s rows (a no-op when the entry points already brought it)."""
        self._discover()
        self._add(table)

    def _discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        from importlib.metadata import entry_points

        for entry in entry_points(group=ENTRY_POINT_GROUP):
            table = entry.load()
            if not isinstance(table, CommandTable):
                raise TypeError(f"entry point {entry.name} = {entry.value} ({ENTRY_POINT_GROUP}) is not a CommandTable")
            self._add(table)

    def _rows(self) -> tuple[dict[str, LazyCommand], dict[str, str]]:
        """Return the rows this install can run, and for the others what to install."""
        self._discover()
        rows: dict[str, LazyCommand] = {}
        missing: dict[str, str] = {}
        for table in self._tables:
            if table.available():
                rows.update(table.commands)
                for name in table.commands:
                    missing.pop(name, None)
            else:
                missing.update({name: table.missing for name in table.commands if name not in rows})
        return rows, missing

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self._rows()[0]))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        rows, missing = self._rows()
        if cmd_name in rows:
            command = rows[cmd_name].load()
            self.commands[cmd_name] = command
            return command
        if cmd_name in missing:
            raise click.UsageError(f"{ctx.command_path} {cmd_name}: {missing[cmd_name]}", ctx)
        return None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the commands as click does, taking a lazy one's help from its row (no import)."""
        rows = self._rows()[0]
        listed: list[tuple[str, str | None, click.Command | None]] = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name)
            if command is not None:
                if not command.hidden:
                    listed.append((name, None, command))
            else:
                listed.append((name, rows[name].help, None))
        if not listed:
            return
        limit = formatter.width - 6 - max(len(row[0]) for row in listed)
        lines = []
        for name, text, command in listed:
            if command is not None:
                lines.append((name, command.get_short_help_str(limit)))
            else:
                # A bare Command shortens its help as click does (make_default_short_help is
                # deprecated from click 8.5), without importing the command itself.
                lines.append((name, click.Command(name, help=text or "").get_short_help_str(limit)))
        with formatter.section(_("Commands")):
            formatter.write_dl(lines)
