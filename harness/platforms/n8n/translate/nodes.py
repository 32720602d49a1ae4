"""Translate one n8n node into Python statements, with n8n's semantics (see ``queue_core.compat.n8n``).

Each translator gets the node and a ``Slot`` (the Python names it must use) and returns a
``NodeCode``: the statements (``ast`` nodes and comment markers, ``harness.scaffold._code``), the
variables holding each output, and whether it is translated or left as a TODO (with the reason).
A TODO node's code raises ``n8n.TodoNode`` when items reach it, so a shadow run fails that
trigger naming the node: never a silent pass.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.runs import output_names
from harness.platforms.n8n.translate import code, expr, schedule
from harness.platforms.n8n.translate.js import parse_expression
from harness.scaffold import _code
from harness.scaffold._code import call, lit, name, stmts
from harness.scaffold._credential import Credential


@dataclass(frozen=True)
class Slot:
    """The names one node's code uses: its variable stem, its input expression, step and decision."""

    var: str
    inputs: tuple[ast.expr, ...]  # one Python expression per input index (a list of items)
    step: str
    decision: str
    providers: dict[str, str]  # host -> provider name
    timezone: str | None = None  # the workflow's timezone setting (None: n8n's instance default)
    callees: dict[str, str] = field(default_factory=dict)  # workflow id -> automation, in the estate scaffolded


@dataclass
class NodeCode:
    """The translation of one node."""

    lines: list[ast.stmt]
    outputs: list[str]
    translated: bool = True
    why: str | None = None
    call_step: str | None = None
    decision: str | None = None
    provider_proposals: dict[str, str] = field(default_factory=dict)  # provider name -> base URL
    schedule: dict[str, Any] | None = None
    source: str | None = None
    credentials: list[Credential] = field(default_factory=list)  # read from the environment instead
    needs: dict[str, str] = field(default_factory=dict)  # an automation it calls, not in the estate -> its workflow


def comment(node: Node) -> ast.stmt:
    """Return the comment line that heads a node's code."""
    return _code.comment(f"{node.short_type} {node.name!r} ({node.type} v{node.version:g})")


def _input(slot: Slot) -> ast.expr:
    return slot.inputs[0] if slot.inputs else ast.List([], ast.Load())


def todo(node: Node, slot: Slot, why: str, verbatim: str | None = None) -> NodeCode:
    """Return a TODO node: its code fails any item that reaches it, naming the node."""
    lines = [comment(node), _code.comment(f"TODO: {why}")]
    if verbatim:
        lines += [_code.comment(f"    {line}") for line in verbatim.splitlines()[:40]]
    lines += stmts("if $inp:\n    raise n8n.TodoNode($node, $why)\n$var: n8n.Items = []",
                   inp=_input(slot), node=node.name, why=why, var=name(slot.var))
    return NodeCode(lines, [slot.var], translated=False, why=why)


def _emit(slot: Slot, node: Node, items: ast.expr) -> list[ast.stmt]:
    return stmts("$var = flow.emit($node, $items)", var=name(slot.var), node=node.name, items=items)


# The note of a node that answers its webhook caller (a Webhook's responseMode, Respond to Webhook).
ANSWERS_CALLER = "answers its caller: give its source respond_timeout_s so the request is held for the answer"


def trigger(node: Node, slot: Slot) -> NodeCode:
    """The trigger: a Webhook's delivery item, a schedule's tick, or the trigger body's items."""
    kind = node.short_type.lower()
    if kind == "webhook":
        lines = [comment(node), *_emit(slot, node, _code.expr("n8n.webhook_items(trigger)"))]
        path = node.parameters.get("path")
        answers = node.parameters.get("responseMode") in ("lastNode", "responseNode")
        return NodeCode(lines, [slot.var], source=f"webhook {node.parameters.get('httpMethod', 'GET')} /{path or ''}",
                        why=ANSWERS_CALLER if answers else None)
    items = (call("n8n.schedule_items", name("trigger"), slot.timezone or "UTC") if kind == "scheduletrigger"
             else _code.expr("n8n.trigger_items(trigger)"))
    code = NodeCode([comment(node), *_emit(slot, node, items)], [slot.var])
    if kind in ("scheduletrigger", "cron"):
        rules = schedule.rules_of(node)
        if rules.why:
            code.why = f"schedule not translated to cron: {rules.why}"
        else:
            code.schedule = {"cron": rules.crons[0] if len(rules.crons) == 1 else list(rules.crons)}
            code.why = "; ".join(rules.notes) or None
    return code


def noop(node: Node, slot: Slot) -> NodeCode:
    """NoOp: the items pass through."""
    inp = _input(slot)
    return NodeCode([comment(node), *_emit_if(slot, node, inp, inp)], [slot.var])


def _emit_if(slot: Slot, node: Node, items: ast.expr, test: ast.expr) -> list[ast.stmt]:
    """``var = flow.emit(node, items) if test else []``: a node emits only when items reached it."""
    return stmts("$var = flow.emit($node, $items) if $test else []", var=name(slot.var), node=node.name,
                 items=items, test=test)


emit_if = _emit_if  # the same, for the translators in sibling modules (``merge``)


# -- conditions ------------------------------------------------------------------------------

def _filter_options(node: Node) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    conditions = node.parameters.get("conditions") or {}
    if not isinstance(conditions, dict):  # e.g. a rule's conditions written as a bare list
        raise Untranslatable(f"conditions: expected an object with options and conditions, got a "
                             f"{type(conditions).__name__}")
    options = conditions.get("options") or {}
    node_options = node.parameters.get("options") or {}
    if not isinstance(options, dict) or not isinstance(node_options, dict):
        raise Untranslatable("options: expected an object")
    case = options.get("caseSensitive")
    if case is None:
        case = not node_options.get("ignoreCase", False)
    loose = bool(node.parameters.get("looseTypeValidation") or node_options.get("looseTypeValidation"))
    strict = options.get("typeValidation") == "strict" and not loose
    version = options.get("version") or (2 if node.version >= 2.2 else 1)
    return ({"case_sensitive": bool(case), "strict": strict, "version": int(version)},
            list(conditions.get("conditions") or []), str(conditions.get("combinator") or "and"))


def condition_source(node: Node, prefix: str = "") -> tuple[dict[str, Any], ast.expr]:
    """Return (the options constant, the boolean expression) of a filter-model node."""
    options, conditions, combinator = _filter_options(node)
    if not conditions:
        return options, lit(True)
    parts: list[ast.expr] = []
    for index, cond in enumerate(conditions):
        op = cond.get("operator") or {}
        extra: dict[str, Any] = {}
        if op.get("rightType"):
            extra["right_type"] = op["rightType"]
        if op.get("singleValue"):
            extra["single_value"] = True
        right = lit(None) if op.get("singleValue") else expr.value(cond.get("rightValue"))
        where = ast.JoinedStr([ast.Constant(f"[condition {index}, item "),
                               ast.FormattedValue(name("i"), -1, None), ast.Constant("]")])
        parts.append(_code.expr("n8n.check($type, $operation, $left, $right, **$options, **$extra, where=$where)",
                                type=op.get("type", "string"), operation=op.get("operation", "equals"),
                                left=expr.value(cond.get("leftValue")), right=right,
                                options=name(f"{prefix}OPTIONS"), extra=extra, where=where))
    return options, _joined(parts, combinator == "and")


def _joined(parts: list[ast.expr], conjunction: bool) -> ast.expr:
    return parts[0] if len(parts) == 1 else ast.BoolOp(ast.And() if conjunction else ast.Or(), parts)


def _v1_conditions(node: Node) -> ast.expr:
    conditions = node.parameters.get("conditions") or {}
    parts: list[ast.expr] = []
    for kind in ("boolean", "dateTime", "number", "string"):
        for cond in conditions.get(kind) or []:
            parts.append(call("n8n.if_v1", kind, cond.get("operation", "equal"),
                              expr.value(cond.get("value1")), expr.value(cond.get("value2"))))
    if not parts:
        return lit(False)
    if node.short_type == "filter":  # Filter v1 says AND/OR where IF v1 says all/any
        return _joined(parts, str(node.parameters.get("combineConditions", "AND")).upper() != "OR")
    return _joined(parts, node.parameters.get("combineOperation") != "any")


def _test_function(node: Node, slot: Slot) -> tuple[list[ast.stmt], str]:
    fn = f"{slot.var}_test"
    head: list[ast.stmt] = []
    if node.version >= 2:
        options, test = condition_source(node, prefix=f"{slot.var.upper()}_")
        head = stmts("$name = $options", name=name(f"{slot.var.upper()}_OPTIONS"), options=options)
    else:
        test = _v1_conditions(node)
    return head + stmts("def $fn(item: n8n.Item, i: int) -> bool:\n    return $test", fn=fn, test=test), fn


def if_node(node: Node, slot: Slot) -> NodeCode:
    """IF: items split into the true and false outputs; the decision names the outputs taken."""
    fn_lines, fn = _test_function(node, slot)
    t, f = f"{slot.var}_true", f"{slot.var}_false"
    lines = [comment(node), *stmts("items = $inp", inp=_input(slot)), *fn_lines,
             *stmts("$t, $f = flow.split($node, $decision, items, $fn, on_error=$on_error) if items else ([], [])",
                    t=name(t), f=name(f), node=node.name, decision=slot.decision, fn=name(fn),
                    on_error=_on_error(node))]
    return NodeCode(lines, [t, f], decision=slot.decision)


def _on_error(node: Node) -> str:
    return "continue" if node.on_error != "stop" else "stop"


def filter_node(node: Node, slot: Slot) -> NodeCode:
    """Filter: only the items whose conditions hold go on (a run that keeps none ends filtered)."""
    fn_lines, fn = _test_function(node, slot)
    lines = [comment(node), *stmts("items = $inp", inp=_input(slot)), *fn_lines,
             *stmts("$var = flow.keep($node, items, $fn, on_error=$on_error) if items else []",
                    var=name(slot.var), node=node.name, fn=name(fn), on_error=_on_error(node))]
    return NodeCode(lines, [slot.var])


_CHOOSER = "def $fn(item: n8n.Item, i: int) -> list[int]:\n    $body"


def switch_node(node: Node, slot: Slot) -> NodeCode:
    """Switch v3 (rules or expression mode): each item goes to its matching output(s)."""
    if node.version < 3:
        return todo(node, slot, f"Switch v{node.version:g} (rules of the older model) is not translated")
    params = node.parameters
    names = output_names(node)
    notes: list[str] = []
    if params.get("mode") == "expression":
        chooser = stmts(_CHOOSER, fn=f"{slot.var}_choose",
                        body=stmts("return [n8n.output_index($output, $count)]", output=expr.value(params.get("output")),
                                   count=len(names)))
    else:
        chooser = _switch_rules(node, slot, notes)
    outs = [f"{slot.var}_{i}" for i in range(len(names))]
    route = stmts("$outs = flow.route($node, $decision, items, $fn, $names) if items else $empty",
                  outs=ast.Tuple([name(o) for o in outs], ast.Store()), node=node.name, decision=slot.decision,
                  fn=name(f"{slot.var}_choose"), names=names, empty=[[] for _ in outs])
    lines = [comment(node), *stmts("items = $inp", inp=_input(slot)), *chooser, *route]
    return NodeCode(lines, outs, decision=slot.decision, why="; ".join(notes) or None)


def _switch_rules(node: Node, slot: Slot, notes: list[str]) -> list[ast.stmt]:
    params = node.parameters
    rules = ((params.get("rules") or {}).get("values")) or []
    options = params.get("options") or {}
    fallback = options.get("fallbackOutput", "none")
    constants: list[ast.stmt] = []
    body = stmts("chosen = []")
    for index, rule in enumerate(rules):
        conditions = rule.get("conditions") or {}
        if isinstance(conditions, list):  # not the filter value n8n writes: n8n 1.123 reads no conditions in it
            notes.append(f"rule {index}'s conditions are a bare list, not n8n's filter value: n8n reads no "
                         "conditions in it and the rule matches every item, as here")
            conditions = {}
        if not isinstance(conditions, dict):
            raise Untranslatable(f"rule {index}: conditions: expected an object with options and conditions, "
                                 f"got a {type(conditions).__name__}")
        conditions = dict(conditions)
        # n8n reads a rule's filter without a version as filter version 1 (it fills the version
        # of a top-level filter parameter, as IF's, not of one inside Switch's rule list)
        conditions["options"] = {"version": 1, **(conditions.get("options") or {})}
        fake = Node(node.name, node.type, node.version, {"conditions": conditions,
                                                       "options": options, "looseTypeValidation":
                                                       params.get("looseTypeValidation")})
        prefix = f"{slot.var.upper()}_{index}_"
        opts, test = condition_source(fake, prefix=prefix)
        constants[:0] = stmts("$name = $options", name=name(f"{prefix}OPTIONS"), options=opts)
        chosen = stmts("chosen.append($index)", index=index)
        if not options.get("allMatchingOutputs"):
            chosen += stmts("return chosen")
        body += stmts("if $test:\n    $chosen", test=test, chosen=chosen)
    if fallback == "extra":
        body += stmts("return chosen or [$n]", n=len(rules))
    elif isinstance(fallback, int):
        body += stmts("return chosen or [$n]", n=fallback)
    else:
        body += stmts("return chosen")
    return [*constants, *stmts(_CHOOSER, fn=f"{slot.var}_choose", body=body)]


# -- data ------------------------------------------------------------------------------------

_SET_TYPES = {"stringValue", "numberValue", "booleanValue", "arrayValue", "objectValue"}


def set_node(node: Node, slot: Slot) -> NodeCode:
    """Set / Edit Fields: assignments written onto each item (or onto an empty one)."""
    params = node.parameters
    options = params.get("options") or {}
    dot = options.get("dotNotation", True) is not False
    fields: ast.expr | list[tuple[str, ast.expr]]
    if node.version < 3:
        return _set_v1(node, slot, params, dot)
    else:
        fields = _raw_fields(params) if params.get("mode") == "raw" else _set_v3_fields(params, node.version)
        include = params.get("include", "all")
        keep_only = include == "none" if node.version < 3.3 else not params.get("includeOtherFields", False)
        if include in ("selected", "except"):
            raise Untranslatable(f"Edit Fields with include={include!r} is not translated")
    lines = [comment(node), *stmts("items = $inp", inp=_input(slot)),
             *stmts("$var = flow.each($node, items, lambda item, i: n8n.assign(item, $pairs, keep_only_set=$keep, "
                    "dot_notation=$dot, by_name=$by_name, binary=$binary)) if items else []", var=name(slot.var),
                    node=node.name, pairs=fields, keep=keep_only, dot=dot, by_name=node.version >= 3,
                    binary=_set_keeps_binary(node, options, keep_only))]
    return NodeCode(lines, [slot.var])


_SET_V1_DEFAULTS = {"boolean": False, "number": 0, "string": ""}


def _set_v1(node: Node, slot: Slot, params: dict[str, Any], dot: bool) -> NodeCode:
    """Set v1/v2: ``n8n.legacy_fields`` orders and converts the entries as n8n does (booleans, numbers, strings)."""
    values = params.get("values") or {}
    fields = ast.List([ast.Tuple([ast.Constant(kind), ast.Constant(str(v.get("name", "propertyName"))),
                                  _missing_told(expr.value(v.get("value", _SET_V1_DEFAULTS[kind])))], ast.Load())
                       for kind in _SET_V1_DEFAULTS for v in values.get(kind) or [] if isinstance(v, dict)], ast.Load())
    lines = [comment(node), *stmts("items = $inp", inp=_input(slot)),
             *stmts("$var = flow.each($node, items, lambda item, i: n8n.without_undefined(n8n.assign(item, "
                    "n8n.legacy_fields($fields, $version), keep_only_set=$keep, dot_notation=$dot, binary=$binary))) "
                    "if items else []", var=name(slot.var), node=node.name, fields=fields, version=node.version,
                    keep=bool(params.get("keepOnlySet")), dot=dot, binary=not params.get("keepOnlySet"))]
    return NodeCode(lines, [slot.var])


def _set_keeps_binary(node: Node, options: dict[str, Any], keep_only: bool) -> bool:
    """n8n's Set keeps the item's binary data: v1/v2 unless Keep Only Set; v3.4+ unless Strip Binary or no other
    field is kept; v3 to v3.3 only with Include Binary."""
    if node.version < 3:
        return not keep_only
    if node.version >= 3.4:
        return not options.get("stripBinary") and not keep_only
    return bool(options.get("includeBinary"))


def _set_v3_fields(params: dict[str, Any], version: float) -> list[tuple[str, ast.expr]]:
    assignments = (params.get("assignments") or {}).get("assignments")
    if assignments is not None:
        entries = [(str(a.get("name", "")), a.get("value"), str(a.get("type", "string"))) for a in assignments]
    else:
        entries = []
        for entry in (params.get("fields") or {}).get("values") or []:
            kind = str(entry.get("type", "stringValue"))
            key = kind if kind in _SET_TYPES else "stringValue"
            entries.append((str(entry.get("name", "")), entry.get(key), kind.replace("Value", "")))
    lenient = {"ignore_errors": True} if (params.get("options") or {}).get("ignoreConversionErrors") is True else {}
    return [(name_, call("n8n.typed", name_, _missing_told(expr.value(raw)), kind, **lenient, version=version))
            for name_, raw, kind in entries]


_RESOLVABLE = re.compile(r"\{\{[\s\S]*?\}\}")


def _raw_fields(params: dict[str, Any]) -> ast.expr:
    """Edit Fields in JSON mode: the JSON Output's fields, each ``{{ }}`` part resolved on its own
    (``n8n.json_output``); a plain JSON Output is parsed as it is."""
    raw = params.get("jsonOutput")
    if not isinstance(raw, str):
        raise Untranslatable("Edit Fields in JSON mode with a JSON Output that is not text")
    if not expr.is_expression(raw):
        return call("n8n.json_output", name("i"), [raw])
    source = raw.lstrip("=")
    texts, values, pos = [], [], 0
    for match in _RESOLVABLE.finditer(source):
        texts.append(source[pos:match.start()])
        values.append(_undefined_told(expr.expression(match.group(0)[2:-2])))
        pos = match.end()
    texts.append(source[pos:])
    return call("n8n.json_output", name("i"), texts, ast.List(values, ast.Load()))


def _undefined_told(value: ast.expr) -> ast.expr:
    """A JSON Output part: undefined is told from null (the text reads ``undefined``, as in n8n)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "js_expression":
        return ast.Call(value.func, value.args, [*value.keywords, ast.keyword("told", ast.Constant(True))])
    return _missing_told(value)


def _missing_told(value: ast.expr) -> ast.expr:
    """Read a whole-expression field so a missing one is told from null (``n8n.field``): Edit Fields does."""
    if not isinstance(value, ast.Call):
        return value
    func = value.func
    if isinstance(func, ast.Attribute) and func.attr == "get" and isinstance(func.value, ast.Name) and func.value.id == "n8n":
        return ast.Call(ast.Attribute(func.value, "field", ast.Load()), value.args, value.keywords)
    return value


def code_node(node: Node, slot: Slot) -> NodeCode:
    """Code / Function / Function Item: a literal ``return [...]`` becomes its items; other
    JavaScript is kept as written and run by ``n8n.code`` ("translated (JavaScript kept)", see
    ``translate.code``); what the sandbox cannot run, and Python code, is kept for a person."""
    params = node.parameters
    if node.short_type == "code" and params.get("language") in ("python", "pythonNative"):
        why = code.python_unavailable(node)
        if why is not None:
            return _code_to_write(node, slot, str(params.get("pythonCode") or ""), "Python", why)
        return NodeCode([comment(node), *code.python_kept(node, slot.var, _input(slot))], [slot.var], why=code.PYTHON_KEPT)
    source = code.js_source(node)
    literal = _literal_return(source) if node.short_type == "code" else None
    if _plain_items(literal) and node.parameters.get("mode", "runOnceForAllItems") == "runOnceForAllItems":
        items = literal if isinstance(literal, list) else [literal]
        wrapped = [i if isinstance(i, dict) and "json" in i else {"json": i} for i in items]
        lines = [comment(node), _code.comment("The node returned literal items (its JavaScript, translated):"),
                 *_emit_if(slot, node, lit(wrapped), _input(slot))]
        return NodeCode(lines, [slot.var])
    why = code.unavailable(source)
    if why is not None:
        return _code_to_write(node, slot, source, "JavaScript", why)
    return NodeCode([comment(node), *code.kept(node, slot.var, _input(slot), source, step=slot.step)], [slot.var],
                    why=code.KEPT, call_step=slot.step if code.uses_http(source) else None)


def test_data_node(node: Node, slot: Slot) -> NodeCode:
    """n8n's own test-data node (``n8n-nodes-testing.testData``): its ``data`` items."""
    data = node.parameters.get("data")
    if not isinstance(data, list):
        raise Untranslatable("test data without a data list")
    return NodeCode([comment(node), *_emit_if(slot, node, lit([{"json": d} for d in data]), _input(slot))],
                    [slot.var])


def _code_to_write(node: Node, slot: Slot, source: str, language: str, why: str | None = None) -> NodeCode:
    """A Code node's source, kept as the docstring of the Python function a person writes."""
    why = why or ("Code node: JavaScript to rewrite in Python" if language == "JavaScript" else
                  "Code node: its Python (n8n's items API) to rewrite over the items")
    mode = node.parameters.get("mode", "runOnceForAllItems")
    fn = f"{slot.var}_code"
    inner = " " * 8  # the function stands in the automation's body: its docstring's lines line up under it
    text = "\n".join([f"Do what the Code node {node.name!r} did; its {language}:", "",
                      *(f"{inner}{line}".rstrip() for line in source.splitlines()), inner])
    lines = [comment(node), _code.comment(f"TODO: {why} ({mode})"),
             *stmts("def $fn(items: n8n.Items) -> n8n.Items:\n    $doc\n    raise n8n.TodoNode($node, $why)",
                    fn=fn, doc=ast.Expr(ast.Constant(text)), node=node.name, why=why),
             *_emit_if(slot, node, call(fn, _input(slot)), _input(slot))]
    return NodeCode(lines, [slot.var], translated=False, why=why)


def _plain_items(literal: Any) -> bool:
    """Whether a literal return is items n8n takes as they are: objects, each ``{"json": {...}}`` or
    holding no item key at all (any other value goes to the runtime, which fails as n8n does)."""
    values = literal if isinstance(literal, list) else [literal]
    if literal is None or not all(isinstance(v, dict) for v in values):
        return False
    enveloped = [set(v) == {"json"} and isinstance(v["json"], dict) for v in values]
    bare = [not set(v) & {"json", "binary", "pairedItem", "error", "index"} for v in values]
    return all(enveloped) or all(bare)


def _literal_return(source: str) -> Any:
    text = source.strip().rstrip(";").strip()
    if not text.startswith("return"):
        return None
    try:
        return _literal_value(parse_expression(text[len("return"):], optional_chains=False))
    except (Untranslatable, AttributeError, IndexError):
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


Translator = Callable[[Node, Slot], NodeCode]
