"""Importers: turn a legacy tool's run-history export into canonical triggers and legacy traces.

Each platform module exposes ``parse(path, entry, definition=None) -> Iterator[ImportedRun |
ExportFormatError]``: one item per record of the run history, a malformed record yielded as its
error so that the caller (:func:`harness.importer.pipeline.import_export`) decides between
stopping and ``--skip-bad``. ``definition`` is the automation's definition document (a Zapfile, a
blueprint, a flow definition, a workflow; see :mod:`harness.importer.definition`), which turns
step statuses into a path and decisions. Each trace says what its export can prove
(``LegacyTrace.evidence``).
"""

from __future__ import annotations

from harness.importer._run import BadRecord, ImportedRun

__all__ = ["BadRecord", "ImportedRun"]
