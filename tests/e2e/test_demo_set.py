"""The committed demo set is what ``recordings/generate.py`` and the real importers produce.

``recordings/2024-06`` is regenerated from the default seed into a temporary directory: every file
(the synthetic exports, the imported ``triggers.jsonl``/``legacy.jsonl`` and ``manifest.toml``)
must be byte-identical to the committed one, so nobody can hand-edit the set; and the set must
exercise every importer it names (n8n webhook and schedule runs, Zapier runs with a Zapfile, Make
logs with a blueprint) with the evidence each platform's real export gives.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from harness.manifest import load_manifest
from harness.recording import Evidence, Platform, iter_traces, iter_triggers

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "recordings" / "2024-06"
REVIEWED = {"accepted.toml"}  # written by a reviewer, not by the generator


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_generate", ROOT / "recordings" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _files(root: Path) -> dict[str, Path]:
    return {str(p.relative_to(root)): p for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "2024-06"
    _generator().generate(out, 2400, 1)
    return out


def test_regenerating_with_the_default_seed_gives_the_committed_set_byte_for_byte(regenerated: Path) -> None:
    made, committed = _files(regenerated), _files(COMMITTED)
    assert sorted(made) == sorted(set(committed) - REVIEWED)
    differing = [name for name, path in made.items() if path.read_bytes() != committed[name].read_bytes()]
    assert differing == []


def test_another_seed_gives_other_data(tmp_path: Path) -> None:
    _generator().generate(tmp_path / "2024-06", 240, 2)
    other = (tmp_path / "2024-06" / "github-triage" / "triggers.jsonl").read_bytes()
    assert other != (COMMITTED / "github-triage" / "triggers.jsonl").read_bytes()


def test_each_source_is_an_export_in_the_set_read_by_its_platforms_importer(regenerated: Path) -> None:
    manifest = load_manifest(regenerated / "manifest.toml")
    platforms = {source.automation: source.platform for source in manifest.sources}
    assert platforms == {"github-triage": Platform.N8N, "bug-digest": Platform.N8N,
                         "payment-dunning": Platform.ZAPIER, "lead-router": Platform.MAKE}
    for source in manifest.sources:
        (export,) = source.files
        assert (regenerated / export).is_file() and export.startswith("exports/")
        json.loads((regenerated / export).read_text())  # a real document, not a pointer
        traces = list(iter_traces(regenerated / source.automation / "legacy.jsonl"))
        assert len(traces) == source.records and {t.platform for t in traces} == {source.platform}


def test_the_triggers_come_from_where_each_platform_gives_them(regenerated: Path) -> None:
    def sources(automation: str) -> set[str]:
        return {t.source.split("/")[0] for t in iter_triggers(regenerated / automation / "triggers.jsonl")}

    assert sources("github-triage") == {"n8n:execution"}  # the webhook node's item
    assert sources("bug-digest") == {"schedule"}  # Schedule Trigger ticks
    assert sources("payment-dunning") == {"recorder"} and sources("lead-router") == {"recorder"}  # the tap
    ticks = list(iter_triggers(regenerated / "bug-digest" / "triggers.jsonl"))
    assert all(t.received_at.minute == t.received_at.second == t.received_at.microsecond == 0 for t in ticks)
    assert [t.received_at for t in ticks] == sorted({t.received_at for t in ticks})  # one run per hourly tick


def test_each_platforms_evidence_depth_is_what_its_export_can_prove(regenerated: Path) -> None:
    def depths(automation: str) -> set[tuple[Evidence, ...]]:
        return {t.evidence for t in iter_traces(regenerated / automation / "legacy.jsonl")}

    full = (Evidence.STATUS, Evidence.PATH, Evidence.DECISIONS, Evidence.CALLS, Evidence.OUTPUTS)
    assert depths("github-triage") == {full} and depths("bug-digest") == {full}
    assert depths("payment-dunning") == {(Evidence.STATUS, Evidence.PATH, Evidence.DECISIONS)}  # runs + Zapfile
    assert depths("lead-router") == {(Evidence.STATUS,)}  # Make logs
