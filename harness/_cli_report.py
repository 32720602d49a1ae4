"""The ``cutover report`` commands: ``merge`` the results of a shadow run's shards."""

from __future__ import annotations

from pathlib import Path

import click

from harness.errors import HarnessError


@click.group("report")
def report() -> None:
    """Work with shadow-run reports: merge the shards of one run."""


@report.command("merge")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--into", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the merged reports (default: reports/<set name> of the project).")
@click.option("--gate", is_flag=True,
              help="Record each verdict for `cutover worker`; exit 0 only if every automation is READY.")
def merge(dirs: tuple[Path, ...], into: Path | None, gate: bool) -> None:
    """Merge the results of every shard of a run (pytest --shadow SET --shadow-shard K/N) into its reports.

    The merged summary.json, disagreements.csv and index.html are what one run over the whole
    set writes, and so is the exit status: 1 when a trigger failed (with --gate: unless every
    automation is READY and the verdicts were recorded), else 0. Refuses directories that are not
    shards 1..N of one run, naming the directory.
    """
    from harness.shadow import summary as _summary
    from harness.shadow.merge import merge_shards
    from queue_core.errors import ConfigError

    try:
        summary = merge_shards(list(dirs), report_dir=into)
    except (HarnessError, ConfigError) as exc:
        raise click.ClickException(str(exc)) from None
    if gate:
        summary = _summary.record(summary)
    for line in summary.lines():
        click.echo(line)
    ok = summary.passed and summary.record_error is None if gate else not summary.failed
    click.get_current_context().exit(0 if ok else 1)
