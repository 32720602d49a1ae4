"""Accepted differences: matching, expiry and file errors."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from harness.shadow.accepted import Entry, judge, load
from harness.shadow.diff import Disagreement
from harness.errors import AcceptedFileError

ROUTE = Disagreement("decisions.route", "value_changed", "other", "bug")
LABEL = Disagreement("calls[add-labels].body.labels[0]", "value_changed", "triage", "bug", True)


def _entry(index: int = 0, expires: date = date(2027, 6, 30), **kw: object) -> Entry:
    return Entry(index=index, automation="github-triage", owner="maria", reason="known", expires=expires, **kw)  # type: ignore[arg-type]


def test_a_live_entry_accepts_the_disagreements_it_matches() -> None:
    judged = judge([_entry(path="decisions.route")], "github-triage", [ROUTE, LABEL], "succeeded", None, date(2026, 1, 1))
    assert [j.accepted_by for j in judged] == [0, None]


def test_an_expired_entry_accepts_nothing_and_is_named() -> None:
    entry = _entry(path="decisions.route", expires=date(2026, 1, 1))
    (judged,) = judge([entry], "github-triage", [ROUTE], "succeeded", None, date(2026, 1, 2))
    assert judged.accepted_by is None and judged.expired_by == 0


def test_an_entry_is_live_through_its_expiry_day() -> None:
    (judged,) = judge([_entry(path="decisions.route", expires=date(2026, 1, 2))], "github-triage", [ROUTE],
                      "succeeded", None, date(2026, 1, 2))
    assert judged.accepted_by == 0


def test_wildcards_signatures_values_and_legacy_status_narrow_matches() -> None:
    assert _entry(path="calls[add-labels].body.labels[*]").matches("github-triage", LABEL, "succeeded", None)
    assert _entry(signature="github-triage decisions.route value_changed").matches("github-triage", ROUTE, "succeeded", None)
    assert not _entry(path="decisions.route", new="feature").matches("github-triage", ROUTE, "succeeded", None)
    assert not _entry(path="decisions.route").matches("lead-router", ROUTE, "succeeded", None)
    outage = _entry(path="*", legacy_status="failed", legacy_error="502")
    assert outage.matches("github-triage", LABEL, "failed", "Add labels: 502 Bad Gateway")
    assert not outage.matches("github-triage", LABEL, "succeeded", None)


def test_an_entry_matches_the_same_after_a_trip_to_a_replay_process() -> None:
    import pickle

    # entries are pickled to replay processes; "legacy/new not given" must survive the trip
    for entry in (_entry(path="*", legacy_status="failed"), _entry(path="decisions.route", new="bug"),
                  _entry(path="decisions.route", legacy=None)):
        copy = pickle.loads(pickle.dumps(entry))
        assert copy == entry
        for d in (ROUTE, LABEL):
            for status in ("failed", "succeeded"):
                assert copy.matches("github-triage", d, status, None) == entry.matches("github-triage", d, status, None)
    assert pickle.loads(pickle.dumps(_entry(path="*", legacy_status="failed"))).matches("github-triage", ROUTE, "failed", None)


def test_the_file_loads_and_reports_a_bad_entry_by_number_and_field(tmp_path: Path) -> None:
    good = tmp_path / "accepted.toml"
    good.write_text('[[accepted]]\nautomation = "a"\npath = "decisions.x"\nowner = "o"\nreason = "r"\n'
                    "expires = 2027-01-31\n")
    (entry,) = load(good)
    assert entry.expires == date(2027, 1, 31) and entry.path == "decisions.x"
    bad = tmp_path / "bad.toml"
    bad.write_text(good.read_text() + '\n[[accepted]]\nautomation = "a"\npath = "x"\nowner = "o"\nreason = "r"\n'
                   'expires = "soon"\n')
    with pytest.raises(AcceptedFileError) as info:
        load(bad)
    assert info.value.index == 1 and info.value.field == "expires"
    assert "#2" in str(info.value) and "TOML date" in str(info.value)


def test_an_entry_needs_exactly_one_of_path_or_signature(tmp_path: Path) -> None:
    path = tmp_path / "accepted.toml"
    path.write_text('[[accepted]]\nautomation = "a"\nowner = "o"\nreason = "r"\nexpires = 2027-01-31\n')
    with pytest.raises(AcceptedFileError, match="exactly one of 'path' or 'signature'"):
        load(path)
