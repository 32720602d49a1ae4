"""Zapier: Zapfiles and the Zaps list (``definition``), Zap runs (``history``) and a Zap's paths and
filters (``branches``).

Zapier has no translator: its adapter leaves it out.
"""

from __future__ import annotations

from harness.manifest import Coercion
from harness.platforms.adapter import PlatformAdapter
from harness.platforms.zapier import branches, history
from harness.recording import Platform

__all__ = ["ADAPTER"]

ADAPTER = PlatformAdapter(platform=Platform.ZAPIER, parse_history=history.parse, coercion=Coercion.ZAPIER,
                          branches=branches.definition_branches, covers_branches=branches.covers_branches)
