"""App nodes as an agent's tools (``n8n-nodes-base.<app>Tool``, e.g. ``gmailTool``): the app node's operation
run with the model's arguments.

What n8n 1.123 does (read in its source: n8n-core's ``createNodeAsTool`` and
``makeHandleToolInvocation``, n8n-workflow's ``$fromAI`` parsing): the ``<app>Tool`` node is the
app node's description with a tool output; it is offered as a structured tool named by
``nodeNameToToolName``, described by its ``toolDescription`` (``descriptionType: manual``) or else
"<the operation's action> in <the app's default name>" ("Send a message in Gmail"); its schema has
one required property per distinct ``$fromAI(key, description, type)`` in its parameters. A call
runs the app node on one item whose json is the model's arguments (``$fromAI('key')`` reads it)
and hands the model ``JSON.stringify`` of the output items' json.

Here the parameters' ``$fromAI(…)`` calls become ``$json["key"]`` reads and the app node is
translated by :func:`apps.app_node` (its own translation, the same REST call) inside an
``async def`` the agent calls. Not read: a ``$fromAI`` whose arguments are not literals, a default
value, the ``json`` type, and an app or operation ``apps`` does not translate (its reason given).
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import apps
from harness.platforms.n8n.translate.ai_names import tool_name
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code
from harness.scaffold._code import name
from harness.scaffold._module import slug

# the app's default node name and its operations' actions (n8n's descriptions: GmailV2's
# MessageDescription, DraftDescription, …), for the description n8n makes of an app tool
APP_NAMES = {"gmail": "Gmail"}
ACTIONS = {
    ("gmail", "message", "addLabels"): "Add label to message", ("gmail", "message", "delete"): "Delete a message",
    ("gmail", "message", "get"): "Get a message", ("gmail", "message", "getAll"): "Get many messages",
    ("gmail", "message", "markAsRead"): "Mark a message as read",
    ("gmail", "message", "markAsUnread"): "Mark a message as unread",
    ("gmail", "message", "removeLabels"): "Remove label from message",
    ("gmail", "message", "reply"): "Reply to a message", ("gmail", "message", "send"): "Send a message",
    ("gmail", "draft", "create"): "Create a draft",
}
_CALL = re.compile(r"(?:/\*\s*n8n-auto-generated-fromAI-override\s*\*/\s*)?\$fromAI\s*\(")
_SCHEMA = "http://json-schema.org/draft-07/schema#"
_TYPES = ("string", "number", "boolean")


def _arguments(text: str, start: int) -> tuple[list[str], int]:
    """Read the literal string arguments of a ``$fromAI(`` call from ``start``; return them and the end."""
    args: list[str] = []
    i = start
    while True:
        while i < len(text) and text[i] in " \t\n,":
            i += 1
        if i < len(text) and text[i] == ")":
            return args, i + 1
        if i >= len(text) or text[i] not in "'\"`":
            raise Untranslatable("a $fromAI() argument that is not a literal string is not translated")
        quote, i, value = text[i], i + 1, []
        while i < len(text) and text[i] != quote:
            if text[i] == "\\" and i + 1 < len(text):
                i += 1
            if quote == "`" and text.startswith("${", i):
                raise Untranslatable("a $fromAI() argument with a template placeholder is not translated")
            value.append(text[i])
            i += 1
        args.append("".join(value))
        i += 1


def rewritten(value: Any, found: dict[str, tuple[str, str]]) -> Any:
    """Return the parameters with each ``$fromAI(key, …)`` as a read of ``$json[key]``; collect key → (description, type)."""
    if isinstance(value, dict):
        return {k: rewritten(v, found) for k, v in value.items()}
    if isinstance(value, list):
        return [rewritten(v, found) for v in value]
    if not isinstance(value, str) or "$fromAI" not in value:
        return value
    out, pos = [], 0
    for match in _CALL.finditer(value):
        if match.start() < pos:
            continue
        args, end = _arguments(value, match.end())
        key, description, kind = (args + ["", "", "string"])[:3] if len(args) < 3 else args[:3]
        if len(args) > 3:
            raise Untranslatable("a $fromAI() default value is not translated")
        if not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", key):
            raise Untranslatable(f"the $fromAI() key {key!r} is one n8n refuses")
        kind = kind.lower() or "string"
        if kind not in _TYPES:
            raise Untranslatable(f"a $fromAI() of type {kind!r} is not translated ({', '.join(_TYPES)} are)")
        if found.get(key, (description, kind)) != (description, kind):
            raise Untranslatable(f"the $fromAI() key {key!r} is given twice, differently (n8n refuses it)")
        found.setdefault(key, (description, kind))
        out += [value[pos:match.start()], f"$json[{json.dumps(key)}]"]
        pos = end
    return "".join(out) + value[pos:]


def schema(found: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """Return the tool's parameters as zod-to-json-schema writes n8n's ``z.object(…).required()``."""
    properties = {key: {"type": kind, **({"description": text.strip()} if text.strip() else {})}
                  for key, (text, kind) in found.items()}
    return {"type": "object", "properties": properties, **({"required": list(found)} if found else {}),
            "additionalProperties": False, "$schema": _SCHEMA}


def description(tool: Node, app: str, params: dict[str, Any]) -> str:
    """Return the tool's description as n8n's ``getToolDescriptionForNode`` makes it."""
    given = str(params.get("toolDescription") or "").strip()
    if params.get("descriptionType", "auto") != "auto" and given:
        return str(params["toolDescription"])
    resource, operation = params.get("resource"), params.get("operation")
    action = ACTIONS.get((app, str(resource), str(operation)))
    if action is None:
        raise Untranslatable(f"the description n8n gives the tool {tool.name!r} ({app} {resource}.{operation}) is "
                             "not known here: set its description (descriptionType manual)")
    return f"{action} in {APP_NAMES[app]}"


def is_app_tool(tool: Node) -> bool:
    """Tell whether ``tool`` is an app node used as a tool that this module reads (its app is translated)."""
    return (tool.type.startswith("n8n-nodes-base.") and tool.short_type.endswith("Tool")
            and tool.short_type[:-4] in APP_NAMES)


def app_tool(tool: Node, slot: Slot) -> tuple[str, str, dict[str, Any], list[ast.stmt], ast.expr, dict[str, str]]:
    """Translate an app tool: (name, description, schema, the ``async def`` lines, its callable, proposals)."""
    app = tool.short_type[:-4]
    base = Node(tool.name, f"n8n-nodes-base.{app}", tool.version, tool.parameters)
    params = base.settings if base.described else base.parameters
    found: dict[str, tuple[str, str]] = {}
    parameters = rewritten({k: v for k, v in tool.parameters.items() if k not in ("descriptionType", "toolDescription")},
                           found)
    runs = f"{slot.var}_tool_{re.sub(r'[^0-9a-zA-Z_]', '_', slug(tool.name))}"
    var = f"{runs}_items"
    inner = Slot(var, (_code.expr("[{'json': arg}]"),), f"{slot.step}:{slug(tool.name)}", f"{slot.decision}:{runs}",
                 slot.providers, slot.timezone, slot.callees)
    code = apps.app_node(Node(tool.name, base.type, tool.version, parameters), inner)
    body = [*code.lines, *_code.stmts("return n8n.ai_chain.tool_result($var)", var=name(code.outputs[0]))]
    func = ast.AsyncFunctionDef(name=runs, args=ast.arguments(posonlyargs=[], args=[ast.arg("arg")], kwonlyargs=[],
                                                                  kw_defaults=[], defaults=[]),
                                body=body, decorator_list=[], returns=None)
    return (tool_name(tool.name), description(tool, app, params), schema(found), [func], name(runs),
            code.provider_proposals)
