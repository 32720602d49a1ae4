"""The commands the harness adds to ``cutover``: a table read without importing any of them.

``pyproject.toml`` names :data:`COMMANDS` in the ``cutover.commands`` entry-point group;
``queue_core.cli``'s group lists these rows in ``cutover --help`` and imports a command only when
it runs. The help strings are the first paragraph of each command's docstring (a test keeps them
equal). The rows need the ``cutover[harness]`` extra: without it (a worker host's plain
``pip install cutover``) they are not listed, and naming one says what to install.
"""

from __future__ import annotations

from importlib.util import find_spec

import click

from queue_core._cli_lazy import CommandTable, LazyCommand

# One module per dependency only the harness uses (``cutover[harness]`` in pyproject.toml), found
# without being imported.
EXTRA_MODULES = ("pandas", "deepdiff", "esprima", "tomlkit", "hypothesis")


def available() -> bool:
    """Tell whether the ``cutover[harness]`` extra is installed (nothing is imported)."""
    return all(find_spec(name) is not None for name in EXTRA_MODULES)


def serve() -> click.Command:
    """Return ``cutover serve`` with ``--record`` (the plain one is queue_core's), as
    ``harness._cli_serve.register`` builds it."""
    from harness import _cli_serve

    group = click.Group()
    _cli_serve.register(group)
    return group.commands["serve"]


def scaffold() -> click.Command:
    """Return the ``cutover scaffold`` group with ``probe-triggers`` attached."""
    from harness import _cli_probe
    from harness._cli_scaffold import scaffold as group

    if "probe-triggers" not in group.commands:
        _cli_probe.register(group)
    return group


COMMANDS = CommandTable(
    {
        "import": LazyCommand("harness._cli_recordings:import_command",
                              "Import a legacy tool's run history into a recording set."),
        "record": LazyCommand("harness._cli_recordings:record_command",
                              "Record live webhook deliveries into a recording set (a local tap)."),
        "report": LazyCommand("harness._cli_report:report",
                              "Work with shadow-run reports: merge the shards of one run."),
        "scaffold": LazyCommand("harness._cli_commands:scaffold",
                                "Write automations from no-code workflow definitions, ready for `pytest --shadow`."),
        "shadow": LazyCommand("harness._cli_shadow:shadow",
                              "Measure what a recording set pins down: mutation analysis of a migrated automation."),
        "serve": LazyCommand("harness._cli_commands:serve",
                             "Serve the control API and the webhook ingress (POST /hooks/<source>)."),
    },
    available=available,
    missing='part of the harness, which is not installed here: pip install "cutover[harness]"',
)
