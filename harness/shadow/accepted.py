"""Accepted differences: disagreements a reviewer has explained, with an owner and an expiry.

The file is TOML, by default ``recordings/<set>/accepted.toml`` (else ``cutover-accepted.toml``
at the project root, or ``--shadow-accepted PATH``)::

    [[accepted]]
    automation = "github-triage"
    path = "decisions.route"          # a field path; `*` matches any run of characters,
                                      # `[*]` any list index. Or, instead of path:
    # signature = "github-triage decisions.route value_changed"   # a cluster's signature
    kind = "value_changed"            # optional: value_changed | type_changed |
                                      #           missing_in_new | extra_in_new
    legacy = "other"                  # optional: only when the legacy value is this
    new = "bug"                       # optional: only when the new value is this
    legacy_status = "failed"          # optional: only triggers whose legacy run ended so
    legacy_error = "502"              # optional: ... and whose legacy error contains this
    owner = "maria@acme.test"
    reason = "n8n matched keywords case-sensitively; the new code is right"
    expires = 2027-06-30              # a TOML date

A disagreement matched by a live entry is *accepted*: its item passes, and it is counted in the
report. One matched only by an expired entry is not accepted: the item fails and says which
entry expired when. Entries that matched nothing are listed as unused.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from enum import Enum
from pathlib import Path
from typing import Any

from harness.shadow.diff import KINDS, Disagreement
from harness.errors import AcceptedFileError

FILE_NAME = "accepted.toml"
PROJECT_FILE_NAME = "cutover-accepted.toml"
_KEYS = frozenset({"automation", "path", "signature", "kind", "legacy", "new", "legacy_status",
                   "legacy_error", "owner", "reason", "expires"})


class _Unset(Enum):
    """Marks ``legacy``/``new`` as not given (``None`` is a value an entry may require)."""

    UNSET = "unset"


_UNSET: Any = _Unset.UNSET  # an enum member, so it is still itself after pickling (replay processes)


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile("^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$")


@dataclass(frozen=True)
class Entry:
    """One accepted difference. ``index`` is its position in the file (0-based)."""

    index: int
    automation: str
    owner: str
    reason: str
    expires: date
    path: str | None = None
    signature: str | None = None
    kind: str | None = None
    legacy: Any = _UNSET
    new: Any = _UNSET
    legacy_status: str | None = None
    legacy_error: str | None = None

    @property
    def label(self) -> str:
        """Return how the report names the entry: its signature or automation and path."""
        return self.signature or f"{self.automation} {self.path}"

    def expired(self, today: date) -> bool:
        """Return True once ``today`` is after the expiry date."""
        return today > self.expires

    def matches(self, automation: str, d: Disagreement, legacy_status: str | None, legacy_error: str | None) -> bool:
        """Return True when this entry covers disagreement ``d`` of a trigger of ``automation``."""
        if automation != self.automation:
            return False
        if self.signature is not None and self.signature != f"{automation} {d.pattern} {d.kind}":
            return False
        if self.path is not None and not (_glob(self.path).match(d.path) or _glob(self.path).match(d.pattern)):
            return False
        if self.kind is not None and self.kind != d.kind:
            return False
        if self.legacy is not _UNSET and self.legacy != d.legacy:
            return False
        if self.new is not _UNSET and self.new != d.new:
            return False
        if self.legacy_status is not None and self.legacy_status != legacy_status:
            return False
        return self.legacy_error is None or (legacy_error is not None and self.legacy_error in legacy_error)

    def as_dict(self) -> dict[str, Any]:
        """Return the entry as JSON-ready data (for summary.json)."""
        out: dict[str, Any] = {"index": self.index, "automation": self.automation, "path": self.path,
                               "signature": self.signature, "kind": self.kind, "owner": self.owner,
                               "reason": self.reason, "expires": self.expires.isoformat()}
        for name in ("legacy", "new"):
            value = getattr(self, name)
            if value is not _UNSET:
                out[name] = value
        for name in ("legacy_status", "legacy_error"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out


def _string(table: dict[str, Any], key: str, path: str, index: int, *, required: bool) -> str | None:
    value = table.get(key)
    if value is None:
        if required:
            raise AcceptedFileError(path, index, key, "is required")
        return None
    if not isinstance(value, str) or not value.strip():
        raise AcceptedFileError(path, index, key, f"expected a non-empty string, got {value!r}")
    return value


def _entry(table: Any, path: str, index: int) -> Entry:
    if not isinstance(table, dict):
        raise AcceptedFileError(path, index, None, "expected a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise AcceptedFileError(path, index, unknown[0], f"unknown key; allowed: {', '.join(sorted(_KEYS))}")
    where = _string(table, "path", path, index, required=False)
    signature = _string(table, "signature", path, index, required=False)
    if (where is None) == (signature is None):
        raise AcceptedFileError(path, index, "path", "give exactly one of 'path' or 'signature'")
    if signature is not None and len(signature.split(" ")) < 3:
        raise AcceptedFileError(path, index, "signature", "expected '<automation> <path> <kind>'")
    kind = _string(table, "kind", path, index, required=False)
    if kind is not None and kind not in KINDS:
        raise AcceptedFileError(path, index, "kind", f"expected one of {', '.join(KINDS)}, got {kind!r}")
    expires = table.get("expires")
    if not isinstance(expires, date) or hasattr(expires, "hour"):
        raise AcceptedFileError(path, index, "expires", f"expected a TOML date such as 2027-06-30, got {expires!r}")
    automation = _string(table, "automation", path, index, required=True)
    if signature is not None and not signature.startswith(f"{automation} "):
        raise AcceptedFileError(path, index, "signature", f"does not start with the automation {automation!r}")
    return Entry(
        index=index, automation=str(automation), owner=str(_string(table, "owner", path, index, required=True)),
        reason=str(_string(table, "reason", path, index, required=True)), expires=expires, path=where,
        signature=signature, kind=kind, legacy=table.get("legacy", _UNSET), new=table.get("new", _UNSET),
        legacy_status=_string(table, "legacy_status", path, index, required=False),
        legacy_error=_string(table, "legacy_error", path, index, required=False),
    )


def load(path: Path) -> list[Entry]:
    """Read an accepted-differences file; raise AcceptedFileError naming the entry and field."""
    name = str(path)
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise AcceptedFileError(name, None, None, "file does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise AcceptedFileError(name, None, None, f"not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"accepted"})
    if unknown:
        raise AcceptedFileError(name, None, unknown[0], "unknown top-level key; entries go in [[accepted]] tables")
    tables = data.get("accepted", [])
    if not isinstance(tables, list):
        raise AcceptedFileError(name, None, "accepted", "expected an array of tables ([[accepted]])")
    return [_entry(t, name, i) for i, t in enumerate(tables)]


def find(set_dir: Path, project_root: Path | None, explicit: Path | None) -> Path | None:
    """Return the accepted-differences file to use: explicit, the set's own, the project's, or None."""
    if explicit is not None:
        return explicit
    for candidate in (set_dir / FILE_NAME, project_root / PROJECT_FILE_NAME if project_root else None):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class Judgement:
    """What the accepted file says about one disagreement: accepted by, or expired entry."""

    accepted_by: int | None = None
    expired_by: int | None = None


def judge(entries: Sequence[Entry], automation: str, disagreements: Sequence[Disagreement],
          legacy_status: str | None, legacy_error: str | None, today: date) -> list[Judgement]:
    """Return one Judgement per disagreement: the first live entry that matches wins; failing
    that, the first expired entry that matches is named so the failure can say why. Pure."""
    out = []
    for d in disagreements:
        live = expired = None
        for entry in entries:
            if not entry.matches(automation, d, legacy_status, legacy_error):
                continue
            if not entry.expired(today):
                live = entry.index
                break
            if expired is None:
                expired = entry.index
        out.append(Judgement(live, None if live is not None else expired))
    return out


@dataclass(frozen=True)
class Usage:
    """What one entry matched in a run, counted in **triggers** (the unit of the verdict's
    ``accepted`` count) with the disagreements behind them.

    ``triggers``: the triggers the verdict counts as accepted (every disagreement explained) in
    which the entry accepted a disagreement; ``differences``: the disagreements it accepted in
    them (a trigger can have several: a failed run differs in status, path and calls);
    ``still_disagreeing``: triggers in which it accepted a disagreement but another one no entry
    accepts (the verdict counts them as disagreeing); ``expired_triggers``: triggers it would have
    matched had it not expired. With one entry per automation, ``triggers`` is the verdict's count.
    """

    triggers: int = 0
    differences: int = 0
    still_disagreeing: int = 0
    expired_triggers: int = 0


def usage(rows: Sequence[Mapping[str, Any]]) -> dict[int, Usage]:
    """Count each entry's matches over a run's disagreement rows (``automation``, ``trigger_id``,
    ``accepted_by``, ``expired_by``), by entry index. Pure."""
    accepted: dict[int, set[tuple[str, str]]] = {}
    expired: dict[int, set[tuple[str, str]]] = {}
    differences: dict[tuple[int, tuple[str, str]], int] = {}
    unexplained: set[tuple[str, str]] = set()
    for row in rows:
        trigger = (str(row.get("automation")), str(row.get("trigger_id")))
        by, gone = _index(row.get("accepted_by")), _index(row.get("expired_by"))
        if by is not None:
            accepted.setdefault(by, set()).add(trigger)
            differences[by, trigger] = differences.get((by, trigger), 0) + 1
            continue
        unexplained.add(trigger)
        if gone is not None:
            expired.setdefault(gone, set()).add(trigger)
    out = {}
    for i in set(accepted) | set(expired):
        matched = accepted.get(i, set())
        out[i] = Usage(len(matched - unexplained), sum(differences.get((i, t), 0) for t in matched - unexplained),
                       len(matched & unexplained), len(expired.get(i, ())))
    return out


def _index(value: Any) -> int | None:
    """An entry index from a row (pandas gives floats and NaN for a missing one)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float):
        return None if value != value else int(value)
    return int(value) if isinstance(value, int) else None
