"""Lay out a Make scenario's flow as nested Python, the way Make runs its bundles.

Each module runs where its bundle would reach it: a module filter is an ``if`` around the module
and everything after it (a bundle it stops goes no further, the run goes on); a Router runs
every route in order, each route's first-module filter deciding whether the bundle goes down it
(``run.took`` records it); an If-else runs the first branch whose condition holds, then the
flow continues after its Merge; an Iterator is a ``for`` loop over the array's bundles that
closes at the Aggregator whose ``feeder`` it is (the aggregated bundle then continues); a
module that outputs several bundles runs the rest once per bundle. One job runs the whole
scenario, as one Make execution does: ``cutover import make`` records one trace per execution,
its modules in order, so a loop in the job (not a child job per bundle) is what lines up.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.make.definition import Module, route_value
from harness.platforms.make.translate.handlers import DIRECTIVES, emitted, ending, route_of
from harness.platforms.make.translate.iml import conditions, template
from harness.platforms.make.translate.modules import Gen, ModuleCode, todo, translate, var
from harness.scaffold import _code
from harness.scaffold._code import call, expr, lit, name, stmts
from harness.scaffold._module import NodeRow


FEEDERS = ("builtin:BasicFeeder", "builtin:BasicRepeater")
AGGREGATORS = ("builtin:BasicAggregator", "util:TextAggregator")
_SEPARATORS = {"\\n": "\n", "\\t": "\t", "\n": "\n", "\t": "\t"}


@dataclass
class Layout:
    """The state of laying out one scenario: rows of the table, decisions by router id."""

    gen: Gen
    rows: list[NodeRow] = field(default_factory=list)
    decisions: dict[int, str] = field(default_factory=dict)  # router id -> decision name
    handling: list[int] = field(default_factory=list)  # the modules whose error handler route is being laid out


def comment(module: Module) -> ast.stmt:
    """Return the comment line that heads a module's code."""
    return _code.comment(f"{module.app} {module.label!r} (module {module.id}, v{module.version})")


def _passes(test: ast.expr, note: str, body: list[ast.stmt]) -> list[ast.stmt]:
    """``if make.passes(test):  # note`` around ``body``."""
    return stmts("if make.passes($test):\n    $note\n    $body", test=test, note=_code.comment(note, trailing=True),
                 body=body)


def flow(modules: Sequence[Module], lay: Layout, *, on_first: Sequence[ast.stmt] = (),
         tail: Sequence[ast.stmt] = ()) -> list[ast.stmt]:
    """Return the statements that run ``modules`` (a flow) on the current bundle, then ``tail``.

    ``on_first`` runs when the first module does (a Router's ``run.took``).
    """
    if not modules:
        return list(tail)
    module, rest = modules[0], list(modules[1:])
    lines = [comment(module)]
    try:
        test = conditions(module.filter.get("conditions")) if module.filter else None
    except Untranslatable as exc:
        code = todo(module, f"filter {module.filter.get('name')!r}: {exc.reason}")  # type: ignore[union-attr]
        _row(lay, module, code)
        return lines + code.lines + _unreached(rest, lay, tail)
    body = [*on_first, *_module_lines(module, rest, lay, tail)]
    if test is None:
        return lines + body
    filter_name = str(module.filter.get("name") or "")  # type: ignore[union-attr]
    return lines + _passes(test, f"filter {filter_name!r}", body)


def _module_lines(module: Module, rest: list[Module], lay: Layout, tail: Sequence[ast.stmt]) -> list[ast.stmt]:
    if module.app in DIRECTIVES:  # a directive inside an error handler route (a Router's route there)
        if not lay.handling or module.app == "builtin:Resume":
            code = todo(module, f"{module.app} here (not at the end of an error handler route) is not translated")
            _row(lay, module, code)
            return code.lines + _unreached(rest, lay, tail)
        return ending(module, lay.handling[-1])
    if module.app == "builtin:BasicRouter":
        return _router(module, rest, lay, tail)
    if module.app == "builtin:BasicIfElse":
        return _if_else(module, rest, lay, tail)
    if module.app in FEEDERS:
        return _iterator(module, rest, lay, tail)
    if module.app in AGGREGATORS:
        code = todo(module, f"an Aggregator whose feeder (module {module.parameters.get('feeder')}) is not an "
                            "Iterator before it in the same flow")
        _row(lay, module, code)
        return code.lines + _unreached(rest, lay, tail)
    code = translate(module, lay.gen)
    _row(lay, module, code)
    handler_modules, _ = route_of(module)
    lay.handling.append(module.id)
    route = flow(handler_modules, lay) if module.onerror and code.todo is None else []
    lay.handling.pop()
    if code.todo is None and any(m.app in AGGREGATORS and m.parameters.get("feeder") == module.id for m in rest):
        # the Aggregator's source module: for each bundle it outputs (a search: several), the Aggregator
        # collects the bundles the modules between output, and its own bundle goes on
        source = name(f"bundles_{module.id}") if code.bundles is not None else ast.List([var(module)], ast.Load())
        return emitted(module, code, [], route, emit=_feed(module, source, rest, lay, tail))
    return emitted(module, code, flow(rest, lay, tail=tail), route)


def _router(module: Module, rest: list[Module], lay: Layout, tail: Sequence[ast.stmt]) -> list[ast.stmt]:
    from harness.scaffold._module import slug, unique

    decision = lay.decisions.setdefault(module.id, unique(slug(module.label), set(lay.decisions.values())))
    names = [route_value(route, i) for i, route in enumerate(module.routes)]
    _row(lay, module, ModuleCode([], note=f"{len(names)} routes; every route whose filter passes runs"))
    lines = stmts("run.router($id, $decision, $names)", id=module.id, decision=decision, names=names)
    for index, route in enumerate(module.routes):
        lines += [_code.comment(f"route {index}: {names[index]!r}"),
                  *flow(route, lay, on_first=stmts("run.took($id, $index)", id=module.id, index=index), tail=tail)]
    return lines + flow(rest, lay, tail=())


def _if_else(module: Module, rest: list[Module], lay: Layout, tail: Sequence[ast.stmt]) -> list[ast.stmt]:
    at = len(lay.rows)
    _row(lay, module, ModuleCode([], note="the first branch whose condition holds runs"))
    branches: list[tuple[ast.expr | None, str, list[ast.stmt]]] = []  # (test, its label, body)
    for branch in module.branches:
        body = flow(branch.flow, lay)
        if branch.conditions is None:
            branches.append((None, "", body))
            break
        try:
            test = conditions(branch.conditions)
        except Untranslatable as exc:
            code = todo(module, f"branch {branch.label!r}: {exc.reason}")
            lay.rows[at] = NodeRow(module.label, module.app, "todo", code.todo or "")
            later = [m for b in module.branches[len(branches) + 1:] for m in b.flow]
            return code.lines + _unreached([*later, *rest], lay, tail)
        branches.append((test, branch.label, body))
    chain: list[ast.stmt] = []
    for holds, label, body in reversed(branches):
        if holds is None:  # the else branch (as the first: `if True:`)
            chain = body if branches[0][0] is not None else stmts("if True:\n    $body", body=body)
            continue
        chain = stmts("if make.passes($test):\n    $note\n    $body\nelse:\n    $chain", test=holds,
                      note=_code.comment(f"branch {label!r}", trailing=True), body=body, chain=chain)
    lines = stmts("run.emit($id, {})", id=module.id)
    return lines + chain + flow(rest, lay, tail=tail)


def _bundles(module: Module) -> ast.expr:
    """Return the Python expression of an Iterator's or a Repeater's bundles."""
    if module.app == "builtin:BasicRepeater":
        m = module.mapper
        return call("make.repeat", template(m.get("start", 1)), template(m.get("repeats", 1)),
                    template(m.get("step", 1)))
    return call("make.iterate", template(module.mapper.get("array")))


def _aggregated(aggregator: Module, feeder: Module, collected: ast.Name) -> tuple[ast.expr, ast.expr]:
    """Return (what one bundle adds to ``collected``, the aggregator's output bundle)."""
    if aggregator.app == "util:TextAggregator":
        raw = aggregator.parameters.get("rowSeparator", "")
        separator = (aggregator.parameters.get("otherRowSeparator", aggregator.parameters.get("otherSeparator", ""))
                     if raw == "other" else _SEPARATORS.get(raw, raw))
        return (call("make.text", template(aggregator.mapper.get("value", ""))),
                expr("{'text': $separator.join($collected)}", separator=str(separator), collected=collected))
    fields = template(aggregator.mapper) if aggregator.mapper else call("dict", var(feeder))
    return fields, expr("{'array': $collected}", collected=collected)


def _iterator(module: Module, rest: list[Module], lay: Layout, tail: Sequence[ast.stmt]) -> list[ast.stmt]:
    try:
        bundles = _bundles(module)
    except Untranslatable as exc:  # the array it loops over cannot be read: the loop is left to a person
        code = todo(module, f"the bundles it outputs: {exc.reason}")
        _row(lay, module, code)
        return code.lines + _unreached(rest, lay, tail)
    _row(lay, module, ModuleCode([], note="a loop over the bundles it outputs"))
    return _feed(module, bundles, rest, lay, tail)


def _feed(module: Module, bundles: ast.expr, rest: list[Module], lay: Layout, tail: Sequence[ast.stmt]) -> list[ast.stmt]:
    """Return the loop over ``module``'s bundles, closed by the Aggregator whose feeder it is (if any)."""
    at = next((i for i, m in enumerate(rest) if m.app in AGGREGATORS and m.parameters.get("feeder") == module.id), None)
    loop = "for $bundle in $bundles:\n    run.emit($id, $bundle)\n    $body"
    if at is None:
        return stmts(loop, bundle=var(module), bundles=bundles, id=module.id, body=flow(rest, lay, tail=tail))
    aggregator, inner, after = rest[at], rest[:at], rest[at + 1:]
    if any(m.routes or m.branches for m in inner) or aggregator.mapper.get("groupBy") or aggregator.parameters.get("groupBy"):
        code = todo(aggregator, "an Aggregator over routes, branches or with group-by is not translated")
        inner_lines = flow(inner, lay)
        _row(lay, aggregator, code)
        return inner_lines + code.lines + _unreached(after, lay, tail)
    collected = name(f"aggregated_{aggregator.id}")
    item, output = _aggregated(aggregator, module, collected)
    collect = stmts("$collected.append($item)", collected=collected, item=item)
    if aggregator.filter:  # the filter on the line into the Aggregator decides which bundles it collects
        try:
            test = conditions(aggregator.filter.get("conditions"))
        except Untranslatable as exc:
            code = todo(aggregator, f"filter {aggregator.filter.get('name')!r}: {exc.reason}")
            inner_lines = flow(inner, lay)
            _row(lay, aggregator, code)
            return inner_lines + code.lines + _unreached(after, lay, tail)
        collect = _passes(test, f"filter {str(aggregator.filter.get('name') or '')!r}", collect)
    looped = stmts(loop, bundle=var(module), bundles=bundles, id=module.id,
                   body=flow(inner, lay, tail=collect))
    _row(lay, aggregator, ModuleCode([], note=f"closes the loop of module {module.id}"))
    return stmts("$collected: list[Any] = []\n$looped\nif $collected:\n    $note\n    $head\n"
                 "    run.emit($id, $output)\n    $after", collected=collected, looped=looped,
                 note=_code.comment("an Aggregator that got no bundle outputs none", trailing=True),
                 head=comment(aggregator), id=aggregator.id, output=output, after=flow(after, lay, tail=tail))


def _unreached(rest: Sequence[Module], lay: Layout, tail: Sequence[ast.stmt]) -> list[ast.stmt]:
    """Lay out the modules after a TODO that raises, so each is translated (and counted) all the
    same: the code is there for the person who writes the TODO, reached once it is written."""
    if not rest:
        return []
    return [_code.comment("(below: reached once the TODO above is written)"), *flow(list(rest), lay, tail=tail)]


def _row(lay: Layout, module: Module, code: ModuleCode) -> None:
    status = "todo" if code.todo else "translated"
    lay.rows.append(NodeRow(module.label, module.app, status, code.todo or code.note))
