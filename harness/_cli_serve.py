"""``cutover serve --record recordings/<set>``: the control plane's ingress as a recorder tap.

:func:`register` replaces the plain ``serve`` command with one that takes ``--record``. Each
verified delivery that started new jobs is also appended, redacted, to
``<set>/<automation>/triggers.jsonl`` for every automation its source feeds, in the canonical
format (``harness.recording``); signature and credential headers become pseudonyms there, as do
the manifest's configured JSON paths. Unverified deliveries are never recorded.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import click

from harness.errors import HarnessError
from harness.manifest import MANIFEST_FILE, Redaction, load_manifest
from harness.recording import TRIGGERS_FILE, RecordedTrigger, dump_line, trigger_to_json
from harness.redact import RedactionPolicy, policy_from_settings, redact_trigger
from queue_core._cli_control import register as register_control
from queue_core.server import DeliveryHook, VerifiedDelivery

log = logging.getLogger("harness.serve")


def recording_hook(directory: Path, policy: RedactionPolicy) -> DeliveryHook:
    """Return an ``on_verified_delivery`` hook appending each delivery to the set at ``directory``."""
    lock = asyncio.Lock()

    async def record(delivery: VerifiedDelivery) -> None:
        if not isinstance(delivery.json, dict):
            log.warning("not recording delivery %s of %s: its body is not a JSON object", delivery.delivery_id,
                        delivery.source)
            return
        trigger = RecordedTrigger(delivery.delivery_id, delivery.received_at, delivery.headers, delivery.json,
                                  delivery.source)
        redacted, _ = redact_trigger(trigger, policy)
        line = dump_line(trigger_to_json(redacted))
        async with lock:
            for automation in delivery.automations:
                target = directory / automation / TRIGGERS_FILE
                target.parent.mkdir(parents=True, exist_ok=True)
                with target.open("a", encoding="utf-8", newline="\n") as handle:
                    handle.write(line)

    return record


def make_recorder(directory: Path, sources: dict[str, Any]) -> DeliveryHook:
    """Build the hook for ``--record DIR``: redaction from DIR/manifest.toml (if any) and its salt."""
    manifest_path = directory / MANIFEST_FILE
    try:
        settings = load_manifest(manifest_path).redaction if manifest_path.exists() else Redaction()
        policy = policy_from_settings(settings)
    except HarnessError as exc:
        raise click.ClickException(f"--record {directory}: {exc}") from None
    directory.mkdir(parents=True, exist_ok=True)
    return recording_hook(directory, policy)


def register(group: click.Group) -> None:
    """Add ``serve`` (with ``--record``) and ``token`` to ``group``."""
    register_control(group, record=make_recorder)
