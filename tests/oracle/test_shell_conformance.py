"""Execute Command, Read Binary File and SSH (v1) against the real n8n (``shell_cases``): the same commands on
this host, the same files, the same SSH server on loopback; every case translated and equal."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle import shell_cases
from tests.oracle.conftest import require_oracle

Results = list[tuple[Any, Any, Any, list[str]]]
KINDS = (shell_cases.EXEC, shell_cases.READ, shell_cases.FILES_NODE, shell_cases.SSH)


@pytest.fixture(scope="module")
def results() -> Results:
    require_oracle()
    return shell_cases.measure()


@pytest.mark.parametrize("node_type", KINDS)
def test_every_shell_case_is_translated_and_equals_n8n(node_type: str, results: Results) -> None:
    mine = [r for r in results if r[0].node_type == node_type]
    assert len(mine) >= 6
    untranslated = [case.id for case, _, got, _ in mine if not got.translated]
    assert not untranslated, untranslated
    differing = [f"{case.id}: {case.describe()}\n    {found}" for case, _, _, found in mine if found]
    assert not differing, "\n".join(differing[:4])


def test_n8n_really_ran_the_commands_read_the_files_and_logged_in(results: Results) -> None:
    by_id = {case.id: expected for case, expected, _, _ in results}
    assert by_id["executeCommand v1 #1"].nodes["Node under test"] == [[{"exitCode": 0, "stderr": "", "stdout": "hello"}]]
    assert "Command failed" in (by_id["executeCommand v1 #7"].error or "")
    assert by_id["readBinaryFile v1 #1"].binary["Node under test"][0][0]["data"]["data"] == "aGVsbG8Kd29ybGQK"
    assert "ENOENT" in (by_id["readBinaryFile v1 #6"].error or "")
    assert by_id["ssh v1 #4"].nodes["Node under test"] == [[{"code": 4, "signal": None, "stdout": "out", "stderr": "err"}]]
    assert by_id["ssh v1 #3"].nodes["Node under test"][0][0]["stdout"] == "/tmp"
    assert len(by_id["readWriteFile v1 #3"].nodes["Node under test"][0]) == 2  # ** reached the folder below
    assert by_id["readWriteFile v1 #4"].nodes["Node under test"] == [[]]
    assert by_id["readWriteFile v1 #7"].nodes["Node under test"][0][0]["fileName"].endswith("w1.txt")
