"""Runtime SQL lives whole in queue_core/queries/*.sql (STYLE.md, "SQL and migrations").

No module of queue_core but the loader (_sql.py) and the migrator (migrate.py) holds SQL in a
string literal, and none edits query text at run time (``.replace``, concatenation, f-strings
or ``format`` on what ``q()`` returned).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import queue_core

ROOT = Path(queue_core.__file__).parent
EXEMPT = {"_sql.py", "migrate.py"}
# A statement's opening words, as SQL spells them (upper case: prose and messages use lower case).
_SQL = re.compile(
    r"\b(SELECT\s+\S|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|WITH\s+\w+\s+AS|"
    r"CREATE\s+(TABLE|DATABASE|INDEX)|DROP\s+(TABLE|DATABASE)|ALTER\s+(TABLE|DATABASE)|"
    r"FOR\s+UPDATE|SKIP\s+LOCKED|(?:^|;)\s*(?:UN)?LISTEN\s+\w|(?:^|;)\s*NOTIFY\s+\w|ORDER\s+BY|LIMIT\s+\d|FROM\s+jobs)"
)


def _modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if p.name not in EXEMPT or p.parent != ROOT)


def _literals(tree: ast.AST):
    """String constants, docstrings excluded (they document, they are not sent)."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node


def _is_q_call(node: ast.AST) -> bool:
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value  # q(...).replace(...).replace(...)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "q"


def _edits_query(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in {"replace", "format", "split", "rsplit"} and _is_q_call(node.func.value):
                yield node
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            if _is_q_call(node.left) or _is_q_call(node.right):
                yield node
        if isinstance(node, ast.JoinedStr) and any(
                isinstance(v, ast.FormattedValue) and _is_q_call(v.value) for v in node.values):
            yield node


def test_no_module_holds_sql_in_a_string_literal():
    found = []
    for path in _modules():
        tree = ast.parse(path.read_text("utf-8"))
        for node in _literals(tree):
            if _SQL.search(node.value):
                found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: {node.value[:60]!r}")
    assert not found, "SQL in Python (move it to queue_core/queries/*.sql):\n" + "\n".join(found)


def test_no_module_edits_query_text_at_run_time():
    found = []
    for path in _modules():
        tree = ast.parse(path.read_text("utf-8"))
        for node in _edits_query(tree):
            found.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert not found, "query text edited at run time (name the whole statement in a .sql file):\n" + "\n".join(found)


def test_the_guard_finds_what_it_looks_for():
    tree = ast.parse('x = q("queue", "claim").replace("a", "b")\ny = q("a", "b") + ", more"\n'
                     'z = "SELECT id FROM jobs"\n')
    assert len(list(_edits_query(tree))) == 2
    assert [n.value for n in _literals(tree) if _SQL.search(n.value)] == ["SELECT id FROM jobs"]
