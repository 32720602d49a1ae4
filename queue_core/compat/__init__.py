"""Runtimes for code translated from no-code platforms (``from queue_core.compat import n8n``)."""
