"""The recording commands of the ``cutover`` CLI: ``import`` and ``record``.

``harness.cli`` calls :func:`register` to add them to its group.
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import click

from harness.errors import HarnessError
from harness.manifest import MANIFEST_FILE, Redaction, load_manifest
from harness.recording import Platform

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> timedelta:
    """Parse ``90``, ``30s``, ``5m``, ``2h`` or ``1d`` into a timedelta; raise ValueError otherwise."""
    found = _DURATION.match(text)
    if not found:
        raise ValueError(f"expected a duration such as 30s, 5m or 2h, got {text!r}")
    return timedelta(seconds=float(found.group(1)) * _UNITS[found.group(2) or "s"])


def parse_mappings(pairs: tuple[str, ...]) -> dict[str, str]:
    """Parse ``field=column`` options into a mapping; raise click.BadParameter on a bad one."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        name, sep, column = pair.partition("=")
        if not sep or not name.strip() or not column.strip():
            raise click.BadParameter(f"expected FIELD=COLUMN, got {pair!r}", param_hint="--map")
        mapping[name.strip()] = column.strip()
    return mapping


def _salt(salt_env: str | None) -> bytes | None:
    if salt_env:
        value = os.environ.get(salt_env)
        if not value:
            raise click.ClickException(f"--salt-env {salt_env}: the environment variable is not set")
        return value.encode()
    return None


@click.command("import")
@click.argument("platform", type=click.Choice([p.value for p in Platform]))
@click.argument("export", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--automation", required=True, help="Name of the migrated automation the runs belong to.")
@click.option("--into", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Recording set directory, e.g. recordings/2024-06 (created if missing).")
@click.option("--skip-bad", is_flag=True,
              help="Skip malformed records and report them (the set is marked incomplete) instead of stopping.")
@click.option("--map", "mappings", multiple=True, metavar="FIELD=COLUMN",
              help="csv/jsonl: read canonical FIELD from COLUMN, e.g. --map received_at=Timestamp. Repeatable.")
@click.option("--pair-window", default="5m", show_default=True,
              help="Pair runs without a delivery id to triggers received within this time (30s, 5m, 1h).")
@click.option("--definition", "--blueprint", "definition", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The automation's definition beside the runs: a Zapfile.json (zapier), a scenario blueprint "
                   "(make; --blueprint is an alias), a flow definition (power-automate) or a workflow (n8n). "
                   "It turns step statuses into a path and decisions. Default: the file the manifest entry's "
                   "definition names (relative to the set).")
@click.option("--keep-unreplayable", is_flag=True,
              help="Import even when nothing is replayable (no trigger bodies to pair the runs with).")
@click.option("--retention-days", type=int, help="How many days of history the tool keeps (n8n default: 14).")
@click.option("--saves-successful-runs/--no-saves-successful-runs", default=None,
              help="Whether the tool was saving successful runs when the export was taken.")
@click.option("--sampling", type=click.FloatRange(0, 1, min_open=True),
              help="Fraction of runs the tool kept (1.0 = all).")
@click.option("--salt-env", metavar="VAR",
              help="Environment variable holding the redaction salt (default: the manifest's salt_env, "
                   "else CUTOVER_REDACTION_SALT).")
@click.option("--new", "new", is_flag=True,
              help="AUTOMATION is a new automation although its name is close to a known one.")
def import_command(
    platform: str, export: Path, automation: str, into: Path, skip_bad: bool, mappings: tuple[str, ...],
    pair_window: str, definition: Path | None, keep_unreplayable: bool, retention_days: int | None,
    saves_successful_runs: bool | None, sampling: float | None, salt_env: str | None, new: bool,
) -> None:
    """Import a legacy tool's run history into a recording set.

    PLATFORM is n8n, zapier, make, power-automate, csv or jsonl; EXPORT is the run history the
    tool (or its API) gave you — not the automation's definition, which goes to --definition. Triggers go to INTO/AUTOMATION/triggers.jsonl and legacy decision traces to
    INTO/AUTOMATION/legacy.jsonl; INTO/manifest.toml records the source and its limits. The
    automation's files are replaced only when the whole export was read.

    AUTOMATION is one of the set's manifest or of the project's registered automations, or a new
    one (said so). A name close to a known one but not it is refused as a likely typo (exit 2,
    naming the closest), unless --new says it is new.

    \b
    Examples:
      cutover import n8n executions.json --automation github-triage --into recordings/2024-06
      cutover import zapier zap-runs.json --definition Zapfile.json --automation dunning --into recordings/2024-06
      cutover import csv runs.csv --automation lead-router --into recordings/2024-06 \\
          --map received_at=Timestamp --map status=Outcome --pair-window 2m
    """
    from harness.importer.pipeline import ImportRequest, import_export

    new_line = _new_automation(automation, into, new)
    try:
        window = parse_duration(pair_window)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--pair-window") from None
    limits = {k: v for k, v in {"retention_days": retention_days, "saves_successful_runs": saves_successful_runs,
                                "sampling": sampling}.items() if v is not None}
    request = ImportRequest(
        platform=Platform(platform), export=export, into=into, automation=automation, skip_bad=skip_bad,
        columns=parse_mappings(mappings), pair_window=window, definition=definition,
        salt=_salt(salt_env), limits=limits, keep_unreplayable=keep_unreplayable,
    )
    try:
        summary = import_export(request)
    except HarnessError as exc:
        raise click.ClickException(str(exc)) from None
    if new_line:
        click.echo(new_line)
    for line in summary.lines():
        click.echo(line)


# Stricter than difflib's default: a refusal blocks a legitimate new name, so only a near miss
# (paired-itme for paired-items, not triage for github-triage) is taken for a typo.
_TYPO_CUTOFF = 0.8


def _new_automation(automation: str, into: Path, new: bool) -> str | None:
    """Return the line saying ``automation`` is new (None when it is known).

    Raises click.BadParameter (exit 2) for a name a known one is close to, unless ``new``.
    """
    from queue_core.suggest import closest

    manifest = _manifest_automations(into)
    if automation in manifest:
        return None
    registered = _registered_names()
    if automation in registered:
        return None
    match = closest(automation, manifest | registered, cutoff=_TYPO_CUTOFF)
    if match is not None and not new:
        raise click.BadParameter(
            f"{automation!r} is no automation of {into / MANIFEST_FILE} or the project (did you mean {match!r}?); "
            f"pass --new if it is a new automation", param_hint="'--automation'")
    return (f"new automation {automation!r}: not in {into / MANIFEST_FILE} nor registered in the project; "
            "its recordings start here")


def _manifest_automations(into: Path) -> set[str]:
    """Return the automations of the set's manifest: none for a set's first import (a broken
    manifest is reported by the import itself)."""
    if (into / MANIFEST_FILE).is_file():
        try:
            return set(load_manifest(into / MANIFEST_FILE).automations)
        except HarnessError:
            pass
    return set()


# Run in a child process: importing the project's module registers its automations, and an
# import must neither run the project's code in its own process nor leave them registered there.
_LIST_REGISTERED = """\
import json
from queue_core import config
settings = config.load()
print(json.dumps(config.project_registry(settings).names() if settings.pyproject else []))
"""


def _registered_names() -> set[str]:
    """Return the names the project's automations module registers (empty when it cannot be
    imported: an import needs no project code)."""
    import json
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", _LIST_REGISTERED], capture_output=True, text=True,
                              timeout=120, check=False)
        names = json.loads(done.stdout) if done.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return set()
    return {n for n in names if isinstance(n, str)}


@click.command("record")
@click.option("--into", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Recording set directory, e.g. recordings/2024-06.")
@click.option("--automation", required=True, help="Automation whose triggers.jsonl receives the deliveries.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8787, show_default=True, type=int, help="Port to listen on.")
@click.option("--verify", type=click.Choice(["none", "github"]), default="none", show_default=True,
              help="Reject deliveries whose signature does not verify (github: X-Hub-Signature-256).")
@click.option("--secret-env", metavar="VAR", help="Environment variable holding the webhook secret for --verify.")
@click.option("--salt-env", metavar="VAR", help="Environment variable holding the redaction salt.")
def record_command(
    into: Path, automation: str, host: str, port: int, verify: str, secret_env: str | None, salt_env: str | None,
) -> None:
    """Record live webhook deliveries into a recording set (a local tap).

    Point the sender (or a forwarding tool such as `gh webhook forward`) at
    http://HOST:PORT/. Each delivery is verified (with --verify), redacted — credentials,
    cookies, signature headers and the manifest's JSON paths become deterministic pseudonyms —
    and appended as one line to INTO/AUTOMATION/triggers.jsonl.
    """
    from harness.recorder import RecorderConfig, Verifier, serve
    from harness.redact import policy_from_settings

    secret = os.environ.get(secret_env, "").encode() if secret_env else None
    if verify != "none" and not secret_env:
        raise click.BadParameter("set --secret-env to a variable holding the webhook secret", param_hint="--verify")
    if verify != "none" and not secret:
        raise click.BadParameter(f"the environment variable {secret_env} is not set (or is empty): export the "
                                 "webhook secret in it before starting the recorder", param_hint="--secret-env")
    manifest_path = into / MANIFEST_FILE
    try:
        settings = load_manifest(manifest_path).redaction if manifest_path.exists() else Redaction()
        policy = policy_from_settings(settings, _salt(salt_env))
        config = RecorderConfig(into, automation, policy, Verifier(verify), secret)
    except HarnessError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"recording {automation} deliveries into {into / automation} on http://{host}:{port}/")
    serve(config, host, port)


def register(group: click.Group) -> None:
    """Add the ``import`` and ``record`` commands to the ``cutover`` group."""
    group.add_command(import_command)
    group.add_command(record_command)
