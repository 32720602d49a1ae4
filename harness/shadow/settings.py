"""What a shadow run is told: :class:`RunSettings` (the public API's) and :class:`ShadowSettings` (one process's)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from harness.shadow.shard import Shard


@dataclass(frozen=True)
class RunSettings:
    """How to run :func:`harness.shadow.run`: the set, the project, and the plugin's options.

    ``project_root`` is where the project's pyproject.toml (its ``[tool.cutover]``) is looked
    for, upwards (default: the working directory); ``report_dir`` defaults to
    ``<project>/reports/<set name>``. ``gate`` records each verdict for ``cutover worker`` (as
    ``pytest --shadow --gate`` does). ``shard`` replays only that share of the triggers and
    writes its results for ``cutover report merge`` instead of the reports.
    """

    set_dir: Path | str
    project_root: Path | str | None = None
    report_dir: Path | str | None = None
    mode: str = "shadow"
    seed: int = 0
    noise: bool = False
    accepted_file: Path | str | None = None
    gate: bool = False
    batch_size: int = 1000
    replayers: int = 2
    shard: Shard | None = None


@dataclass(frozen=True)
class ShadowSettings:
    """What the plugin's options and the project configure for a shadow run."""

    set_dir: Path
    project_root: Path
    automations_module: str
    results_dir: Path
    process_id: str
    mode: str = "shadow"
    seed: int = 0
    noise: bool = False
    accepted_file: Path | None = None
    today: date = field(default_factory=lambda: datetime.now().astimezone().date())
    batch_size: int = 1000
    workers: int = 2
    concurrency: int = 32
    providers: dict[str, Any] = field(default_factory=dict)
    replayers: int = 1  # child processes replaying ahead of the items; 0: replay in this process
    ahead: int = 2  # batches each replay process may be given before their items have run
    shard: Shard | None = None  # replay only this share of the set's triggers
