"""The import pipeline: a legacy tool's run-history export in, canonical triggers and legacy traces out.

This package is the tool-neutral half. Each tool's importer is its folder's ``history`` module
(``harness.platforms.<tool>.history``; the registry ``harness.platforms`` hands it out as
``PlatformAdapter.parse_history(path, entry, definition) -> Iterator[ImportedRun |
ExportFormatError]``): one item per record of the run history, a malformed record yielded as its
error so that the caller (:func:`harness.importer.pipeline.import_export`) decides between
stopping and ``--skip-bad``. ``definition`` is the automation's definition document (a Zapfile, a
blueprint, a flow definition, a workflow; see :mod:`harness.importer.definition`), which turns
step statuses into a path and decisions. Each trace says what its export can prove
(``LegacyTrace.evidence``). Here too: the values importers share (``_run``), pairing runs with
recorded triggers (``pairing``), the summary (``summary``) and the generic CSV/JSONL importer
(``tabular``).
"""

from __future__ import annotations

from harness.importer._run import BadRecord, ImportedRun

__all__ = ["BadRecord", "ImportedRun"]
