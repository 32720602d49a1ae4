"""Power Automate / Logic Apps: flow definitions (``definition``), run history (``history``), If /
Switch branches (``branches``) and the translator (``translate``, ``cutover scaffold power-automate``).

``ADAPTER`` is what the registry (``harness.platforms``) hands the pipeline, coverage and CLI.
"""

from __future__ import annotations

from harness.manifest import Coercion
from harness.platforms.adapter import PlatformAdapter
from harness.platforms.power_automate import branches, history
from harness.platforms.power_automate.command import TRANSLATOR
from harness.recording import Platform

__all__ = ["ADAPTER"]

ADAPTER = PlatformAdapter.of_folder(Platform.POWER_AUTOMATE, Coercion.STRICT, history, branches, TRANSLATOR)
