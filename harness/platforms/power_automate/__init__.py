"""Power Automate / Logic Apps: flow definitions (``definition``) and run history (``history``).

No translator and no branch list yet: its adapter leaves them out.
"""

from __future__ import annotations

from harness.manifest import Coercion
from harness.platforms.adapter import PlatformAdapter
from harness.platforms.power_automate import history
from harness.recording import Platform

__all__ = ["ADAPTER"]

ADAPTER = PlatformAdapter(platform=Platform.POWER_AUTOMATE, parse_history=history.parse, coercion=Coercion.STRICT)
