"""How a command reports a QueueError: one message line, and the exit status it deserves."""

from __future__ import annotations

import logging

import click

from .errors import DatabaseUnreachableError

# Exit 2 is a usage error: something the user must fix before any command can work (click's own
# status for a bad option, and cutover's for an invalid [tool.cutover] or an unreachable database).
USAGE_EXIT = 2


def usage_error(message: str) -> click.ClickException:
    """Return the ClickException a command raises when it cannot start as configured (exit 2):
    an invalid ``[tool.cutover]``, automations that do not import."""
    error = click.ClickException(message)
    error.exit_code = USAGE_EXIT
    return error


def click_error(exc: Exception) -> click.ClickException:
    """Return the ClickException a command raises for ``exc``: its message, exit 2 for an
    unreachable database (as for invalid configuration), exit 1 otherwise."""
    error = click.ClickException(str(exc))
    if isinstance(exc, DatabaseUnreachableError):
        error.exit_code = USAGE_EXIT
    return error


class EchoHandler(logging.Handler):
    """Print each record as ``cutover: <message>`` on the current stderr (click's, under a test runner)."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(f"cutover: {record.getMessage()}", err=True)


def print_on_stderr(logger_name: str) -> None:
    """Make ``logger_name``'s warnings one ``cutover: …`` line each on stderr, once per process."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(h, EchoHandler) for h in logger.handlers):
        logger.addHandler(EchoHandler(logging.WARNING))
    logger.propagate = False
