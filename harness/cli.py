"""The ``cutover`` console script: the queue's commands plus the harness's."""

from __future__ import annotations

from queue_core.cli import cli

from . import _cli_recordings, _cli_scaffold, _cli_serve

_cli_recordings.register(cli)
_cli_serve.register(cli)
_cli_scaffold.register(cli)


def main() -> None:
    """Run the cutover command line."""
    cli(prog_name="cutover")


if __name__ == "__main__":
    main()
