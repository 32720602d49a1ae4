"""Translate one n8n node into lines of Python, with n8n's semantics (see ``queue_core.compat.n8n``).

Each translator gets the node and a ``Slot`` (the Python names it must use) and returns a
``NodeCode``: the lines, the variables holding each output, and whether it is translated or left
as a TODO (with the reason). A TODO node's code raises ``n8n.TodoNode`` when items reach it, so
a shadow run fails that trigger naming the node: never a silent pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import esprima

from harness.platforms.n8n.translate import expr
from harness.scaffold._credential import Credential
from harness.platforms.n8n.definition import Node
from harness.errors import Untranslatable


@dataclass(frozen=True)
class Slot:
    """The names one node's code uses: its variable stem, its input expression, step and decision."""

    var: str
    inputs: tuple[str, ...]  # one Python expression per input index (a list of items)
    step: str
    decision: str
    providers: dict[str, str]  # host -> provider name


@dataclass
class NodeCode:
    """The translation of one node."""

    lines: list[str]
    outputs: list[str]
    translated: bool = True
    why: str | None = None
    call_step: str | None = None
    decision: str | None = None
    provider_proposals: dict[str, str] = field(default_factory=dict)  # provider name -> base URL
    schedule: dict[str, Any] | None = None
    source: str | None = None
    credentials: list[Credential] = field(default_factory=list)  # read from the environment instead


def comment(node: Node) -> str:
    """Return the comment line that heads a node's code."""
    return f"# {node.short_type} {node.name!r} ({node.type} v{node.version:g})"


def _input(slot: Slot) -> str:
    return slot.inputs[0] if slot.inputs else "[]"


def todo(node: Node, slot: Slot, why: str, verbatim: str | None = None) -> NodeCode:
    """Return a TODO node: its code fails any item that reaches it, naming the node."""
    lines = [comment(node), f"# TODO: {why}"]
    if verbatim:
        lines += [f"#     {line}" for line in verbatim.splitlines()[:40]]
    lines += [f"if {_input(slot)}:", f"    raise n8n.TodoNode({node.name!r}, {why!r})", f"{slot.var}: n8n.Items = []"]
    return NodeCode(lines, [slot.var], translated=False, why=why)


def trigger(node: Node, slot: Slot) -> NodeCode:
    """The trigger: a Webhook's delivery item, a schedule's tick, or the trigger body's items."""
    kind = node.short_type.lower()
    if kind == "webhook":
        lines = [comment(node), f"{slot.var} = flow.emit({node.name!r}, n8n.webhook_items(trigger))"]
        path = node.parameters.get("path")
        return NodeCode(lines, [slot.var], source=f"webhook {node.parameters.get('httpMethod', 'GET')} /{path or ''}")
    lines = [comment(node), f"{slot.var} = flow.emit({node.name!r}, n8n.trigger_items(trigger))"]
    code = NodeCode(lines, [slot.var])
    if kind in ("scheduletrigger", "cron"):
        code.schedule = schedule_of(node)
        if code.schedule is None:
            code.why = "schedule rule not translated to cron: set schedule= by hand"
    return code


_UNIT_FIELDS = {"minutes": "minutesInterval", "hours": "hoursInterval", "days": "daysInterval"}


def schedule_of(node: Node) -> dict[str, Any] | None:
    """Return ``{"cron": …}`` for a Schedule Trigger or Cron node's rule (None when unsupported)."""
    params = node.parameters
    if node.short_type.lower() == "cron":
        items = (params.get("triggerTimes") or {}).get("item") or []
        if len(items) == 1 and items[0].get("mode") == "custom" and items[0].get("cronExpression"):
            return {"cron": str(items[0]["cronExpression"])}
        if len(items) == 1 and items[0].get("mode") == "everyMinute":
            return {"cron": "* * * * *"}
        return None
    rules = (params.get("rule") or {}).get("interval") or [{}]
    if len(rules) != 1:
        return None
    rule = rules[0]
    field_name = rule.get("field", "days")
    if field_name == "cronExpression" and rule.get("expression"):
        return {"cron": str(rule["expression"])}
    if field_name == "minutes":
        return {"cron": f"*/{int(rule.get('minutesInterval', 5))} * * * *"}
    if field_name == "hours":
        return {"cron": f"{int(rule.get('triggerAtMinute', 0))} */{int(rule.get('hoursInterval', 1))} * * *"}
    if field_name == "days":
        hour, minute = int(rule.get("triggerAtHour", 0)), int(rule.get("triggerAtMinute", 0))
        every = int(rule.get("daysInterval", 1))
        return {"cron": f"{minute} {hour} {'*' if every == 1 else f'*/{every}'} * *"}
    return None


def noop(node: Node, slot: Slot) -> NodeCode:
    """NoOp: the items pass through."""
    inp = _input(slot)
    return NodeCode([comment(node), f"{slot.var} = flow.emit({node.name!r}, {inp}) if {inp} else []"], [slot.var])


# -- conditions ------------------------------------------------------------------------------

def _filter_options(node: Node) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    conditions = node.parameters.get("conditions") or {}
    options = conditions.get("options") or {}
    node_options = node.parameters.get("options") or {}
    case = options.get("caseSensitive")
    if case is None:
        case = not node_options.get("ignoreCase", False)
    loose = bool(node.parameters.get("looseTypeValidation") or node_options.get("looseTypeValidation"))
    strict = options.get("typeValidation") == "strict" and not loose
    version = options.get("version") or (2 if node.version >= 2.2 else 1)
    return ({"case_sensitive": bool(case), "strict": strict, "version": int(version)},
            list(conditions.get("conditions") or []), str(conditions.get("combinator") or "and"))


def condition_source(node: Node, prefix: str = "") -> tuple[str, str]:
    """Return (options constant source, boolean expression source) of a filter-model node."""
    options, conditions, combinator = _filter_options(node)
    if not conditions:
        return repr(options), "True"
    parts = []
    for index, cond in enumerate(conditions):
        op = cond.get("operator") or {}
        extra = ""
        if op.get("rightType"):
            extra += f", right_type={op['rightType']!r}"
        if op.get("singleValue"):
            extra += ", single_value=True"
        right = "None" if op.get("singleValue") else expr.value(cond.get("rightValue"))
        parts.append(f"n8n.check({op.get('type', 'string')!r}, {op.get('operation', 'equals')!r}, "
                     f"{expr.value(cond.get('leftValue'))}, {right}, **{prefix}OPTIONS{extra}, "
                     f"where=f'[condition {index}, item {{i}}]')")
    joiner = "\n        and " if combinator == "and" else "\n        or "
    return repr(options), joiner.join(parts)


def _v1_conditions(node: Node) -> str:
    conditions = node.parameters.get("conditions") or {}
    parts = []
    for kind in ("boolean", "dateTime", "number", "string"):
        for cond in conditions.get(kind) or []:
            parts.append(f"n8n.if_v1({kind!r}, {cond.get('operation', 'equal')!r}, "
                         f"{expr.value(cond.get('value1'))}, {expr.value(cond.get('value2'))})")
    if not parts:
        return "False"
    joiner = "\n        or " if node.parameters.get("combineOperation") == "any" else "\n        and "
    return joiner.join(parts)


def _test_function(node: Node, slot: Slot) -> tuple[list[str], str]:
    name = f"{slot.var}_test"
    if node.version >= 2:
        options, expression = condition_source(node, prefix=f"{slot.var.upper()}_")
        head = [f"{slot.var.upper()}_OPTIONS = {options}"]
    else:
        expression, head = _v1_conditions(node), []
    lines = head + [f"def {name}(item: n8n.Item, i: int) -> bool:", "    return (",
                    *[f"        {line.strip()}" for line in expression.splitlines()], "    )"]
    return lines, name


def if_node(node: Node, slot: Slot) -> NodeCode:
    """IF: items split into the true and false outputs; the decision names the outputs taken."""
    inp = _input(slot)
    fn_lines, fn = _test_function(node, slot)
    on_error = "continue" if node.on_error != "stop" else "stop"
    t, f = f"{slot.var}_true", f"{slot.var}_false"
    lines = [comment(node), f"items = {inp}", *fn_lines,
             f"{t}, {f} = flow.split({node.name!r}, {slot.decision!r}, items, {fn}, on_error={on_error!r}) "
             f"if items else ([], [])"]
    return NodeCode(lines, [t, f], decision=slot.decision)


def filter_node(node: Node, slot: Slot) -> NodeCode:
    """Filter: only the items whose conditions hold go on (a run that keeps none ends filtered)."""
    inp = _input(slot)
    fn_lines, fn = _test_function(node, slot)
    on_error = "continue" if node.on_error != "stop" else "stop"
    lines = [comment(node), f"items = {inp}", *fn_lines,
             f"{slot.var} = flow.keep({node.name!r}, items, {fn}, on_error={on_error!r}) if items else []"]
    return NodeCode(lines, [slot.var])


def switch_node(node: Node, slot: Slot) -> NodeCode:
    """Switch v3 (rules or expression mode): each item goes to its matching output(s)."""
    if node.version < 3:
        return todo(node, slot, f"Switch v{node.version:g} (rules of the older model) is not translated")
    params = node.parameters
    inp = _input(slot)
    if params.get("mode") == "expression":
        count = int(params.get("numberOutputs", 4))
        names = [str(i) for i in range(count)]
        chooser = [f"def {slot.var}_choose(item: n8n.Item, i: int) -> list[int]:",
                   f"    return [int(n8n.num({expr.value(params.get('output'))}))]"]
    else:
        names, chooser = _switch_rules(node, slot)
    outs = [f"{slot.var}_{i}" for i in range(len(names))]
    lines = [comment(node), f"items = {inp}", *chooser,
             f"{', '.join(outs)}{',' if len(outs) == 1 else ''} = flow.route({node.name!r}, {slot.decision!r}, items, "
             f"{slot.var}_choose, {names!r}) if items else {[[] for _ in outs]!r}"]
    return NodeCode(lines, outs, decision=slot.decision)


def _switch_rules(node: Node, slot: Slot) -> tuple[list[str], list[str]]:
    params = node.parameters
    rules = ((params.get("rules") or {}).get("values")) or []
    options = params.get("options") or {}
    names = [str(r.get("outputKey")) if r.get("renameOutput") and r.get("outputKey") else str(i)
             for i, r in enumerate(rules)]
    fallback = options.get("fallbackOutput", "none")
    lines = [f"def {slot.var}_choose(item: n8n.Item, i: int) -> list[int]:", "    chosen = []"]
    for index, rule in enumerate(rules):
        fake = Node(node.name, node.type, node.version, {"conditions": rule.get("conditions") or {},
                                                       "options": options, "looseTypeValidation":
                                                       params.get("looseTypeValidation")})
        opts, expression = condition_source(fake, prefix=f"{slot.var.upper()}_{index}_")
        lines.insert(0, f"{slot.var.upper()}_{index}_OPTIONS = {opts}")
        lines += [f"    if ({expression}):", f"        chosen.append({index})"]
        if not options.get("allMatchingOutputs"):
            lines += ["        return chosen"]
    if fallback == "extra":
        names.append(str(options.get("renameFallbackOutput") or "Fallback"))
        lines += [f"    return chosen or [{len(rules)}]"]
    elif isinstance(fallback, int):
        lines += [f"    return chosen or [{fallback}]"]
    else:
        lines += ["    return chosen"]
    return names, lines


# -- data ------------------------------------------------------------------------------------

_SET_TYPES = {"stringValue", "numberValue", "booleanValue", "arrayValue", "objectValue"}


def set_node(node: Node, slot: Slot) -> NodeCode:
    """Set / Edit Fields: assignments written onto each item (or onto an empty one)."""
    params = node.parameters
    options = params.get("options") or {}
    dot = options.get("dotNotation", True) is not False
    if node.version < 3:
        fields = [(str(v.get("name", "propertyName")), expr.value(v.get("value")))
                  for kind in ("string", "number", "boolean") for v in (params.get("values") or {}).get(kind) or []]
        keep_only = bool(params.get("keepOnlySet"))
    else:
        if params.get("mode") == "raw":
            raise Untranslatable("Edit Fields in JSON mode is not translated")
        fields = _set_v3_fields(params)
        include = params.get("include", "all")
        keep_only = include == "none" if node.version < 3.3 else not params.get("includeOtherFields", False)
        if include in ("selected", "except"):
            raise Untranslatable(f"Edit Fields with include={include!r} is not translated")
    pairs = ", ".join(f"({name!r}, {source})" for name, source in fields)
    inp = _input(slot)
    lines = [comment(node), f"items = {inp}",
             f"{slot.var} = flow.each({node.name!r}, items, lambda item, i: n8n.assign(item, [{pairs}], "
             f"keep_only_set={keep_only}, dot_notation={dot})) if items else []"]
    return NodeCode(lines, [slot.var])


def _set_v3_fields(params: dict[str, Any]) -> list[tuple[str, str]]:
    assignments = (params.get("assignments") or {}).get("assignments")
    if assignments is not None:
        entries = [(str(a.get("name", "")), a.get("value"), str(a.get("type", "string"))) for a in assignments]
    else:
        entries = []
        for entry in (params.get("fields") or {}).get("values") or []:
            kind = str(entry.get("type", "stringValue"))
            key = kind if kind in _SET_TYPES else "stringValue"
            entries.append((str(entry.get("name", "")), entry.get(key), kind.replace("Value", "")))
    return [(name, f"n8n.typed({name!r}, {expr.value(raw)}, {kind!r})") for name, raw, kind in entries]


def merge_node(node: Node, slot: Slot) -> NodeCode:
    """Merge: append, choose a branch, or combine by matching fields."""
    params = node.parameters
    first = slot.inputs[0] if slot.inputs else "[]"
    second = slot.inputs[1] if len(slot.inputs) > 1 else "[]"
    mode = params.get("mode", "append")
    if mode == "append":
        body = f"n8n.merge_append({first}, {second})"
    elif mode == "chooseBranch":
        which = 1 if str(params.get("output", params.get("chooseBranchMode", "input1"))).endswith("2") else 0
        body = f"n8n.merge_choose([{first}, {second}], {which})"
    elif mode in ("combine", "mergeByKey") and params.get("combinationMode", params.get("combineBy", "mergeByFields")) in (
            "mergeByFields", "combineByFields"):
        body = _merge_by_fields(params, first, second)
    else:
        raise Untranslatable(f"Merge mode {mode!r} is not translated")
    lines = [comment(node), f"{slot.var} = flow.emit({node.name!r}, {body}) if ({first} or {second}) else []"]
    return NodeCode(lines, [slot.var])


def _merge_by_fields(params: dict[str, Any], first: str, second: str) -> str:
    values = ((params.get("mergeByFields") or params.get("fieldsToMatch") or {}).get("values")) or []
    pairs = [(str(v.get("field1", "")), str(v.get("field2", ""))) for v in values]
    options = params.get("options") or {}
    clash = ((options.get("clashHandling") or {}).get("values") or {}).get("resolveClash", "preferInput2")
    join = params.get("joinMode", "keepMatches")
    output_from = params.get("outputDataFrom", "both")
    return (f"n8n.merge_by_fields({first}, {second}, {pairs!r}, join={join!r}, output_from={output_from!r}, "
            f"clash={clash!r})")


def code_node(node: Node, slot: Slot) -> NodeCode:
    """Code: a literal ``return [...]`` is translated; any other JavaScript is kept for a person."""
    params = node.parameters
    if params.get("language") in ("python", "pythonNative"):
        return _code_to_write(node, slot, str(params.get("pythonCode") or ""), "Python")
    source = str(params.get("jsCode") or params.get("functionCode") or "")
    literal = _literal_return(source)
    if literal is None:
        return _code_to_write(node, slot, source, "JavaScript")
    items = literal if isinstance(literal, list) else [literal]
    wrapped = [i if isinstance(i, dict) and "json" in i else {"json": i} for i in items]
    inp = _input(slot)
    lines = [comment(node), "# The node returned literal items (its JavaScript, translated):",
             f"{slot.var} = flow.emit({node.name!r}, {wrapped!r}) if {inp} else []"]
    return NodeCode(lines, [slot.var])


def test_data_node(node: Node, slot: Slot) -> NodeCode:
    """n8n's own test-data node (``n8n-nodes-testing.testData``): its ``data`` items."""
    data = node.parameters.get("data")
    if not isinstance(data, list):
        raise Untranslatable("test data without a data list")
    wrapped = [{"json": d} for d in data]
    inp = _input(slot)
    return NodeCode([comment(node), f"{slot.var} = flow.emit({node.name!r}, {wrapped!r}) if {inp} else []"],
                    [slot.var])


def _code_to_write(node: Node, slot: Slot, source: str, language: str) -> NodeCode:
    """A Code node's source, kept as the docstring of the Python function a person writes."""
    why = "Code node: JavaScript to rewrite in Python" if language == "JavaScript" else (
        "Code node: its Python (n8n's items API) to rewrite over the items")
    mode = node.parameters.get("mode", "runOnceForAllItems")
    fn = f"{slot.var}_code"
    quoted = source.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = [comment(node), f"# TODO: {why} ({mode})", f"def {fn}(items: n8n.Items) -> n8n.Items:",
             f'    """Do what the Code node {node.name!r} did; its {language}:', ""]
    lines += [f"    {line}".rstrip() for line in quoted.splitlines()]
    lines += ['    """', f"    raise n8n.TodoNode({node.name!r}, {why!r})",
              f"{slot.var} = flow.emit({node.name!r}, {fn}({_input(slot)})) if {_input(slot)} else []"]
    return NodeCode(lines, [slot.var], translated=False, why=why)


def _literal_return(source: str) -> Any:
    text = source.strip().rstrip(";").strip()
    if not text.startswith("return"):
        return None
    try:
        tree = esprima.parseScript(f"({text[len('return'):].strip()})")
        return _literal_value(tree.body[0].expression)
    except (esprima.Error, Untranslatable, AttributeError, IndexError):
        return None


def _literal_value(node: Any) -> Any:
    if node.type == "Literal" and node.regex is None:
        return node.value
    if node.type == "ArrayExpression":
        return [_literal_value(e) for e in node.elements]
    if node.type == "ObjectExpression":
        return {(p.key.name if p.key.type == "Identifier" else str(p.key.value)): _literal_value(p.value)
                for p in node.properties}
    if node.type == "UnaryExpression" and node.operator == "-" and node.argument.type == "Literal":
        return -node.argument.value
    raise Untranslatable("not a literal")


def wait_node(node: Node, slot: Slot) -> NodeCode:
    """Wait (an interval): a durable ``ctx.sleep``; other resume modes are left to a person."""
    params = node.parameters
    if params.get("resume", "timeInterval") != "timeInterval":
        raise Untranslatable(f"Wait resuming on {params.get('resume')!r} is not translated")
    factor = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}.get(str(params.get("unit", "hours")), 1)
    seconds = float(params.get("amount", 1)) * factor
    inp = _input(slot)
    lines = [comment(node), f"if {inp}:", f"    await ctx.sleep({seconds:g})",
             f"{slot.var} = flow.emit({node.name!r}, {inp}) if {inp} else []"]
    return NodeCode(lines, [slot.var])


Translator = Callable[[Node, Slot], NodeCode]
