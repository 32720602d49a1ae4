"""Translate n8n workflows into automations: ``cutover scaffold n8n``.

``scaffold_n8n(path, …)`` reads an n8n workflow file (or a directory of them), writes one
``automations/<name>.py`` per workflow whose body follows the workflow's graph in n8n's run order
(``nodes`` says what each node type becomes, ``calls``/``apps`` the nodes that call out,
``expr`` the expressions), and returns the scaffolds whose manifest maps (``maps``: ``steps``,
``decisions``) make the generated step and decision names line up with what ``cutover import
n8n`` records for the same workflow. ``prove`` runs the generated code on a workflow's pinned data.
"""

from __future__ import annotations

from pathlib import Path

from harness.errors import ExportFormatError
from harness.platforms.n8n.definition import Workflow, iter_workflow_files, load_workflows
from harness.platforms.n8n.translate.maps import maps_toml, write_maps
from harness.platforms.n8n.translate.module import build, unreadable
from harness.platforms.n8n.translate.sub import NAME_PREFIX, inline_workflows
from harness.scaffold import Written, automation_name, checked_name, write
from harness.scaffold._module import unique

__all__ = ["maps_toml", "scaffold", "scaffold_n8n", "write_maps"]


def _automation_name(workflow: Workflow, given: str | None, many: bool) -> str:
    if given and not many:
        return given
    stem = automation_name(workflow.name)
    return f"{given}-{stem}" if given else stem


def scaffold_n8n(path: Path, *, automation: str | None, into: Path, force: bool = False,
                 providers: dict[str, str] | None = None) -> list[Written]:
    """Scaffold every workflow in ``path`` (a file or a directory) into ``into``.

    Raises ExportFormatError for a file that is not a workflow (a directory's such files are
    skipped; one with no workflow at all raises) and ScaffoldError for a name that cannot be a
    module. A workflow the translator fails on is scaffolded with every node a TODO naming the
    error. Files are written only after every workflow was translated.
    """
    workflows, _ = _read(path)
    return _scaffold_all(workflows, automation=automation, into=into, force=force, providers=providers)


def _read(path: Path) -> tuple[list[Workflow], list[str]]:
    """Return the workflows of ``path``; of a directory, also each file that is none, with why."""
    if not path.is_dir():
        return load_workflows(path), []
    workflows, skipped = [], []
    for file in iter_workflow_files(path):
        try:
            workflows += load_workflows(file)
        except ExportFormatError as exc:  # one unreadable file of an estate does not stop the others
            skipped.append(f"{file} ({exc})")
    if not workflows:
        raise ExportFormatError(str(path), None, None, "no n8n workflow found in the directory")
    return workflows, skipped


def _scaffold_all(workflows: list[Workflow], *, automation: str | None, into: Path, force: bool,
                  providers: dict[str, str] | None) -> list[Written]:
    workflows = workflows + inline_workflows(workflows)
    many = len(workflows) > 1
    results = []
    used: set[str] = set()
    names = [checked_name(unique(_automation_name(workflow, automation, many), used)) for workflow in workflows]
    callees = {workflow.id: name for workflow, name in zip(workflows, names, strict=True) if workflow.id}
    for workflow, name in zip(workflows, names, strict=True):  # a callee exported under another id: by name
        callees.setdefault(NAME_PREFIX + workflow.name, name)
    for workflow, name in zip(workflows, names, strict=True):
        try:
            results.append(build(workflow, name, providers or {}, callees))
        except Exception as exc:  # noqa: BLE001 - one workflow the translator fails on does not stop the estate
            results.append(unreadable(workflow, name, exc))
    return [write(s, into, force) for s in results]


def scaffold(path: Path, *, automation: str | None, into: Path, force: bool = False,
              providers: dict[str, str] | None = None) -> tuple[list[Written], list[str]]:
    """``scaffold_n8n`` as the CLI calls every translator; a directory's files that are no workflow are skipped and named."""
    workflows, skipped = _read(path)
    return _scaffold_all(workflows, automation=automation, into=into, force=force, providers=providers), skipped
