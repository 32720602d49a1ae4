"""An AI root's output parser (``ai_outputParser``): the Structured Output Parser, alone or auto-fixed.

The parser's JSON schema is computed here, as n8n computes it and as LangChain then writes it
(zod-to-json-schema of the zod form): from a JSON example (every field required from v1.3) or a
manual schema (``type``, ``properties``, ``required``, ``items``, ``description``), wrapped as
``{output: <schema>}`` (required from v1.3). The runtime (``queue_core.compat._n8n_ai_parse``)
adds the format instructions, parses the answer and, auto-fixed, asks the fixing model again.

Read: ``outputParserStructured`` v1.1–v1.3 (its ``autoFix`` with a model of its own), and
``outputParserAutofixing`` v1 around one, the fixing model an OpenAI Chat Model. Not read, each
Untranslatable naming why: v1 (its ``__structured__output`` wrapper), the Item List parser, an
example with ``null``, empty, mixed or nested arrays (n8n's generated schema for them is not
proved), a schema computed by an expression.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_ai import OPENAI, _check_described, _provider
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, lit

STRUCTURED, AUTOFIXING = "outputParserStructured", "outputParserAutofixing"
LC = "@n8n/n8n-nodes-langchain."
_KEYS = frozenset({"type", "properties", "required", "items", "description"})
_SCALARS = frozenset({"string", "number", "integer", "boolean"})


def _from_example(value: Any, required: bool, where: str = "the example") -> dict[str, Any]:
    """Return the schema n8n generates for a JSON example (genson's, as zod-to-json-schema rewrites it)."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int | float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, dict):
        properties = {k: _from_example(v, required, f"{where}.{k}") for k, v in value.items()}
        return {"type": "object", "properties": properties,
                **({"required": list(properties)} if required and properties else {}), "additionalProperties": False}
    if isinstance(value, list) and value and not isinstance(value[0], list):
        items = [_from_example(v, required, f"{where}[]") for v in value]
        if all(i == items[0] for i in items):
            return {"type": "array", "items": items[0]}
    raise Untranslatable(f"the output parser's JSON example has a value at {where} ({json.dumps(value)[:60]}) whose "
                         "generated schema is not translated (null, an empty, mixed or nested array)")


def _from_manual(schema: Any, where: str = "the schema") -> dict[str, Any]:
    """Return a manual JSON schema as LangChain writes it back from its zod form."""
    if not isinstance(schema, dict) or set(schema) - _KEYS:
        extra = sorted(set(schema) - _KEYS) if isinstance(schema, dict) else [type(schema).__name__]
        raise Untranslatable(f"the output parser's JSON schema at {where} uses {', '.join(extra)}: not translated "
                             "(type, properties, required, items and description are)")
    kind = schema.get("type")
    out: dict[str, Any] = {"type": kind}
    if kind == "object":
        properties = {k: _from_manual(v, f"{where}.{k}") for k, v in (schema.get("properties") or {}).items()}
        required = [k for k in properties if k in (schema.get("required") or [])]
        out.update({"properties": properties, **({"required": required} if required else {}),
                    "additionalProperties": False})
    elif kind == "array" and isinstance(schema.get("items"), dict):
        out["items"] = _from_manual(schema["items"], f"{where}[]")
    elif kind not in _SCALARS:
        raise Untranslatable(f"the output parser's JSON schema at {where} has type {kind!r}: not translated")
    if "description" in schema:
        out["description"] = schema["description"]
    return out


def parser_schema(parser: Node) -> dict[str, Any]:
    """Return the JSON schema a Structured Output Parser sends (``{output: …}``, as LangChain writes it)."""
    if parser.version < 1.1:
        raise Untranslatable("Structured Output Parser v1 (its __structured__output wrapper) is not translated")
    params = _check_described(parser)
    if parser.version <= 1.1:
        source, text = "manual", params.get("jsonSchema")
    else:
        source = params.get("schemaType", "fromJson")
        text = params.get("jsonSchemaExample" if source == "fromJson" else "inputSchema")
    if not isinstance(text, str) or expr.is_expression(text):
        raise Untranslatable("an output parser whose schema an expression computes is not translated")
    try:
        value = json.loads(text)
    except ValueError:
        raise Untranslatable("the output parser's JSON (example or schema) does not parse") from None
    inner = _from_example(value, parser.version >= 1.3) if source == "fromJson" else _from_manual(value)
    return {"type": "object", "properties": {"output": inner},
            **({"required": ["output"]} if parser.version >= 1.3 else {}), "additionalProperties": False,
            "$schema": "http://json-schema.org/draft-07/schema#"}


def _subs(workflow: Workflow, node: Node, kind: str) -> list[Node]:
    return [workflow.nodes[s.source] for s in workflow.attached(node.name)
            if s.kind == kind and not workflow.nodes[s.source].disabled]


Model = Callable[[Workflow, Node], tuple[Node, ast.expr, dict[str, Any]]]


def _fix(workflow: Workflow, fixer: Node, prompt: Any, slot: Slot, chat_model: Model) -> ast.expr:
    _, model_name, options = chat_model(workflow, fixer)  # the OpenAI Chat Model, else Untranslatable
    if not isinstance(prompt, str) or "{error}" not in prompt or expr.is_expression(prompt):
        raise Untranslatable("an auto-fixing prompt without {error} (n8n refuses it) or computed by an expression "
                             "is not translated")
    provider, _ = _provider(OPENAI, slot)
    message = dict_of([("role", "user"), ("content", _code.expr("prompt"))])
    body = call("n8n.ai_chain.chat_body", model_name, ast.List([message], ast.Load()), lit(options))
    return dict_of([("provider", provider), ("url", OPENAI.base_url + "/v1/chat/completions"),
                    ("step", f"{slot.step}:fix"), ("prompt", prompt),
                    ("body", _code.expr("lambda prompt: $body", body=body))])


def output_parser(workflow: Workflow, root: Node, params: dict[str, Any], slot: Slot,
                  chat_model: Model) -> tuple[ast.expr, dict[str, Any]] | None:
    """Return the root's parser (``{schema, fix?}`` as code) and its schema; None when it has none.

    ``chat_model`` reads a fixing parser's model sub-node (``app_ai_chain.chat_model``: OpenAI's).
    """
    if params.get("hasOutputParser", True) is not True:
        return None
    parsers = _subs(workflow, root, "outputParser")
    if not parsers:
        return None
    parser, fix = parsers[0], None
    if parser.short_type == AUTOFIXING:
        fixing = _check_described(parser)
        inner = _subs(workflow, parser, "outputParser")
        if len(inner) != 1 or inner[0].short_type != STRUCTURED or _check_described(inner[0]).get("autoFix"):
            raise Untranslatable("an Auto-fixing parser around anything but one Structured Output Parser is not "
                                 "translated")
        fix = _fix(workflow, parser, (fixing.get("options") or {}).get("prompt", _default_prompt()), slot,
                   chat_model)
        parser = inner[0]
    elif parser.short_type != STRUCTURED:
        raise Untranslatable(f"the output parser {parser.short_type} is not translated (the Structured Output "
                             "Parser and the Auto-fixing parser are)")
    schema = parser_schema(parser)
    settings = _check_described(parser)
    if settings.get("autoFix"):
        prompt = settings.get("prompt") if settings.get("customizeRetryPrompt") else _default_prompt()
        fix = _fix(workflow, parser, prompt, slot, chat_model)
    pairs: list[tuple[str, Any]] = [("schema", lit(schema))]
    if fix is not None:
        pairs.append(("fix", fix))
    return dict_of(pairs), schema


def _default_prompt() -> str:
    """n8n's NAIVE_FIX_PROMPT (the runtime's ``FIX_PROMPT``): the description's default of the prompt option."""
    from harness.platforms.n8n.descriptions import properties

    for prop in properties(LC + AUTOFIXING, 1) or []:
        for option in prop.get("options") or [] if prop.get("name") == "options" else []:
            if option.get("name") == "prompt":
                return str(option.get("default"))
    raise Untranslatable("the Auto-fixing parser's default prompt is not in its description")
