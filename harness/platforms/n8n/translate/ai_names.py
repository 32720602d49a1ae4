"""The names n8n gives an AI Agent's tools (n8n 1.123's, read in its source: n8n-workflow's
``nodeNameToToolName`` and the HTTP Request tool's own check)."""

from __future__ import annotations

import re


def tool_name(name: str) -> str:
    """Return n8n-workflow's ``nodeNameToToolName``: each run of other characters than ``[a-zA-Z0-9_-]`` as one ``_``."""
    return re.sub(r"[^a-zA-Z0-9_-]+", "_", name)


def http_tool_name(name: str) -> str | None:
    """Return the HTTP Request tool's name (spaces as ``_``), None when n8n refuses it (not ``[a-zA-Z_][a-zA-Z0-9_]*``)."""
    named = name.replace(" ", "_")
    return named if re.fullmatch(r"[a-zA-Z_][a-zA-Z0-9_]*", named) else None
