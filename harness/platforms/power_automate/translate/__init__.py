"""Power Automate flow translation (the package; pa's version of this file wins at merge)."""
