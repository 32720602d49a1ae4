"""Tests that need an external program (pgbouncer, chromium): found, or not run, with a reason.

On a user's machine a missing program skips the test, naming what is missing and the command
that installs it, so the README's ``pytest`` passes on a fresh machine. Where ``CI`` is set
(``.ci/run`` sets it and installs the programs) a missing program fails the test instead: CI must
never go green without running it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence

import pytest


def find_binary(override_env: str, names: Sequence[str], *, also_in: str | None = None) -> str | None:
    """The program's path: the one ``override_env`` names when it is set (None if that is not
    found), else the first of ``names`` on PATH, else in ``also_in`` (a PATH-like string)."""
    override = os.environ.get(override_env)
    if override is not None:
        return shutil.which(override)
    for path in (None, also_in) if also_in else (None,):
        for name in names:
            if found := shutil.which(name, path=path):
                return found
    return None


def require_binary(found: str | None, missing: str, *, test: str) -> str:
    """``found``, or end the test: skipped with ``missing`` (what is missing and how to install
    it), or failed when ``CI`` is set, saying that ``test`` must run there."""
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail(f"{missing} (CI is set: {test} must run)", pytrace=False)
    pytest.skip(missing)
