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

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.platforms.make.definition import Module, route_value
from harness.platforms.make.translate.iml import template
from harness.platforms.make.translate.modules import Gen, ModuleCode, one_line, todo, translate, var
from harness.scaffold._module import NodeRow
from queue_core.compat.make import FILTER_OPERATORS
from harness.errors import Untranslatable


FEEDERS = ("builtin:BasicFeeder", "builtin:BasicRepeater")
AGGREGATORS = ("builtin:BasicAggregator", "util:TextAggregator")
_SEPARATORS = {"\\n": "\n", "\\t": "\t", "\n": "\n", "\t": "\t"}


@dataclass
class Layout:
    """The state of laying out one scenario: rows of the table, decisions by router id."""

    gen: Gen
    rows: list[NodeRow] = field(default_factory=list)
    decisions: dict[int, str] = field(default_factory=dict)  # router id -> decision name


def indent(lines: Sequence[str]) -> list[str]:
    """Return ``lines`` one level deeper (``pass`` for none)."""
    return [f"    {line}" if line else "" for line in (lines or ["pass"])]


def comment(module: Module) -> str:
    """Return the comment line that heads a module's code."""
    return f"# {one_line(module.app)} {module.label!r} (module {module.id}, v{module.version})"


def conditions(raw: Any) -> str:
    """Return Python source for filter conditions ``[[{a, o, b}]]`` (OR of ANDs)."""
    groups = []
    for group in raw or []:
        items = []
        for cond in group or []:
            operator = str((cond or {}).get("o") or "")
            if operator not in FILTER_OPERATORS:
                raise Untranslatable(f"filter operator {operator!r} is not translated")
            items.append(f"({operator!r}, {template(cond.get('a'))}, {template(cond.get('b'))})")
        groups.append("[" + ", ".join(items) + "]")
    return "[" + ", ".join(groups) + "]"


def flow(modules: Sequence[Module], lay: Layout, *, on_first: Sequence[str] = (), tail: Sequence[str] = ()) -> list[str]:
    """Return the lines that run ``modules`` (a flow) on the current bundle, then ``tail``.

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
        return lines + code.lines
    body = [*on_first, *_module_lines(module, rest, lay, tail)]
    if test is None:
        return lines + body
    name = str(module.filter.get("name") or "")  # type: ignore[union-attr]
    return lines + [f"if make.passes({test}):  # filter {name!r}", *indent(body)]


def _module_lines(module: Module, rest: list[Module], lay: Layout, tail: Sequence[str]) -> list[str]:
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
        return code.lines
    code = translate(module, lay.gen)
    _row(lay, module, code)
    return _emitted(module, code, flow(rest, lay, tail=tail))


def _emitted(module: Module, code: ModuleCode, after: list[str]) -> list[str]:
    """Return the module's lines, its error handler, the emit of its bundle(s), then ``after``."""
    handler = module.onerror[0].app if module.onerror else None
    lines = list(code.lines)
    if code.bundles is not None:
        lines.append(f"bundles_{module.id} = list({code.bundles})")
        emit = [f"for {var(module)} in bundles_{module.id}:", *indent([f"run.emit({module.id}, {var(module)})", *after])]
    else:
        if code.bundle != var(module):
            lines.append(f"{var(module)} = {code.bundle}")
        emit = [f"run.emit({module.id}, {var(module)})", *after]
    if handler == "builtin:Ignore" and code.todo is None:
        return [f"ok_{module.id} = True", "try:", *indent(lines), "except Exception as exc:  # builtin:Ignore",
                *indent([f"ok_{module.id} = run.ignored({module.id}, exc)"]), f"if ok_{module.id}:", *indent(emit)]
    if handler == "builtin:Resume" and code.todo is None:
        resume = template(module.onerror[0].mapper)
        target = f"bundles_{module.id} = [{resume}]" if code.bundles is not None else f"{var(module)} = {resume}"
        return ["try:", *indent(lines), "except Exception as exc:  # builtin:Resume: its output stands in",
                *indent([f"run.ignored({module.id}, exc)", target]), *emit]
    if handler is not None and code.todo is None:
        lines.insert(0, f"# TODO: error handler {one_line(handler)} is not translated: an error fails the run")
    return lines + emit


def _router(module: Module, rest: list[Module], lay: Layout, tail: Sequence[str]) -> list[str]:
    from harness.scaffold._module import slug, unique

    decision = lay.decisions.setdefault(module.id, unique(slug(module.label), set(lay.decisions.values())))
    names = [route_value(route, i) for i, route in enumerate(module.routes)]
    _row(lay, module, ModuleCode([], note=f"{len(names)} routes; every route whose filter passes runs"))
    lines = [f"run.router({module.id}, {decision!r}, {names!r})"]
    for index, route in enumerate(module.routes):
        lines += [f"# route {index}: {names[index]!r}",
                  *flow(route, lay, on_first=[f"run.took({module.id}, {index})"], tail=tail)]
    return lines + flow(rest, lay, tail=())


def _if_else(module: Module, rest: list[Module], lay: Layout, tail: Sequence[str]) -> list[str]:
    _row(lay, module, ModuleCode([], note="the first branch whose condition holds runs"))
    lines: list[str] = [f"run.emit({module.id}, {{}})"]
    keyword = "if"
    for branch in module.branches:
        body = flow(branch.flow, lay)
        if branch.conditions is None:
            lines += ["else:" if keyword == "elif" else "if True:", *indent(body)]
            break
        try:
            test = conditions(branch.conditions)
        except Untranslatable as exc:
            code = todo(module, f"branch {branch.label!r}: {exc.reason}")
            return code.lines
        lines += [f"{keyword} make.passes({test}):  # branch {branch.label!r}", *indent(body)]
        keyword = "elif"
    return lines + flow(rest, lay, tail=tail)


def _bundles(module: Module) -> str:
    """Return the Python expression of an Iterator's or a Repeater's bundles."""
    if module.app == "builtin:BasicRepeater":
        m = module.mapper
        return f"make.repeat({template(m.get('start', 1))}, {template(m.get('repeats', 1))}, {template(m.get('step', 1))})"
    return f"make.iterate({template(module.mapper.get('array'))})"


def _aggregated(aggregator: Module, feeder: Module, collected: str) -> tuple[str, str]:
    """Return (what one bundle adds to ``collected``, the aggregator's output bundle)."""
    if aggregator.app == "util:TextAggregator":
        raw = aggregator.parameters.get("rowSeparator", "")
        separator = aggregator.parameters.get("otherSeparator", "") if raw == "other" else _SEPARATORS.get(raw, raw)
        return (f"make.text({template(aggregator.mapper.get('value', ''))})",
                f"{{'text': {str(separator)!r}.join({collected})}}")
    fields = template(aggregator.mapper) if aggregator.mapper else f"dict({var(feeder)})"
    return fields, f"{{'array': {collected}}}"


def _iterator(module: Module, rest: list[Module], lay: Layout, tail: Sequence[str]) -> list[str]:
    at = next((i for i, m in enumerate(rest) if m.app in AGGREGATORS and m.parameters.get("feeder") == module.id), None)
    _row(lay, module, ModuleCode([], note="a loop over the bundles it outputs"))
    head = f"for {var(module)} in {_bundles(module)}:"
    emit = f"run.emit({module.id}, {var(module)})"
    if at is None:
        return [head, *indent([emit, *flow(rest, lay, tail=tail)])]
    aggregator, inner, after = rest[at], rest[:at], rest[at + 1:]
    if any(m.routes or m.branches for m in inner) or aggregator.mapper.get("groupBy") or aggregator.parameters.get("groupBy"):
        code = todo(aggregator, "an Aggregator over routes, branches or with group-by is not translated")
        _row(lay, aggregator, code)
        return code.lines
    collected = f"aggregated_{aggregator.id}"
    item, output = _aggregated(aggregator, module, collected)
    collect = [f"{collected}.append({item})"]
    if aggregator.filter:  # the filter on the line into the Aggregator decides which bundles it collects
        try:
            test = conditions(aggregator.filter.get("conditions"))
        except Untranslatable as exc:
            code = todo(aggregator, f"filter {aggregator.filter.get('name')!r}: {exc.reason}")
            _row(lay, aggregator, code)
            return code.lines
        collect = [f"if make.passes({test}):  # filter {str(aggregator.filter.get('name') or '')!r}", *indent(collect)]
    loop = [head, *indent([emit, *flow(inner, lay, tail=collect)])]
    _row(lay, aggregator, ModuleCode([], note=f"closes the loop of module {module.id}"))
    return [f"{collected}: list[Any] = []", *loop, f"if {collected}:  # an Aggregator that got no bundle outputs none",
            *indent([comment(aggregator), f"run.emit({aggregator.id}, {output})", *flow(after, lay, tail=tail)])]


def _row(lay: Layout, module: Module, code: ModuleCode) -> None:
    status = "todo" if code.todo else "translated"
    lay.rows.append(NodeRow(module.label, module.app, status, code.todo or code.note))
