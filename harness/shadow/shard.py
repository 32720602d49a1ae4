"""Shards: a set too big for one machine replayed as N stable shares (``--shadow-shard K/N``).

A trigger belongs to shard ``sha256(automation/trigger id) mod N``: the hash of what the
trigger is, never of its position, so adding a trigger to a set, deselecting items or reordering
lines moves no other trigger to another shard, and every machine of a CI matrix agrees on the
split without talking to the others. ``cutover report merge`` combines the shards' results
(:mod:`harness.shadow.merge`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from harness.errors import HarnessError

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``k`` of ``n`` (1-based, as a CI matrix counts)."""

    k: int
    n: int

    def __post_init__(self) -> None:
        if not 1 <= self.k <= self.n:
            raise HarnessError(f"shard {self.k}/{self.n}: expected K/N with 1 <= K <= N")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """Read ``K/N`` (e.g. ``2/4``); raise HarnessError saying what was expected."""
        match = _SPEC.match(text)
        if match is None:
            raise HarnessError(f"shard {text!r}: expected K/N, e.g. 1/2")
        return cls(int(match[1]), int(match[2]))

    def selects(self, automation: str, trigger_id: str) -> bool:
        """Tell whether this shard replays the trigger ``trigger_id`` of ``automation``."""
        digest = hashlib.sha256(f"{automation}/{trigger_id}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.n == self.k - 1

    def report_name(self, set_name: str) -> str:
        """Return the default directory name of this shard's results (beside the set's reports)."""
        return f"{set_name}-shard-{self.k}-of-{self.n}"

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"
