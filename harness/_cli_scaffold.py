"""The ``cutover scaffold`` commands: workflow definitions in, automations (and their maps) out."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from harness import _cli_probe
from harness.errors import HarnessError
from harness.manifest import MANIFEST_FILE

if TYPE_CHECKING:
    from harness.scaffold import Written

IMPORT_HINT = ("curl -H 'X-N8N-API-KEY: …' '<n8n>/api/v1/executions?workflowId={id}&includeData=true' > {name}.json"
               " && cutover import n8n {name}.json --automation {name} --into recordings/<set>")
MAKE_IMPORT_HINT = ("curl -H 'Authorization: Token …' 'https://<zone>.make.com/api/v2/scenarios/{id}/logs' > {name}.json"
                    " && cutover import make {name}.json --definition {definition} --automation {name} --into recordings/<set>")


@click.group("scaffold")
def scaffold() -> None:
    """Write automations from no-code workflow definitions, ready for `pytest --shadow`."""


@scaffold.command("n8n")
@click.argument("workflow", type=click.Path(exists=True, path_type=Path))
@click.option("--automation", help="Automation name (default: from the workflow's name). With a directory: a prefix.")
@click.option("--into", default="automations", show_default=True, type=click.Path(file_okay=False, path_type=Path),
              help="Where automations/<name>.py is written.")
@click.option("--set", "recording_set", type=click.Path(file_okay=False, path_type=Path),
              help="Recording set whose manifest.toml gets the steps/decisions maps (kept: entries you wrote).")
@click.option("--force", is_flag=True, help="Overwrite a generated file even though it was edited since.")
def scaffold_n8n_command(workflow: Path, automation: str | None, into: Path, recording_set: Path | None,
                         force: bool) -> None:
    """Translate an n8n WORKFLOW file (or a directory of them) into automations.

    WORKFLOW is what the editor's Download or `n8n export:workflow --id ID` writes; a directory is
    what `n8n export:workflow --all --separate --output DIR` writes, scaffolded as an estate.
    Each node becomes a few lines of Python with n8n's semantics; what cannot be translated is a
    marked TODO that fails the run naming the node, never a silent pass. The printed maps line
    the generated step and decision names up with `cutover import n8n` of the same workflow.

    \b
    Example:
      cutover scaffold n8n workflows/triage.json --automation github-triage --set recordings/2024-06
      pytest --shadow recordings/2024-06 -k github-triage
    """
    from harness.scaffold import project_providers, scaffold_n8n

    try:
        results = scaffold_n8n(workflow, automation=automation, into=into, force=force,
                               providers=project_providers(Path("pyproject.toml")))
    except HarnessError as exc:
        raise click.ClickException(str(exc)) from None
    from harness.scaffold._maps import maps_toml, write_maps

    _finish(results, recording_set, maps_toml, write_maps, IMPORT_HINT)


def _finish(results: list[Written], recording_set: Path | None, render: Callable[[Any], str],
            write: Callable[[Path, Any], None], hint: str) -> None:
    """Print each scaffold's table and maps, write the maps into the set, print the estate table."""
    for written in results:
        _report(written, render)
        if recording_set is not None:
            write(recording_set / MANIFEST_FILE, written.scaffold)
            click.echo(f"maps written to {recording_set / MANIFEST_FILE}")
    if len(results) > 1:
        _estate(results, hint)
    if any(w.diff for w in results):
        raise SystemExit(1)


def _report(written: Written, render: Callable[[Any], str]) -> None:
    s = written.scaffold
    if written.diff:
        click.echo(f"{written.path}: edited since it was generated; not overwritten (use --force). The change:")
        click.echo(written.diff)
    else:
        click.echo(f"{'wrote' if written.written else 'unchanged'} {written.path} "
                   f"({s.translated} {s.unit}s translated, {s.todo} TODO)")
    width = max([len(r.node) for r in s.rows] + [4])
    kinds = [r.type.rsplit('.', 1)[-1] for r in s.rows]
    kind_width = max([len(k) for k in kinds] + [16])
    for row, kind in zip(s.rows, kinds, strict=True):
        click.echo(f"  {row.node:<{width}}  {kind:<{kind_width}} {row.status:<12} {row.why}".rstrip())
    click.echo("manifest maps for the recording set:")
    click.echo(render(s))
    from harness.scaffold._credential import auth_envs
    from harness.scaffold._module import credential_lines

    for line in credential_lines(s.credentials):  # the variable's name only: never the value
        click.echo(line)
    auth = auth_envs(s.credentials)
    for name, base in sorted(s.proposals.items()):
        click.echo(f"proposed provider (add to pyproject.toml):\n  [tool.cutover.providers.{name}]\n"
                   f'  base_url = "{base}"' + (f'\n  auth_env = "{auth[name]}"' if name in auth else ""))
    for name in sorted(set(auth) - set(s.proposals)):
        click.echo(f'add to [tool.cutover.providers.{name}] in pyproject.toml:\n  auth_env = "{auth[name]}"')


def _estate(results: list[Written], hint_template: str) -> None:
    width = max(len(w.scaffold.automation) for w in results)
    click.echo("\nestate:")
    click.echo(f"  {'automation':<{width}} {'trigger':<9} {'translated':>10} {'TODO':>5}  import its executions")
    for w in results:
        s = w.scaffold
        hint = hint_template.format(id=s.workflow.id or "<id>", name=s.automation, definition=s.workflow.path)
        click.echo(f"  {s.automation:<{width}} {s.trigger_kind:<9} {s.translated:>10} {s.todo:>5}  {hint}")
    total = sum(w.scaffold.translated for w in results), sum(w.scaffold.todo for w in results)
    first = results[0].scaffold
    click.echo(f"  {len(results)} {first.kind}s: {total[0]} {first.unit}s translated, {total[1]} TODO")


@scaffold.command("make")
@click.argument("blueprint", type=click.Path(exists=True, path_type=Path))
@click.option("--automation", help="Automation name (default: from the scenario's name). With a directory: a prefix.")
@click.option("--into", default="automations", show_default=True, type=click.Path(file_okay=False, path_type=Path),
              help="Where automations/<name>.py is written.")
@click.option("--set", "recording_set", type=click.Path(file_okay=False, path_type=Path),
              help="Recording set whose manifest.toml gets the steps/decisions/providers maps (kept: entries you wrote).")
@click.option("--force", is_flag=True, help="Overwrite a generated file even though it was edited since.")
def scaffold_make_command(blueprint: Path, automation: str | None, into: Path, recording_set: Path | None,
                          force: bool) -> None:
    """Translate a Make scenario BLUEPRINT (or a directory of them) into automations.

    BLUEPRINT is what the scenario editor's "Export blueprint" writes, or the body of
    GET /scenarios/{id}/blueprint (which carries the schedule beside it). A directory is
    scaffolded as an estate; JSON files in it that are not blueprints are skipped and named.
    Each module becomes a few lines of Python with Make's semantics (routers, filters,
    iterators, aggregators, HTTP modules); what cannot be translated is a marked TODO that fails
    the run naming the module. The printed maps line the generated step and decision names up
    with `cutover import make --definition BLUEPRINT` of the same scenario.

    \b
    Example:
      cutover scaffold make scenarios/lead-router.json --automation lead-router --set recordings/2024-06
      cutover import make logs.json --definition scenarios/lead-router.json --automation lead-router --into recordings/2024-06
      pytest --shadow recordings/2024-06 -k lead-router
    """
    from harness.scaffold import project_providers
    from harness.scaffold._make_scaffold import maps_toml, scaffold_make, write_maps

    try:
        results, skipped = scaffold_make(blueprint, automation=automation, into=into, force=force,
                                         providers=project_providers(Path("pyproject.toml")))
    except HarnessError as exc:
        raise click.ClickException(str(exc)) from None
    for file in skipped:
        click.echo(f"skipped {file}: not a blueprint")
    _finish(results, recording_set, maps_toml, write_maps, MAKE_IMPORT_HINT)


@scaffold.command("prove")
@click.argument("workflow", type=click.Path(exists=True, path_type=Path))
def scaffold_prove_command(workflow: Path) -> None:
    """Run scaffolded code on each WORKFLOW's pinned data and compare every pinned node's output.

    n8n's node tests pin the output each checked node must produce; a node is *proved* when
    the generated code produces exactly those items. Runs offline (a call is *not run*).
    """
    from harness.scaffold._prove import prove
    from harness.scaffold._workflow import iter_workflow_files, load_workflows

    by_type: dict[str, dict[str, int]] = {}
    try:
        for file in iter_workflow_files(workflow):
            for wf in load_workflows(file):
                for proof in prove(wf):
                    click.echo(f"{file.name}: {proof.node} ({proof.type}): {proof.outcome} {proof.detail}".rstrip())
                    counts = by_type.setdefault(proof.type, {})
                    counts[proof.outcome] = counts.get(proof.outcome, 0) + 1
    except HarnessError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo("\nby node type:")
    for kind, counts in sorted(by_type.items()):
        click.echo(f"  {kind:<40} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


def register(cli: click.Group) -> None:
    """Add the scaffold commands to the ``cutover`` group."""
    _cli_probe.register(scaffold)
    cli.add_command(scaffold)
