"""Lay out a flow's actions as nested Python, the way Power Automate runs them.

Each action is an inner ``async def`` taking the run (``run``) and returning the action's outputs,
handed to ``run.act(name, runAfter, fn)``: the run calls it only when every action of its
``runAfter`` ended with a listed status (else it is ``Skipped``), and records its status
(``Succeeded``, or ``Failed`` when it raised an action failure: the ``runAfter: {X: [Failed]}`` of
a try/catch then runs). Actions of a scope follow in ``runAfter`` order (``definition``), one
after the other: two actions after the same one are parallel branches in Power Automate, run
here in that order.

Containers: an If runs its ``actions`` or its ``else.actions`` on its expression (the branch not
taken is ``Skipped``), decides ``true``/``false`` and outputs ``{"expression": …}`` as the run
history records it; a Switch runs the first case whose value
equals its expression, else ``default``, and decides the case's value; a Scope runs its actions;
each of the three ends ``Failed`` when an action inside failed unhandled (``run.settle``). A
Foreach runs its actions once per item, each iteration with its own child run (``items('F')``,
``item()``); an Until runs its actions, then tests its expression, up to ``limit.count`` times and
``limit.timeout`` (ISO 8601) on the job's clock.
"""

from __future__ import annotations

import ast
import re

from harness.errors import Untranslatable
from harness.platforms.power_automate.definition import FlowAction, obj, switch_cases
from harness.platforms.power_automate.translate.actions import translate
from harness.platforms.power_automate.translate.gen import ActionCode, FlowBuild, row_type, todo
from harness.platforms.power_automate.translate.values import condition, value
from harness.scaffold import _code
from harness.scaffold._code import lit, name, stmts
from harness.scaffold._module import NodeRow, slug, unique

CONTAINERS = ("If", "Switch", "Foreach", "Until", "Scope")


def function(action: FlowAction, gen: FlowBuild) -> ast.Name:
    """Return the name of an action's inner function (``a_`` and the action's name, made unique)."""
    stem = re.sub(r"[^a-z0-9]+", "_", action.name.lower()).strip("_") or "action"
    return name(unique(f"a_{stem}", gen.functions).replace("-", "_"))


def scope(actions: list[FlowAction], gen: FlowBuild) -> list[ast.stmt]:
    """Return the statements that run ``actions`` (one scope's, in order)."""
    lines: list[ast.stmt] = []
    for action in actions:
        fn = function(action, gen)
        at = len(gen.rows)
        gen.rows.append(NodeRow(action.name, row_type(action, gen), "translated"))  # filled in below
        code = _container(action, gen) if action.kind in CONTAINERS else translate(action, gen)
        gen.rows[at] = NodeRow(action.name, gen.rows[at].type, "todo" if code.todo else "translated",
                               code.todo or code.note)
        after = {before: list(statuses) for before, statuses in action.run_after.items()}
        lines += stmts("async def $fn(run: power_automate.FlowRun) -> Any:\n    $doc\n    $body\n"
                       "await run.act($name, $after, $fn)", fn=fn, doc=ast.Expr(ast.Constant(_doc(action, code))),
                       body=code.lines, name=action.name, after=after)
    return lines


def _doc(action: FlowAction, code: ActionCode) -> str:
    """An action function's docstring: its type and name, and what the translation notes."""
    head = f"{action.kind} {action.name!r}"
    return f"{head}: {code.note}." if code.note and not code.todo else head


def _container(action: FlowAction, gen: FlowBuild) -> ActionCode:
    try:
        return {"If": _if, "Switch": _switch, "Foreach": _foreach, "Until": _until, "Scope": _scope}[action.kind](action, gen)
    except Untranslatable as exc:
        _skip_rows(action, gen, exc.reason)
        return todo(action, exc.reason)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:  # a shape no one expects
        why = f"its definition could not be read ({type(exc).__name__}: {exc})"
        _skip_rows(action, gen, why)
        return todo(action, why)


def _skip_rows(action: FlowAction, gen: FlowBuild, why: str) -> None:
    """Add the rows of the actions inside a container left to write (they are in its TODO)."""
    for inner in gen.flow.actions:
        if _within(inner, action.name, gen) and not any(r.node == inner.name for r in gen.rows):
            gen.rows.append(NodeRow(inner.name, row_type(inner, gen), "todo", f"inside {action.name!r}: {why}"))


def _within(inner: FlowAction, container: str, gen: FlowBuild) -> bool:
    parent = inner.parent
    while parent is not None:
        if parent == container:
            return True
        found = gen.flow.get(parent)
        parent = found.parent if found else None
    return False


def _decision(action: FlowAction, gen: FlowBuild) -> str:
    return gen.decisions.setdefault(action.name, unique(slug(action.name), set(gen.decisions.values())))


def _if(action: FlowAction, gen: FlowBuild) -> ActionCode:
    test = condition(action.spec.get("expression"))
    decision = _decision(action, gen)
    true, false = gen.flow.scope(action.name, "true"), gen.flow.scope(action.name, "false")
    lines = stmts("holds = power_automate.truth($test, $name)\nif holds:\n    run.decide($decision, 'true')\n"
                  "    run.skip(*$false_names)\n    $true_body\nelse:\n    run.decide($decision, 'false')\n"
                  "    run.skip(*$true_names)\n    $false_body\nrun.settle($name)\nreturn {'expression': holds}", test=test, name=action.name, decision=decision,
                  false_names=[a.name for a in false], true_names=[a.name for a in true],
                  true_body=scope(true, gen), false_body=scope(false, gen))
    return ActionCode(lines, note=f"decides {decision!r}: true / false")


def _switch(action: FlowAction, gen: FlowBuild) -> ActionCode:
    on = value(action.spec.get("expression"))
    decision = _decision(action, gen)
    cases = switch_cases(action.spec)
    raw_values = [block.get("case") if isinstance(block, dict) else None for _, block in cases]
    labels = [label for label, _ in cases] + ["default"]
    bodies = [gen.flow.scope(action.name, label) for label in labels]
    chain: list[ast.stmt] = _branch(decision, "default", bodies[-1], bodies, gen)
    for index in reversed(range(len(cases))):
        chain = stmts("if $on == $case:\n    $body\nelse:\n    $rest", on=name("on"), case=lit(raw_values[index]),
                      body=_branch(decision, labels[index], bodies[index], bodies, gen), rest=chain)
    lines = [*stmts("on = $on", on=on), *chain, *stmts("return run.settle($name)", name=action.name)]
    return ActionCode(lines, note=f"decides {decision!r}: {', '.join(labels)}")


def _branch(decision: str, label: str, body: list[FlowAction], every: list[list[FlowAction]], gen: FlowBuild) -> list[ast.stmt]:
    others = [a.name for actions in every if actions is not body for a in actions]
    return stmts("run.decide($decision, $label)\nrun.skip(*$others)\n$body", decision=decision, label=label,
                 others=others, body=scope(body, gen))


def _each(action: FlowAction, gen: FlowBuild) -> list[ast.stmt]:
    return stmts("async def each(run: power_automate.FlowRun) -> None:\n    $body",
                 body=scope(gen.flow.scope(action.name), gen))


def _foreach(action: FlowAction, gen: FlowBuild) -> ActionCode:
    items = value(action.spec.get("foreach"))
    config = action.spec.get("runtimeConfiguration")
    repetitions = ((config or {}).get("concurrency") or {}).get("repetitions") if isinstance(config, dict) else None
    sequential = repetitions == 1 or str(action.spec.get("operationOptions") or "").lower() == "sequential"
    note = "one iteration after another, in item order" + ("" if sequential else (
        f"; Power Automate runs up to {repetitions or 20} at once: here in order, because a job's durable steps "
        "are replayed by position (the same outputs unless iterations race on a variable)"))
    lines = [*_each(action, gen), *stmts("return await run.foreach($name, $items, each)", name=action.name, items=items)]
    return ActionCode(lines, note=note)


def _until(action: FlowAction, gen: FlowBuild) -> ActionCode:
    test = condition(action.spec.get("expression"))
    limit = obj(action.spec.get("limit"))
    count = limit.get("count", 60)
    if not isinstance(count, int) or isinstance(count, bool):
        raise Untranslatable(f"the loop's limit count {count!r} is not a number")
    # absent: Logic Apps' default, an hour (learn.microsoft.com/azure/logic-apps/logic-apps-limits-and-config)
    timeout = limit.get("timeout", "PT1H")
    seconds = duration(timeout) if isinstance(timeout, str) else None
    lines = [*_each(action, gen), *stmts("return await run.until($name, each, lambda run: $test, count=$count, "
                                         "timeout=$timeout)", name=action.name, test=test, count=count, timeout=seconds)]
    note = f"at most {count} iterations"
    if seconds is not None:
        note += f" or {timeout} on the job's clock (run.now())"
    elif timeout is not None:
        note += f"; its timeout {timeout!r} is not an ISO 8601 duration written out: not enforced (the count is)"
    return ActionCode(lines, note=note)


_DURATION = re.compile(r"P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?"
                       r"(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?")
# seconds of Y, M (30 days, as the Delay's month), W, D, H, M, S
_UNITS = (365 * 86400, 30 * 86400, 7 * 86400, 86400, 3600, 60, 1)


def duration(text: str) -> float | None:
    """Return an ISO 8601 duration (``PT1H``, ``P1DT30M``) in seconds, or None when it is not one."""
    found = _DURATION.fullmatch(text.strip().upper())
    if found is None or not any(found.groups()) or text.strip().upper().endswith("T"):
        return None
    return float(sum(float(part) * unit for part, unit in zip(found.groups(), _UNITS) if part))


def _scope(action: FlowAction, gen: FlowBuild) -> ActionCode:
    lines = [*scope(gen.flow.scope(action.name), gen), *stmts("return run.settle($name)", name=action.name)]
    return ActionCode(lines, note="Failed when an action inside failed unhandled")
