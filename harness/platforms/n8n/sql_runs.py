"""A Postgres node's run in an n8n execution, as the call the scaffolded node makes for it.

The scaffold makes one call of its SQL provider per node run (``queue_core.compat._n8n_postgres``):
``SQL sql://postgres/<operation>`` with the body ``{"batching", "continue", "statements"}``. The
legacy trace gets the same call, so the shadow run compares the statements and their parameters,
whenever the export says what they were: the node's parameters are literal (no expression) and
its input items are in the execution (a row mapped from the input item is that item's ``json``).
Otherwise the body is None: the call's provider, method and URL are still compared, its body is
not (``harness.shadow.normalize`` leaves out what the legacy side does not know).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.importer._run import split_url
from harness.manifest import AutomationEntry
from harness.platforms.n8n.datatable_runs import DATA_TABLE_TYPES, datatable_call
from queue_core.compat import n8n

POSTGRES_TYPES = ("n8n-nodes-base.postgres",)
BASE = "sql://postgres"

Inputs = Callable[[Any], "list[dict[str, Any]] | None"]  # a run's input items (None: not in the export)


def _literal(value: Any) -> bool:
    if isinstance(value, str):
        return not value.startswith("=") and "{{" not in value
    if isinstance(value, dict):
        return all(_literal(v) for v in value.values())
    if isinstance(value, list):
        return all(_literal(v) for v in value)
    return True


def _locator(value: Any) -> Any:
    return value.get("value") if isinstance(value, dict) else value


def _statement(node: Any, params: dict[str, Any], item: dict[str, Any]) -> dict[str, Any] | None:
    """One item's statement, as the runtime builds it, for literal parameters (None: not known)."""
    operation, options, version = params.get("operation"), params.get("options") or {}, node.version
    if operation == "executeQuery":
        raw = options.get("queryReplacement", "")
        parts = [("text", entry.strip()) for entry in str(raw).split(",") if entry]
        values = n8n.pg_values(raw, parts, version=version, node=node.name)
        return n8n.pg_query(params.get("query", ""), values, raw,
                            quoted_as_text=bool(options.get("treatQueryParametersInSingleQuotesAsText")))
    schema, table, output = _locator(params.get("schema")), _locator(params.get("table")), options.get("outputColumns")
    if operation == "insert" and version >= 2.2:
        columns = params.get("columns") or {}
        row = n8n.pg_row(version, str(columns.get("mappingMode")), item, columns.get("value"))
        return n8n.pg_insert(schema, table, row, version=version, output=output,
                             skip_on_conflict=bool(options.get("skipOnConflict")))
    if operation == "select":
        return n8n.pg_select(schema, table, node=node.name, where=(params.get("where") or {}).get("values") or [],
                             combine=params.get("combineConditions", "AND"),
                             sort=(params.get("sort") or {}).get("values") or [],
                             return_all=bool(params.get("returnAll")), limit=params.get("limit", 50), output=output)
    return None


def sql_call(run: Any, step: str, entry: AutomationEntry, inputs: Inputs | None = None) -> dict[str, Any] | None:
    """Return the call a Postgres node's run made; ``None`` for other nodes (see the module docstring)."""
    if run.type in DATA_TABLE_TYPES:  # a Data Table node: its statements on the table's copy
        return datatable_call(run, step, entry, inputs(run) if inputs is not None else None)
    if run.type not in POSTGRES_TYPES:
        return None
    node = run.node
    params = node.settings if node.described else node.parameters
    operation = str(params.get("operation") or "")
    provider, url = split_url(entry, f"{BASE}/{operation}")
    call: dict[str, Any] = {"step": step, "provider": provider, "method": "SQL", "url": url, "body": None}
    items = inputs(run) if inputs is not None else None
    if items is None or not _literal({k: v for k, v in params.items() if k != "columns"}) or node.version < 2:
        return call
    if operation == "insert" and not _literal((params.get("columns") or {}).get("value") or {}):
        return call
    try:
        statements = [_statement(node, params, item) for item in (items[:1] if node.execute_once else items)]
    except Exception:  # noqa: BLE001 - a node n8n itself failed on: its statements are not known
        return call
    if any(s is None for s in statements):
        return call
    options = params.get("options") or {}
    call["body"] = {"batching": options.get("queryBatching", "single"), "continue": node.on_error == "continue",
                    "statements": statements}
    return call


def input_items(runs: list[Any]) -> Inputs:
    """Return the lookup of a run's input items: the output its ``source`` names, from ``runs``."""
    by_name: dict[tuple[str, int], Any] = {(r.name, r.run): r for r in runs}

    def lookup(run: Any) -> list[dict[str, Any]] | None:
        sources = run.task.get("source")
        if not isinstance(sources, list) or len(sources) != 1 or not isinstance(sources[0], dict):
            return None
        source = sources[0]
        parent = by_name.get((str(source.get("previousNode")), int(source.get("previousNodeRun") or 0)))
        if parent is None:
            return None
        outputs = parent.outputs()
        index = int(source.get("previousNodeOutput") or 0)
        return [i for i in outputs[index] if isinstance(i, dict)] if index < len(outputs) else None

    return lookup
