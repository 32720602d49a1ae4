"""The cutover pytest plugin: ``pytest --shadow recordings/<set>``.

Kept thin (options and a few hooks); the replay, diff, report and gate live in plain modules.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cutover", "cutover shadow verification")
    group.addoption(
        "--shadow",
        metavar="RECORDING_SET",
        default=None,
        help="Replay the recording set (e.g. recordings/2024-06) through the migrated automations "
        "in shadow mode and diff their decisions against the legacy runs.",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("shadow"):
        raise pytest.UsageError("--shadow: the shadow harness is not available in this build yet")
