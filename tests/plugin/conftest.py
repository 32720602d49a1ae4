"""A small project with two migrated automations and a recording set, for running the plugin.

The plugin is run as users run it: ``pytester.runpytest_subprocess`` in a directory holding a
pyproject.toml, an automations module and ``recordings/demo``. ``DATABASE_URL`` points at a fresh
database, so gate verdicts land where the test can read them.
"""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from harness.manifest import AutomationEntry, Coercion, Manifest, write_manifest
from harness.recording import LegacyTrace, Platform, RecordedTrigger, TraceStatus, write_traces, write_triggers



def pytest_configure(config: pytest.Config) -> None:
    # pytester is a builtin plugin that is off by default. `pytest_plugins` is only honoured in
    # the root conftest, so this directory's conftest enables it when pytest loads it.
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")

AUTOMATIONS = '''
from queue_core import automation


@automation("router", version=1)
async def router(ctx, trigger):
    body = trigger.body
    if body.get("boom"):
        raise KeyError("customer_id")
    tier = "enterprise" if body["employees"] > 1000 else "smb"
    ctx.decide("tier", tier)
    await ctx.call("crm", "POST", "/contacts", json={"email": body["email"], "tier": tier}, step="create")


@automation("notifier", version=1)
async def notifier(ctx, trigger):
    ctx.decide("urgent", trigger.body["level"] == "high")
    await ctx.call("chat", "POST", "/messages", json={"text": trigger.body["text"]}, step="post")
'''

# The project's own test (collected only when its path is named next to --shadow).
OWN_TEST = '''
from queue_core.registry import discover


def test_project_own_test():
    registry = discover("shadow_demo")
    assert {"router", "notifier"} <= set(registry.names())
'''

PYPROJECT = '''
[tool.pytest.ini_options]
addopts = "--strict-markers"
testpaths = ["tests"]
filterwarnings = ["error", "ignore::UserWarning:platformdirs.*"]
asyncio_default_fixture_loop_scope = "function"

[tool.cutover]
automations = "shadow_demo"

[tool.cutover.gate]
min_triggers = 3
agreement = 0.99
'''

START = datetime(2024, 6, 1, tzinfo=UTC)


def _router_case(i: int, employees: int, legacy_tier: str, *, boom: bool = False) -> tuple[RecordedTrigger, LegacyTrace]:
    body: dict[str, Any] = {"email": f"lead{i}@example.com", "employees": employees}
    if boom:
        body["boom"] = True
    trigger = RecordedTrigger(f"r-{i}", START + timedelta(minutes=i), {}, body, "recorder")
    call = {"step": "create", "provider": "crm", "method": "POST", "url": "/contacts",
            "body": {"email": body["email"], "tier": legacy_tier}}
    trace = LegacyTrace(f"r-{i}", TraceStatus.SUCCEEDED, Platform.MAKE, path=["create"],
                        decisions={"tier": legacy_tier}, calls=[call])
    return trigger, trace


def _notifier_case(i: int, level: str) -> tuple[RecordedTrigger, LegacyTrace]:
    body = {"level": level, "text": f"alert {i}"}
    trigger = RecordedTrigger(f"n-{i}", START + timedelta(minutes=i), {}, body, "recorder")
    call = {"step": "post", "provider": "chat", "method": "POST", "url": "/messages", "body": {"text": body["text"]}}
    trace = LegacyTrace(f"n-{i}", TraceStatus.SUCCEEDED, Platform.N8N, path=["post"],
                        decisions={"urgent": "true" if level == "high" else "false"}, calls=[call])
    return trigger, trace


def write_set(root: Path, *, router: list[tuple[RecordedTrigger, LegacyTrace]] | None = None,
              unpaired: int = 0) -> Path:
    """Write recordings/demo: 6 router triggers (one disagreeing, one raising), 4 notifier ones."""
    set_dir = root / "recordings" / "demo"
    cases = router if router is not None else [
        _router_case(0, 50, "smb"), _router_case(1, 5000, "enterprise"), _router_case(2, 1500, "smb"),
        _router_case(3, 10, "smb"), _router_case(4, 20, "smb", boom=True), _router_case(5, 2000, "enterprise"),
    ]
    write_triggers(set_dir / "router" / "triggers.jsonl", [t for t, _ in cases])
    write_traces(set_dir / "router" / "legacy.jsonl", [c for _, c in cases])
    notes = [_notifier_case(i, level) for i, level in enumerate(["high", "low", "low", "high"])]
    extra = [RecordedTrigger(f"n-x{i}", START + timedelta(hours=1, minutes=i), {}, {"level": "low", "text": "x"},
                             "recorder") for i in range(unpaired)]
    write_triggers(set_dir / "notifier" / "triggers.jsonl", [t for t, _ in notes] + extra)
    write_traces(set_dir / "notifier" / "legacy.jsonl", [c for _, c in notes])
    write_manifest(set_dir / "manifest.toml", Manifest(name="demo", automations={
        "router": AutomationEntry("router", Platform.MAKE, Coercion.MAKE),
        "notifier": AutomationEntry("notifier", Platform.N8N, Coercion.N8N),
    }))
    return set_dir


@pytest.fixture
def project(pytester: pytest.Pytester, fresh_db_url: str, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project directory with the demo automations, a recording set and its own tests."""
    monkeypatch.setenv("DATABASE_URL", fresh_db_url)
    pytester.makefile(".toml", pyproject=textwrap.dedent(PYPROJECT))
    pytester.makepyfile(shadow_demo=AUTOMATIONS)
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_own.py").write_text(OWN_TEST)
    write_set(pytester.path)
    return pytester
