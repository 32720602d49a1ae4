"""The trigger fields behind a differing decision, for its exemplar: what the new code read, redacted.

The runtime notes, for each ``ctx.decide``, the trigger fields the run had read before it
(``trace["reads"]``: decision -> ``{"body.issue.title": value}``, see ``queue_core._reads``). A
disagreement on ``decisions.<name>`` carries that decision's fields, so its exemplar says the cause
("body.issue.title = 'Exception in export job'"), not only the two values. Before they leave the
judge they are redacted: a credential header (``harness.redact.is_sensitive_header``) and a field
whose name looks like a secret lose their value, and every string is scrubbed of tokens and keys
(``queue_core.redaction.scrub``); values the set's manifest redacts on ingest are pseudonyms
already. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.redact import is_sensitive_header
from harness.shadow.diff import Disagreement, format_path
from queue_core.redaction import CREDENTIAL_PARTS, HEADER_MASK, MASK, scrub


def _redacted(path: str, value: Any) -> Any:
    if path.startswith("headers."):
        return HEADER_MASK if is_sensitive_header(path[len("headers."):]) else value
    last = path.rsplit(".", 1)[-1].split("[", 1)[0].lower()
    if any(part in last for part in CREDENTIAL_PARTS) and value is not None:
        return MASK
    return scrub(value) if isinstance(value, str) else value


def redact_reads(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Return a decision's read fields with secrets masked (see the module docstring)."""
    return {str(path): _redacted(str(path), value) for path, value in fields.items()}


def decision_reads(reads: Any, found: Sequence[Disagreement]) -> dict[str, dict[str, Any]]:
    """Return, per disagreement path on a decision the new code recorded reads for, those fields (redacted)."""
    if not isinstance(reads, Mapping) or not reads:
        return {}
    prefixes = {format_path(["decisions", name]): name for name in reads}
    out: dict[str, dict[str, Any]] = {}
    for d in found:
        for prefix, name in prefixes.items():
            if d.path == prefix or d.path.startswith((prefix + ".", prefix + "[")):
                fields = reads[name]
                if isinstance(fields, Mapping):
                    out[d.path] = redact_reads(fields)
    return out


def reads_text(fields: Mapping[str, Any], width: int = 60) -> str:
    """Say a decision's read fields in one line: ``body.issue.title = "Bug: x", body.action = "opened"``."""
    import json

    if not fields:
        return "no trigger field read before it"
    shown = []
    for path, value in fields.items():
        text = json.dumps(value, ensure_ascii=False)
        shown.append(f"{path} = {text if len(text) <= width else text[: width - 1] + '…'}")
    return ", ".join(shown)
