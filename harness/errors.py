"""Errors raised by the harness.

One root, so a caller can catch everything the harness raises on bad input with one clause::

    HarnessError                    something is wrong with the harness's input or environment
    ├── RecordingError              a recording set file is malformed (file, line, field)
    │   └── ManifestError           manifest.toml is malformed or names something missing
    ├── ExportFormatError           a legacy tool's export is malformed (file, record, field)
    │   ├── DefinitionGivenError    a definition (workflow, blueprint, Zapfile) was given where runs belong
    │   └── UnreplayableImportError an import yields nothing a replay can compare
    ├── RedactionError              redaction cannot run (no salt, bad JSON path)
    ├── RecorderError               the live recorder cannot start or verify deliveries
    ├── ReplayError                 a replay could not run or finish (harness.replay)
    ├── AcceptedFileError           accepted.toml is malformed (harness.accepted)
    └── GateConfigError             [tool.cutover.gate] is malformed (harness.gate)

Every class carries its structured fields as attributes; the message is for people and always
names where the problem is, so a user can open the file and fix it.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Root of every error raised by the harness itself."""


def _where(path: str, line: int | None) -> str:
    return f"{path}:{line}" if line is not None else path


class RecordingError(HarnessError):
    """A recording set file is malformed: which file, which line, which field, what was expected.

    ``line`` is 1-based (``None`` when the problem is the file as a whole); ``field`` is a dotted
    path inside the record (``None`` when the line itself is not a JSON object).
    """

    def __init__(self, path: str, line: int | None, field: str | None, message: str) -> None:
        where = _where(path, line)
        what = f"field {field!r}: {message}" if field else message
        super().__init__(f"{where}: {what}")
        self.path = path
        self.line = line
        self.field = field
        self.reason = message


class ManifestError(RecordingError):
    """``manifest.toml`` is malformed, or names an automation, file or setting that is unusable."""


class ExportFormatError(HarnessError):
    """A legacy tool's export is malformed: which file, which record, which field.

    ``record`` identifies the record the way the export does (an execution id, a zap run id, a
    CSV row number such as ``"row 12"``); ``field`` is a dotted path inside that record.
    """

    def __init__(self, path: str, record: str | None, field: str | None, message: str) -> None:
        parts = [path]
        if record is not None:
            parts.append(f"record {record}")
        if field is not None:
            parts.append(f"field {field!r}")
        super().__init__(f"{', '.join(parts)}: {message}")
        self.path = path
        self.record = record
        self.field = field
        self.reason = message


class DefinitionGivenError(ExportFormatError):
    """A definition file was given where runs were expected; ``kind`` names what it is."""

    def __init__(self, path: str, kind: str, message: str) -> None:
        super().__init__(path, None, None, message)
        self.kind = kind


class UnreplayableImportError(ExportFormatError):
    """An import produced nothing replayable (no trigger bodies, or no compared field)."""


class RedactionError(HarnessError):
    """Redaction cannot run: no salt is configured, or a configured JSON path is invalid."""

    def __init__(self, message: str, *, setting: str | None = None) -> None:
        super().__init__(f"{setting}: {message}" if setting else message)
        self.setting = setting


class RecorderError(HarnessError):
    """The live recorder cannot start: a missing secret, an unusable recording directory."""
