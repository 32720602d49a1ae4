"""tests/support/external.py: a missing program skips its test on a user's machine and fails it under CI."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.support.external import find_binary, require_binary


def _program(folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_missing_program_skips_naming_the_reason(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="install: apt-get install -y thing"):
        require_binary(None, "no thing here; install: apt-get install -y thing", test="the thing test")


def test_a_missing_program_fails_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"no thing here \(CI is set: the thing test must run\)"):
        require_binary(None, "no thing here", test="the thing test")


def test_a_found_program_is_returned_under_ci_too(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert require_binary("/usr/bin/thing", "no thing here", test="the thing test") == "/usr/bin/thing"


def test_find_binary_takes_the_override_then_path_then_the_extra_folders(tmp_path, monkeypatch):
    on_path, extra = tmp_path / "bin", tmp_path / "sbin"
    on_path.mkdir(), extra.mkdir()
    second = _program(on_path, "thing-browser")
    hidden = _program(extra, "thing")
    monkeypatch.setenv("PATH", str(on_path))
    monkeypatch.delenv("THING", raising=False)
    assert find_binary("THING", ["thing", "thing-browser"]) == str(second)
    assert find_binary("THING", ["thing"], also_in=str(extra)) == str(hidden)
    assert find_binary("THING", ["thing"]) is None
    monkeypatch.setenv("THING", str(tmp_path / "missing"))
    assert find_binary("THING", ["thing-browser"]) is None, "an override that is not found is not replaced"
    monkeypatch.setenv("THING", str(hidden))
    assert find_binary("THING", ["thing-browser"]) == str(hidden)
    assert os.environ["PATH"] == str(on_path)
