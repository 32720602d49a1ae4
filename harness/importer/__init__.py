"""Importers: turn a legacy tool's run-history export into canonical triggers and legacy traces.

Each platform module exposes ``parse(path, entry) -> Iterator[ImportedRun | ExportFormatError]``:
one item per record of the export, a malformed record yielded as its error so that the caller
(:func:`harness.importer.run.import_export`) decides between stopping and ``--skip-bad``.
"""

from __future__ import annotations

from harness.importer._run import BadRecord, ImportedRun

__all__ = ["BadRecord", "ImportedRun"]
