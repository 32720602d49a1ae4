"""The first import proposes a provider for each host a legacy call reached by an absolute URL."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.manifest import AutomationEntry, Coercion, Manifest, ExportSource, write_manifest, with_source
from harness.mapping import MapProposal, proposal_from_traces, proposal_lines, provider_name
from harness.recording import ItemTrace, LegacyTrace, Platform, TraceStatus


@pytest.mark.parametrize(("host", "name"), [
    ("api.example.com", "example"), ("api.github.com", "github"), ("hooks.slack.com", "slack"),
    ("mail.example.co.uk", "example"), ("my_api.internal", "my-api"), ("localhost", "localhost"),
    ("10.0.0.5", "10-0-0-5"),
])
def test_a_provider_is_named_after_the_hosts_second_level_label(host: str, name: str) -> None:
    assert provider_name(host) == name


def _trace(calls: list[dict[str, object]], items: list[ItemTrace] | None = None) -> LegacyTrace:
    return LegacyTrace("t", TraceStatus.SUCCEEDED, Platform.N8N, path=["Notify"], calls=calls, items=items or [])


def test_only_calls_without_a_provider_and_with_an_absolute_url_propose_a_provider() -> None:
    traces = [_trace([{"step": "Notify", "provider": None, "url": "https://api.example.com/notify"},
                      {"step": "Notify", "provider": "github", "url": "/repos"},
                      {"step": "Notify", "provider": None, "url": "={{ $json.url }}"},
                      {"step": "Notify", "provider": None, "url": None},
                      {"step": "Notify", "provider": None, "url": "https://api.example.com/other"},
                      {"step": "Notify", "provider": None, "url": "http://hooks.slack.com/x"}])]
    proposal = proposal_from_traces("a", traces)
    assert proposal.providers == {"api.example.com": "example", "hooks.slack.com": "slack"}


def test_the_commented_providers_table_becomes_the_providers_map_once_uncommented() -> None:
    lines = proposal_lines(MapProposal("a", {}, {}, {"api.example.com": "example"}))
    assert all(line.startswith("#") for line in lines)
    toml = "\n".join(line[2:] for line in lines if line.startswith(("# [", '# "')))
    assert tomllib.loads(toml)["automations"]["a"]["providers"] == {"api.example.com": "example"}


def _manifest(entry: AutomationEntry) -> Manifest:
    source = ExportSource(Platform.N8N, "a", ("n8n.json",), records=1, imported_at=datetime(2024, 7, 1, tzinfo=UTC))
    return with_source(Manifest(name="set"), source, entry)


def test_providers_are_proposed_even_when_the_entry_already_has_maps(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    entry = AutomationEntry("a", Platform.N8N, Coercion.N8N, steps={"Notify": "notify"})
    write_manifest(path, _manifest(entry), proposal=MapProposal("a", {"Notify": "n"}, {}, {"api.example.com": "example"}))
    text = path.read_text()
    assert '# "api.example.com" = "example"' in text and "# [automations.a.providers]" in text
    assert "# [automations.a.steps]" not in text


def test_an_entry_with_a_providers_table_gets_the_proposal_without_a_second_header(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    entry = AutomationEntry("a", Platform.N8N, Coercion.N8N, providers={"api.github.com": "github"})
    write_manifest(path, _manifest(entry), proposal=MapProposal("a", {}, {}, {"api.example.com": "example"}))
    text = path.read_text()
    assert '# "api.example.com" = "example"' in text and "# [automations.a.providers]" not in text
    assert "# (add to [automations.a.providers])" in text
