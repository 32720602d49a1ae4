"""The mutants of one automation module: small, single changes to its code, in a fixed order.

Five kinds of change, each a place where a translation is most often subtly wrong:

* ``compare``: one comparison operator swapped (``==``/``!=``, ``<``/``<=``, ``>``/``>=``,
  ``in``/``not in``, ``is``/``is not``);
* ``constant``: one literal changed (an integer or float plus one, ``True``/``False`` swapped, a
  string wrapped in ``XX…XX``, the empty string made ``"XX"``);
* ``condition``: one branch condition negated (``if``, ``while``, a conditional expression, a
  comprehension's ``if``; ``not x`` becomes ``x``) or one ``and``/``or`` swapped;
* ``dropped-field``: one entry removed from a dict literal, or one keyword argument from a call
  (a field of a request's payload, a call's ``step=``);
* ``removed-call``: one statement that is only a call (``await ctx.call(...)``,
  ``ctx.decide(...)``) replaced by ``pass``.

Docstrings, decorators (the automation's name and version), annotations, imports, ``__all__``
and the literal parts of f-strings are left alone. A mutant is found again by its number: the
module is parsed afresh and its sites enumerated in the same order (source position, then the
order of the walk), so the numbering is the same on every run for the same source.

Written here rather than taken from mutmut, cosmic-ray or mutatest because what runs a mutant
here is not a test command: the recorded triggers that reach the mutated line are replayed
through the queue in the measuring process, against the mutant loaded as a module object under
a registry of its own (:mod:`harness.mutate.load`), so the user's file is never written and a
mutant costs a replay of a few triggers, not a process start. Those tools decide a mutant by a
test command's exit status (mutmut and cosmic-ray) or by writing the mutated code where the
importer finds it (a copy of the tree, the file itself, or its ``__pycache__``), and none
documents a call that hands back one mutated module for another runner.
"""

from __future__ import annotations

import ast
import copy
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

KINDS = ("compare", "constant", "condition", "dropped-field", "removed-call")

_COMPARE_SWAP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
SHOWN_CHARS = 160  # a before/after longer than this is cut (the line number says where)


@dataclass(frozen=True)
class Mutant:
    """One change: its number (1-based, in order), kind, place and what it changes."""

    number: int
    kind: str
    line: int
    end_line: int  # the last line of the changed code (a dict entry or call may span several)
    col: int
    before: str
    after: str
    in_function: bool  # False: module-level code, run when the module is imported
    stmt_line: int  # the first line of the statement holding the change

    @property
    def lines(self) -> frozenset[int]:
        """The lines whose execution reaches the change: its own and its statement's first."""
        return frozenset(range(self.line, self.end_line + 1)) | {self.stmt_line}

    def as_dict(self) -> dict[str, object]:
        return {"number": self.number, "kind": self.kind, "line": self.line, "end_line": self.end_line,
                "col": self.col, "before": self.before, "after": self.after, "in_function": self.in_function}


@dataclass
class _Site:
    """A place to change: the node changed in place, how, and the node whose text shows it."""

    kind: str
    node: ast.AST
    apply: Callable[[ast.AST], None]
    shown: Callable[[ast.AST], ast.AST]  # given the changed node, the node to show (before/after)
    span: ast.AST  # the node whose lines the change covers
    in_function: bool
    seq: int = 0
    stmt_line: int = 0
    removed: str | None = None  # a removed entry or argument: its text (shown as "before → removed")


def _text(node: ast.AST) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "…"


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _new_constant(value: Any) -> tuple[bool, Any]:
    if isinstance(value, bool):
        return True, not value
    if isinstance(value, int | float) and not isinstance(value, complex):
        return True, value + 1
    if isinstance(value, str):
        return True, f"XX{value}XX" if value else "XX"
    return False, None


class _Walker:
    """Collects the sites of a module in walk order (see the module docstring for what is skipped)."""

    def __init__(self) -> None:
        self.sites: list[_Site] = []
        self.stmt_line = 1

    def add(self, site: _Site) -> None:
        site.seq = len(self.sites)
        site.stmt_line = self.stmt_line
        self.sites.append(site)

    def walk(self, node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom | ast.JoinedStr):
            return
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        outer_line = self.stmt_line
        if isinstance(node, ast.stmt):
            self.stmt_line = node.lineno
        self._sites_of(node, in_function, inner)
        for name, value in ast.iter_fields(node):
            if name in ("decorator_list", "returns", "annotation", "type_comment"):
                continue
            children = value if isinstance(value, list) else [value]
            for i, child in enumerate(children):
                if not isinstance(child, ast.AST):
                    continue
                if i == 0 and name == "body" and isinstance(child, ast.stmt) and _is_docstring(child) \
                        and isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue
                self.walk(child, inner)
        self.stmt_line = outer_line

    def _sites_of(self, node: ast.AST, fn: bool, inner: bool) -> None:
        same: Callable[[ast.AST], ast.AST] = lambda n: n  # noqa: E731 - the changed node shows itself
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _COMPARE_SWAP:
                    self.add(_Site("compare", node, _swap_compare(i), same, node, fn))
        elif isinstance(node, ast.Constant) and not isinstance(node.value, bytes):
            ok, _ = _new_constant(node.value)
            if ok:
                self.add(_Site("constant", node, _change_constant, same, node, fn))
        elif isinstance(node, ast.BoolOp):
            self.add(_Site("condition", node, _swap_boolop, same, node, fn))
        elif isinstance(node, ast.Dict):
            for i, (key, value) in enumerate(zip(node.keys, node.values, strict=True)):
                entry = f"{_text(key)}: {_text(value)}" if key is not None else f"**{_text(value)}"
                self.add(_Site("dropped-field", node, _drop_key(i), same, value, fn, removed=entry))
        elif isinstance(node, ast.Call):
            for i, kw in enumerate(node.keywords):
                self.add(_Site("dropped-field", node, _drop_keyword(i), same, kw, fn, removed=_text(kw)))
        if isinstance(node, ast.If | ast.While | ast.IfExp):
            self.add(_Site("condition", node, _negate_field("test"), lambda n: n.test, node.test, fn))  # type: ignore[attr-defined]
        elif isinstance(node, ast.comprehension):
            for i, cond in enumerate(node.ifs):
                self.add(_Site("condition", node, _negate_if(i), _nth_if(i), cond, fn))
        for name in ("body", "orelse", "finalbody"):
            stmts = getattr(node, name, None)
            if not isinstance(stmts, list):
                continue
            for i, stmt in enumerate(stmts):
                if isinstance(stmt, ast.Expr) and _is_call(stmt.value):
                    self.add(_Site("removed-call", node, _remove_stmt(name, i), _nth_stmt(name, i), stmt, inner))
                    self.sites[-1].stmt_line = stmt.lineno


def _is_call(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Call) or (isinstance(expr, ast.Await) and isinstance(expr.value, ast.Call))


def _swap_compare(i: int) -> Callable[[ast.AST], None]:
    def apply(node: ast.AST) -> None:
        assert isinstance(node, ast.Compare)
        node.ops[i] = _COMPARE_SWAP[type(node.ops[i])]()
    return apply


def _change_constant(node: ast.AST) -> None:
    assert isinstance(node, ast.Constant)
    node.value = _new_constant(node.value)[1]
    node.kind = None


def _swap_boolop(node: ast.AST) -> None:
    assert isinstance(node, ast.BoolOp)
    node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()


def _negated(test: ast.expr) -> ast.expr:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    return ast.copy_location(ast.UnaryOp(ast.Not(), test), test)


def _negate_field(name: str) -> Callable[[ast.AST], None]:
    def apply(node: ast.AST) -> None:
        setattr(node, name, _negated(getattr(node, name)))
    return apply


def _negate_if(i: int) -> Callable[[ast.AST], None]:
    def apply(node: ast.AST) -> None:
        assert isinstance(node, ast.comprehension)
        node.ifs[i] = _negated(node.ifs[i])
    return apply


def _nth_if(i: int) -> Callable[[ast.AST], ast.AST]:
    return lambda node: node.ifs[i]  # type: ignore[attr-defined]


def _drop_key(i: int) -> Callable[[ast.AST], None]:
    def apply(node: ast.AST) -> None:
        assert isinstance(node, ast.Dict)
        del node.keys[i], node.values[i]
    return apply


def _drop_keyword(i: int) -> Callable[[ast.AST], None]:
    def apply(node: ast.AST) -> None:
        assert isinstance(node, ast.Call)
        del node.keywords[i]
    return apply


def _remove_stmt(name: str, i: int) -> Callable[[ast.AST], None]:
    def apply(node: ast.AST) -> None:
        stmts = getattr(node, name)
        stmts[i] = ast.copy_location(ast.Pass(), stmts[i])
    return apply


def _nth_stmt(name: str, i: int) -> Callable[[ast.AST], ast.AST]:
    return lambda node: getattr(node, name)[i]


def _ordered_sites(tree: ast.Module) -> list[_Site]:
    walker = _Walker()
    walker.walk(tree, False)
    return sorted(walker.sites, key=lambda s: (s.span.lineno, s.span.col_offset, s.seq))  # type: ignore[attr-defined]


def mutants(source: str, filename: str = "<automation>") -> list[Mutant]:
    """Return every mutant of ``source``, numbered from 1 in source order. Raises SyntaxError."""
    out = []
    for number, site in enumerate(_ordered_sites(ast.parse(source, filename)), 1):
        if site.removed is not None:
            before, after = site.removed, "(removed)"
        else:
            changed = copy.deepcopy(site.node)
            before = _text(site.shown(site.node))
            site.apply(changed)
            after = _text(site.shown(changed))
        span = site.span
        out.append(Mutant(number, site.kind, span.lineno, span.end_lineno or span.lineno,  # type: ignore[attr-defined]
                          span.col_offset, before, after, site.in_function, site.stmt_line or span.lineno))  # type: ignore[attr-defined]
    return out


def mutated_tree(source: str, number: int, filename: str = "<automation>") -> ast.Module:
    """Return the module's tree with mutant ``number`` applied (a fresh parse; ``source`` is untouched)."""
    tree = ast.parse(source, filename)
    sites = _ordered_sites(tree)
    if not 1 <= number <= len(sites):
        raise IndexError(f"mutant {number}: the module has {len(sites)} mutant(s)")
    sites[number - 1].apply(sites[number - 1].node)
    return ast.fix_missing_locations(tree)


def compile_mutant(source: str, number: int, filename: str) -> types.CodeType:
    """Return the code object of mutant ``number`` of ``source``, compiled as ``filename``."""
    return compile(mutated_tree(source, number, filename), filename, "exec", dont_inherit=True)
