"""The configuration example in the README is valid configuration (docs that cannot drift)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from harness.gate import parse_gate
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
