"""Pinned conformance cases of the Power Automate translator: documented WDL behaviour, run offline."""
