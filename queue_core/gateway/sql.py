"""The SQL transport: a database provider's calls run their statements, answered as JSON.

A provider with ``kind = "sql"`` (``base_url`` ``sql://<name>``, the connection string in the env
var ``dsn_env``) is called like any other: ``ctx.call(provider, "SQL", "/<operation>",
json=batch, step=…)`` goes through budgets, the ledger, redaction and the modes. Only a live call
reaches this transport, mounted on the gateway's live client for the provider's ``sql://`` origin;
shadow and dry-run calls are answered offline (a recording, else a synthetic answer), so nothing
of those modes ever opens a connection to the database.

The body of a call (``batch``)::

    {"batching": "single" | "transaction" | "independently",   # how the statements are run
     "continue": false,                                         # keep going past a failed one
     "statements": [{"query": "UPDATE t SET a = $1 WHERE id = $2", "values": ["x", 7],
                     "require_rows": "no such row"}, …]}        # optional: no row back fails it

Values are bound as parameters (``$1``, ``$2``: PostgreSQL's own placeholders), never written
into the statement's text. ``single`` runs every statement in one transaction (all or nothing);
``transaction`` likewise, stopping at a failed statement when ``continue`` (the statements
before it are rolled back too); ``independently`` commits each statement on its own. A value is
bound the way a client that inlines literals would write it: text as an untyped literal (the
statement's context gives its type), a whole number as an integer, a fraction as numeric,
an object as its JSON text, a list as an array.

The answer (200, header ``X-Cutover-Sql``): ``{"results": [{"sets": [{"columns": [[name, type
oid], …], "rows": [[text or null, …], …], "command": "INSERT 0 1"}, …], "error": null}, …]}``:
per statement, each of its result sets with every value in PostgreSQL's text form (the caller
parses them as its platform did). A failed statement that stops the call answers 400 (503 when
it is worth retrying: serialization failures, deadlocks, the server going away) with
``{"error": {"message", "sqlstate", "detail", "hint", "statement"}}``; with ``continue`` it is
200 and that error is in the answer (``error`` beside the results, or the statement's own). A database that cannot
be reached raises ``httpx.ConnectError`` (retryable), naming the provider, never the DSN.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import httpx
import psycopg

from ..errors import ConfigError
from ..provider import ProviderConfig, ProviderKind

SQL_HEADER = "X-Cutover-Sql"
BATCHING = ("single", "transaction", "independently")
# SQLSTATEs worth a retry: connection trouble, serialization failure, deadlock, resources, shutdown.
_RETRYABLE = ("08", "40001", "40P01", "53", "57P")


def mounts(providers: Mapping[str, ProviderConfig], environ: Mapping[str, str]) -> dict[str, httpx.AsyncBaseTransport]:
    """Return the transports to mount on the live client: one per SQL provider, on its ``sql://`` origin."""
    return {config.base_url: SqlTransport(config, environ) for config in providers.values()
            if config.kind is ProviderKind.SQL}


class SqlTransport(httpx.AsyncBaseTransport):
    """Run a SQL provider's calls on its database (one connection per call, closed after it)."""

    def __init__(self, config: ProviderConfig, environ: Mapping[str, str]) -> None:
        self._config, self._environ = config, environ

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        batch = _batch(self._config, await request.aread())
        dsn = self._environ.get(self._config.dsn_env or "")
        if not dsn:
            raise ConfigError(f"environment variable {self._config.dsn_env} is not set (provider {self._config.name!r})",
                              source="environment", field=f"tool.cutover.providers.{self._config.name}.dsn_env")
        try:
            conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True, cursor_factory=psycopg.AsyncRawCursor,
                                                         connect_timeout=max(1, int(self._config.timeout)))
        except psycopg.Error:  # its text may name the host and user: the provider's name is enough
            raise httpx.ConnectError(f"could not connect to the database of provider {self._config.name!r}",
                                     request=request) from None
        async with conn:
            status, answer = await _run(conn, batch)
        return httpx.Response(status, json=answer, headers={SQL_HEADER: batch["batching"]}, request=request)


def _batch(config: ProviderConfig, body: bytes) -> dict[str, Any]:
    try:
        batch = json.loads(body or b"null")
    except ValueError:
        batch = None
    statements = batch.get("statements") if isinstance(batch, dict) else None
    if not isinstance(statements, list) or batch.get("batching", "single") not in BATCHING or not all(
            isinstance(s, dict) and isinstance(s.get("query"), str) and isinstance(s.get("values", []), list)
            for s in statements):
        raise ConfigError(f"provider {config.name!r} is a database: call it with json={{'statements': [{{'query': …, "
                          "'values': […]}}], 'batching': 'single'}}", field=f"tool.cutover.providers.{config.name}")
    return {"batching": batch.get("batching", "single"), "continue": bool(batch.get("continue")),
            "statements": statements}


async def _run(conn: psycopg.AsyncConnection[Any], batch: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Run the batch's statements as its ``batching`` says; return the status and the answer."""
    results: list[dict[str, Any]] = []
    statements, keep_going = batch["statements"], batch["continue"]
    if batch["batching"] == "independently":
        for i, statement in enumerate(statements):
            try:
                async with conn.transaction():
                    results.append({"sets": await _execute(conn, statement), "error": None})
            except psycopg.Error as exc:
                if not keep_going:
                    return _failed(exc, i)
                results.append({"sets": [], "error": _error(exc, i)})
        return 200, {"results": results}
    failed: tuple[psycopg.Error, int] | None = None
    try:
        async with conn.transaction():
            for i, statement in enumerate(statements):
                try:
                    results.append({"sets": await _execute(conn, statement), "error": None})
                except psycopg.Error as exc:
                    failed = (exc, i)
                    raise
    except psycopg.Error as exc:
        failed = failed or (exc, len(results))
    if failed is None:
        return 200, {"results": results}
    if batch["batching"] == "transaction" and keep_going:  # the ones before it ran, and were rolled back
        return 200, {"results": [*results, {"sets": [], "error": _error(*failed)}], "rolled_back": True}
    if keep_going:  # single: nothing of the batch was kept
        return 200, {"results": [], "error": _error(*failed)}
    return _failed(*failed)


async def _execute(conn: psycopg.AsyncConnection[Any], statement: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one statement (its text may hold several when it has no values); return its result sets."""
    values = [_param(v) for v in statement.get("values") or []]
    async with conn.cursor() as cur:
        await cur.execute(statement["query"], values or None)
        sets = []
        while True:
            sets.append(_result_set(cur))
            if not cur.nextset():
                break
    if statement.get("require_rows") and not any(s["rows"] for s in sets):
        # the statement's own message (an update of a row that is not there): rolled back with the rest
        raise psycopg.errors.NoDataFound(str(statement["require_rows"]))
    return sets


def _result_set(cur: psycopg.AsyncCursor[Any]) -> dict[str, Any]:
    """The current result: its columns, its rows in PostgreSQL's text form, its command tag."""
    result = cur.pgresult
    columns: list[list[Any]] = [[d.name, d.type_code] for d in cur.description or ()]
    rows = []
    if result is not None and columns:
        for r in range(result.ntuples):
            rows.append([None if (raw := result.get_value(r, c)) is None else bytes(raw).decode("utf-8", "replace")
                         for c in range(len(columns))])
    return {"columns": columns, "rows": rows, "command": cur.statusmessage}


def _param(value: Any) -> Any:
    """Bind a JSON value as an inlining client writes it (see the module docstring)."""
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, list):
        return [_param(v) for v in value]
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _error(exc: psycopg.Error, index: int) -> dict[str, Any]:
    diag = exc.diag
    return {"message": diag.message_primary or str(exc).strip(), "sqlstate": exc.sqlstate, "detail": diag.message_detail,
            "hint": diag.message_hint, "statement": index}


def _failed(exc: psycopg.Error, index: int) -> tuple[int, dict[str, Any]]:
    retry = (exc.sqlstate or "").startswith(_RETRYABLE) or isinstance(exc, psycopg.OperationalError) and not exc.sqlstate
    return (503 if retry else 400), {"error": _error(exc, index)}
