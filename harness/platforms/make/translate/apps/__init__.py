"""Make's app modules, one file per area (``google.py``, ``social.py``…): each maps its modules onto the app catalogue.

An area module defines ``TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]]`` keyed by
Make's module type (``google-sheets:addRow``); ``app_translators`` gathers every area's, found by
file, so adding an area is adding a file. Two areas claiming one module type is an error.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

__all__ = ["app_translators"]


@functools.cache
def app_translators() -> dict[str, Callable[..., Any]]:
    """Return every area's translators by module type (ValueError when two areas claim one)."""
    found: dict[str, Callable[..., Any]] = {}
    owner: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        area = importlib.import_module(f"{__name__}.{info.name}")
        for module_type, translator in getattr(area, "TRANSLATORS", {}).items():
            if module_type in found:
                raise ValueError(f"Make module type {module_type!r} is translated by both apps/{owner[module_type]}.py "
                                 f"and apps/{info.name}.py")
            found[module_type], owner[module_type] = translator, info.name
    return found
