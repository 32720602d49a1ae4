"""The ``cutover`` console script: the queue's commands plus the harness's."""

from __future__ import annotations

from queue_core.cli import cli


def _register() -> None:
    try:
        from . import _cli_recordings
    except ImportError:  # the recordings commands are optional until that module lands
        return
    _cli_recordings.register(cli)


_register()


def main() -> None:
    """Run the cutover command line."""
    cli(prog_name="cutover")


if __name__ == "__main__":
    main()
