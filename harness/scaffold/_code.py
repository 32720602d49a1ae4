"""Generated Python built as code: ``ast`` nodes, rendered with ``ast.unparse``.

The translators never write Python source text. They build expressions and statements from
*templates*, fixed Python written here in the translators with ``$name`` holes, and fill each
hole with a node (placed as it is: ``ast.unparse`` parenthesises it by precedence) or a Python
value (made a literal: ``ast.unparse`` quotes and escapes it)::

    expr("n8n.get($base, *$keys)", base=item, keys=["a", 'b"c'])   # n8n.get(item, 'a', 'b"c')
    stmts("for $v in $xs:\\n    $body", v=name("x"), xs=..., body=[...])

Splices: ``f(*$xs)`` and ``[*$xs]`` take a list of values, ``f(**$kw)`` a dict of keyword
arguments, a statement ``$body`` a list of statements. An identifier is ``name(...)``, checked.

Comments cannot live in an AST: ``comment(text)`` is a marker statement that ``render`` turns
into a ``#`` line (``trailing=True``: appended to the line before), its text one line with every
line break and control character escaped, so a name in a comment is never code.
"""

from __future__ import annotations

import ast
import keyword
import re
import threading
import unicodedata
from collections.abc import Iterable
from typing import Any

_HOLE = re.compile(r"\$([A-Za-z_]\w*)")
_HOLE_NAME = re.compile(r"^__hole_([A-Za-z_]\w*)__$")
_COMMENT = "__comment__"
# CPython 3.11 counts the depth of the AST it converts per interpreter, not per thread: two threads
# parsing at once can fail with "AST constructor recursion depth mismatch" (python/cpython#106905).
# The lock holds no translation state; it only keeps one ``ast.parse`` at a time.
_PARSING = threading.Lock()


def name(identifier: str) -> ast.Name:
    """Return a Name node; raise ValueError for text that is not a Python identifier."""
    if not identifier.isidentifier() or keyword.iskeyword(identifier):
        raise ValueError(f"not a Python identifier: {identifier!r}")
    return ast.Name(identifier, ast.Load())


def lit(value: Any) -> ast.expr:
    """Return the literal of a JSON-like value (an AST node is returned as it is)."""
    if isinstance(value, ast.expr):
        return value
    if value is None or isinstance(value, bool | int | float | str):
        return ast.Constant(value)
    if isinstance(value, list):
        return ast.List([lit(v) for v in value], ast.Load())
    if isinstance(value, tuple):
        return ast.Tuple([lit(v) for v in value], ast.Load())
    if isinstance(value, dict):
        return ast.Dict([lit(k) for k in value], [lit(v) for v in value.values()])
    raise TypeError(f"no Python literal for {type(value).__name__}")


def dict_of(pairs: Iterable[tuple[Any, Any]]) -> ast.Dict:
    """Return a dict display of (key, value) pairs, each a value or a node (keys may repeat)."""
    keys, values = [], []
    for key, value in pairs:
        keys.append(lit(key))
        values.append(lit(value))
    return ast.Dict(keys, values)  # type: ignore[arg-type]


def call(function: str, *args: Any, **kwargs: Any) -> ast.Call:
    """Return ``function(*args, **kwargs)``; ``function`` is a dotted name (``n8n.get``)."""
    head, *rest = function.split(".")
    func: ast.expr = name(head)
    for part in rest:
        func = ast.Attribute(func, name(part).id, ast.Load())
    return ast.Call(func, [lit(a) for a in args], [ast.keyword(k, lit(v)) for k, v in kwargs.items()])


def _parse(template: str) -> ast.Module:
    source = _HOLE.sub(r"__hole_\1__", template)
    with _PARSING:
        return ast.parse(source)


def expr(template: str, **holes: Any) -> ast.expr:
    """Return the expression ``template`` with its holes filled."""
    tree = _parse(template)
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        raise ValueError(f"not one expression: {template!r}")
    return _Fill(holes).expression(tree.body[0].value)


def stmts(template: str, **holes: Any) -> list[ast.stmt]:
    """Return the statements of ``template`` with their holes filled."""
    return _Fill(holes).statements(_parse(template).body)


def comment(text: str, *, trailing: bool = False) -> ast.stmt:
    """Return a marker statement that ``render`` writes as the comment ``# text`` (one line)."""
    marker = ast.Expr(ast.Name(_COMMENT, ast.Load()))
    marker.cutover_comment = one_line(text)  # type: ignore[attr-defined]
    marker.cutover_trailing = trailing  # type: ignore[attr-defined]
    return marker


def blank() -> ast.stmt:
    """Return a marker statement that ``render`` writes as an empty line."""
    marker = comment("")
    marker.cutover_comment = None  # type: ignore[attr-defined]
    return marker


def one_line(text: object) -> str:
    """Return ``text`` fit for a comment: line breaks made spaces, other control characters escaped."""
    joined = " ".join(str(text).splitlines())
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c).startswith("C") and c != "\t" else c
                   for c in joined)


def render(body: list[ast.stmt]) -> str:
    """Return the source of ``body``, each comment marker written as its comment line.

    A block holding nothing but comments gets a ``pass``. Markers are names no string constant
    of the tree contains, so a line of a docstring is never taken for one.
    """
    module = ast.Module(body, [])
    for node in ast.walk(module):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            compound = field == "body" and isinstance(node, ast.stmt | ast.excepthandler)  # never empty
            if isinstance(block, list) and (block or compound) and all(hasattr(s, "cutover_comment") for s in block):
                block.append(ast.Pass())
    strings = {n.value for n in ast.walk(module) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    prefix = "__cutover_comment"
    while any(prefix in text for text in strings):
        prefix += "_"
    markers: dict[str, ast.stmt] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Expr) and hasattr(node, "cutover_comment"):
            key = f"{prefix}_{len(markers)}__"
            markers[key] = node
            node.value = ast.Name(key, ast.Load())
    out: list[str] = []
    for line in ast.unparse(ast.fix_missing_locations(module)).split("\n"):
        found = markers.get(line.strip())
        if found is None:
            out.append(line)
            continue
        text = found.cutover_comment  # type: ignore[attr-defined]
        if text is None:
            out.append("")
        elif found.cutover_trailing and out:  # type: ignore[attr-defined]
            out[-1] += f"  # {text}"
        else:
            out.append(f"{line[:len(line) - len(line.lstrip())]}# {text}")
    return "\n".join(out)


def docstring(text: str) -> str:
    """Return ``text`` as a docstring literal (triple-quoted, escaped by ``ast.unparse``)."""
    return ast.unparse(ast.Module([ast.Expr(ast.Constant(text))], []))


class _Fill(ast.NodeTransformer):
    """Fill a template's holes: splices in lists, a node or a literal elsewhere."""

    def __init__(self, holes: dict[str, Any]) -> None:
        self.holes = holes

    def _key(self, node: ast.AST) -> str | None:
        match = _HOLE_NAME.match(node.id) if isinstance(node, ast.Name) else None
        if match is None:
            return None
        if match.group(1) not in self.holes:
            raise KeyError(f"template hole ${match.group(1)} not given")
        return match.group(1)

    def expression(self, node: ast.expr) -> ast.expr:
        result = self.visit(node)
        assert isinstance(result, ast.expr)
        return result

    def statements(self, body: list[ast.stmt]) -> list[ast.stmt]:
        return self._list(body)

    def _list(self, items: list[Any]) -> list[Any]:
        out: list[Any] = []
        for item in items:
            if (isinstance(item, ast.Starred) and (key := self._key(item.value)) is not None
                    and isinstance(self.holes[key], list | tuple)):
                out += [lit(v) for v in self.holes[key]]
            elif (isinstance(item, ast.keyword) and item.arg is None and (key := self._key(item.value)) is not None
                    and isinstance(self.holes[key], dict)):
                out += [ast.keyword(k, lit(v)) for k, v in self.holes[key].items()]
            elif isinstance(item, ast.Expr) and (key := self._key(item.value)) is not None:
                value = self.holes[key]
                out += value if isinstance(value, list) else [value if isinstance(value, ast.stmt) else ast.Expr(lit(value))]
            elif isinstance(item, ast.AST):
                out.append(self.visit(item))
            else:
                out.append(item)
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.Dict):  # {**$pairs}: a dict of keys to values (or a list of pairs) spliced in
            keys: list[ast.expr | None] = []
            values: list[ast.expr] = []
            for key, value in zip(node.keys, node.values, strict=True):
                hole = self._key(value) if key is None else None
                if hole is None:
                    keys.append(key)
                    values.append(value)
                    continue
                spliced = self.holes[hole]
                for k, v in (spliced.items() if isinstance(spliced, dict) else spliced):
                    keys.append(lit(k))
                    values.append(lit(v))
            node.keys, node.values = keys, values
        for field, old in ast.iter_fields(node):
            if isinstance(old, list):
                setattr(node, field, self._list(old))
            elif isinstance(old, ast.AST):
                setattr(node, field, self.visit(old))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            match = _HOLE_NAME.match(node.name)
            if match:
                hole = self.holes[match.group(1)]
                node.name = hole.id if isinstance(hole, ast.Name) else name(hole).id
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        key = self._key(node)
        return node if key is None else lit(self.holes[key])
