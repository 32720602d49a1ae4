"""Code, Function and Function Item nodes against the real n8n: the JavaScript kept, run in V8.

The committed table (``code_conformance.json``, written by ``python -m tests.oracle.code_conformance
--write``) holds, per node type and version, the written-out cases of ``code_cases`` and how many
gave every node's output (or the node an error stopped at) equal to n8n's. These tests hold it to
what is measured now: a version marked proved still proves, every version measured is in the
table, and the README shows the table as committed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.oracle import code_cases, code_conformance, conformance
from tests.oracle.conftest import require_oracle

ROOT = Path(__file__).resolve().parents[2]
COMMITTED: dict[str, Any] = (json.loads(code_conformance.TABLE.read_text(encoding="utf-8"))
                             if code_conformance.TABLE.exists() else {"nodes": {}})
PROVED = sorted(key for key, row in COMMITTED["nodes"].items() if row["status"] == "proved")


@pytest.fixture(scope="module")
def measured() -> Iterator[list[conformance.Result]]:
    require_oracle()
    results, _ = code_conformance.measure()
    yield results


def test_the_cases_cover_both_modes_and_the_legacy_nodes() -> None:
    cases = code_cases.cases()
    modes = {c.parameters.get("mode", code_cases.ALL) for c in cases if c.node_type.endswith(".code")}
    assert modes == {code_cases.ALL, code_cases.EACH}
    assert {c.node_type.rsplit(".", 1)[-1] for c in cases} == {"code", "function", "functionItem"}
    assert len({c.id for c in cases}) == len(cases)


def test_every_measured_code_node_version_is_in_the_committed_table(measured: list[conformance.Result]) -> None:
    assert list(conformance.table(measured)) == list(COMMITTED["nodes"]), f"run {code_conformance.COMMAND}"


@pytest.mark.parametrize("key", PROVED)
def test_code_node_version_marked_proved_still_proves(key: str, measured: list[conformance.Result]) -> None:
    differing = [r for r in measured if r.case.key == key and not r.equal]
    detail = "\n".join(f"{r.case.id}: {r.case.describe()}\n    " + "\n    ".join(r.differences) for r in differing[:3])
    assert not differing, f"{key} no longer proves: {len(differing)} cases differ\n{detail}"


def test_readme_shows_the_committed_code_node_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert conformance.markdown(COMMITTED["nodes"]) in readme, f"paste the table {code_conformance.COMMAND} prints"
