"""Every named statement is run from queue_core/store/: no other module calls the query loader.

Issue 22, part 4: the store is the one door to the database. A module outside it that needs a
statement goes through a store function, which names the statement whole.
"""

from __future__ import annotations

import ast
from pathlib import Path

import harness
import queue_core

ROOTS = [Path(queue_core.__file__).parent, Path(harness.__file__).parent]
STORE = Path(queue_core.__file__).parent / "store"
LOADER = Path(queue_core.__file__).parent / "_sql.py"


def _loader_uses(path: Path) -> list[int]:
    """Lines that import ``q`` from the loader or call a name ``q``."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_sql"):
            if any(alias.name == "q" for alias in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "q":
            lines.append(node.lineno)
    return lines


def test_only_the_store_runs_named_statements():
    outside = []
    for root in ROOTS:
        for path in sorted(root.rglob("*.py")):
            if path == LOADER or STORE in path.parents:
                continue
            outside += [f"{path.relative_to(root.parent)}:{line}" for line in _loader_uses(path)]
    assert not outside, "q() outside queue_core/store/ (add a store function):\n" + "\n".join(outside)


def test_the_store_does_run_them():
    """The check above looks at the right thing: the store's modules do call q()."""
    users = [p.name for p in sorted(STORE.glob("*.py")) if _loader_uses(p)]
    assert {"jobs.py", "leases.py", "provision.py", "waits.py"} <= set(users), users
