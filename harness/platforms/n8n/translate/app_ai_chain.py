"""n8n's LangChain roots (Basic LLM Chain, AI Agent) as the chat calls their model sub-node makes.

A root reads its chat model from the ``ai_languageModel`` sub-node: the OpenAI Chat Model
(``lmChatOpenAi``, LangChain's ChatOpenAI: ``/v1/chat/completions``) is translated; under a chain
the Gemini and the Azure OpenAI Chat Models (:mod:`ai_azure`) are too; another model is a TODO
naming the call it would be. The
runtime is ``queue_core.compat._n8n_ai_chain``.

Not translated, each a TODO naming what it needs:

- an output parser other than :mod:`ai_parser` reads (the Structured Output Parser, auto-fixed or not);
- memory other than the Simple Memory (:mod:`ai_memory`: its turns kept in Postgres);
- a tool other than the ones :func:`ai_tools.tools_of` reads (HTTP Request with a fixed URL, Think,
  Wikipedia, SerpApi, app tools such as ``gmailTool``), the agents before v1.6 (chosen by an
  ``agent`` parameter), and under Agent v3/v3.1 (the engine's agent) memory and the HTTP Request tool.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate import ai_azure, ai_memory, ai_parser, ai_tools, expr
from harness.platforms.n8n.translate.app_ai import GEMINI, OPENAI, _check_described, _provider, _secret
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, _input, comment
from harness.scaffold import _code, _credential
from harness.scaffold._code import call, dict_of, lit, name, stmts

CHAT_OPENAI, CHAT_GEMINI = "lmChatOpenAi", "lmChatGoogleGemini"
_MEMORY = ("the window of earlier turns per session needs a store across executions (a table keyed by session id: "
           "read the last k turns before the call, append the turn after it)")
_PARSER = ("LangChain adds the parser's format instructions (a JSON schema in its words) to the prompt and parses "
           "the answer, retrying with the model")
_TOOLS = ("the loop is n8n.ai_chain.agent(…, tools={name: async callable}) with each tool's function schema in "
          "n8n.ai_chain.chat_body(…, tools=[{type: function, function: {name, description, parameters}}]); a "
          "sub-workflow tool is a child job (n8n.execute_workflow), an HTTP tool a ctx.call")
_OPTIONS = frozenset({"temperature", "maxTokens", "topP", "frequencyPenalty", "presencePenalty", "responseFormat",
                      "reasoningEffort", "timeout", "maxRetries"})


def chat_model(workflow: Workflow, root: Node, *, gemini: bool = False) -> tuple[Node, ast.expr, dict[str, Any]]:
    """Return the root's chat model sub-node, its model name and its options; Untranslatable otherwise.

    ``gemini``: the Google Gemini and the Azure OpenAI Chat Models are read too (a chain; an agent's tools are
    OpenAI's format here, and its calls OpenAI's URL).
    """
    models = [workflow.nodes[s.source] for s in workflow.attached(root.name)
              if s.kind == "languageModel" and not workflow.nodes[s.source].disabled]
    if not models:
        raise Untranslatable(f"{root.short_type} has no chat model connected (ai_languageModel)")
    if len(models) > 1:
        raise Untranslatable(f"{root.short_type} with a fallback model is not translated")
    model = models[0]
    if gemini and model.short_type == CHAT_GEMINI and model.type.startswith("@n8n/"):
        return _gemini_model(model)
    if model.short_type == ai_azure.CHAT_AZURE and model.type.startswith("@n8n/"):
        if not gemini:
            raise Untranslatable(f"the Azure OpenAI Chat Model under {root.short_type} is not translated (under a "
                                 "Basic LLM Chain it is): its calls would go to the deployment's URL with the api-key")
        return ai_azure.azure_model(model)
    if model.short_type != CHAT_OPENAI or not model.type.startswith("@n8n/"):
        raise Untranslatable(f"the chat model {model.short_type} is not translated (the OpenAI Chat Model is; "
                             "its call would be the provider's chat endpoint with the root's messages)")
    params = _check_described(model)
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - _OPTIONS)
    if params.get("responsesApiEnabled"):
        raise Untranslatable(f"the OpenAI Chat Model v{model.version:g} calls the Responses API (responsesApiEnabled, "
                             "on by default from v1.3: POST /v1/responses, the tools as function items, the answer's "
                             "function_call outputs), not translated; its Chat Completions calls are (turn "
                             "responsesApiEnabled off)" + (f"; options {', '.join(unknown)} are not translated either"
                                                           if unknown else ""))
    if unknown:
        raise Untranslatable(f"OpenAI Chat Model options {', '.join(unknown)} are not translated")
    raw = params.get("model")
    raw = raw.get("value") if isinstance(raw, dict) else raw
    if raw in (None, ""):
        raise Untranslatable("the OpenAI Chat Model names no model")
    return model, expr.value(raw), options


def _gemini_model(model: Node) -> tuple[Node, ast.expr, dict[str, Any]]:
    params = _check_described(model)
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - {"maxOutputTokens", "temperature", "topK", "topP", "safetySettings"})
    if unknown:
        raise Untranslatable(f"Google Gemini Chat Model options {', '.join(unknown)} are not translated")
    if params.get("modelName") in (None, ""):
        raise Untranslatable("the Google Gemini Chat Model names no model")
    return model, expr.value(params.get("modelName")), options


def _others(workflow: Workflow, root: Node, allowed: tuple[str, ...]) -> None:
    for sub in workflow.attached(root.name):
        if sub.kind in allowed or workflow.nodes[sub.source].disabled:
            continue
        kind = workflow.nodes[sub.source].short_type
        if sub.kind == "memory":
            raise Untranslatable(f"memory ({kind}) is not translated: {_MEMORY}")
        if sub.kind == "outputParser":
            raise Untranslatable(f"an output parser ({kind}) on {root.short_type} is not translated: {_PARSER}")
        if sub.kind == "tool":
            raise Untranslatable(f"the tool {kind} is not translated: {_TOOLS}")
        raise Untranslatable(f"a {sub.kind} sub-node ({kind}) is not translated")


def _prompt(node: Node, params: dict[str, Any]) -> ast.expr:
    if node.version <= 1.3:
        return expr.value(params.get("prompt"))
    kind = params.get("promptType", "auto")
    if kind not in ("auto", "define"):
        raise Untranslatable(f"a prompt of type {kind!r} is not translated")
    return expr.value(params.get("text"))


def _lines(node: Node, slot: Slot, run: ast.expr, model: Node, app: Any = OPENAI,
           path: str = "/v1/chat/completions") -> NodeCode:
    provider, proposals = _provider(app, slot)
    lines = [comment(node), _code.comment(f"its chat model {model.name!r} ({model.type} v{model.version:g}): "
                                          f"POST {app.base_url}{path}"),
             *stmts("items = $inp", inp=_input(slot)), *stmts("$var = await $run", var=name(slot.var), run=run)]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals,
                    credentials=[_secret(app, provider, model)],
                    why=f"the chat calls of {model.name!r} to {provider} (proof: the shadow run and the oracle's "
                        "stand-in provider)")


def chain_node(node: Node, slot: Slot, workflow: Workflow) -> NodeCode:
    """Basic LLM Chain v1.4+: its messages and prompt as one chat call per item, the answer as ``{text}``."""
    params = _check_described(node)
    model, model_name, options = chat_model(workflow, node, gemini=True)
    _others(workflow, node, ("languageModel", "outputParser"))
    if params.get("needsFallback"):
        raise Untranslatable("a chain with a fallback model is not translated")
    parsed = ai_parser.output_parser(workflow, node, params, slot, chat_model)
    if parsed and model.short_type != CHAT_OPENAI:
        raise Untranslatable("a chain with an output parser and a model other than the OpenAI Chat Model is not "
                             "translated")
    templates: list[ast.expr] = []
    for entry in (params.get("messages") or {}).get("messageValues") or []:
        if entry.get("type") == "HumanMessagePromptTemplate" and entry.get("messageType", "text") != "text":
            raise Untranslatable("an image message of a chain is not translated")
        templates.append(dict_of([("type", entry.get("type", "SystemMessagePromptTemplate")),
                                  ("message", expr.value(entry.get("message", "")))]))
    instructions = [call("n8n.ai_chain.format_instructions", lit(parsed[1]))] if parsed else []
    messages = call("n8n.ai_chain.chain_messages", ast.List(templates, ast.Load()), _prompt(node, params),
                    *instructions)
    if model.short_type == CHAT_GEMINI:  # LangChain's ChatGoogleGenerativeAI: the key as x-goog-api-key
        if any(e.get("type", "SystemMessagePromptTemplate") == "SystemMessagePromptTemplate"
               for e in ((params.get("messages") or {}).get("messageValues") or [])[1:]):
            raise Untranslatable("a Gemini chain with a system message after its first message is not translated")
        provider, _ = _provider(GEMINI, slot)
        key = dict_of([("x-goog-api-key", _credential.source(_secret(GEMINI, provider, model)))])
        run = call("n8n.ai_chain.chain", name("flow"), node.name, name("items"), provider=provider,
                   url=call("n8n.ai_chain.gemini_url", GEMINI.base_url, model_name), step=slot.step,
                   body=_code.expr("lambda item, i: $body", body=call("n8n.ai_chain.gemini_chat_body", messages,
                                                                       lit(options))),
                   unwrap=node.version >= 1.6, api="gemini", headers=key)
        return _lines(node, slot, run, model, GEMINI, "/v1beta/{model}:generateContent")
    if model.short_type == ai_azure.CHAT_AZURE:  # LangChain's AzureChatOpenAI: the deployment's URL, api-key
        return ai_azure.chain_run(node, slot, model, model_name, messages, options, node.version >= 1.6)
    provider, _ = _provider(OPENAI, slot)
    body = call("n8n.ai_chain.chat_body", model_name, messages, lit(options))
    run = call("n8n.ai_chain.chain", name("flow"), node.name, name("items"), provider=provider,
               url=OPENAI.base_url + "/v1/chat/completions", step=slot.step,
               body=_code.expr("lambda item, i: $body", body=body),
               json_output=options.get("responseFormat") == "json_object", unwrap=node.version >= 1.6,
               **({"parser": parsed[0]} if parsed else {}))
    return _lines(node, slot, run, model)


DEFAULT_SYSTEM = "You are a helpful assistant"  # n8n's ToolsAgent SYSTEM_MESSAGE
V3 = (3.0, 3.1)  # the engine's agent: each tool call a sub-node run of n8n's engine


def _v3_options(node: Node, params: dict[str, Any]) -> None:
    """Refuse the Agent v3 options whose effect is not translated."""
    opts = params.get("options") or {}
    for key in ("forceToolCallOnFirstIteration", "passthroughBinaryPdfs"):
        if opts.get(key):
            raise Untranslatable(f"the AI Agent v{node.version:g} option {key} is not translated")


def agent_node(node: Node, slot: Slot, workflow: Workflow) -> NodeCode:
    """AI Agent v1.6–v3.1 (the tools agent): system message and prompt, the answer as ``{output}``.

    v3 and v3.1 hand each tool call to n8n's engine as a sub-node run: what the model is sent is
    the same loop with the engine's marks (``n8n.ai_chain.tool_loop(engine=…)``, proved on n8n
    1.123.81 for v3 and 2.41.1 for v3.1); memory and the HTTP Request tool under v3 are TODOs.
    """
    if node.version >= 3 and node.version not in V3:
        raise Untranslatable(f"AI Agent v{node.version:g} is not translated (v1.6–v3.1, the Tools Agent, are)")
    if node.version < 1.6:
        raise Untranslatable(f"AI Agent v{node.version:g} is not translated (v1.6–v2.2, the Tools Agent, are): before "
                             "v1.6 the agent kind is chosen by its agent parameter, the conversational agent by default")
    params = _check_described(node)
    if node.version < 2 and params.get("agent", "toolsAgent") != "toolsAgent":
        raise Untranslatable(f"the AI Agent's {params.get('agent')} is not translated (the Tools Agent is)")
    model, model_name, options = chat_model(workflow, node)
    _others(workflow, node, ("languageModel", "tool", "outputParser", "memory"))
    if params.get("needsFallback"):
        raise Untranslatable("an agent with a fallback model is not translated")
    opts = params.get("options") or {}
    if opts.get("returnIntermediateSteps"):
        raise Untranslatable("an agent returning its intermediate steps is not translated")
    engine = node.version in V3
    if engine:
        _v3_options(node, params)
    found = ai_tools.tools_of(workflow, node, slot, engine=engine, newer=node.version >= 3.1)
    specs, tools = list(found.specs), found.calls
    parsed = ai_parser.output_parser(workflow, node, params, slot, chat_model)
    memory = ai_memory.memory_of(workflow, node)
    if memory is not None and engine:
        raise Untranslatable("memory under an AI Agent v3 is not translated: v3 saves each turn's tool calls and "
                             "results into the memory with it (the oracle's capture: the next turn's history holds "
                             "them, the tool messages named)")
    if memory is not None and parsed:
        raise Untranslatable("an agent with both memory and an output parser is not translated (n8n keeps the "
                             "parsed output as JSON text in the memory)")
    # n8n sends the system message only when the node sets one (the oracle: none for empty options); an
    # output parser adds its instructions to it (or is the system message) and its format tool to the tools
    content: ast.expr | None = expr.value(opts["systemMessage"]) if opts.get("systemMessage") else None
    if node.version < 1.9 and opts.get("systemMessage") is None:  # before v1.9 n8n always sends one, its default
        content = lit(DEFAULT_SYSTEM)
    if parsed:
        specs.append(call("n8n.ai_chain.format_tool", lit(parsed[1])))
        content = _code.expr("$system + '\\n\\n' + n8n.ai_chain.AGENT_INSTRUCTIONS", system=content) \
            if content is not None else _code.expr("n8n.ai_chain.AGENT_INSTRUCTIONS")
    system = [dict_of([("role", "system"), ("content", content)])] if content is not None else []
    messages = ast.List([*system, dict_of([("role", "user"), ("content", _prompt(node, params))])], ast.Load())
    provider, _ = _provider(OPENAI, slot)
    body = call("n8n.ai_chain.chat_body", model_name, messages, lit(options),
                **({"tools": ast.List(specs, ast.Load())} if specs else {}),
                **({"stream": True} if node.version < 2 else {}),  # the v1.x executor streams its model calls
                **({"strict": False} if node.version >= 3.1 and specs else {}))  # n8n 2.x's LangChain
    run = call("n8n.ai_chain.agent", name("flow"), node.name, name("items"), provider=provider,
               url=OPENAI.base_url + "/v1/chat/completions", step=slot.step,
               body=_code.expr("lambda item, i: $body", body=body), max_iterations=int(opts.get("maxIterations", 10)),
               **({"tools": dict_of(tools)} if tools else {}), **({"parser": parsed[0]} if parsed else {}),
               **({"memory": memory} if memory is not None else {}),
               **({"binary_images": False} if opts.get("passthroughBinaryImages") is False else {}),
               **({"fails": found.fails} if found.fails else {}),
               **({"engine": f"{node.version:g}", "sent_names": lit(found.sent)} if engine else {}))
    code = _lines(node, slot, run, model)
    code.lines[2:2] = found.lines  # an app tool's async def, before the agent's items
    code.provider_proposals.update(found.proposals)
    code.credentials.extend(found.credentials)
    if found.fails:  # n8n cannot run it as exported: a TODO the user acts on, not a translation that fails alike
        named = str(found.failing).replace(" ", "_")
        raise Untranslatable(f"n8n fails this agent before its first model call ({found.fails!r}: the HTTP Request "
                             f"tool {found.failing!r} is named {named!r}, which its check refuses): rename the tool "
                             "(letters, digits, _) in the workflow")
    return code


def classifier_node(node: Node, slot: Slot, workflow: Workflow) -> NodeCode:
    """Text Classifier v1/v1.1: one chat call per item, the item to the output of each category answered true."""
    params = _check_described(node)
    model, model_name, options = chat_model(workflow, node)
    _others(workflow, node, ("languageModel",))
    opts = params.get("options") or {}
    if opts.get("enableAutoFixing"):
        raise Untranslatable("auto-fixing is not translated: on a parse failure LangChain's OutputFixingParser asks "
                             "the model again with the error")
    categories = [(c.get("category"), c.get("description", "")) for c in (params.get("categories") or {}).get(
        "categories") or []]
    fixed = [opts.get("systemPromptTemplate", ""), opts.get("fallback", "discard"), *(v for c in categories for v in c)]
    if not categories or any(expr.is_expression(v) or not isinstance(v, str) for v in fixed):
        raise Untranslatable("a classifier whose categories or prompt an expression computes is not translated")
    fallback = opts.get("fallback", "discard")
    template = opts.get("systemPromptTemplate") or None
    system = call("n8n.ai_chain.classifier_system", template if template else _code.expr("n8n.ai_chain.CLASSIFIER_PROMPT"),
                  lit([list(c) for c in categories]), multi_class=bool(opts.get("multiClass")), fallback=fallback)
    messages = ast.List([dict_of([("role", "system"), ("content", system)]),
                         dict_of([("role", "user"), ("content", expr.value(params.get("inputText")))])], ast.Load())
    provider, proposals = _provider(OPENAI, slot)
    body = call("n8n.ai_chain.chat_body", model_name, messages, lit(options))
    names = [c for c, _ in categories] + (["fallback"] if fallback == "other" else [])
    run = call("n8n.ai_chain.classify", name("flow"), node.name, name("items"), provider=provider,
               url=OPENAI.base_url + "/v1/chat/completions", step=slot.step,
               body=_code.expr("lambda item, i: $body", body=body), categories=[c for c, _ in categories],
               fallback=fallback)
    outputs = [f"{slot.var}_{index}" for index in range(len(names))]
    target = ast.Tuple([ast.Name(o, ast.Store()) for o in outputs], ast.Store())
    lines = [comment(node), _code.comment(f"its chat model {model.name!r} ({model.type} v{model.version:g}): "
                                          f"POST {OPENAI.base_url}/v1/chat/completions; outputs: {', '.join(names)}"),
             *stmts("items = $inp", inp=_input(slot)), *stmts("$target = await $run", target=target, run=run)]
    return NodeCode(lines, outputs, call_step=slot.step, provider_proposals=proposals,
                    credentials=[_secret(OPENAI, provider, model)],
                    why=f"the chat calls of {model.name!r} to {provider} (proof: the oracle's stand-in provider; in "
                        "shadow the history does not say which output an item went to)")


TRANSLATORS = {"chainLlm": chain_node, "agent": agent_node, "textClassifier": classifier_node}
