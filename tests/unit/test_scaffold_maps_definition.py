"""`cutover scaffold --set` names the workflow file as the entry's definition (branch coverage reads it)."""

from __future__ import annotations

import json
from pathlib import Path

from harness.manifest import load_manifest
from harness.platforms.n8n.translate.maps import write_maps
from harness.platforms.n8n.translate.module import build
from harness.platforms.n8n.definition import load_workflows

FIXTURES = Path(__file__).parent.parent / "fixtures" / "workflows" / "n8n"
ROUTER = FIXTURES / "order-router.workflow.json"


def test_the_maps_name_the_workflow_file_relative_to_the_set(tmp_path: Path) -> None:
    (workflow,) = load_workflows(ROUTER)
    manifest = tmp_path / "recordings" / "2024-06" / "manifest.toml"
    write_maps(manifest, build(workflow, "order-router", {}))
    entry = load_manifest(manifest).automations["order-router"]
    assert entry.definition is not None and not Path(entry.definition).is_absolute()
    assert (manifest.parent / entry.definition).resolve() == ROUTER.resolve()
    assert entry.steps["Enqueue order"] == "enqueue-order"


def test_a_definition_a_person_wrote_is_kept_and_the_entry_stays_loadable(tmp_path: Path) -> None:
    (workflow,) = load_workflows(ROUTER)
    manifest = tmp_path / "set" / "manifest.toml"
    manifest.parent.mkdir()
    manifest.write_text('format = 1\nname = "set"\n\n[automations.order-router]\nplatform = "n8n"\n\n'
                        '[automations.order-router.steps]\n"Is paid?" = ""\n')
    write_maps(manifest, build(workflow, "order-router", {}))
    assert load_manifest(manifest).automations["order-router"].definition is not None
    manifest.write_text(manifest.read_text().replace(
        "definition = ", 'definition = "definitions/mine.json"\n# was: '))
    write_maps(manifest, build(workflow, "order-router", {}))
    assert load_manifest(manifest).automations["order-router"].definition == "definitions/mine.json"


def test_a_file_of_several_workflows_is_not_named_as_one_definition(tmp_path: Path) -> None:
    one = json.loads(ROUTER.read_text(encoding="utf-8"))
    both = tmp_path / "all.json"
    both.write_text(json.dumps([one, {**one, "name": "Other router"}]))
    first, _ = load_workflows(both)
    manifest = tmp_path / "set" / "manifest.toml"
    write_maps(manifest, build(first, "order-router", {}))
    assert load_manifest(manifest).automations["order-router"].definition is None
