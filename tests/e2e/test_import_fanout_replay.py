"""An n8n fan-out imported item by item, then replayed with ``pytest --shadow`` against a migrated
automation that starts one child job per item: the items agree one by one, and a seeded change
in the new code shows up as a mismatch of exactly that item.

Everything runs as a user runs it: ``cutover import`` and ``pytest --shadow`` as subprocesses in
a project directory, on the fixture export ``tests/fixtures/exports/n8n/executions_fan_out.json``
(its first execution: three orders, two notified, one dropped by a Filter).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.project import pyproject

ROOT = Path(__file__).resolve().parents[2]
EXPORT = ROOT / "tests" / "fixtures" / "exports" / "n8n" / "executions_fan_out.json"

AUTOMATIONS = '''
from queue_core import automation

THRESHOLD = {threshold}


@automation("order-batch", version=1)
async def order_batch(ctx, trigger):
    for order in trigger.body["orders"]:
        await ctx.enqueue("order", order, key=order["id"])
    await ctx.wait_for_children(policy="collect")


@automation("order", version=1)
async def order(ctx, trigger):
    large = trigger.body["total"] > THRESHOLD
    ctx.decide("large", "true" if large else "false")
    if not large:
        ctx.filter("a small order is not notified")
    await ctx.call("sales", "POST", "/notify", json={{"kind": "large-order"}}, step="notify")
'''

PYPROJECT = pyproject("orders_app", "[tool.cutover.gate]\nmin_triggers = 1")

MANIFEST = '''
format = 1
name = "orders"

[automations.order-batch]
platform = "n8n"

[automations.order-batch.items]
from = "Split Out"
key = "json:id"

[automations.order-batch.steps]
"Split Out" = ""
"Count" = ""
"Is large?" = ""
"Paid?" = ""
"Notify sales" = "notify"

[automations.order-batch.decisions."Is large?"]
name = "large"

[automations.order-batch.providers]
"api.example.com" = "sales"
'''


def _project(tmp_path: Path, threshold: int) -> Path:
    """A project with the migrated fan-out and a set imported from the n8n export by `cutover import`."""
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    (tmp_path / "orders_app.py").write_text(AUTOMATIONS.format(threshold=threshold))
    set_dir = tmp_path / "recordings" / "orders"
    set_dir.mkdir(parents=True)
    (set_dir / "manifest.toml").write_text(textwrap.dedent(MANIFEST))
    document = json.loads(EXPORT.read_text())
    export = tmp_path / "executions.json"
    export.write_text(json.dumps({"data": document["data"][:1], "nextCursor": None}))
    imported = _run(tmp_path, [sys.executable, "-m", "harness.cli", "import", "n8n", str(export),
                               "--automation", "order-batch", "--into", str(set_dir)], "")
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "item-by-item: 1 run over 3 items" in imported.stdout
    return tmp_path


def _run(cwd: Path, args: list[str], db_url: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DATABASE_URL=db_url or os.environ.get("DATABASE_URL", ""),
               PYTHONPATH=os.pathsep.join([str(cwd), str(ROOT)]), CUTOVER_REDACTION_SALT="e2e-salt")
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def _shadow(project: Path, db_url: str) -> subprocess.CompletedProcess[str]:
    return _run(project, [sys.executable, "-m", "pytest", "--shadow", "recordings/orders", "-p", "no:cacheprovider", "-v"], db_url)


def _items(project: Path) -> dict[str, object]:
    summary = json.loads((project / "reports" / "orders" / "summary.json").read_text())
    (batch,) = [a for a in summary["automations"] if a["name"] == "order-batch"]
    items: dict[str, object] = batch["items"]
    return items


def test_an_imported_fan_out_agrees_item_by_item_with_the_migrated_children(tmp_path: Path, fresh_db_url: str) -> None:
    project = _project(tmp_path, threshold=100)
    legacy = json.loads((project / "recordings" / "orders" / "order-batch" / "legacy.jsonl").read_text())
    assert [(i["key"], i["status"], i["decisions"]) for i in legacy["items"]] == [
        ("o-1", "succeeded", {"large": "true"}), ("o-2", "filtered", {"large": "false"}), ("o-3", "succeeded", {"large": "true"})]
    result = _shadow(project, fresh_db_url)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "items: 3 compared item by item in 1 triggers, 3 agree (100.00%)" in result.stdout
    assert _items(project)["agreed"] == 3


def test_a_seeded_change_in_the_new_code_is_a_mismatch_of_that_item_only(tmp_path: Path, fresh_db_url: str) -> None:
    project = _project(tmp_path, threshold=200)  # o-1 (120) is now small: not notified, filtered
    result = _shadow(project, fresh_db_url)
    assert result.returncode == 1, result.stdout[-4000:] + result.stderr[-2000:]
    assert "items: 3 compared, 2 agree; differing: o-1" in result.stdout.splitlines()
    # the failure's own text only: with CI set, pytest's short summary repeats whole messages
    failures = result.stdout.split("short test summary info")[0]
    fields = [line.split()[0] for line in failures.splitlines() if line.startswith("  items[")]
    assert fields == ["items[o-1].status", "items[o-1].path[0]", "items[o-1].decisions.large", "items[o-1].calls[notify]"]
    items = _items(project)
    assert (items["compared"], items["agreed"]) == (3, 2)
