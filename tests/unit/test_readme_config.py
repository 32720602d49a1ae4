"""The configuration example in the README is valid configuration (docs that cannot drift)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from harness.shadow.gate import parse_gate
from queue_core.config import validate
from queue_core.provider import parse_providers
from queue_core.server.source import load_sources

README = Path(__file__).resolve().parents[2] / "README.md"


def _toml_blocks() -> list[dict]:
    return [tomllib.loads(block) for block in re.findall(r"```toml\n(.*?)```", README.read_text(), re.S)]


def test_readme_configuration_example_parses_with_every_section_validated():
    (config,) = [b for b in _toml_blocks() if "providers" in b.get("tool", {}).get("cutover", {})]
    cutover = config["tool"]["cutover"]
    providers = parse_providers(cutover["providers"], source="README.md")
    assert providers["hubspot"].max_in_flight == 10 and len(providers["hubspot"].rates) == 2
    gate = parse_gate(cutover["gate"], "README.md")
    assert gate.rules_for("github-triage").agreement == 0.99
    sources = load_sources(cutover, environ={"GITHUB_WEBHOOK_SECRET": "s3cret"}, where="README.md")
    assert list(sources["github"].automations) == ["github-triage"]


def test_readme_configuration_example_passes_the_whole_table_validator():
    (block,) = [b for b in _toml_blocks() if "providers" in b.get("tool", {}).get("cutover", {})]
    validate(block["tool"]["cutover"], "README.md")


def test_readme_config_error_example_is_what_pytest_shadow_prints(tmp_path):
    (line,) = [ln for ln in README.read_text().splitlines() if ln.startswith("ERROR: cutover: pyproject.toml: [")]
    table, key = re.match(r"ERROR: cutover: pyproject.toml: \[(.*?)\] (\w+):", line).groups()
    (tmp_path / "pyproject.toml").write_text(f"[tool.cutover]\n[{table}]\n{key} = 3\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "--shadow", "recordings/2024-06", "-p", "no:cacheprovider"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 4, run.stdout + run.stderr
    assert line in run.stderr.splitlines()
