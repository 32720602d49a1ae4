"""Every table of manifest.toml refuses a key it does not know, naming the table and the nearest key."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ManifestError
from harness.manifest import load_manifest, write_manifest
from harness.mapping import MapProposal

HEAD = 'format = 1\nname = "s"\n\n'
ENTRY = '[automations.a]\nplatform = "n8n"\n'


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "manifest.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "field", "message"), [
    (HEAD + ENTRY + 'coersion = "n8n"\n', "automations.a.coersion",
     "unknown key in [automations.a] (did you mean coercion?)"),
    (HEAD + ENTRY + 'definitoin = "x.json"\n', "automations.a.definitoin",
     "unknown key in [automations.a] (did you mean definition?)"),
    (HEAD + ENTRY + '[automations.a.step]\nTrigger = ""\n', "automations.a.step",
     "unknown key in [automations.a] (did you mean steps?)"),
    (HEAD + ENTRY + '[automations.a.decision."Is large?"]\nname = "large"\n', "automations.a.decision",
     "unknown key in [automations.a] (did you mean decisions?)"),
    (HEAD + ENTRY + '[automations.a.decisions."Is large?"]\nnmae = "large"\n',
     'automations.a.decisions.Is large?.nmae',
     'unknown key in [automations.a.decisions."Is large?"] (did you mean name?)'),
    (HEAD + '[automatons.a]\nplatform = "n8n"\n', "automatons",
     "unknown key in the top-level table (did you mean automations?)"),
    (HEAD + '[redacton]\nsalt_env = "X"\n', "redacton",
     "unknown key in the top-level table (did you mean redaction?)"),
    (HEAD + '[redaction]\nsalt_evn = "X"\n', "redaction.salt_evn",
     "unknown key in [redaction] (did you mean salt_env?)"),
    (HEAD + '[window]\nstart = 2024-06-01T00:00:00Z\nend = 2024-06-02T00:00:00Z\nedn = 1\n', "window.edn",
     "unknown key in [window] (did you mean end?)"),
    (HEAD + '[[sources]]\nplatform = "n8n"\nautomation = "a"\nfiles = []\nretention = 14\n',
     "sources[0].retention", "unknown key in [[sources]] (entry 1) (did you mean retention_days?)"),
    (HEAD + ENTRY + 'zzz = 1\n', "automations.a.zzz",
     "unknown key in [automations.a] (expected one of coercion, columns, decisions, definition, "
     "delivery_id, items, legacy_workflows, outputs, platform, providers, steps)"),
])
def test_an_unknown_manifest_key_is_refused_with_file_table_key_and_suggestion(
        tmp_path: Path, text: str, field: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert caught.value.field == field
    assert caught.value.reason == message
    assert str(caught.value).startswith(str(path))


def test_every_documented_key_is_accepted(tmp_path: Path) -> None:
    text = HEAD + 'description = "d"\n[window]\nstart = 2024-06-01T00:00:00Z\nend = 2024-06-02T00:00:00Z\n' \
        '[redaction]\nsalt_env = "S"\nheaders = ["x"]\njson_paths = ["a.b"]\n' \
        '[[sources]]\nplatform = "n8n"\nautomation = "a"\nfiles = ["f"]\nretention_days = 14\n' \
        'saves_successful_runs = true\nsaves_failed_runs = false\nsampling = 0.5\nrecords = 3\n' \
        'skipped_records = 0\nimported_at = 2024-06-03T00:00:00Z\nnote = "n"\n' \
        + ENTRY + 'coercion = "strict"\nlegacy_workflows = ["1"]\ndelivery_id = "header:x-id"\n' \
        'definition = "wf.json"\n[automations.a.steps]\nT = ""\n[automations.a.decisions.If]\nname = "big"\n' \
        '[automations.a.decisions.If.values]\n"true" = "yes"\n[automations.a.providers]\n"api.x.com" = "x"\n' \
        '[automations.a.columns]\nstatus = "S"\n[automations.a.items]\nfrom = "Split"\nkey = "json:id"\n'
    manifest = load_manifest(_write(tmp_path, text))
    entry = manifest.automations["a"]
    assert (entry.definition, entry.decisions["If"].values, manifest.redaction.salt_env) == (
        "wf.json", {"true": "yes"}, "S")


def test_commented_proposals_written_on_import_still_load(tmp_path: Path) -> None:
    path = _write(tmp_path, HEAD + ENTRY)
    manifest = load_manifest(path)
    proposal = MapProposal(automation="a", steps={"Webhook": ""}, decisions={})
    write_manifest(path, manifest, proposal=proposal)
    assert "# " in path.read_text(encoding="utf-8")
    assert load_manifest(path) == manifest


def test_an_unknown_items_key_suggests_the_nearest(tmp_path: Path) -> None:
    path = _write(tmp_path, HEAD + '[automations."my auto"]\nplatform = "n8n"\n[automations."my auto".items]\nform = "S"\n')
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert caught.value.reason == 'unknown key in [automations."my auto".items] (did you mean from?)'
