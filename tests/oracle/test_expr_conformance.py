"""Expressions against the real n8n: the Python translation where faithful, the JavaScript kept in V8 elsewhere.

The committed table (``expr_conformance.json``, written by ``python -m tests.oracle.expr_conformance
--write``) holds, per case group of ``expr_cases`` (expressions carried by a Set node, Edit Fields
in JSON mode, a Switch whose rule conditions are a bare list), how many cases gave every node's
output (or the node an error stopped at) equal to n8n's. These tests hold it to what is measured
now: no group does worse than committed, every group measured is in the table, and the README
shows the table as committed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.oracle import conformance, expr_cases, expr_conformance
from tests.oracle.conftest import require_oracle

ROOT = Path(__file__).resolve().parents[2]
COMMITTED: dict[str, Any] = (json.loads(expr_conformance.TABLE.read_text(encoding="utf-8"))
                             if expr_conformance.TABLE.exists() else {"nodes": {}})


@pytest.fixture(scope="module")
def measured() -> Iterator[list[conformance.Result]]:
    require_oracle()
    results, _ = expr_conformance.measure()
    yield results


def test_the_cases_cover_every_kind_the_python_translation_leaves_to_v8() -> None:
    text = json.dumps([c.parameters for c in expr_cases.cases()])
    for kind in ("?.", "??", ".toJsonString()", ".parseJson()", "new Date(", "/g", "...", "$env.", ".minus(",
                 ".format(", ".toISO()", "item.binary", "$jmespath(", "DateTime.", '"mode": "raw"'):
        assert kind in text, kind
    assert len({c.id for c in expr_cases.cases()}) == len(expr_cases.cases())


def test_every_measured_group_is_in_the_committed_table(measured: list[conformance.Result]) -> None:
    assert list(expr_conformance.table(measured)) == list(COMMITTED["nodes"]), f"run {expr_conformance.COMMAND}"


@pytest.mark.parametrize("key", list(COMMITTED["nodes"]))
def test_no_group_agrees_with_n8n_on_fewer_cases_than_committed(key: str, measured: list[conformance.Result]) -> None:
    rows = expr_conformance.table(measured)
    assert rows[key]["equal"] >= COMMITTED["nodes"][key]["equal"], rows[key].get("first_difference")


def test_readme_shows_the_committed_expression_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert conformance.markdown(COMMITTED["nodes"]) in readme, f"paste the table {expr_conformance.COMMAND} prints"
