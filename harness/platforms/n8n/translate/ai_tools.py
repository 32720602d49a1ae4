"""An AI Agent's tools beyond the HTTP Request tool (``app_ai_chain.tools_of``): the Think tool.

``toolThink`` (v1, v1.1) is n8n's fixed tool: offered to the model as a function of one text
``input`` (LangChain's DynamicTool), named ``thinking_tool`` (v1) or after the node (v1.1), its
description the node's; a call makes no request: the thought goes back to the model as the
tool's result (``n8n.ai_chain.think``).

Not translated, each Untranslatable naming its call (``app_ai_chain._TOOLS``): Wikipedia
(LangChain's WikipediaQueryRun: ``GET https://en.wikipedia.org/w/api.php`` ``list=search`` then
``prop=extracts`` per page, no secret), SerpApi (``GET https://serpapi.com/search`` with the
``serpApi`` credential's ``api_key``), a sub-workflow tool (a child job of the callee, as Execute
Workflow), Gmail and MCP client tools.
"""

from __future__ import annotations

import ast
import re

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate.app_ai import _check_described
from harness.scaffold import _code
from harness.scaffold._code import lit

THINK = "toolThink"
# LangChain's DynamicTool input, as zod-to-json-schema writes it (the oracle's capture)
INPUT_SCHEMA = {"type": "object", "properties": {"input": {"type": "string"}}, "additionalProperties": False,
                "$schema": "http://json-schema.org/draft-07/schema#"}


def think_tool(tool: Node) -> tuple[ast.expr, tuple[str, ast.expr]]:
    """Return the Think tool's function spec and its callable (the thought handed back)."""
    params = _check_described(tool)
    name = "thinking_tool" if tool.version == 1 else tool.name
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise Untranslatable(f"the tool name {name!r} is not translated (n8n rewrites its characters)")
    spec = lit({"type": "function", "function": {"name": name, "description": params.get("description", ""),
                                                 "parameters": INPUT_SCHEMA}})
    return spec, (name, _code.expr("n8n.ai_chain.think"))
