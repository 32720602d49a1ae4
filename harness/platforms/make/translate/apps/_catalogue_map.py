"""Which catalogue operation each translated Make app module calls: the ``OPERATIONS`` of every area.

The convention (shared by every ``apps/<area>.py``): beside ``TRANSLATORS``, an area defines

    OPERATIONS: dict[str, tuple[str, str]] = {"airtable:ActionCreateRecord": ("airtable", "record.create"), ...}

Make module type -> (catalogue app, operation name), both in ``harness.catalogue.apps()``. A
translated module type with no catalogue operation (a "Make an API call" module: the call is
the user's own) is not listed. :func:`make_operations` gathers them for the catalogue's coverage
table (``harness.catalogue.coverage``), checking that each pair exists and each type is translated.
"""

from __future__ import annotations

import importlib
import pkgutil

from harness import catalogue

__all__ = ["make_operations"]


def make_operations() -> dict[str, tuple[str, str]]:
    """Return every area's ``OPERATIONS``; ValueError naming an unknown pair or a type no area translates."""
    from harness.platforms.make.translate import apps

    found: dict[str, tuple[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(apps.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        area = importlib.import_module(f"{apps.__name__}.{info.name}")
        translated = getattr(area, "TRANSLATORS", {})
        for module_type, (app_name, op_name) in getattr(area, "OPERATIONS", {}).items():
            if module_type not in translated:
                raise ValueError(f"apps/{info.name}.py: OPERATIONS names {module_type!r}, which its TRANSLATORS do not")
            try:
                catalogue.operation(app_name, op_name)
            except KeyError as exc:
                raise ValueError(f"apps/{info.name}.py: OPERATIONS[{module_type!r}]: {exc.args[0]}") from None
            found[module_type] = (app_name, op_name)
    return found
