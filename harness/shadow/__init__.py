"""The shadow run: replay a recording set through the migrated automations and judge each trigger.

The pytest plugin (``pytest --shadow SET``) is one front end; :func:`run` is the same run
without pytest, for a notebook, another command line or CI::

    from harness.shadow import RunSettings, run

    summary = run(RunSettings("recordings/2024-06"))
    summary.ready, summary.not_ready, summary.report_dir

The package's rooms: :mod:`~harness.shadow.index` (where each trigger lives in the set's files),
:mod:`~harness.shadow.schedule` and :mod:`~harness.shadow.backend` (batches handed to replay
backends: this process or :mod:`~harness.shadow._replay_processes`), :mod:`~harness.shadow.replay`
(the queue), :mod:`~harness.shadow.judge` (pure: a trace in, a verdict out, with
:mod:`~harness.shadow.normalize`, :mod:`~harness.shadow.diff` and
:mod:`~harness.shadow.accepted`), :mod:`~harness.shadow.results` (the rows),
:mod:`~harness.shadow.summary`, :mod:`~harness.shadow.report` and :mod:`~harness.shadow.gate`
(what the rows add up to), :mod:`~harness.shadow.shard` and :mod:`~harness.shadow.merge` (one set
across many machines).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.shadow._run import run
    from harness.shadow.merge import merge_shards
    from harness.shadow.settings import RunSettings
    from harness.shadow.shard import Shard
    from harness.shadow.summary import Summary

__all__ = ["RunSettings", "Shard", "Summary", "merge_shards", "run"]

# Imported when first named: ``harness.shadow.normalize`` (say, from an importer) must not pull in
# the replay's database driver and the queue through this package's __init__.
_HOMES = {"RunSettings": "settings", "Shard": "shard", "Summary": "summary", "merge_shards": "merge", "run": "_run"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'harness.shadow' has no attribute {name!r}")
    return getattr(import_module(f"harness.shadow.{_HOMES[name]}"), name)
