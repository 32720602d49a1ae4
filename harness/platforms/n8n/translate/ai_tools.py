"""An AI Agent's tools (``tools_of``): the HTTP Request tool, Think, Wikipedia and SerpApi, named as n8n names them.

Names (n8n 1.123's, read in its source): the Think tool v1.1 is named after the node through
n8n-workflow's ``nodeNameToToolName`` (every run of characters other than letters, digits, ``_``
and ``-`` becomes one ``_``: "Tool - Think" → ``Tool_-_Think``); the HTTP Request tool replaces
each space with ``_`` and then requires ``^[a-zA-Z_][a-zA-Z0-9_]*$``, so a node named
"Tool - Fetch URL" (``Tool_-_Fetch_URL``) fails the agent before its first model call with "The
name of this tool is not a valid alphanumeric string": the translation fails it alike
(``Tools.fails``); the Wikipedia tool keeps the node's name as it is; SerpApi is LangChain's
``search``.

``toolThink`` (v1, v1.1) is n8n's fixed tool: offered to the model as a function of one text
``input`` (LangChain's DynamicTool), its description the node's; a call makes no request: the
thought goes back to the model as the tool's result (``n8n.ai_chain.think``).

``toolWikipedia`` (v1) is LangChain's WikipediaQueryRun: its search and page reads are ``GET``s of
``https://en.wikipedia.org/w/api.php`` (no secret), run by ``n8n.ai_chain.wikipedia``.

``toolSerpApi`` (v1) is LangChain's SerpAPI tool: ``GET https://serpapi.com/search?<options>&api_key=
<key>&q=<input>``. The key is a query parameter: the URL holds the gateway's placeholder
``__auth_env__`` there, which the gateway replaces with the provider's ``auth_env`` value only on
the wire (as Telegram's token in the path), so no record, trace or log holds it. Its answer is read
as LangChain reads it (``n8n.ai_chain.serpapi``).

An app node used as a tool (``gmailTool``) is :mod:`ai_app_tools`'s. Not translated, each
Untranslatable naming its call (``_TODO``): a sub-workflow tool, MCP client tools.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate import ai_app_tools, expr
from harness.platforms.n8n.translate.ai_names import http_tool_name, tool_name
from harness.platforms.n8n.translate.app_ai import _check_described, _secret
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold import _code, _credential
from harness.scaffold._code import call, lit
from harness.scaffold._module import slug
from harness.scaffold._provider import provider_for

THINK, WIKIPEDIA, SERPAPI, HTTP = "toolThink", "toolWikipedia", "toolSerpApi", "toolHttpRequest"
WIKIPEDIA_DESCRIPTION = ("A tool for interacting with and fetching data from the Wikipedia API. The input should "
                         "always be a string query.")  # n8n's, set on LangChain's tool
SERPAPI_DESCRIPTION = ("a search engine. useful for when you need to answer questions about current events. input "
                       "should be a search query.")  # LangChain's SerpAPI tool's
# the node's options (v1), in its description's order: n8n hands LangChain a collection in that order
SERPAPI_OPTIONS = ("gl", "device", "no_cache", "google_domain", "hl")
SECRET_SEGMENT = "__auth_env__"  # queue_core.gateway.request.SECRET_SEGMENT: the key on the wire only
BAD_HTTP_NAME = "The name of this tool is not a valid alphanumeric string"  # n8n's NodeOperationError
# LangChain's DynamicTool input, as zod-to-json-schema writes it (the oracle's capture)
INPUT_SCHEMA = {"type": "object", "properties": {"input": {"type": "string"}}, "additionalProperties": False,
                "$schema": "http://json-schema.org/draft-07/schema#"}
TOOL_SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False,
               "$schema": "http://json-schema.org/draft-07/schema#"}  # a tool the model gives no input (n8n's zod {})
_HTTP_TOOL_OFF = ("sendQuery", "sendHeaders", "sendBody", "optimizeResponse")
_LOOP = ("the loop is n8n.ai_chain.agent(…, tools={name: async callable}) with each tool's function schema in "
         "n8n.ai_chain.chat_body(…, tools=[{type: function, function: {name, description, parameters}}]); a "
         "sub-workflow tool is a child job (n8n.execute_workflow), an HTTP tool a ctx.call")


@dataclass
class Tools:
    """An agent's tools as code: function specs, callables by name, provider proposals, credentials.

    ``fails``: the message n8n's agent fails with before its first model call (a tool n8n refuses).
    """

    specs: list[ast.expr] = field(default_factory=list)
    calls: list[tuple[str, ast.expr]] = field(default_factory=list)
    proposals: dict[str, str] = field(default_factory=dict)
    credentials: list[_credential.Credential] = field(default_factory=list)
    fails: str | None = None
    failing: str | None = None  # the tool n8n refuses (its node name)
    lines: list[ast.stmt] = field(default_factory=list)  # an app tool's ``async def`` (ai_app_tools)
    sent: dict[str, str] = field(default_factory=dict)  # the Agent v3: offered name -> the name its calls go back as

    def add(self, name: str, description: object, parameters: dict[str, object], runs: ast.expr) -> None:
        self.specs.append(lit({"type": "function", "function": {"name": name, "description": description,
                                                                "parameters": parameters}}))
        self.calls.append((name, runs))


def think_tool(tool: Node, tools: Tools) -> None:
    """Add the Think tool: its function spec and its callable (the thought handed back)."""
    params = _check_described(tool)
    name = "thinking_tool" if tool.version == 1 else tool_name(tool.name)
    tools.add(name, params.get("description", ""), INPUT_SCHEMA, _code.expr("n8n.ai_chain.think"))


def wikipedia_tool(tool: Node, slot: Slot, tools: Tools, renamed: bool = False) -> None:
    """Add the Wikipedia tool (named after the node as it is; ``renamed``: n8n 2.x's nodeNameToToolName)."""
    _check_described(tool)
    provider, _, proposals = provider_for("https://en.wikipedia.org/w/api.php", slot.providers)
    tools.proposals.update(proposals)
    tools.add(tool_name(tool.name) if renamed else tool.name, WIKIPEDIA_DESCRIPTION, INPUT_SCHEMA,
              _code.expr("lambda arg: n8n.ai_chain.wikipedia(ctx, $provider, arg, step=$step)", provider=provider,
                         step=f"{slot.step}:{slug(tool.name)}"))


def serpapi_tool(tool: Node, slot: Slot, tools: Tools) -> None:
    """Add the SerpApi tool (``search``): a GET with the node's options, the key as the gateway's placeholder."""
    params = _check_described(tool)
    options = params.get("options") or {}
    unknown = sorted(set(options) - set(SERPAPI_OPTIONS))
    if unknown or any(expr.is_expression(v) for v in options.values()):
        raise Untranslatable(f"SerpApi options {', '.join(unknown) or 'set by an expression'} are not translated")
    app = catalogue.app("serpapi")
    provider = slot.providers.get(app.host, app.provider)
    if app.host not in slot.providers:
        tools.proposals[provider] = app.base_url
    found = _secret(app, provider, tool)
    # the provider's auth_env holds the key: the gateway writes it in place of the placeholder on the wire
    tools.credentials.append(_credential.Credential(
        found.env, provider, found.was, found.where, True,
        how="the gateway writes it (auth_env) into the URL's api_key query parameter on the wire only"))
    pairs = [[k, "true" if options[k] is True else "false" if options[k] is False else str(options[k])]
             for k in SERPAPI_OPTIONS if k in options]
    tools.add("search", SERPAPI_DESCRIPTION, INPUT_SCHEMA,
              _code.expr("lambda arg: n8n.ai_chain.serpapi(ctx, $provider, arg, $pairs, step=$step, key=$key)",
                         provider=provider, pairs=pairs, step=f"{slot.step}:{slug(tool.name)}", key=SECRET_SEGMENT))


def http_tool(tool: Node, slot: Slot, tools: Tools) -> None:
    """Add an HTTP Request tool v1.1 with a fixed URL and nothing the model fills in (its answer handed back)."""
    params = _check_described(tool)
    name = http_tool_name(tool.name)
    if name is None and tool.version == 1.1:  # n8n checks the name before any other parameter: the agent fails
        tools.fails = tools.fails or BAD_HTTP_NAME
        tools.failing = tools.failing or tool.name
        return
    if name is None or tool.version != 1.1 or any(params.get(k) for k in _HTTP_TOOL_OFF) \
            or params.get("placeholderDefinitions") or params.get("authentication", "none") != "none" \
            or "{" in str(params.get("url")) or expr.is_expression(params.get("url")):
        raise Untranslatable(f"the tool {tool.name!r} ({tool.short_type} v{tool.version:g}) is not translated: {_LOOP}")
    provider, _, proposed = provider_for(params.get("url"), slot.providers)
    tools.proposals.update(proposed)
    tools.add(name, params.get("toolDescription", ""), TOOL_SCHEMA,
              _code.expr("lambda arg: n8n.ai_chain.http_tool(ctx, $provider, $method, $url, step=$step)",
                         provider=provider, method=params.get("method", "GET"), url=params.get("url"),
                         step=f"{slot.step}:{slug(tool.name)}"))


_READ = {THINK: lambda tool, slot, tools: think_tool(tool, tools), WIKIPEDIA: wikipedia_tool,
         SERPAPI: serpapi_tool, HTTP: http_tool}


def tools_of(workflow: Workflow, root: Node, slot: Slot, *, engine: bool = False, newer: bool = False) -> Tools:
    """Return the agent's tools, offered in n8n's order (the reverse of the export's connections).

    ``engine`` (the Agent v3): n8n's engine runs each LangChain tool node, whose items
    (``{response}``) are the result (``n8n.ai_chain.engine_tool``); an app tool's items already are;
    each call goes back to the model named after its node (``Tools.sent``). ``newer``: the agent
    runs in n8n 2.x (v3.1), whose Wikipedia tool is named by ``nodeNameToToolName``.
    Any tool not read here raises Untranslatable naming its call (``todo_reason``).
    """
    tools = Tools()
    # n8n offers the tools in the reverse of their connections' order (getParentNodes unshifts each)
    for sub in reversed(workflow.attached(root.name)):
        tool = workflow.nodes[sub.source]
        if sub.kind != "tool" or tool.disabled:
            continue
        read = _READ.get(tool.short_type) if tool.type.startswith("@n8n/") else None
        if read is None and ai_app_tools.is_app_tool(tool):
            name, described, parameters, lines, runs, proposed = ai_app_tools.app_tool(tool, slot)
            tools.add(name, described, parameters, runs)
            tools.lines += lines
            tools.proposals.update(proposed)
            continue
        if read is None:
            raise Untranslatable(f"the tool {tool.name!r} ({tool.short_type} v{tool.version:g}) is not translated: "
                                 + (todo_reason(tool) or _LOOP))
        if engine and tool.short_type == HTTP:
            raise Untranslatable(f"the HTTP Request tool {tool.name!r} under an AI Agent v3 is not translated: n8n "
                                 "2.41's engine answers its call with the error 'has a \"supplyData\" method but no "
                                 "\"execute\" method' (the oracle's capture); the HTTP Request node as a tool "
                                 "(httpRequestTool) is what v3 runs")
        if engine and not newer and tool.short_type == SERPAPI:
            raise Untranslatable(f"the SerpApi tool {tool.name!r} under an AI Agent v3 is not translated: n8n "
                                 "1.123's engine runs its execute, which hands LangChain the whole item, so the "
                                 "search goes out without q (read in its source; the v3.1 agent, n8n 2.x, is "
                                 "translated)")
        before = len(tools.calls)
        if tool.short_type == WIKIPEDIA:
            wikipedia_tool(tool, slot, tools, renamed=newer)
        else:
            read(tool, slot, tools)
        if engine:
            tools.sent.update({n: tool_name(tool.name) for n, _ in tools.calls[before:]})
            tools.calls[before:] = [(n, call("n8n.ai_chain.engine_tool", runs)) for n, runs in tools.calls[before:]]
    return tools


_TODO = {
    "toolWorkflow": "a child job of the callee automation (n8n.execute_workflow, as Execute Workflow), its inputs "
                    "the model's tool-call arguments, its last node's items the tool's result",
    "mcpClientTool": "the MCP server's JSON-RPC: initialize, notifications/initialized, tools/list (each tool offered "
                     "to the model with its inputSchema), then tools/call {name, arguments} per call, its content "
                     "the result; over the server's streamable HTTP endpoint (or SSE), the credential as its header; "
                     "not built: no MCP stand-in proves it yet",
}


def _detail(tool: Node) -> str:
    """Return what this tool node names of its call (the callee, the endpoint), for its TODO."""
    params = tool.parameters
    if tool.short_type == "toolWorkflow":
        callee = params.get("workflowId")
        callee = callee.get("cachedResultName") or callee.get("value") if isinstance(callee, dict) else callee
        extra = sorted(set(params) - {"name", "description", "workflowId", "workflowInputs", "source",
                                      "workflowJson", "descriptionType", "toolDescription"})
        return (f" (this node: the workflow {callee!r}" + (f"; {', '.join(extra)} are not parameters of toolWorkflow "
                f"v{tool.version:g}: n8n ignores them" if extra else "") + ")")
    if tool.short_type == "mcpClientTool":
        return (f" (this node: {params.get('endpointUrl') or params.get('sseEndpoint')!r}, authentication "
                f"{params.get('authentication', 'none')!r})")
    return ""


def todo_reason(tool: Node) -> str | None:
    """Return the precise TODO of a tool this module does not translate (None: the generic one)."""
    found = _TODO.get(tool.short_type)
    return found + _detail(tool) if found else None
