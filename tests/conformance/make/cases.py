"""Every pinned Make case: the ``CASES`` of each ``cases_<area>.py`` beside this file."""

from __future__ import annotations

import importlib
from pathlib import Path

from tests.conformance.make.runner import MakeCase


def all_cases() -> list[MakeCase]:
    """Return the cases of every ``cases_*.py`` module here, in file order; ids must be unique."""
    found: list[MakeCase] = []
    for path in sorted(Path(__file__).parent.glob("cases_*.py")):
        found += importlib.import_module(f"tests.conformance.make.{path.stem}").CASES
    ids = [c.id for c in found]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        raise ValueError(f"Make conformance case ids used twice: {duplicated}")
    return found
