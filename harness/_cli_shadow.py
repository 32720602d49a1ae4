"""The ``cutover shadow`` commands: ``mutate``, mutation analysis of a migrated automation."""

from __future__ import annotations

from pathlib import Path

import click

from harness.errors import HarnessError


@click.group("shadow")
def shadow() -> None:
    """Measure what a recording set pins down: mutation analysis of a migrated automation."""


@shadow.command("mutate")
@click.argument("set_dir", metavar="SET", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--automation", "automations", multiple=True, required=True, metavar="NAME",
              help="The automation to mutate (repeat for several).")
@click.option("--into", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write mutation.json (default: reports/<set name>/mutation/<NAME> of the project; "
                   "the gate's min_mutation_score reads only the default place).")
@click.option("-q", "--quiet", is_flag=True, help="Print only the result, not each mutant as it is judged.")
@click.option("--mutant-timeout", "timeout_s", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              metavar="SECONDS", help="The least time a replay against a mutant may take before a run still looping "
                                      "is stopped and the mutant counted killed by timeout (longer when the baseline "
                                      "was slow: 20x its time for as many triggers).")
def mutate(set_dir: Path, automations: tuple[str, ...], into: Path | None, quiet: bool, timeout_s: float) -> None:
    """Mutate an automation's code and replay the recorded triggers against each mutant.

    Each mutant is one small change (a comparison operator, a constant, a negated condition, a
    dropped dict entry or keyword argument, a removed call). The triggers whose baseline runs
    reached the changed line are replayed against it; the mutant is killed when one disagrees
    with the legacy run, and survives otherwise: a change the recordings cannot tell from the
    real code. A mutant whose run never ends (an endless loop) is stopped at a deadline and
    counted killed by timeout. Prints the share killed and every survivor with its line, and writes
    mutation.json (and mutation.html) for the report and the gate's min_mutation_score.
    """
    from harness.mutate import store
    from harness.mutate.measure import Measurement
    from queue_core.errors import ConfigError

    def progress(line: str) -> None:
        if not quiet:
            click.echo(line)

    for name in automations:
        try:
            with Measurement(set_dir, name, progress=progress, timeout_s=timeout_s) as measurement:
                data = measurement.run()
                out = into / name if into is not None and len(automations) > 1 else into
                path = store.write(data, out or store.measurement_dir(measurement.project.root, data["set"], name))
        except (HarnessError, ConfigError) as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(store.summary_line(data))
        for r in store.survivors(data):
            click.echo(f"  not pinned down by the recordings: line {r['line']} ({r['kind']}): "
                       f"{r['before']} → {r['after']} — {r['reason']}")
        click.echo(f"written: {measurement.shown(path)} (and {store.MUTATION_PAGE} beside it)")
