"""n8n: workflows (``definition``), executions (``history``, split item by item in ``items`` by
``lineage``), IF/Switch outputs (``branches``), the translator (``translate``) and the probes of
untaken branches (``probe``).

``ADAPTER`` is what the registry (``harness.platforms``) hands the pipeline, coverage and CLI.
"""

from __future__ import annotations

from harness.manifest import Coercion
from harness.platforms.adapter import PlatformAdapter
from harness.platforms.n8n import branches, history
from harness.platforms.n8n.command import TRANSLATOR
from harness.recording import Platform

__all__ = ["ADAPTER"]

ADAPTER = PlatformAdapter.of_folder(Platform.N8N, Coercion.N8N, history, branches, TRANSLATOR)
