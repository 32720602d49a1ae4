"""Zapier: Zapfiles and the Zaps list (``definition``), Zap runs (``history``), a Zap's paths and
filters (``branches``) and the translator (``translate``, ``cutover scaffold zapier``).

``ADAPTER`` is what the registry (``harness.platforms``) hands the pipeline, coverage and CLI.
"""

from __future__ import annotations

from harness.manifest import Coercion
from harness.platforms.adapter import PlatformAdapter
from harness.platforms.zapier import branches, history
from harness.platforms.zapier.command import TRANSLATOR
from harness.recording import Platform

__all__ = ["ADAPTER"]

ADAPTER = PlatformAdapter.of_folder(Platform.ZAPIER, Coercion.ZAPIER, history, branches, TRANSLATOR)
