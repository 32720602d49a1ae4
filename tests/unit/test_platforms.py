"""The registry of legacy tools: every platform has one adapter, and what it says matches the rest."""

from __future__ import annotations

import pytest

from harness import _cli_scaffold
from harness.manifest import DEFAULT_COERCION
from harness.platforms import ADAPTERS, adapter_for, translators
from harness.recording import Platform


@pytest.mark.parametrize("platform", list(Platform))
def test_every_platform_has_an_adapter_with_the_manifests_default_coercion(platform: Platform) -> None:
    adapter = adapter_for(platform)
    assert adapter.platform is platform
    assert adapter.coercion is DEFAULT_COERCION[platform]


def test_only_the_tabular_formats_have_no_definition_format() -> None:
    assert {p for p, a in ADAPTERS.items() if not a.reads_definition} == {Platform.CSV, Platform.JSONL}


def test_a_tool_that_lists_branches_also_says_which_definition_files_it_reads() -> None:
    for adapter in ADAPTERS.values():
        assert (adapter.branches is None) == (adapter.covers_branches is None), adapter.platform


def test_cutover_scaffold_has_one_command_per_translator_plus_the_n8n_tools() -> None:
    assert set(translators()) == {"n8n", "make", "zapier", "power-automate"}
    assert set(_cli_scaffold.scaffold.commands) >= {"n8n", "make", "zapier", "power-automate", "prove"}
    for name, translator in translators().items():
        command = _cli_scaffold.scaffold.commands[name]
        assert command.help == translator.help
        assert [p.name for p in command.params][0] == translator.argument


def test_reading_one_tool_s_files_imports_only_that_tool() -> None:
    """The registry imports a tool's folder when its adapter is asked for, not all four at once."""
    import subprocess
    import sys

    probe = ("import sys, harness.platforms.n8n.definition; "
             "print(sorted({m.split('.')[2] for m in sys.modules if m.startswith('harness.platforms.') "
             "and m.count('.') >= 2} - {'adapter'}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['n8n']"
