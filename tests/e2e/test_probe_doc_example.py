"""docs/probe-triggers.md's worked example, run as written in a scratch project.

Every ``$ `` command of the example's console blocks runs in order in a new directory (with
``$CUTOVER`` the checkout); every output line the doc shows (``…`` elides lines) must be one the
command printed, the code hash aside (it is of the generated module).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "probe-triggers.md"
HASH = re.compile(r"code [0-9a-f]{16}")


def _example_steps() -> list[tuple[str, list[str]]]:
    """Return (command, shown output lines) for each ``$`` line of the worked example's consoles."""
    section = DOC.read_text(encoding="utf-8").split("## Worked example", 1)[1]
    blocks = re.findall(r"```console\n(.*?)```", section, flags=re.S)
    steps: list[tuple[str, list[str]]] = []
    for block in blocks:
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps and line.strip() not in ("", "…"):
                steps[-1][1].append(line.rstrip())
    return steps


def _normal(line: str) -> str:
    return HASH.sub("code <hash>", line.rstrip())


def test_the_worked_example_prints_what_the_doc_shows(tmp_path: Path, fresh_db_url: str) -> None:
    steps = _example_steps()
    assert any(cmd.startswith("cutover scaffold n8n") for cmd, _ in steps), "the doc shows no setup"
    env = {**os.environ, "CUTOVER": str(ROOT), "DATABASE_URL": fresh_db_url}
    env.pop("PYTEST_ADDOPTS", None)
    cwd = tmp_path
    for command, shown in steps:
        run = subprocess.run(["bash", "-c", f"{command} && pwd"], cwd=cwd, env=env, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode in (0, 1) and (run.returncode == 0 or command.startswith("pytest")), \
            f"{command}: exit {run.returncode}\n{run.stdout}\n{run.stderr}"
        printed = run.stdout.splitlines()
        cwd = Path(printed[-1])  # `cd` in a command carries over, as in the reader's shell
        got = {_normal(line) for line in printed[:-1]}
        missing = [line for line in shown if _normal(line) not in got]
        assert not missing, f"{command}: the doc shows lines it did not print: {missing}\n{run.stdout}"
