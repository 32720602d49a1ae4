"""Wait and Execution Data cases for the real n8n: each (type, version) with the parameters a real estate
gives them (amounts and times by expressions, custom data keys and values that n8n accepts or refuses).

Written out, not drawn: a Wait case must stay short in n8n (it really waits: 0 or 1 s, or a time
already past), and the custom data rules have a few exact edges (a falsy value, a key with a
space, a boolean value, an eleventh key). What is compared is every node's output items and the
node a run stopped at (``tests/oracle/outcome.py``; n8n runs them as a production execution, which logs and ignores custom data it cannot store): the Wait's items after it resumed, not the
time it waited (the runner reads no timings), nor the custom data itself (the snapshot's
``resultData.metadata`` is not read), which ``queue_core.compat._n8n_custom`` follows from
n8n-core's ``execution-metadata`` source.
"""

from __future__ import annotations

from typing import Any

from tests.oracle.workflow import Case

ITEMS = [{"d": 0, "when": "2020-01-01T00:00:00", "unit": "seconds", "who": "ada"},
         {"d": 1, "when": "2021-06-01T12:00:00", "unit": "minutes", "who": "bob"}]

WAIT_PARAMETERS: list[dict[str, Any]] = [
    {"amount": 0, "unit": "seconds"},
    {"amount": 1, "unit": "seconds"},
    {"amount": "=0", "unit": "seconds"},
    {"amount": "={{ $json.d }}", "unit": "seconds"},
    {"amount": "={{ $json.d }}", "unit": "={{ $json.unit }}"},
    {"amount": "={{ $json.missing || 0 }}", "unit": "minutes"},
    {"resume": "specificTime", "dateTime": "2020-01-01T00:00:00"},
    {"resume": "specificTime", "dateTime": "={{ $json.when }}"},
]


def _saved(*pairs: tuple[str, Any]) -> dict[str, Any]:
    return {"dataToSave": {"values": [{"key": k, **({} if v is None else {"value": v})} for k, v in pairs]}}


EXECUTION_DATA_PARAMETERS: list[dict[str, Any]] = [
    _saved(("who", "={{ $json.who }}"), ("static", "yes")),
    _saved(("amount", "={{ $json.d * 10 }}")),
    _saved(("empty", None)),
    _saved(("zero", "={{ 0 }}")),
    _saved(("flag", "={{ true }}")),
    _saved(("bad key", "x")),
    _saved(*[(f"k{i}", "={{ $json.who }}") for i in range(11)]),
    {},
]

NODES = [("n8n-nodes-base.wait", (1.0, 1.1), WAIT_PARAMETERS),
         ("n8n-nodes-base.executionData", (1.0, 1.1), EXECUTION_DATA_PARAMETERS)]


def wait_data_cases() -> list[Case]:
    """Return every case, per (type, version), in a fixed order."""
    cases = []
    for node_type, versions, parameters in NODES:
        for version in versions:
            short = f"{node_type.rsplit('.', 1)[-1]} v{version:g}"
            for index, params in enumerate(parameters):
                cases.append(Case(f"{short} #{index + 1}", node_type, version, params, [ITEMS]))
    return cases
