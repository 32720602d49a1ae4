"""A Data Table node's run in an n8n execution, as the call the scaffolded node makes for it.

The scaffold makes one call of its SQL provider per node run (``queue_core.compat._n8n_datatable``):
``SQL sql://postgres/dataTable.<operation>`` with the body ``{"batching": "single", "continue":
false, "statements"}``, each statement on the data table's copy (``dt_table_name``). The legacy
trace gets the same call, so the shadow run compares the statements and their parameters when
the export says what they were: the node's conditions and columns are literal (no expression),
or read only the input items, which the execution holds. Otherwise the body is None and only the
call's provider, method and URL are compared.
"""

from __future__ import annotations

from typing import Any

from harness.importer._run import split_url
from harness.manifest import AutomationEntry
from queue_core.compat import n8n

DATA_TABLE_TYPES = ("n8n-nodes-base.dataTable",)
BASE = "sql://postgres"
_READS = ("get", "rowExists", "rowNotExists")


def _literal(value: Any) -> bool:
    if isinstance(value, str):
        return not value.startswith("=") and "{{" not in value
    if isinstance(value, dict):
        return all(_literal(v) for v in value.values())
    if isinstance(value, list):
        return all(_literal(v) for v in value)
    return True


def _statement(node: Any, params: dict[str, Any], table: str, index: int, item: dict[str, Any]) -> dict[str, Any]:
    """One item's statement, as the runtime builds it from literal parameters."""
    operation, options = str(params.get("operation")), params.get("options") or {}
    columns = params.get("columns") or {}
    if operation == "insert":
        row = n8n.dt_row(str(columns.get("mappingMode")), item, columns.get("value"), node=node.name, index=index)
        return n8n.dt_insert(table, row, returning=not options.get("optimizeBulk"))
    conditions = (params.get("filters") or {}).get("conditions") or []
    filter_ = n8n.dt_filters(conditions, str(params.get("matchType")), node=node.name)
    if operation in _READS:
        limit = 1 if operation != "get" else (None if params.get("returnAll") else params.get("limit", 50))
        return n8n.dt_get(table, filter_, limit=limit)
    if operation == "deleteRows":
        return n8n.dt_delete(table, filter_, node=node.name, dry_run=bool(options.get("dryRun")))
    row = n8n.dt_row(str(columns.get("mappingMode")), item, columns.get("value"), node=node.name, index=index)
    build = n8n.dt_update if operation == "update" else n8n.dt_upsert
    return build(table, row, filter_, node=node.name, dry_run=bool(options.get("dryRun")))


def datatable_call(run: Any, step: str, entry: AutomationEntry,
                   items: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    """Return the call a Data Table node's run made; ``None`` for other nodes (see the module docstring)."""
    if run.type not in DATA_TABLE_TYPES:
        return None
    node = run.node
    params = node.settings if node.described else node.parameters
    operation = str(params.get("operation") or "insert")
    provider, url = split_url(entry, f"{BASE}/dataTable.{operation}")
    call: dict[str, Any] = {"step": step, "provider": provider, "method": "SQL", "url": url, "body": None}
    table = n8n.dt_table_name(params.get("dataTableId"))
    if items is None or table is None or not node.described or not _literal(params):
        return call
    try:
        statements = [_statement(node, params, table, i, item)
                      for i, item in enumerate(items[:1] if node.execute_once else items)]
    except Exception:  # noqa: BLE001 - a node n8n itself failed on: its statements are not known
        return call
    call["body"] = {"batching": "single", "continue": False, "statements": statements}
    return call
