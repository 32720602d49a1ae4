"""Make (Integromat): scenario blueprints (``definition``), scenario logs (``history``, polls in
``poll``), Router routes (``branches``) and the translator (``translate``).

``ADAPTER`` is what the registry (``harness.platforms``) hands the pipeline, coverage and CLI.
"""

from __future__ import annotations

from harness.manifest import Coercion
from harness.platforms.adapter import PlatformAdapter
from harness.platforms.make import branches, history
from harness.platforms.make.command import TRANSLATOR
from harness.recording import Platform

__all__ = ["ADAPTER"]

ADAPTER = PlatformAdapter.of_folder(Platform.MAKE, Coercion.MAKE, history, branches, TRANSLATOR)
