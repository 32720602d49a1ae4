"""Prometheus text exposition (format 0.0.4) of the queue, computed from jobs and the ledger.

Gauges read the current state (jobs by automation and status, pauses, blocked budgets); the
``_total`` counters count ledger events, which only grow because the ledger is append-only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from psycopg_pool import AsyncConnectionPool

from ..store import control

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

_COUNTERS = (
    ("cutover_job_claims_total", "Claims of pending jobs by workers."),
    ("cutover_job_reclaims_total", "Claims of jobs whose previous worker's lease expired."),
    ("cutover_job_retries_total", "Retries scheduled after a retryable failure."),
    ("cutover_budget_waits_total", "Jobs put back because a provider's rate budget was spent."),
)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(pairs: Sequence[tuple[str, str]]) -> str:
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in pairs) + "}" if pairs else ""


def family(name: str, kind: str, help_text: str, samples: Iterable[tuple[Sequence[tuple[str, str]], float]]) -> list[str]:
    """Return the lines of one metric family: HELP, TYPE, then one line per sample."""
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
    lines += [f"{name}{_labels(labels)} {value:g}" for labels, value in samples]
    return lines


async def render(pool: AsyncConnectionPool) -> str:
    """Return the exposition text; five read-only queries in one connection checkout."""
    rows = await control.metrics(pool)
    jobs, events, blocked, pauses, replays = (rows[k] for k in ("jobs", "events", "blocked", "pauses", "replays"))
    lines = family("cutover_jobs", "gauge", "Jobs by automation and status (queue depth).",
                   [((("automation", a), ("status", s)), n) for a, s, n in jobs])
    for column, (name, help_text) in enumerate(_COUNTERS, start=1):
        lines += family(name, "counter", help_text, [((("automation", row[0]),), row[column]) for row in events])
    lines += family("cutover_webhook_replays_refused_total", "counter",
                    "Jobs not started again because a signed webhook body was replayed under a new delivery id.",
                    [((("automation", a),), n) for a, n in replays])
    lines += family("cutover_budget_blocked_windows", "gauge",
                    "Rate-budget windows of a provider that refuse calls right now.",
                    [((("provider", p),), n) for p, n in blocked])
    lines += family("cutover_paused", "gauge", "1 for each paused automation or provider.",
                    [((("kind", k), ("name", n)), 1) for k, n in pauses])
    return "\n".join(lines) + "\n"
