"""The ``cutover scaffold`` commands: workflow definitions in, automations (and their maps) out."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from queue_core._cli_error import usage_error

from harness import _cli_probe
from harness.errors import HarnessError
from harness.manifest import MANIFEST_FILE
from harness.platforms import Translator, translators

if TYPE_CHECKING:
    from harness.scaffold import Written


@click.group("scaffold")
def scaffold() -> None:
    """Write automations from no-code workflow definitions, ready for `pytest --shadow`."""


def translate_command(name: str, translator: Translator) -> click.Command:
    """Return ``cutover scaffold NAME``: the one command every tool's translator runs behind.

    The argument, the help and the estate hint come from the translator
    (``harness.platforms.<tool>.command.TRANSLATOR``).
    """
    @click.argument(translator.argument, type=click.Path(exists=True, path_type=Path))
    @click.option("--automation", help=translator.automation_help)
    @click.option("--into", default="automations", show_default=True, type=click.Path(file_okay=False, path_type=Path),
                  help="Where automations/<name>.py is written.")
    @click.option("--set", "recording_set", type=click.Path(file_okay=False, path_type=Path), help=translator.set_help)
    @click.option("--force", is_flag=True, help="Overwrite a generated file even though it was edited since.")
    @click.option("--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="Also write the estate table (every workflow's counts and nodes, the totals) as JSON "
                       "to this file, for CI; '-' writes it to stdout instead of the tables.")
    def command(automation: str | None, into: Path, recording_set: Path | None, force: bool, json_out: Path | None,
                **given: Path) -> None:
        from harness.scaffold import project_providers
        from queue_core.config import find_project
        from queue_core.errors import ConfigError

        try:
            providers = project_providers(find_project())
            results, skipped = translator.scaffold(given[translator.argument], automation=automation, into=into,
                                                   force=force, providers=providers)
        except ConfigError as exc:
            raise usage_error(str(exc)) from None
        except HarnessError as exc:
            raise click.ClickException(str(exc)) from None
        quiet = json_out is not None and str(json_out) == "-"
        for file in skipped:
            click.echo(f"skipped {file}: not a {translator.argument}", err=quiet)
        _finish(results, recording_set, translator.maps_toml, translator.write_maps, translator.import_hint,
                json_out)

    return click.command(name, help=translator.help)(command)


def _finish(results: list[Written], recording_set: Path | None, render: Callable[[Any], str],
            write: Callable[[Path, Any], None], hint: str, json_out: Path | None = None) -> None:
    """Print each scaffold's table and maps, write the maps into the set, print the estate table.

    With ``json_out`` the estate table is also written as JSON (``-``: to stdout, the printed
    tables going to stderr so the JSON stays parseable).
    """
    to_stderr = json_out is not None and str(json_out) == "-"
    for written in results:
        _report(written, render, err=to_stderr)
        if recording_set is not None:
            write(recording_set / MANIFEST_FILE, written.scaffold)
            click.echo(f"maps written to {recording_set / MANIFEST_FILE}", err=to_stderr)
    if len(results) > 1:
        _estate(results, hint, err=to_stderr)
    if json_out is not None:
        from harness.scaffold._estate import estate_json

        text = estate_json(results)
        if to_stderr:
            click.echo(text)
        else:
            json_out.write_text(text + "\n", encoding="utf-8")
            click.echo(f"estate table written to {json_out}")
    if any(w.diff for w in results):
        raise SystemExit(1)


def _report(written: Written, render: Callable[[Any], str], err: bool = False) -> None:
    from harness.scaffold._estate import counts

    def echo(text: str) -> None:
        click.echo(text, err=err)

    s = written.scaffold
    if written.diff:
        echo(f"{written.path}: edited since it was generated; not overwritten (use --force). The change:")
        echo(written.diff)
    else:
        echo(f"{'wrote' if written.written else 'unchanged'} {written.path} ({counts(s)})")
    width = max([len(r.node) for r in s.rows] + [4])
    kinds = [r.type.rsplit('.', 1)[-1] for r in s.rows]
    kind_width = max([len(k) for k in kinds] + [16])
    for row, kind in zip(s.rows, kinds, strict=True):
        echo(f"  {row.node:<{width}}  {kind:<{kind_width}} {row.status:<12} {row.why}".rstrip())
    echo("manifest maps for the recording set:")
    echo(render(s))
    from harness.scaffold._credential import auth_envs
    from harness.scaffold._module import credential_lines

    for line in credential_lines(s.credentials):  # the variable's name only: never the value
        echo(line)
    auth = auth_envs(s.credentials)
    for name, base in sorted(s.proposals.items()):
        echo(f"proposed provider (add to pyproject.toml):\n  [tool.cutover.providers.{name}]\n"
                   f'  base_url = "{base}"' + (f'\n  auth_env = "{auth[name]}"' if name in auth else "")
             + (f'\n  dsn_env = "{name.upper()}_URL"' if base.startswith("sql://") else ""))
    for name in sorted(set(auth) - set(s.proposals)):
        echo(f'add to [tool.cutover.providers.{name}] in pyproject.toml:\n  auth_env = "{auth[name]}"')


def _estate(results: list[Written], hint_template: str, err: bool = False) -> None:
    from harness.scaffold._estate import table

    for line in table(results, hint_template):
        click.echo(line, err=err)


@scaffold.command("prove")
@click.argument("workflow", type=click.Path(exists=True, path_type=Path))
@click.option("--module", "module", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="Prove this automation module (as edited) instead of scaffolding WORKFLOW anew.")
@click.option("--automation", default=None, help="With --module: which automation of the module to prove.")
def scaffold_prove_command(workflow: Path, module: Path | None, automation: str | None) -> None:
    """Run scaffolded code on each WORKFLOW's pinned data and compare every pinned node's output.

    n8n's node tests pin the output each checked node must produce; a node is *proved* when
    the code produces exactly those items, *differs* when it does not, *not translated* when
    the run reached a TODO there, and *not run* when the run stopped before it (offline, a
    call stops it). With --module, the module you edited is what runs, not a new scaffold.
    Exits 0 only when every pinned node is proved, 1 otherwise.

    \b
    Example:
      cutover scaffold prove workflows/triage.json --module automations/github_triage.py
    """
    from harness.platforms.n8n.definition import iter_workflow_files, load_workflows
    from harness.platforms.n8n.translate.prove import prove

    by_type: dict[str, dict[str, int]] = {}
    totals: dict[str, int] = {}
    try:
        files = list(iter_workflow_files(workflow))
        if module is not None and (len(files) != 1 or len(load_workflows(files[0])) != 1):
            raise click.UsageError("--module proves one automation: give one workflow file, not a directory")
        for file in files:
            for wf in load_workflows(file):
                for proof in prove(wf, module, automation):
                    click.echo(f"{file.name}: {proof.node} ({proof.type}): {proof.outcome} {proof.detail}".rstrip())
                    counts = by_type.setdefault(proof.type, {})
                    counts[proof.outcome] = counts.get(proof.outcome, 0) + 1
                    totals[proof.outcome] = totals.get(proof.outcome, 0) + 1
    except HarnessError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo("\nby node type:")
    for kind, counts in sorted(by_type.items()):
        click.echo(f"  {kind:<40} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    pinned = sum(totals.values())
    proved = totals.get("proved", 0)
    click.echo(f"\n{proved} of {pinned} pinned nodes proved" + "".join(
        f"; {n} {outcome}" for outcome, n in sorted(totals.items()) if outcome != "proved"))
    if pinned == 0:
        click.echo("nothing proved: no workflow pins the output of a node other than its trigger")
    if proved != pinned or pinned == 0:
        sys.exit(1)


for _name, _translator in translators().items():
    scaffold.add_command(translate_command(_name, _translator))


def register(cli: click.Group) -> None:
    """Add the scaffold commands to the ``cutover`` group."""
    _cli_probe.register(scaffold)
    cli.add_command(scaffold)
