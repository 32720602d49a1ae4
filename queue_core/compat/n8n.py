"""The runtime of automations scaffolded from n8n workflows (``cutover scaffold n8n``).

n8n runs each node once over a list of *items* (``{"json": {...}}``) and hands each output's
items to the nodes connected to it; a node that receives no items does not run. A scaffolded
automation keeps that model in plain Python: each node is a few lines over a list of items, and a
``Flow`` records every node's outputs (so that ``$('Node').item`` can be read, and so a test can
compare them with a workflow's pinned data) and the branch decisions, named as ``cutover import
n8n`` names them: an IF's outputs are ``"true"``/``"false"``, a Switch's are its rules' output
keys (or their indexes), and a node whose items went to several outputs decides a list of them.

Semantics of conditions are in ``_n8n_filter``; JavaScript value semantics of expressions in
``_n8n_js``. Both are re-exported here, so generated code imports one module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from ..errors import N8nConditionError, NodeFailed, TodoNode
from ._n8n_apps import (
    epoch_ms, form_fields, properties, quote_path, sheet_row, sheet_updates,
    with_fields,
)
from ._n8n_data import aggregate_all, aggregate_fields, crypto_item, limit, sort_items, split_out
from ._n8n_dedupe import remove_duplicates
from ._n8n_expr import evaluate as js_expression
from ._n8n_expr_raw import json_output
from ._n8n_filter import check, if_v1
from ._n8n_schedule import schedule_items
from ._n8n_respond import respond, respond_last
from ._n8n_set import legacy_fields, without_undefined
from ._n8n_shell import exec_command, read_binary_file, read_files, ssh_command, write_files
from ._n8n_sub import execute_workflow, require_automations, sub_inputs, sub_return
from ._n8n_custom import execution_data
from ._n8n_wait import wait_interval, wait_until, wait_webhook
from ._n8n_static import code_static
from ._n8n_code_http import code_http
from ._n8n_python import python_code
from . import _n8n_ai as ai, _n8n_ai_chain as ai_chain  # the AI nodes: n8n.ai.message, n8n.ai_chain.agent, …
from . import _n8n_ai_audio as ai_audio  # the OpenAI node's audio: n8n.ai_audio.transcribe, n8n.ai_audio.speech
from ._n8n_loop import MAX_ITERATIONS, LoopState
from ._n8n_messages import mime_message, slack_answer, slack_blocks, telegram_download, telegram_form, telegram_message, telegram_part
from ._n8n_bigquery import bigquery_queries
from ._n8n_notion import notion_page_body, notion_simplified, notion_texts, notion_title_key
from ._n8n_records import (  # Airtable, HubSpot lists (_n8n_records)
    airtable_matches, airtable_pages, data_items, drive_folder_body, drive_upload, encode_uri_component, github_content, github_sha, airtable_patch, airtable_record, airtable_search, airtable_updated, encode_uri,
    flatten_record, hubspot_pages, hubspot_search_body, listed, listed_names, notion_page_id, recorded_items, truthy_fields, without,
)
from ._n8n_postgres import (
    pg_blank_to_null, pg_delete, pg_insert, pg_query, pg_row, pg_run, pg_select, pg_update, pg_upsert, pg_values,
)
from ._n8n_datatable import (
    dt_copy_sql, dt_delete, dt_filters, dt_get, dt_insert, dt_row, dt_run, dt_table_ddl, dt_table_name, dt_update,
    dt_upsert,
)
from ._n8n_binary import binary_of, file_part, file_response, is_file
from ._n8n_http import CALL_ERRORS, basic_auth, error_item, full_response, header_auth, provider_of, text_response
from ._n8n_convert import to_json_file, to_text_file  # Convert to File
from ._n8n_csv import to_csv_file  # Convert to File: CSV
from ._n8n_gmail import gmail_thread_reply  # Gmail thread.reply
from ._n8n_social import openai_v1_items, reddit_listing, youtube_upload  # Reddit post.getAll, YouTube, legacy OpenAI
from ._n8n_query import json_query  # HTTP Request: query parameters as JSON
from ._n8n_calendar import calendar_event, calendar_id  # Google Calendar event.create
from ._n8n_sheets import sheet_append_or_update, sheet_lookup, sheet_read  # Google Sheets filters, append-or-update
from ._n8n_rss import rss_fields, rss_items, rss_url  # RSS Read
from ._n8n_email import email_items, email_send  # Send Email
from ._n8n_merge import (
    merge_append, merge_by_fields, merge_by_position, merge_by_position_v2, merge_choose, merge_multiplex,
)
from ._n8n_js import (
    GLOBALS, MISSING, METHODS, add, arith, as_list, both, call, coalesce, compare, concat, either, field, get, json_text, loose_eq,
    method, num, parse_float, parse_int, strict_eq, text, truthy,
)
from ._n8n_js import array_of, call_method, part, read

Item = dict[str, Any]
Items = list[Item]

# A node output is recorded (and compared) up to this many items; past it, one marker string
# says how many more there were, so a run over a huge list keeps a bounded trace.
OUTPUT_ITEMS_CAP = 100

# The JavaScript globals (``Math.round``, ``parseInt``) and methods (``.toLowerCase()``) this runtime
# implements, by name: the translator emits a call only to one of these.
JS_GLOBALS: frozenset[str] = frozenset(GLOBALS)
JS_METHODS: frozenset[str] = frozenset(METHODS)

__all__ = [
    "JS_GLOBALS", "JS_METHODS", "MISSING", "N8nConditionError", "OUTPUT_ITEMS_CAP", "Flow", "Item", "Items", "NodeFailed", "TodoNode", "add", "arith", "as_list", "assign", "both",
    "call", "check", "coalesce", "code", "compare", "concat", "either", "epoch_ms", "field", "form_fields", "get", "if_v1", "js_expression", "json_body", "json_output",
    "loop", "loose_eq", "merge_append", "merge_by_fields", "merge_by_position", "merge_by_position_v2",
    "merge_choose", "merge_multiplex", "method", "now", "num", "output_index", "parse_float", "parse_int",
    "properties", "quote_path", "response_items", "sheet_row", "sheet_updates", "strict_eq", "text",
    "recorded_outputs", "trigger_items", "truthy", "typed", "webhook_items", "with_fields",
    "schedule_items", "execute_workflow", "sub_inputs", "sub_return", "respond", "respond_last",
]
__all__ += ["legacy_fields", "without_undefined"]  # Set v1/v2 (_n8n_set)
__all__ += ["exec_command", "read_binary_file", "read_files", "ssh_command", "write_files"]  # SSH, Execute Command, Read Binary File (_n8n_shell)
__all__ += ["array_of", "call_method", "part", "read"]  # an expression part that reads through undefined (_n8n_js)
__all__ += ["CALL_ERRORS", "basic_auth", "error_item", "full_response", "header_auth", "provider_of", "text_response"]  # HTTP Request (_n8n_http)
__all__ += ["binary_of", "file_part", "file_response", "is_file"]  # binary data (_n8n_binary)
__all__ += ["aggregate_all", "aggregate_fields", "crypto_item", "limit", "remove_duplicates", "sort_items", "split_out"]  # data nodes
__all__ += ["mime_message", "slack_answer", "slack_blocks", "telegram_download", "telegram_form", "telegram_message", "telegram_part"]  # Telegram, Gmail (_n8n_messages)
__all__ += ["to_csv_file", "to_json_file", "to_text_file"]  # Convert to File (_n8n_convert, _n8n_csv)
__all__ += ["gmail_thread_reply"]  # Gmail (_n8n_gmail)
__all__ += ["openai_v1_items", "reddit_listing", "youtube_upload"]  # Reddit, YouTube, legacy OpenAI (_n8n_social)
__all__ += ["json_query"]  # HTTP Request JSON query (_n8n_query)
__all__ += ["calendar_event", "calendar_id"]  # Google Calendar (_n8n_calendar)
__all__ += ["sheet_append_or_update", "sheet_lookup", "sheet_read"]  # Google Sheets (_n8n_sheets)
__all__ += ["rss_fields", "rss_items", "rss_url"]  # RSS Read (_n8n_rss)
__all__ += ["email_items", "email_send"]  # Send Email (_n8n_email)
__all__ += ["code_static", "python_code"]  # Code nodes: static data (_n8n_static), Python (_n8n_python)
__all__ += ["code_http"]  # Code nodes making HTTP calls (_n8n_code_http)
__all__ += ["notion_simplified", "notion_texts"]  # Notion v2: Simplify on, rich-text blocks (_n8n_notion)
__all__ += ["notion_page_body", "notion_title_key", "bigquery_queries", "data_items", "drive_folder_body", "drive_upload", "encode_uri_component", "github_content", "github_sha", "airtable_matches", "airtable_pages", "airtable_patch", "airtable_record", "airtable_search", "airtable_updated",
            "encode_uri", "flatten_record", "hubspot_pages", "hubspot_search_body", "listed", "listed_names", "notion_page_id", "recorded_items", "truthy_fields",
            "without"]  # app records and pages (_n8n_records)
__all__ += ["pg_blank_to_null", "pg_delete", "pg_insert", "pg_query", "pg_row", "pg_run", "pg_select", "pg_update",
            "pg_upsert", "pg_values"]  # Postgres (_n8n_postgres)
__all__ += ["dt_copy_sql", "dt_delete", "dt_filters", "dt_get", "dt_insert", "dt_row", "dt_run", "dt_table_ddl", "dt_table_name", "dt_update",
            "dt_upsert"]  # Data Table on a copy of its table (_n8n_datatable)
__all__ += ["execution_data", "require_automations", "wait_interval", "wait_until", "wait_webhook"]  # Exec. Data, Wait
__all__ += ["ai", "ai_audio", "ai_chain"]  # OpenAI, Anthropic, Gemini, the LangChain chains (_n8n_ai)


def recorded_outputs(outputs: Sequence[Sequence[Any]], cap: int = OUTPUT_ITEMS_CAP) -> list[list[Any]]:
    """Return a node's outputs as a trace records them: per output index, its items' ``json``.

    An item that is not an ``{"json": ...}`` object is kept as it is. Past ``cap`` items an
    output ends with one marker string, ``"… <n> more items"``; the one rule of the runtime's
    traces and of ``cutover import n8n``, so both sides of a comparison are cut alike.
    """
    out: list[list[Any]] = []
    for items in outputs:
        kept = [item.get("json") if isinstance(item, dict) and "json" in item else item for item in list(items)[:cap]]
        if len(items) > cap:
            kept.append(f"… {len(items) - cap} more items")
        out.append(kept)
    return out


class NodeRef:
    """``$('Node')``: the items a node produced in this run."""

    def __init__(self, flow: Flow, name: str) -> None:
        self._flow, self._name = flow, name

    def all(self) -> Items:
        """Return ``.all()``: every item of the node's first output."""
        outputs = self._flow.outputs.get(self._name) or [[]]
        return list(outputs[0])

    def first(self) -> Item | None:
        """Return ``.first()``."""
        items = self.all()
        return items[0] if items else None

    def last(self) -> Item | None:
        """Return ``.last()``."""
        items = self.all()
        return items[-1] if items else None

    def item(self, index: int) -> Item | None:
        """Return ``.item``: the item paired with the current one (the same index, or the only one)."""
        items = self.all()
        if 0 <= index < len(items):
            return items[index]
        return items[0] if len(items) == 1 else None


class Flow:
    """One run of a scaffolded workflow: node outputs and decisions, recorded as they happen.

    Every node's outputs go into the job's decision trace as the node ends (``ctx.trace.nodes``,
    capped by :func:`recorded_outputs`), so a run that fails midway still shows what the nodes
    before the failure produced; ``pytest --shadow`` compares them with the legacy run's.
    """

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.outputs: dict[str, list[Items]] = {}  # each node's outputs of its latest run
        self.runs: dict[str, list[list[Items]]] = {}  # each node's outputs, run by run (n8n's runData)
        self._last: tuple[str, str] | None = None
        self.static_data: Any = None  # the workflow's static data, read on first use (_n8n_static)
        watchers = getattr(ctx, "n8n_flows", None)  # a context that keeps the runs' flows (proofs)
        if isinstance(watchers, list):
            watchers.append(self)

    def node(self, name: str) -> NodeRef:
        """Return ``$('name')``."""
        return NodeRef(self, name)

    def emit(self, node: str, items: Items, kind: str = "node") -> Items:
        """Record ``items`` as the (only) output of ``node`` and return them."""
        self.outputs[node] = [list(items)]
        self._last = (node, kind)
        self._record(node)
        return items

    def record(self, node: str, outputs: Sequence[Items], kind: str = "node") -> None:
        """Record one run of ``node`` that gave ``outputs`` (one list of items per output index)."""
        self.outputs[node] = [list(items) for items in outputs]
        self._last = (node, kind)
        self._record(node)

    def last_output(self) -> Items:
        """The first output of the node that ran last (what a sub-workflow returns, what a webhook answering
        "when the last node finishes" sends); empty before any node ran."""
        outputs = self.outputs.get(self._last[0]) if self._last else None
        return list(outputs[0]) if outputs else []

    def emit_outputs(self, node: str, outputs: Sequence[Items]) -> list[Items]:
        """Record a node's several outputs (a regular and an error output) and return them."""
        self.record(node, outputs)
        return self.outputs[node]

    def each(self, node: str, items: Items, fn: Callable[[Item, int], Item | Sequence[Item] | None]) -> Items:
        """Run ``fn`` for every item (a Set, a mapping); record and return the items it gave."""
        out: Items = []
        for index, item in enumerate(items):
            result = self._guard(node, index, lambda: fn(item, index))
            if isinstance(result, dict):
                out.append(result)
            elif result is not None:
                out.extend(result)
        return self.emit(node, out)

    def split(self, node: str, decision: str, items: Items, test: Callable[[Item, int], bool],
              on_error: str = "stop") -> tuple[Items, Items]:
        """Run an IF: items whose test holds go to output 0 (true), the others to output 1."""
        kept: Items = []
        other: Items = []
        for index, item in enumerate(items):
            passed = self._test(node, index, item, test, on_error)
            (kept if passed else other).append(item)
        self.outputs[node] = [kept, other]
        self._last = (node, "if")
        self._record(node)
        self._decide(decision, [kept, other], ["true", "false"])
        return kept, other

    def keep(self, node: str, items: Items, test: Callable[[Item, int], bool], on_error: str = "stop") -> Items:
        """Run a Filter: keep the items whose test holds (the others are dropped)."""
        kept = [item for index, item in enumerate(items) if self._test(node, index, item, test, on_error)]
        self.emit(node, kept, kind="filter")
        return kept

    def route(self, node: str, decision: str, items: Items, choose: Callable[[Item, int], list[int]],
              names: list[str]) -> list[Items]:
        """Run a Switch: ``choose`` gives each item's output indexes (empty: dropped)."""
        outputs: list[Items] = [[] for _ in names]
        for index, item in enumerate(items):
            for chosen in self._guard(node, index, lambda: choose(item, index)):
                if 0 <= chosen < len(outputs):
                    outputs[chosen].append(item)
        self.outputs[node] = outputs
        self._last = (node, "switch")
        self._record(node)
        self._decide(decision, outputs, names)
        return outputs

    def finish(self) -> None:
        """End the run: a run whose last node was a Filter that kept nothing ends ``filtered``."""
        if self._last is not None and self._last[1] == "filter" and not self.outputs[self._last[0]][0]:
            self.ctx.filter(f"filter {self._last[0]!r} kept no items")

    def _record(self, node: str) -> None:
        self.runs.setdefault(node, []).append(self.outputs[node])
        nodes = getattr(getattr(self.ctx, "trace", None), "nodes", None)
        if isinstance(nodes, dict):  # a context without a trace (a proof's) records nothing
            nodes[node] = json.loads(json.dumps(recorded_outputs(self.outputs[node]), default=str))

    def _decide(self, decision: str, outputs: list[Items], names: list[str]) -> None:
        chosen = [names[i] if i < len(names) else str(i) for i, items in enumerate(outputs) if items]
        if chosen:
            self.ctx.decide(decision, chosen[0] if len(chosen) == 1 else chosen)

    def _test(self, node: str, index: int, item: Item, test: Callable[[Item, int], bool], on_error: str) -> bool:
        try:
            return bool(test(item, index))
        except N8nConditionError as exc:
            if on_error == "continue":
                return False
            raise NodeFailed(f"{node}: {exc} [item {index}]") from None

    def _guard(self, node: str, index: int, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except N8nConditionError as exc:
            raise NodeFailed(f"{node}: {exc} [item {index}]") from None


def loop(flow: Flow, node: str, *, batch_size: int | None = None, reset: bool = False, version: float = 3,
         max_iterations: int = MAX_ITERATIONS) -> LoopState:
    """Return the state of one loop of the run: its guard and (a SplitInBatches node) its batches.

    ``loop.again(items)`` is the ``while`` condition of a loop whose first node is ``node``;
    ``loop.batches(items)`` runs a SplitInBatches node (``batch_size``, ``reset``, ``version``)
    as n8n does; see :mod:`queue_core.compat._n8n_loop`.
    """
    return LoopState(flow, node, batch_size=batch_size, reset=reset, version=version, max_iterations=max_iterations)


def webhook_items(trigger: Any) -> Items:
    """Return the one item an n8n Webhook node emits for a delivery: headers, params, query, body."""
    headers = dict(getattr(trigger, "headers", None) or {})
    return [{"json": {"headers": headers, "params": {}, "query": {}, "body": getattr(trigger, "body", None)}}]


def trigger_items(trigger: Any) -> Items:
    """Return a trigger node's items: a list body is one item per element, else one item."""
    body = getattr(trigger, "body", None)
    if isinstance(body, list):
        return [element if _is_item(element) else {"json": element} for element in body]
    return [{"json": body if body is not None else {}}]


def _is_item(value: Any) -> bool:
    return isinstance(value, dict) and set(value) <= {"json", "pairedItem", "binary"} and "json" in value


def response_items(response: Any) -> Items:
    """Return an HTTP Request node's items: a JSON array is one item per element."""
    try:
        body = response.json()
    except (ValueError, json.JSONDecodeError):
        return [{"json": {"data": response.text}}]
    if isinstance(body, list):
        return [{"json": element if isinstance(element, dict) else {"value": element}} for element in body]
    return [{"json": body if isinstance(body, dict) else {"value": body}}]


def json_body(value: Any, node: str = "HTTP Request") -> Any:
    """Return an HTTP Request node's JSON body: text is parsed, any other value is sent as it is.

    Raises NodeFailed ("JSON parameter needs to be valid JSON", as n8n says) for text that is not JSON.
    """
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise NodeFailed(f"{node}: JSON parameter needs to be valid JSON") from None


def assign(item: Item, fields: Sequence[tuple[str, Any]], *, keep_only_set: bool = False,
           dot_notation: bool = True, by_name: bool = False, binary: bool = False) -> Item:
    """Return a Set / Edit Fields node's item: ``fields`` written onto a copy of the item's json.

    ``keep_only_set`` starts from an empty object (n8n's "Keep Only Set" / "include: none");
    ``dot_notation`` writes ``a.b`` as a nested field, as lodash ``set`` does (through an array
    only by index: a name under an array is lost, as JSON drops it); ``by_name`` (Edit Fields
    v3) collects the fields by name first, as n8n does: a repeated name keeps its first place
    and its last value. ``binary`` keeps the item's binary data (a shallow copy, as n8n's Set does).
    """
    base = {} if keep_only_set else json.loads(json.dumps(item.get("json") or {}))
    for name, value in (dict(fields).items() if by_name else fields):
        if dot_notation and "." in name:
            _set_path(base, name.split("."), value)
        else:
            base[name] = value
    if binary and item.get("binary") is not None:
        return {"json": base, "binary": dict(item["binary"])}
    return {"json": base}


def _set_path(base: dict[str, Any], parts: list[str], value: Any) -> None:
    node: Any = base
    for position, part in enumerate(parts):
        last = position == len(parts) - 1
        if isinstance(node, list):
            if not part.isdigit():
                return  # a named property of an array: JSON keeps none
            index = int(part)
            node.extend([None] * (index + 1 - len(node)))
            key: Any = index
        else:
            key = part
        if last:
            node[key] = value
            return
        child = node[key] if isinstance(node, list) else node.get(key)
        if not isinstance(child, dict | list):
            child = [] if parts[position + 1].isdigit() else {}
            node[key] = child
        node = child


def output_index(value: Any, count: int) -> int:
    """Return Switch's expression-mode output index; NodeFailed, as n8n fails, when the node has no such output."""
    index = num(value)
    if isinstance(index, float) and (index != index or not index.is_integer()) or index < 0 or index >= count:
        raise NodeFailed(f"The output {text(value)} is not allowed: it has to be between 0 and {count - 1}")
    return int(index)


def typed(name: str, value: Any, kind: str, ignore_errors: bool = False, version: float = 3.0) -> Any:
    """Return an Edit Fields (Set v3) value converted to its declared type, as n8n converts it.

    ``string``: ``String(value)``, objects and arrays as JSON. A null or missing (``MISSING``)
    value: from v3.2 null; in v3.1 NodeFailed ("expects a string"), null with ``ignore_errors``;
    in v3.0 ``"null"`` for null and ``"undefined"`` for a missing field (n8n's ``JSON.stringify``
    of null, ``String`` of undefined). ``number``/``boolean``/``array``/``object``: converted, or
    NodeFailed naming the field; with ``ignore_errors`` (the node's "Ignore Type Conversion
    Errors") a value that does not convert is kept as it is, as n8n keeps it.
    """
    missing = value is MISSING
    if missing or value is None:
        if kind != "string" or version >= 3.2:
            return None
        if version > 3:
            if ignore_errors:
                return None
            raise NodeFailed(f"'{name}' expects a string but we got {'undefined' if missing else 'null'}")
        return "undefined" if missing else "null"
    if kind == "string":
        return json_text(value)
    converted = _convert(value, kind)
    if converted is _INVALID and ignore_errors:
        return value
    if converted is _INVALID:
        shown = "array" if isinstance(value, list) else "object" if isinstance(value, dict) else f"'{text(value)}'"
        raise NodeFailed(f"'{name}' expects a {kind} but we got {shown}")
    return converted


_INVALID = object()


def _convert(value: Any, kind: str) -> Any:
    if kind == "number":
        n = num(value)
        return _INVALID if isinstance(n, float) and n != n else n
    if kind == "boolean":
        from ._n8n_filter import _to_bool

        result = _to_bool(value)
        return _INVALID if result is not True and result is not False else result
    if kind in ("array", "object"):
        if isinstance(value, list if kind == "array" else dict):
            return value
        try:
            parsed = json.loads(text(value))
        except ValueError:
            return _INVALID
        return parsed if isinstance(parsed, list if kind == "array" else dict) else _INVALID
    return value


def now(ctx: Any) -> datetime:
    """Return ``$now``: the job's clock (the trigger's time in a shadow replay)."""
    return ctx.now()  # type: ignore[no-any-return]


def code(flow: Flow, node: str, source: str, items: Items, *, mode: str = "runOnceForAllItems", kind: str = "code",
         workflow: dict[str, Any] | None = None, zone: str | None = None) -> Items:
    """Run a Code / Function / Function Item node's own JavaScript over ``items``; record and return its items.

    The source runs unchanged in a V8 sandbox with n8n's Code node data model (``_n8n_code``);
    raises NodeFailed naming the node when the code fails or returns what n8n refuses.
    """
    from ._n8n_code import run_node

    return flow.emit(node, run_node(flow, node, source, items, mode=mode, kind=kind, workflow=workflow, zone=zone))
