"""Data Table node v1.1 cases: n8n ``runner.NEWER`` (2.x) on its own data tables, the scaffold on copies.

The same seeded tables and the same run as ``datatable_cases`` (``measure(cases, version=NEWER)``);
v1.1's cases add what n8n 2.x's node does differently: Get's ``orderBy`` (a column and direction,
then ``id``) and rows read in id order when it does not sort.
"""

from __future__ import annotations

from typing import Any

from tests.oracle import runner
from tests.oracle.datatable_cases import NODE, _c, _columns, _f, _NAME, _WRITE
from tests.oracle.workflow import Case

_SORT = {"orderBy": True}
_CASES: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
    ({"operation": "get", "returnAll": True}, [{}]),  # the first is a get: it is called twice (datatable_cases)
    ({"operation": "get", "returnAll": True, **_SORT, "orderByColumn": "score", "orderByDirection": "ASC"}, [{}]),
    ({"operation": "get", **_SORT, "orderByColumn": "name"}, [{}]),  # orderByDirection's default: DESC
    ({"operation": "get", **_SORT}, [{}]),  # orderByColumn's default: createdAt (all seeded alike: then id)
    ({"operation": "get", "limit": 2, **_SORT, "orderByColumn": "seen", "orderByDirection": "DESC"}, [{}]),
    ({"operation": "get", "filters": {"conditions": [_NAME]}}, [{"name": "cy"}, {"name": "ada"}]),
    ({"operation": "get", **_f(_c("score", "isEmpty"), _c("seen", "isNotEmpty"), match="anyCondition")}, [{}]),
    ({"operation": "rowExists", **_f(_NAME)}, [{"name": "ada", "k": 1}, {"name": "zed", "k": 2}]),
    ({"operation": "rowNotExists", **_f(_NAME)}, [{"name": "ada", "k": 1}, {"name": "zed", "k": 2}]),
    ({"operation": "insert", **_columns(_WRITE)}, [{"name": "dee", "score": 4}, {"name": "eve", "score": 5.5}]),
    ({"operation": "update", **_f(_NAME), **_columns({"score": "={{ $json.score }}"})}, [{"name": "bo_b", "score": 9}]),
    ({"operation": "upsert", **_f(_NAME), **_columns(_WRITE)}, [{"name": "cy", "score": 8}, {"name": "new", "score": 1}]),
    ({"operation": "deleteRows", **_f(_NAME)}, [{"name": "ada"}]),
    ({"operation": "deleteRows", **_f(_c("score", "gte", "1")), "options": {"dryRun": True}}, [{}]),
]


def datatable_v2_cases() -> list[tuple[Case, str, str]]:
    """Return every v1.1 case with its data table's id and name (the ids apart from v1's)."""
    out = []
    for index, (params, inputs) in enumerate(_CASES):
        ident, label = f"dtv2orac{index:08d}", f"dt v1.1 case {index}"
        locator = {"__rl": True, "mode": "list", "value": ident, "cachedResultName": label}
        out.append((Case(f"dataTable v1.1 #{index + 1}", NODE, 1.1, {"dataTableId": locator, **params}, [inputs],
                         n8n=runner.NEWER), ident, label))
    return out
