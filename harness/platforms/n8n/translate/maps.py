"""The manifest maps of a scaffolded automation: n8n node names → step and decision names.

``cutover import n8n`` records every executed node by name in a legacy trace's path, and each
IF/Switch node's branch as a decision named after the node. The scaffolded code calls its steps
by slug (``add-labels``) and decides by slug (``is-opened``). These maps, written into the
recording set's ``manifest.toml``, make both sides use the same names: nodes that make no call
map to ``""`` (no step on the new side), call nodes to their step, branch nodes to their
decision. Writing edits the manifest in place (tomlkit): comments and entries a person wrote
are kept, only missing keys are added; the entry also names the workflow file as its
``definition`` (relative to the set), so the report lists every branch of the workflow and how
many recorded triggers took it.
"""

from __future__ import annotations

from pathlib import Path

import tomlkit
from tomlkit.items import Table

from harness.manifest import set_relative

from harness.scaffold._module import Scaffold
from harness.platforms.n8n.definition import Workflow, load_workflows


def _quoted(name: str) -> str:
    return tomlkit.string(name).as_string() if not name.replace("-", "").replace("_", "").isalnum() else name


def maps_toml(scaffold: Scaffold[Workflow]) -> str:
    """Return the maps as the TOML a person would paste into the set's manifest."""
    head = f"[automations.{scaffold.automation}"
    lines = [f"{head}]", 'platform = "n8n"', 'coercion = "n8n"', "", f"{head}.steps]"]
    lines += [f"{_quoted(node)} = {tomlkit.string(step).as_string()}" for node, step in scaffold.steps.items()]
    for node, decision in scaffold.decisions.items():
        lines += ["", f"{head}.decisions.{_quoted(node)}]", f"name = {tomlkit.string(decision).as_string()}"]
    return "\n".join(lines)


def write_maps(manifest: Path, scaffold: Scaffold[Workflow]) -> None:
    """Add the maps to ``manifest`` (created when missing), keeping everything already there."""
    document = tomlkit.parse(manifest.read_text(encoding="utf-8")) if manifest.exists() else tomlkit.document()
    if "format" not in document:
        document["format"] = 1
    if "name" not in document:  # a new set is named after its directory, as cutover import names it
        document["name"] = manifest.parent.name
    automations = _table(document, "automations")
    entry = _table(automations, scaffold.automation)
    entry.setdefault("platform", "n8n")
    entry.setdefault("coercion", "n8n")
    definition = _definition(manifest.parent, scaffold)
    if definition is not None:  # branch coverage then lists every branch of the workflow
        entry.setdefault("definition", definition)
    steps = _table(entry, "steps")
    for node, step in scaffold.steps.items():
        steps.setdefault(node, step)
    decisions = _table(entry, "decisions")
    for node, decision in scaffold.decisions.items():
        if node not in decisions:
            table = tomlkit.table()
            table["name"] = decision
            decisions[node] = table
    manifest.parent.mkdir(parents=True, exist_ok=True)
    manifest.write_text(tomlkit.dumps(document), encoding="utf-8")


def _definition(set_dir: Path, scaffold: Scaffold[Workflow]) -> str | None:
    """Return the workflow file as the manifest names a definition (relative to the set), if it is one.

    None when the file holds several workflows (a definition is read as the file's first one).
    """
    if not scaffold.workflow.path:
        return None
    path = Path(scaffold.workflow.path)
    if not path.is_file() or len(load_workflows(path)) != 1:
        return None
    return set_relative(path, set_dir)


def _table(parent: Table | tomlkit.TOMLDocument, key: str) -> Table:
    if key not in parent:
        parent[key] = tomlkit.table()
    value = parent[key]
    assert isinstance(value, Table)
    return value
