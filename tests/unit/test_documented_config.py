"""Every ``[tool.cutover…]`` key the README and docs/ show is accepted by the commands' own config load.

The TOML examples of README.md and docs/*.md are read as documentation, keys shown commented out
(``# replay_window_s = 86400``) included, written to a pyproject.toml and run through ``cutover``
(which validates the whole table before any command) and through each table's own loader.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from harness.cli import cli
from harness.shadow.gate import parse_gate
from queue_core import config
from queue_core.errors import ConfigKeyError
from queue_core.provider import parse_providers
from queue_core.schedule import spec_from_config
from queue_core.server.source import load_sources

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"```toml\n(.*?)```", re.S)
_COMMENTED_KEY = re.compile(r"^#\s*([A-Za-z_][A-Za-z0-9_]*\s*=\s*\S.*)$")


def _uncommented(block: str) -> str:
    """Return the block with each commented-out ``key = value`` line made a setting."""
    return "\n".join(_COMMENTED_KEY.sub(r"\1", line.strip()) if line.lstrip().startswith("#") else line
                     for line in block.splitlines()) + "\n"


def _documented() -> list[tuple[str, str]]:
    """Return (where, TOML) for every documented example that configures ``[tool.cutover…]``."""
    found = []
    for doc in DOCS:
        for index, block in enumerate(_BLOCK.findall(doc.read_text("utf-8")), 1):
            if re.search(r"^\[tool\.cutover[.\]]", block, re.M):
                found.append((f"{doc.relative_to(ROOT)} toml block {index}", _uncommented(block)))
    return found


EXAMPLES = _documented()


def _secrets(cutover: dict[str, Any]) -> dict[str, str]:
    return {str(src["secret_env"]): "s3cret" for src in cutover.get("sources", {}).values() if "secret_env" in src}


def test_the_docs_configure_every_table_with_a_loader_of_its_own() -> None:
    tables = {name for _, text in EXAMPLES for name in tomllib.loads(text)["tool"]["cutover"]}
    assert {"gate", "providers", "sources", "schedules"} <= tables
    keys = {key for _, text in EXAMPLES for src in tomllib.loads(text)["tool"]["cutover"].get("sources", {}).values()
            for key in src}
    assert "replay_window_s" in keys  # documented commented-out in docs/control-plane.md


@pytest.mark.parametrize(("where", "text"), EXAMPLES, ids=[where for where, _ in EXAMPLES])
def test_every_documented_key_passes_the_config_load_every_command_runs(
        where: str, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text(text, "utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["jobs", "--help"])
    assert result.exit_code == 0, f"{where}:\n{text}\n{result.output}"
    settings = config.load()
    cutover = settings.raw
    load_sources(cutover, environ=_secrets(cutover), where=where)
    for name, table in cutover.get("schedules", {}).items():
        spec_from_config(name, table, where)
    parse_providers(cutover.get("providers", {}), source=where)
    parse_gate(cutover.get("gate", {}), where)


def test_the_validator_checks_values_only_of_keys_the_loaders_accept() -> None:
    from queue_core.schedule import CONFIG_KEYS
    from queue_core.server.source import KEYS

    assert set(config.SOURCE_CHECKS) <= set(KEYS)
    assert set(config.SCHEDULE_CHECKS) <= set(CONFIG_KEYS)


def test_a_source_key_the_loader_accepts_is_accepted_by_the_validator_with_its_range_checked() -> None:
    source = {"scheme": "github", "secret_env": "GH_SECRET", "automations": ["a"]}
    config.validate({"sources": {"gh": {**source, "replay_window_s": 0}}})
    with pytest.raises(ConfigKeyError, match=r"\[tool.cutover.sources.gh\] replay_window_s: expected an integer"):
        config.validate({"sources": {"gh": {**source, "replay_window_s": -1}}})
