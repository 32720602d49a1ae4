"""The ``cutover`` command line with the harness's commands, as ``python -m harness`` runs it.

The console script is ``queue_core.cli:main``; it finds the harness's commands through the
``cutover.commands`` entry points. Adding :data:`harness._cli_commands.COMMANDS` here as well
keeps them when the package runs from a source tree whose metadata is not installed.
"""

from __future__ import annotations

from queue_core.cli import cli, main

from . import _cli_commands

cli.add_table(_cli_commands.COMMANDS)

__all__ = ["cli", "main"]

if __name__ == "__main__":
    main()
