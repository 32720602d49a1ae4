"""Shard assignment is stable (the hash of a trigger's id) and merging refuses shards that do not fit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.shadow.merge import FORMAT, SHARD_FILE, check
from harness.shadow.shard import Shard


def test_a_trigger_belongs_to_one_shard_whatever_the_order_or_the_other_triggers() -> None:
    ids = [f"t-{i}" for i in range(2000)]
    owners = {i: [k for k in (1, 2, 3) if Shard(k, 3).selects("router", i)] for i in ids}
    assert all(len(found) == 1 for found in owners.values())
    again = {i: [k for k in (1, 2, 3) if Shard(k, 3).selects("router", i)] for i in reversed(ids[500:])}
    assert all(again[i] == owners[i] for i in again)
    sizes = [sum(found == [k] for found in owners.values()) for k in (1, 2, 3)]
    assert all(600 < size < 733 for size in sizes), sizes


def test_the_same_trigger_id_in_two_automations_is_placed_independently() -> None:
    placed = {(Shard(1, 2).selects("a", f"t-{i}"), Shard(1, 2).selects("b", f"t-{i}")) for i in range(200)}
    assert (True, False) in placed and (False, True) in placed


@pytest.mark.parametrize("text", ["2", "0/2", "3/2", "a/b", "1/0"])
def test_a_shard_spec_other_than_k_of_n_is_refused_saying_what_is_expected(text: str) -> None:
    with pytest.raises(HarnessError, match="K/N"):
        Shard.parse(text)


def test_a_shard_spec_reads_k_and_n() -> None:
    assert Shard.parse(" 2/4 ") == Shard(2, 4)
    assert str(Shard(2, 4)) == "2/4"


def _shard_dir(root: Path, name: str, k: int, n: int = 2, *, fingerprint: str = "f" * 64, seed: int = 0) -> Path:
    out = root / name
    out.mkdir()
    meta = {"format": FORMAT, "set": "demo", "fingerprint": fingerprint, "k": k, "n": n,
            "context": {"set_path": "recordings/demo", "mode": "shadow", "seed": seed, "noise": False,
                        "accepted_file": None, "code_versions": {"router": "abc"}, "spans": {}}}
    (out / SHARD_FILE).write_text(json.dumps(meta))
    return out


def test_every_shard_of_one_run_once_is_accepted(tmp_path: Path) -> None:
    dirs = [_shard_dir(tmp_path, "b", 2), _shard_dir(tmp_path, "a", 1)]
    assert [m["k"] for m in check(dirs)] == [2, 1]


def test_a_shard_given_twice_is_refused_naming_both_directories(tmp_path: Path) -> None:
    one, again = _shard_dir(tmp_path, "one", 1), _shard_dir(tmp_path, "again", 1)
    _shard_dir(tmp_path, "two", 2)
    with pytest.raises(HarnessError, match=f"{again}: shard 1/2 was given twice \\(also {one}\\)"):
        check([one, tmp_path / "two", again])


def test_a_missing_shard_is_refused_naming_it_and_the_shards_given(tmp_path: Path) -> None:
    one, three = _shard_dir(tmp_path, "one", 1, 3), _shard_dir(tmp_path, "three", 3, 3)
    with pytest.raises(HarnessError, match=f"shard\\(s\\) 2/3 missing \\(given: 1/3 in {one}, 3/3 in {three}\\)"):
        check([one, three])


def test_a_shard_of_another_set_is_refused_naming_its_directory(tmp_path: Path) -> None:
    one, other = _shard_dir(tmp_path, "one", 1), _shard_dir(tmp_path, "other", 2, fingerprint="0" * 64)
    with pytest.raises(HarnessError, match=f"{other}: shard 2/2 is of another run than {one}: a different recording set"):
        check([one, other])


def test_a_shard_split_another_way_or_replayed_with_another_seed_is_refused(tmp_path: Path) -> None:
    one = _shard_dir(tmp_path, "one", 1)
    with pytest.raises(HarnessError, match="3 shards, not 2"):
        check([one, _shard_dir(tmp_path, "three", 2, 3)])
    with pytest.raises(HarnessError, match="a different seed \\(1, not 0\\)"):
        check([one, _shard_dir(tmp_path, "seeded", 2, seed=1)])


def test_a_directory_without_shard_results_is_refused_saying_what_writes_them(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match=f"{tmp_path}: not a shard's results \\(no shard.json; written by pytest"):
        check([tmp_path])
