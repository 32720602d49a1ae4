"""``cutover jobs list``: the run history, newest first, filtered, one page at a time; a step's state as a person means it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from .errors import QueueError


def list_command(with_pool: Callable[[Any], Any], job_uuid: Callable[[str], Any]) -> click.Command:
    """Return ``jobs list``, reading the database with ``with_pool`` (the CLI's) and ids with ``job_uuid``."""

    @click.command("list")
    @click.option("--automation", default=None, help="Only this automation's jobs.")
    @click.option("--status", "statuses", multiple=True, help="Only jobs in this status (repeatable): pending, running, "
                  "waiting, succeeded, failed, canceled, compensating, dead, compensation_failed.")
    @click.option("--mode", default=None, help="live, dry_run or shadow.")
    @click.option("--since", default=None, help="Created at or after (ISO 8601; or 15m, 2h, 7d ago).")
    @click.option("--until", default=None, help="Created before (ISO 8601; or 15m, 2h, 7d ago).")
    @click.option("--error-kind", default=None, help="retryable or terminal.")
    @click.option("--error", "error_text", default=None, help="A text the last error contains (case-insensitive).")
    @click.option("--concurrency-key", default=None, help="Only jobs under this concurrency key.")
    @click.option("--parent", default=None, help="Only the children of this job (its id).")
    @click.option("--limit", default=50, show_default=True, help="Jobs per page (at most 500).")
    @click.option("--after", "after", default=None, help="The page after this job (the id the page before ends with).")
    @click.option("--json", "as_json", is_flag=True, help="Print the page as JSON: {jobs, next}.")
    def jobs_list(automation: str | None, statuses: tuple[str, ...], mode: str | None, since: str | None,
                  until: str | None, error_kind: str | None, error_text: str | None, concurrency_key: str | None,
                  parent: str | None, limit: int, after: str | None, as_json: bool) -> None:
        """List jobs, newest first: the run history, filtered, one page at a time.

        Each line is a job's id, automation, status, mode, attempt, creation time and last error.
        The last line gives the cursor of the next page (`--after`).
        """
        from .store.history import JobFilter, list_jobs

        try:
            where = JobFilter(automation=automation, statuses=statuses, mode=mode, since=_when(since, "--since"),
                              until=_when(until, "--until"), error_kind=error_kind, error_text=error_text,
                              concurrency_key=concurrency_key, parent=job_uuid(parent) if parent else None)
        except QueueError as exc:
            raise click.UsageError(str(exc)) from None
        last = job_uuid(after) if after else None
        page = with_pool(lambda pool: list_jobs(pool, where, limit=limit, after=last))
        if as_json:
            click.echo(json.dumps({"jobs": page.jobs, "next": page.next}, default=str, indent=2))
            return
        for job in page.jobs:
            error = (job["last_error"] or "").splitlines()[0][:80] if job["last_error"] else ""
            click.echo(f"{job['id']}  {job['automation']:<24} {job['status']:<12} {job['mode']:<7} "
                       f"attempt {job['attempt']}/{job['max_attempts']}  {job['created_at']:%Y-%m-%d %H:%M:%S}  {error}")
        if not page.jobs:
            click.echo("no jobs match", err=True)
        if page.next:
            click.echo(f"next page: cutover jobs list --after {page.next} (same filters)", err=True)

    return jobs_list


def _when(text: str | None, option: str) -> Any:
    """Return an ISO 8601 instant, or now minus ``15m``/``2h``/``7d``; BadParameter naming ``option``."""
    import re
    from datetime import UTC, datetime, timedelta

    if text is None:
        return None
    relative = re.fullmatch(r"(\d+)([smhd])", text.strip())
    if relative:
        unit = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}[relative.group(2)]
        return datetime.now(UTC) - timedelta(**{unit: int(relative.group(1))})
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(f"{text!r}: expected an ISO 8601 time or an age such as 15m, 2h, 7d",
                                 param_hint=option) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def step_state(step: dict[str, Any]) -> str:
    """Return a step's state as a person means it: a call whose answer the gateway classified as an
    error is ``failed`` (with its HTTP status and kind), not the step row's ``done``."""
    kind, status = step.get("call_kind"), step.get("http_status")
    if step.get("status") == "done" and kind in ("retryable", "terminal", "rate_limited"):
        return f"failed ({f'HTTP {status}, ' if status else ''}{kind})"
    if step.get("status") == "done" and status is not None:
        return f"done (HTTP {status})"
    return str(step.get("status"))
