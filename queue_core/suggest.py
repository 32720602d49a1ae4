"""Did-you-mean for a name nobody has: the closest known name, by difflib's ratio. Pure."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6
"""difflib's default: ``handle-tiket`` finds ``handle-ticket``, ``zzz`` finds nothing."""


def closest(name: str, known: Iterable[str], *, cutoff: float = CUTOFF) -> str | None:
    """Return the known name most like ``name`` (ratio at least ``cutoff``), else None."""
    found = difflib.get_close_matches(name, list(known), n=1, cutoff=cutoff)
    return found[0] if found else None


def did_you_mean(name: str, known: Iterable[str], *, cutoff: float = CUTOFF) -> str:
    """Return `` (did you mean 'x'?)`` for the closest known name, or "" when none is close."""
    match = closest(name, known, cutoff=cutoff)
    return f" (did you mean {match!r}?)" if match else ""
