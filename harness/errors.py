"""Every exception the harness defines.

This is the only module of the harness that defines an exception class. One root, so a caller
can catch everything the harness raises on bad input with one clause::

    HarnessError                    something is wrong with the harness's input or environment
    ├── RecordingError              a recording set file is malformed (file, line, field)
    │   └── ManifestError           manifest.toml is malformed or names something missing
    ├── ExportFormatError           a legacy tool's export is malformed (file, record, field)
    │   ├── DefinitionGivenError    a definition (workflow, blueprint, Zapfile) was given where runs belong
    │   ├── ForeignExportError      another tool's runs, or records that hold no run, given to an import
    │   └── UnreplayableImportError an import yields nothing a replay can compare
    ├── RedactionError              redaction cannot run (no salt, bad JSON path)
    ├── RecorderError               the live recorder cannot start or verify deliveries
    ├── ReplayError                 a replay could not run or finish (harness.shadow.replay)
    ├── AcceptedFileError           accepted.toml is malformed (harness.shadow.accepted)
    ├── GateConfigError             [tool.cutover.gate] is malformed (harness.shadow.gate)
    ├── ScaffoldError               a scaffold could not be written (bad name, edited file without --force)
    ├── ProbeError                  probes cannot be made (no definition, unknown automation, not offline)
    └── BranchesUnreadable          branch coverage cannot read a definition's branches (harness.coverage)

Outside the root, each because of what must catch it:

    AssertionError
    └── ShadowMismatch              a replayed trigger's decisions differ (pytest reports a failed assertion)
    ConnectionRefusedError
    └── ReplayNetworkBlockedError   a replayed automation opened a socket (HTTP clients fail as on a refusal)
    queue_core.errors.TerminalError
    ├── NotOffline                  a proof's scaffolded code tried to call out: its job fails terminally
    └── MutantTimeout               a mutant's run outlived its deadline (an endless loop): killed by timeout
    Exception (internal: the scaffold translators catch it and write a TODO)
    └── Untranslatable              an expression (or part of one) the translation does not cover
        └── UntranslatableBareWord  a bare Make IML word that is no module path, keyword or function

Every class carries its structured fields as attributes; the message is for people and always
names where the problem is, so a user can open the file and fix it.
"""

from __future__ import annotations

from queue_core.errors import TerminalError


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


class ForeignExportError(ExportFormatError):
    """The export given to ``cutover import <tool>`` is another tool's runs, or records that hold no run;
    ``platform`` is the tool it belongs to."""

    def __init__(self, path: str, platform: str, message: str) -> None:
        super().__init__(path, None, None, message)
        self.platform = platform


class UnreplayableImportError(ExportFormatError):
    """An import produced nothing replayable (no trigger bodies, or no compared field)."""


class RedactionError(HarnessError):
    """Redaction cannot run: no salt is configured, or a configured JSON path is invalid."""

    def __init__(self, message: str, *, setting: str | None = None) -> None:
        super().__init__(f"{setting}: {message}" if setting else message)
        self.setting = setting


class RecorderError(HarnessError):
    """The live recorder cannot start: a missing secret, an unusable recording directory."""


# Shadow replay (harness.shadow.replay)


class ReplayError(HarnessError):
    """The replay itself could not run: no database, a queue error, jobs that never finished."""


class ReplayNetworkBlockedError(ConnectionRefusedError):
    """An automation tried to reach the network during a replay.

    A ConnectionRefusedError, so HTTP clients fail the way they fail on a refused connection.
    """

    def __init__(self, destination: str) -> None:
        super().__init__(f"cutover shadow replay: network access blocked ({destination}); "
                         "outbound calls must go through ctx.call, which never leaves the process")
        self.destination = destination


# Accepted differences (harness.shadow.accepted)


class AcceptedFileError(HarnessError):
    """The accepted-differences file is malformed: which file, which entry, which field."""

    def __init__(self, path: str, index: int | None, field: str | None, message: str) -> None:
        where = path if index is None else f"{path}: [[accepted]] #{index + 1}"
        super().__init__(f"{where}: {f'field {field!r}: ' if field else ''}{message}")
        self.path, self.index, self.field, self.reason = path, index, field, message


# Go-live gate (harness.shadow.gate)


class GateConfigError(HarnessError):
    """``[tool.cutover.gate]`` is malformed: which file, which field, what was expected."""

    def __init__(self, path: str, field: str, message: str) -> None:
        super().__init__(f"{path}: field {field!r}: {message}")
        self.path, self.field, self.reason = path, field, message


# Pytest shadow plugin (harness.plugin)


class ShadowMismatch(AssertionError):
    """A replayed trigger's decisions differ from the legacy run's (the message says where)."""


# Scaffold (harness.scaffold)


class ScaffoldError(HarnessError):
    """A scaffold could not be written (bad name, an edited file without --force)."""


# Probes (harness.platforms.n8n.probe.oracle)


class ProbeError(HarnessError):
    """Probes cannot be made: no definition, an unknown automation, code that cannot run offline."""


# Branch coverage (harness.coverage, harness.platforms.<tool>.branches)


class BranchesUnreadable(HarnessError):
    """A definition whose branches a branch reader cannot read (a node version it does not know,
    rules it cannot parse, a file it cannot open); the message names the node or file and why."""


# Offline proof (harness.platforms.n8n.translate.prove)


class NotOffline(TerminalError):
    """The scaffolded code tried to call out; a proof runs offline."""


# Mutation analysis (harness.mutate.deadline)


class MutantTimeout(TerminalError):
    """A mutant's run was still looping when its deadline passed: the mutant is killed by timeout."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the mutant's run did not end within {seconds:g} s (stopped in a loop of the mutated module)")
        self.seconds = seconds


# Expression translation (harness.platforms.n8n.translate.expr, harness.platforms.make.translate.iml)


class Untranslatable(Exception):
    """An expression (or part of one) the translation does not cover."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# Make IML bare words


class UntranslatableBareWord(Untranslatable):
    """A bare word that is neither a keyword nor a module path (text, when it is an argument)."""

    def __init__(self, word: str) -> None:
        super().__init__(f"{word!r} is not a module path, keyword or function (var.* and scenario inputs are not "
                         "translated)")
