"""Zapier: Zapfiles and the Zaps list (``definition``) and Zap runs (``history``).

Zapier has no translator and no branch list yet: its adapter leaves them out.
"""

from __future__ import annotations

from harness.manifest import Coercion
from harness.platforms.adapter import PlatformAdapter
from harness.platforms.zapier import history
from harness.recording import Platform

__all__ = ["ADAPTER"]

ADAPTER = PlatformAdapter(platform=Platform.ZAPIER, parse_history=history.parse, coercion=Coercion.ZAPIER)
