"""An AI Agent's tools beyond the HTTP Request tool (``app_ai_chain.tools_of``): Think and Wikipedia.

``toolThink`` (v1, v1.1) is n8n's fixed tool: offered to the model as a function of one text
``input`` (LangChain's DynamicTool), named ``thinking_tool`` (v1) or after the node (v1.1), its
description the node's; a call makes no request: the thought goes back to the model as the
tool's result (``n8n.ai_chain.think``).

``toolWikipedia`` (v1) is LangChain's WikipediaQueryRun, named after the node: its search and page
reads are ``GET``s of ``https://en.wikipedia.org/w/api.php`` (no secret; the provider proposed
for the host), run by ``n8n.ai_chain.wikipedia``.

Not translated, each Untranslatable naming its call (``app_ai_chain._TOOLS``): SerpApi (``GET https://serpapi.com/search?q=…`` with the
``serpApi`` credential's ``api_key`` as a query parameter, which every record of the URL would
hold; its answer read as LangChain's SerpAPI reads it: the answer box, then the result lists), a sub-workflow tool (a child job of the callee, as Execute
Workflow), Gmail and MCP client tools.
"""

from __future__ import annotations

import ast
import re

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate.app_ai import _check_described
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code
from harness.scaffold._code import lit
from harness.scaffold._module import slug
from harness.scaffold._provider import provider_for

THINK, WIKIPEDIA = "toolThink", "toolWikipedia"
WIKIPEDIA_DESCRIPTION = ("A tool for interacting with and fetching data from the Wikipedia API. The input should "
                         "always be a string query.")  # n8n's, set on LangChain's tool
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


def wikipedia_tool(tool: Node, slot: Slot) -> tuple[ast.expr, tuple[str, ast.expr], dict[str, str]]:
    """Return the Wikipedia tool's function spec, its callable (the API's GETs) and the provider proposals."""
    _check_described(tool)
    if not re.fullmatch(r"[A-Za-z0-9_-]+", tool.name):
        raise Untranslatable(f"the tool name {tool.name!r} is not translated (n8n rewrites its characters)")
    provider, _, proposals = provider_for("https://en.wikipedia.org/w/api.php", slot.providers)
    spec = lit({"type": "function", "function": {"name": tool.name, "description": WIKIPEDIA_DESCRIPTION,
                                                 "parameters": INPUT_SCHEMA}})
    runs = _code.expr("lambda arg: n8n.ai_chain.wikipedia(ctx, $provider, arg, step=$step)", provider=provider,
                      step=f"{slot.step}:{slug(tool.name)}")
    return spec, (tool.name, runs), proposals


_TODO = {
    "toolSerpApi": "GET https://serpapi.com/search?q=<the model's input>&api_key=$SERPAPI_API_KEY (catalogue serpapi."
                   "search; the key is a query parameter, which every record of the URL would hold), its answer read "
                   "as LangChain's SerpAPI reads it (answer_box, the result lists, organic_results[0].snippet)",
    "toolWorkflow": "a child job of the callee automation (n8n.execute_workflow, as Execute Workflow), its inputs "
                    "the model's tool-call arguments, its last node's items the tool's result",
    "gmailTool": "the Gmail app's REST call (catalogue gmail) with the fields the model fills in ($fromAI)",
    "mcpClientTool": "the MCP server's tools/list then tools/call (JSON-RPC over its SSE or streamable HTTP "
                     "endpoint), each offered to the model as a function",
}


def todo_reason(tool: Node) -> str | None:
    """Return the precise TODO of a tool this module does not translate (None: the generic one)."""
    return _TODO.get(tool.short_type)
