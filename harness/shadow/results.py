"""A shadow run's result files: one row per trigger that ran, one per disagreement.

Every process of a run (the pytest process, each xdist worker, the driver of
:func:`harness.shadow.run`) appends to its own ``results-<process>.jsonl`` and
``disagreements-<process>.jsonl`` in a directory shared with whoever writes the reports, which
reads them all at the end (:func:`read_rows`). A shard's rows are kept with its ``shard.json``
for ``cutover report merge``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

from harness.recording import loads_json
from harness.shadow.outcome import ItemResult

RESULTS_PREFIX = "results-"
DISAGREEMENTS_PREFIX = "disagreements-"


class ResultFiles:
    """This process's two result files in ``directory``, opened on the first row."""

    def __init__(self, directory: Path, process: str) -> None:
        self.directory = directory
        self.process = process
        self._files: dict[str, IO[str]] = {}

    def _file(self, prefix: str) -> IO[str]:
        handle = self._files.get(prefix)
        if handle is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            path = self.directory / f"{prefix}{self.process}.jsonl"
            handle = self._files[prefix] = path.open("a", encoding="utf-8")
        return handle

    def record(self, result: ItemResult) -> None:
        """Append the result of an item that ran."""
        self._file(RESULTS_PREFIX).write(result.row)
        if result.disagreements:
            self._file(DISAGREEMENTS_PREFIX).write(result.disagreements)

    def close(self) -> None:
        """Flush and close the files (a later row opens them again, appending)."""
        for handle in self._files.values():
            handle.close()
        self._files.clear()


def read_rows(results_dir: Path, prefix: str) -> list[dict[str, Any]]:
    """Read every process's rows with ``prefix`` from ``results_dir`` (to be read, not changed).

    A 100,000-trigger run has as many rows, nearly all alike: their keys, short strings
    (automation, verdict, statuses) and branch lists are shared between rows instead of each
    row holding copies, which keeps the reports' peak memory a third of what it was.
    """
    rows: list[dict[str, Any]] = []
    shared: dict[Any, Any] = {}
    for path in sorted(results_dir.glob(f"{prefix}*.jsonl")):
        with path.open("rb") as handle:
            rows.extend(_shared_row(loads_json(line), shared) for line in handle if line.strip())
    return rows


def _shared_row(row: dict[str, Any], shared: dict[Any, Any]) -> dict[str, Any]:
    out = {}
    for key, value in row.items():
        if isinstance(value, str) and len(value) <= 24 or isinstance(value, list) and len(value) <= 8 and all(
                type(v) is str or type(v) is int for v in value):  # 1 and True are equal: not shared
            token = (key, value if isinstance(value, str) else tuple(value))
            value = shared.setdefault(token, value)
        out[shared.setdefault(key, key)] = value
    return out


def process_id() -> str:
    """Return a name for this pytest process's result files (the xdist worker id, or main)."""
    return os.environ.get("PYTEST_XDIST_WORKER", "main")
