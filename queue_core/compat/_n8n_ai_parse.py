"""n8n's output parsers at run time: the Structured Output Parser and the Auto-fixing parser around it.

What n8n does (``N8nStructuredOutputParser``, ``N8nOutputFixingParser``), and what this does:

- **Format instructions**: LangChain's StructuredOutputParser words (``FORMAT_INSTRUCTIONS``)
  with the parser's JSON schema (``{output: <schema>}``, as zod-to-json-schema writes it: the
  scaffold computes it) compact in a ```json block; a chain adds them to its prompt after a
  newline, an agent offers the schema as its ``format_final_json_response`` tool.
- **Parsing** (:func:`parse`): the answer's first fenced block (or the whole answer), trimmed,
  ``JSON.parse``-d, then checked as zod checks (:func:`check`: types, required keys, unknown keys
  dropped); ``{output: {output: X}}`` is unwrapped once. A failure raises :class:`ParseFailure`
  with the message JavaScript gives (V8's JSON.parse words, zod's issue list).
- **Auto-fixing** (:func:`structured`): on a failure the fixing model is asked once with the fix
  prompt (its ``{instructions}``, ``{completion}`` and ``{error}``: the instructions, the answer,
  the failure's message and LangChain's troubleshooting line); its answer is parsed, and a second
  failure fails the node (n8n: "Model output doesn't fit required format").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import NodeFailed, ParseFailure
from ._n8n_ai import answer

# LangChain's StructuredOutputParser instructions, as n8n's Text Classifier and output parsers send them (the oracle's
# capture): the JSON schema of the categories follows, compact, in a ```json block.
FORMAT_INSTRUCTIONS = (
    'You must format your output as a JSON value that adheres to a given "JSON Schema" instance.\n\n'
    '"JSON Schema" is a declarative language that allows you to annotate and validate JSON documents.\n\n'
    'For example, the example "JSON Schema" instance {{"properties": {{"foo": {{"description": "a list of test words", '
    '"type": "array", "items": {{"type": "string"}}}}}}, "required": ["foo"]}}}}\n'
    'would match an object with one required property, "foo". The "type" property specifies "foo" must be an "array", '
    'and the "description" property semantically describes it as "a list of test words". The items within "foo" must '
    'be strings.\nThus, the object {{"foo": ["bar", "baz"]}} is a well-formatted instance of this example "JSON Schema". '
    'The object {{"properties": {{"foo": ["bar", "baz"]}}}} is not well-formatted.\n\n'
    "Your output will be parsed and type-checked according to the provided schema instance, so make sure all fields in "
    "your output match the schema exactly and there are no trailing commas!\n\n"
    "Here is the JSON Schema instance your output must adhere to. Include the enclosing markdown codeblock:\n"
    "```json\n{schema}\n```\n")

FORMAT_TOOL = "format_final_json_response"
TROUBLESHOOTING = "\n\nTroubleshooting URL: https://docs.langchain.com/oss/javascript/langchain/errors/OUTPUT_PARSING_FAILURE/\n"
FAILED = "Model output doesn't fit required format"
FIX_PROMPT = (
    "Instructions:\n--------------\n{instructions}\n--------------\nCompletion:\n--------------\n{completion}\n"
    "--------------\n\nAbove, the Completion did not satisfy the constraints given in the Instructions.\nError:\n"
    "--------------\n{error}\n--------------\n\nPlease try again. Please only respond with an answer that satisfies "
    "the constraints laid out in the Instructions:")
AGENT_INSTRUCTIONS = (
    "IMPORTANT: For your response to user, you MUST use the `format_final_json_response` tool with your complete "
    "answer formatted according to the required schema. Do not attempt to format the JSON manually - always use "
    "this tool. Your response will be rejected if it is not properly formatted through this tool. Only use this "
    "tool once you are ready to provide your final answer.")
FORMAT_TOOL_DESCRIPTION = (
    "Use this tool to format your final response to the user in a structured JSON format. This tool validates your "
    "output against a schema to ensure it meets the required format. ONLY use this tool when you have completed all "
    "necessary reasoning and are ready to provide your final answer. Do not use this tool for intermediate steps or "
    "for asking questions. The output from this tool will be directly returned to the user.")


def format_instructions(schema: Mapping[str, Any]) -> str:
    """Return LangChain's format instructions for ``schema`` (the text n8n adds to the prompt)."""
    return FORMAT_INSTRUCTIONS.replace("{schema}", json.dumps(schema, separators=(",", ":"), ensure_ascii=False))


def format_tool(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Return the agent's ``format_final_json_response`` function, its parameters the parser's schema."""
    return {"type": "function", "function": {"name": FORMAT_TOOL, "description": FORMAT_TOOL_DESCRIPTION,
                                             "parameters": dict(schema)}}


def _context(text: str, pos: int) -> str:
    """V8's quote of the source around an unexpected token (10 characters each side past 20)."""
    if len(text) <= 20:
        return f'"{text}"'
    if pos < 10:
        return f'"{text[:pos + 10]}"...'
    if pos < len(text) - 10:
        return f'..."{text[pos - 10:pos + 10]}"...'
    return f'..."{text[pos - 10:]}"'


def _enclosing(text: str, pos: int) -> str:
    """The innermost open bracket before ``pos`` (strings skipped): ``{`` or ``[``."""
    stack, in_string, escaped = [], False, False
    for char in text[:pos]:
        if in_string:
            in_string, escaped = (char != '"' or escaped), (char == "\\" and not escaped)
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append(char)
        elif char in "}]" and stack:
            stack.pop()
    return stack[-1] if stack else "{"


def js_json_error(text: str, error: json.JSONDecodeError) -> str:
    """Return the message V8's ``JSON.parse`` gives for ``text`` where Python's parser failed."""
    pos, kind = error.pos, error.msg
    if kind.startswith("Unterminated string"):
        return f"Unterminated string in JSON at position {len(text)}"
    if kind == "Expecting value" and pos < len(text):
        rest = text[pos:]
        for literal in ("true", "false", "null"):
            if rest[0] == literal[0]:
                same = next((i for i, (a, b) in enumerate(zip(rest, literal, strict=False)) if a != b),
                            min(len(rest), len(literal)))
                pos += same
                break
        else:
            if rest[0] == "-":
                return f"No number after minus sign in JSON at position {pos + 1}"
    if kind == "Expecting ':' delimiter":
        return f"Expected ':' after property name in JSON at position {pos}"
    if kind == "Expecting ',' delimiter":
        if _enclosing(text, pos) == "[":
            return f"Expected ',' or ']' after array element in JSON at position {pos}"
        return f"Expected ',' or '}}' after property value in JSON at position {pos}"
    if kind.startswith("Expecting property name"):
        if text[:pos].rstrip().endswith("{"):
            return f"Expected property name or '}}' in JSON at position {pos}"
        return f"Expected double-quoted property name in JSON at position {pos}"
    if pos >= len(text):
        return "Unexpected end of JSON input"
    char = text[pos]
    if kind == "Extra data":
        if char.isdigit():
            return f"Unexpected number in JSON at position {pos}"
        return f"Unexpected non-whitespace character after JSON at position {pos}"
    if kind.startswith("Invalid control character"):
        return f"Bad control character in string literal in JSON at position {pos}"
    if kind.startswith("Invalid \\escape"):
        return f"Bad escaped character in JSON at position {pos}"
    if char == '"':
        return f"Unexpected string in JSON at position {pos}"
    return f"Unexpected token '{char}', {_context(text, pos)} is not valid JSON"


def _received(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool), "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "array": lambda v: isinstance(v, list), "object": lambda v: isinstance(v, dict)}


def check(schema: Mapping[str, Any], value: Any, path: tuple[Any, ...] = ()) -> tuple[Any, list[dict[str, Any]]]:
    """Check ``value`` as zod checks the schema's zod form; return (the value, unknown keys dropped; the issues)."""
    kind = schema.get("type")
    if kind is None:
        return value, []
    expected = "number" if kind == "integer" else kind
    if not _TYPES[kind](value):
        return value, [{"code": "invalid_type", "expected": expected, "received": _received(value), "path": list(path),
                        "message": f"Expected {expected}, received {_received(value)}"}]
    if kind == "integer" and not float(value).is_integer():
        return value, [{"code": "invalid_type", "expected": "integer", "received": "float",
                        "message": "Expected integer, received float", "path": list(path)}]
    issues: list[dict[str, Any]] = []
    if kind == "array" and isinstance(schema.get("items"), dict):
        entries: list[Any] = []
        for index, entry in enumerate(value):
            got, found = check(schema["items"], entry, (*path, index))
            entries.append(got)
            issues += found
        return entries, issues
    if kind == "object":
        required, out = set(schema.get("required") or []), {}  # type: set[str], dict[str, Any]
        for key, sub in (schema.get("properties") or {}).items():
            if key not in value:
                if key in required:
                    issues.append({"code": "invalid_type", "expected": sub.get("type", "object"),
                                   "received": "undefined", "path": [*path, key], "message": "Required"})
                continue
            out[key], found = check(sub, value[key], (*path, key))
            issues += found
        return out, issues
    return value, issues


def parse(text: Any, schema: Mapping[str, Any]) -> dict[str, Any]:
    """Parse a model's answer as n8n's Structured Output Parser does; ParseFailure with JavaScript's message."""
    text = text if isinstance(text, str) else json.dumps(text)
    candidate = re.split(r"```(?:json)?", text)[1] if "```" in text else text
    candidate = candidate.strip()
    try:
        value = json.loads(candidate, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ParseFailure(js_json_error(candidate, exc)) from None
    except ValueError:
        raise ParseFailure(f"Unexpected token 'N', {_context(candidate, 0)} is not valid JSON") from None
    parsed, issues = check(schema, value)
    if issues:
        raise ParseFailure(json.dumps(issues, indent=2, ensure_ascii=False))
    if isinstance(parsed, dict) and list(parsed) == ["output"] and isinstance(parsed["output"], dict) \
            and list(parsed["output"]) == ["output"]:
        return dict(parsed["output"])
    return parsed if isinstance(parsed, dict) else {"output": parsed}


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def fix_prompt(template: str, *, instructions: str, completion: str, error: str) -> str:
    """Fill the Auto-fixing parser's prompt as LangChain's f-string template does (``{{`` is a brace)."""
    values = {"instructions": instructions, "completion": completion, "error": error}
    return re.sub(r"\{\{|\}\}|\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)) if m.group(1)
                  else m.group(0)[0], template)


def agent_input(text: Any) -> str:
    """Return what n8n's agent hands its parser for a plain answer: ``{output: <the JSON>}``, else the text."""
    try:
        parsed = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return text if isinstance(text, str) else ""
    if isinstance(parsed, dict) and list(parsed) == ["output"]:
        return json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)
    return json.dumps({"output": parsed}, separators=(",", ":"), ensure_ascii=False)


async def structured(ctx: Any, node: str, text: Any, parser: Mapping[str, Any], *, index: int = 0) -> dict[str, Any]:
    """Parse ``text`` with the node's parser (``{schema, fix?}``); on a failure ask the fixing model once.

    ``fix``: ``{provider, url, step, body, prompt}`` (``body(prompt_text)`` is the fixing model's
    chat body). The fix's answer is a chat completion (in shadow, a recorded output has no answer
    to parse: the node's recorded items stand, as for the root's own call).
    """
    schema = parser["schema"]
    try:
        return parse(text, schema)
    except ParseFailure as exc:
        fix = parser.get("fix")
        if not fix:
            raise NodeFailed(f"{node}: {FAILED} ({exc})") from None
        prompt = fix_prompt(fix.get("prompt") or FIX_PROMPT, instructions=format_instructions(schema),
                            completion=str(text), error=str(exc) + TROUBLESHOOTING)
    response = await ctx.call(fix["provider"], "POST", fix["url"], json=fix["body"](prompt), step=fix["step"])
    got, recorded = answer(ctx, response, "chat", index, node)
    if got is None:
        return recorded[0]["json"] if recorded else {}
    content = ((got.get("choices") or [{}])[0].get("message") or {}).get("content")
    try:
        return parse(content, schema)
    except ParseFailure as exc:
        raise NodeFailed(f"{node}: {FAILED} ({exc})") from None


__all__ = ["AGENT_INSTRUCTIONS", "FIX_PROMPT", "FORMAT_INSTRUCTIONS", "FORMAT_TOOL", "agent_input", "check", "fix_prompt",
           "format_instructions", "format_tool", "js_json_error", "parse", "structured"]
