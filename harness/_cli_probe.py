"""``cutover scaffold probe-triggers``: synthetic triggers for the branches no recorded trigger took."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from harness.errors import HarnessError


@click.command("probe-triggers")
@click.argument("recording_set", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--automation", required=True, help="The automation (its manifest entry names the n8n definition).")
@click.option("-n", "--count", type=click.IntRange(min=1), default=10, show_default=True,
              help="At most this many probes in all (one per untaken branch first, then more).")
@click.option("--seed", type=int, default=0, show_default=True, help="The same set and seed give the same probes.")
@click.option("--examples", type=click.IntRange(min=1), default=300, show_default=True,
              help="Hypothesis examples per search, after the one- and two-field candidates.")
@click.option("--reports", type=click.Path(file_okay=False, path_type=Path), default=Path("reports"),
              show_default=True, help="The reviewer's report goes to REPORTS/<set>/<automation>-probes.md/.json.")
@click.option("--no-run", is_flag=True, help="Write the probes and the report without running the current code.")
def probe_command(recording_set: Path, automation: str, count: int, seed: int, examples: int, reports: Path,
                  no_run: bool) -> None:
    """Make synthetic triggers that take the branches of AUTOMATION's definition no recorded trigger took.

    Each probe is a recorded trigger of the set with a few fields changed (those the branch's
    conditions read), found with Hypothesis against the definition's translated conditions. The
    probes go to SET/AUTOMATION/synthetic/ (never read by `pytest --shadow`, so they never count
    as agreement), are run through the automation's current code in dry-run, and a reviewer's
    report says per probe what changed and whether the new code took the branch.

    \b
    Example:
      cutover scaffold probe-triggers recordings/2024-06 --automation order-router -n 5
    """
    try:
        import hypothesis  # noqa: F401  (a dev dependency; say so instead of a traceback)
    except ImportError:
        raise click.ClickException("probe-triggers needs Hypothesis: pip install hypothesis") from None
    from harness.manifest import MANIFEST_FILE, load_manifest
    from harness.platforms.n8n.probe.search import load_inputs, make_probes
    from harness.platforms.n8n.probe.files import write_synthetic
    from harness.platforms.n8n.probe.report import write_report

    try:
        workflow, entry, pairs = load_inputs(recording_set, automation)
        probes = make_probes(workflow, entry, pairs, count=count, seed=seed, examples=examples)
        directory = write_synthetic(recording_set, probes)
        runs = None if no_run else _dry_run(probes, entry, pairs, seed)
        set_name = load_manifest(recording_set / MANIFEST_FILE).name
        md, js = write_report(reports / set_name, probes, runs, set_name)
    except HarnessError as exc:
        raise click.ClickException(str(exc)) from None
    _print(probes, runs, directory, md, js)


def _dry_run(probes: Any, entry: Any, pairs: list[Any], seed: int) -> Any:
    """Run the probes through the project's current code (its automations module) in dry-run."""
    from harness.platforms.n8n.probe.dry import dry_run
    from harness.shadow.cases import shadow_providers
    from queue_core import config as qc_config
    from queue_core import discover
    from queue_core.errors import ConfigError
    from queue_core.provider import parse_providers

    try:
        settings = qc_config.load()
        root = str(settings.root)
        if root not in sys.path:
            sys.path.insert(0, root)
        registry = discover(settings.automations)
        configured = parse_providers(settings.raw.get("providers", {}), source=str(settings.pyproject or "pyproject.toml"))
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    if probes.automation not in registry:
        raise click.ClickException(
            f"automation {probes.automation!r} is not registered in module {settings.automations!r} "
            "([tool.cutover] automations): scaffold it first, or pass --no-run")
    names = set(entry.providers.values()) | {c.get("provider") for _, t in pairs if t for c in t.calls}
    providers = shadow_providers(configured, sorted(n for n in names if isinstance(n, str) and n))
    return dry_run(probes, registry, providers, coercion=entry.coercion, seed=seed)


def _print(probes: Any, runs: Any, directory: Path, md: Path, js: Path) -> None:
    from harness.platforms.n8n.probe.files import branch_key
    from harness.platforms.n8n.probe.report import change_text

    by_id = {r.probe: r for r in runs or []}
    click.echo(f"{len(probes.untaken)} untaken branch(es) of the definition; {len(probes.probes)} probe(s) "
               f"written to {directory} (SYNTHETIC: never counted as agreement)")
    for probe in probes.probes:
        changed = "; ".join(change_text(c).replace("`", "") for c in probe.changes) or "unchanged"
        run = by_id.get(probe.id)
        outcome = "" if run is None else (" -> took it" if run.took else f" -> DID NOT take it ({run.status})")
        click.echo(f"  {probe.id}  {branch_key(probe.branch):<24} from {probe.base.id}: {changed}{outcome}")
    for miss in probes.unreached:
        click.echo(f"  unreached  {branch_key(miss.branch)}: {miss.reason}")
    for skipped in probes.skipped:
        click.echo(f"  not probed {branch_key(skipped)} (the probe count was reached)")
    click.echo(f"report: {md} and {js}")


def register(group: click.Group) -> None:
    """Attach ``probe-triggers`` to ``group`` (the ``cutover scaffold`` group)."""
    group.add_command(probe_command)
