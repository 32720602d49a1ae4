"""The pyproject.toml of a user's project that a test writes and runs pytest (or cutover) in.

One place for the pytest settings every such project needs: warnings as errors (so a warning
our code causes fails the test, as it would fail a user's CI), pytest-asyncio's loop scope set
(unset, pytest-asyncio warns, and with warnings as errors every run stops), strict markers.
"""

from __future__ import annotations

PYTEST_SETTINGS = """[tool.pytest.ini_options]
addopts = "--strict-markers"
filterwarnings = ["error", "ignore::UserWarning:platformdirs.*"]
asyncio_default_fixture_loop_scope = "function"
"""


def pyproject(automations: str, *tables: str) -> str:
    """Return a pyproject.toml naming the ``automations`` module, then each TOML table in ``tables``."""
    text = f'{PYTEST_SETTINGS}\n[tool.cutover]\nautomations = "{automations}"\n'
    return text + "".join(f"\n{table.strip()}\n" for table in tables)
