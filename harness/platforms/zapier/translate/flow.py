"""Lay out a Zap as nested Python, the way Zapier runs it: the trigger, then each step in order.

A Zap is a chain from its trigger (each step's ``parent_id`` the one before). A Filter by Zapier
step ends the run ``filtered`` when its rules fail (inside a path: ends that path). A Paths step
(``BranchingAPI`` ``branch``) tries each of its paths in order, every path whose rules pass runs
its own chain (``run.path`` records the decision), and nothing follows a Paths step. A step that
outputs several objects (a Code step returning an array, Looping by Zapier) runs the rest once per
object. One job runs the whole Zap run, as one Zap run is one trace of ``cutover import zapier``.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.zapier.definition import ZapStep
from harness.platforms.zapier.translate import apps
from harness.platforms.zapier.translate.fields import template
from harness.platforms.zapier.translate.steps import BUILTINS, ZapGen, StepCode, family, todo, var
from harness.scaffold import _code
from harness.scaffold._code import lit, stmts
from harness.scaffold._module import NodeRow, slug, unique
from queue_core.compat.zapier import FILTER_OPERATORS


@dataclass
class ZapLayout:
    """The state of laying out one Zap: rows of the table, decisions by step id, the children of each step."""

    gen: ZapGen
    children: dict[str, list[ZapStep]]
    rows: list[NodeRow] = field(default_factory=list)
    decisions: dict[str, str] = field(default_factory=dict)  # filter/branch step id -> decision name


def step_type(step: ZapStep) -> str:
    """Return a step's type as the estate table (and proved.json) names it: ``<selected_api>:<action>``; a
    Formatter step's says which transform: ``<selected_api>:<action>:<transform>`` (the Zapfile's spelling)."""
    if family(step.app) == "Formatter" and step.kind not in ("trigger",):
        return f"{step.app}:{step.action}:{step.params.get('transform') or ''}"
    return f"{step.app}:{step.action}"


def comment(step: ZapStep) -> ast.stmt:
    """Return the comment line that heads a step's code."""
    return _code.comment(f"{step_type(step)} {step.label!r} (step {step.id})")


def criteria(params: dict[str, Any], known: set[str]) -> tuple[ast.expr, ast.expr]:
    """Return the (continue groups, stop groups) expressions of a filter's ``filter_criteria``.

    Rules with the same ``group`` are ANDed; the groups are ORed. A rule's ``key`` names the field
    (``5__email``, a reference without braces), its ``value`` is mapped text.
    """
    rules = params.get("filter_criteria")
    if not isinstance(rules, list) or not rules:
        raise Untranslatable("the filter has no rules")
    groups: dict[tuple[str, str], list[ast.expr]] = {}
    for rule in rules:
        if not isinstance(rule, dict):
            raise Untranslatable("a rule is not an object")
        match = str(rule.get("match") or "")
        if match not in FILTER_OPERATORS:
            raise Untranslatable(f"filter rule {match!r} is not translated")
        key = str(rule.get("key") or "")
        if not key:
            raise Untranslatable("a rule names no field")
        subject = template(key if "{{" in key else "{{" + key + "}}", known)
        action = str(rule.get("action") or "continue")
        if action not in ("continue", "stop"):
            raise Untranslatable(f"rule action {action!r} is not translated")
        groups.setdefault((action, str(rule.get("group"))), []).append(
            ast.Tuple([lit(match), subject, template(rule.get("value", ""), known)], ast.Load()))
    def of(action: str) -> ast.expr:
        return ast.List([ast.List(g, ast.Load()) for (a, _), g in groups.items() if a == action], ast.Load())
    return of("continue"), of("stop")


def _decision(lay: ZapLayout, step: ZapStep) -> str:
    return lay.decisions.setdefault(step.id, unique(slug(step.label), set(lay.decisions.values())))


def _row(lay: ZapLayout, step: ZapStep, code: StepCode) -> None:
    lay.rows.append(NodeRow(step.label, step_type(step), "todo" if code.todo else "translated", code.todo or code.note))


def translate(step: ZapStep, gen: ZapGen, known: set[str]) -> StepCode:
    """Translate an action or search step (a builtin, else an app through the catalogue), or return its TODO."""
    translator = BUILTINS.get(family(step.app), apps.app_step)
    try:
        return translator(step, gen, known)
    except Untranslatable as exc:
        return todo(step, exc.reason)


def chain(parent: str, lay: ZapLayout, known: set[str], in_path: bool = False) -> list[ast.stmt]:
    """Return the statements that run the steps after step ``parent`` (its children), in Zapier's order."""
    below = lay.children.get(parent, [])
    if not below:
        return []
    step = below[0]
    lines: list[ast.stmt] = [comment(step)]
    if len(below) > 1 and step.kind != "path":
        code = todo(step, f"step {parent} has {len(below)} next steps outside a Paths step")
        _row(lay, step, code)
        return lines + code.lines
    if step.kind == "filter":
        return lines + _filter(step, lay, known, in_path)
    if step.kind == "branch":
        return lines + _paths(step, lay, known)
    code = translate(step, lay.gen, known)
    _row(lay, step, code)
    after = chain(step.id, lay, known | {step.id}, in_path)
    return lines + _emitted(step, code, after)


def _emitted(step: ZapStep, code: StepCode, after: list[ast.stmt]) -> list[ast.stmt]:
    lines = list(code.lines)
    if code.outputs is not None:
        item = _code.name(f"each_{var(step).id}")
        return lines + stmts("for $item in $outputs:\n    run.emit($id, $item)\n    $after", item=item,
                             outputs=code.outputs, id=step.id, after=after or stmts("pass"))
    return lines + stmts("run.emit($id, $output)", id=step.id, output=code.output) + after


def _filter(step: ZapStep, lay: ZapLayout, known: set[str], in_path: bool) -> list[ast.stmt]:
    try:
        proceed, stop = criteria(step.params, known)
    except Untranslatable as exc:  # the run stops here; the steps after it are laid out all the same
        code = todo(step, exc.reason)
        _row(lay, step, code)
        return code.lines + chain(step.id, lay, known, in_path)
    decision = _decision(lay, step)
    lay.rows.append(NodeRow(step.label, step_type(step), "translated", "stops the run when its rules fail"))
    after = chain(step.id, lay, known, in_path)
    if in_path:  # inside a path, a filter that stops ends that path
        return stmts("if run.gate($decision, $proceed, $stop):\n    $after", decision=decision, proceed=proceed,
                     stop=stop, after=after or stmts("pass"))
    return stmts("run.filter($decision, $proceed, $stop, label=$label)", decision=decision, proceed=proceed,
                 stop=stop, label=step.label) + after


def _paths(step: ZapStep, lay: ZapLayout, known: set[str]) -> list[ast.stmt]:
    decision = _decision(lay, step)
    paths = lay.children.get(step.id, [])
    lay.rows.append(NodeRow(step.label, step_type(step), "translated",
                            f"{len(paths)} paths; every path whose rules pass runs, in order"))
    lines = stmts("run.paths($decision)", decision=decision)
    for path in paths:
        if path.kind != "path":
            code = todo(path, "a step under a Paths step that is not a path")
            _row(lay, path, code)
            lines += code.lines
            continue
        try:
            proceed, stop = criteria(path.params, known) if path.params.get("filter_criteria") else (
                ast.List([], ast.Load()), ast.List([], ast.Load()))
        except Untranslatable as exc:
            code = todo(path, exc.reason)
            _row(lay, path, code)
            lines += code.lines
            continue
        lay.rows.append(NodeRow(path.label, step_type(path), "translated", f"a path of {step.label!r}"))
        body = chain(path.id, lay, known, in_path=True)
        lines += [comment(path), *stmts("if run.path($decision, $label, $proceed, $stop):\n    $body",
                                        decision=decision, label=path.label, proceed=proceed, stop=stop,
                                        body=body or stmts("pass"))]
    return lines


def unreached(steps: Sequence[ZapStep], lay: ZapLayout) -> None:
    """Add a row for every step the layout never reached (a chain broken in the export)."""
    seen = {r.node for r in lay.rows}
    for step in steps:
        if step.label not in seen:
            lay.rows.append(NodeRow(step.label, step_type(step), "not reached", "no chain from the trigger reaches it"))
