"""n8n's AI nodes as the REST calls their models answer: OpenAI, Anthropic, Gemini, and the LangChain roots.

The AI nodes live in ``@n8n/n8n-nodes-langchain``. A *root* node (Basic LLM Chain, AI Agent,
Text Classifier) gets its chat model, memory, tools and output parser from *sub-nodes* wired to it
by ``ai_*`` connections (``Workflow.sub_nodes``); a sub-node never runs on its own, so it is
counted as part of its root's translation (``ai_roots.sub_node_row``): translated when the root is,
a TODO when the root is. A root translates only when every sub-node it has is one it reads.

The "message a model" nodes call their provider themselves (``openAi`` text.message →
``/v1/chat/completions``, v2 text.response → ``/v1/responses``; ``anthropic`` →
``/v1/messages``; ``googleGemini`` → ``:generateContent``); their parameters are read as n8n runs
them (``Node.settings``: the defaults of the node's description, ``descriptions/langchain.json``),
so a version with no description stays a TODO. The runtime is ``queue_core.compat._n8n_ai``; the
chains' half is :mod:`harness.platforms.n8n.translate.app_ai_chain`, the dispatch and the sub-nodes'
accounting :mod:`harness.platforms.n8n.translate.ai_roots`. The proof of a translated
version is the real n8n answering through a loopback stand-in provider
(``tests/oracle/test_ai_conformance.py``) and the shadow run.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate import ai_audio, expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, _input, comment
from harness.scaffold import _code, _credential
from harness.scaffold._code import call, dict_of, lit, name, stmts

PACKAGE = "@n8n/n8n-nodes-langchain."
OPENAI, ANTHROPIC, GEMINI = catalogue.app("openai"), catalogue.app("anthropic"), catalogue.app("gemini")


def model_id(node: Node, params: dict[str, Any], key: str = "modelId") -> ast.expr:
    """Return the model a node names (a resource locator's value, or text); raise Untranslatable when none."""
    raw = params.get(key)
    if isinstance(raw, dict):
        if raw.get("mode") == "url":
            raise Untranslatable(f"the model is given as a URL ({key} mode 'url')")
        raw = raw.get("value")
    if raw in (None, ""):
        raise Untranslatable(f"{node.short_type} names no model ({key})")
    return expr.value(raw)


def messages(params: dict[str, Any], keys: tuple[str, ...] = ("content", "role")) -> ast.expr:
    """Return the node's ``messages.values`` as a list of message dicts (each value translated)."""
    entries = (params.get("messages") or {}).get("values") or []
    out: list[ast.expr] = []
    for entry in entries:
        extra = sorted(set(entry) - set(keys) - {"type"})
        if extra or entry.get("type", "text") != "text":
            raise Untranslatable(f"a message with {', '.join(extra) or 'type ' + str(entry.get('type'))} "
                                 "(an image or a file) is not translated: text messages are")
        out.append(dict_of((k, expr.value(entry[k])) for k in keys if k in entry))
    return ast.List(out, ast.Load())


def flag(node: Node, params: dict[str, Any], key: str) -> bool:
    """Return a boolean parameter (an expression there is Untranslatable)."""
    value = params.get(key, False)
    if not isinstance(value, bool):
        raise Untranslatable(f"{node.short_type}: {key} set by an expression is not translated")
    return value


def _provider(app: catalogue.App, slot: Slot) -> tuple[str, dict[str, str]]:
    provider = slot.providers.get(app.host, app.provider)
    return provider, ({} if app.host in slot.providers else {provider: app.base_url})


def _secret(app: catalogue.App, provider: str, node: Node) -> _credential.Credential:
    assert app.secret is not None
    bearer = app.secret.auth is catalogue.Auth.BEARER
    return _credential.Credential(app.secret.env, provider, f"n8n's {app.name} credential", f'node "{node.name}"',
                                  bearer)


def _no_tools(workflow: Workflow, node: Node) -> None:
    attached = [s for s in workflow.attached(node.name) if not workflow.nodes[s.source].disabled]
    if attached:
        kinds = ", ".join(sorted({s.kind for s in attached}))
        raise Untranslatable(f"{node.short_type} with connected sub-nodes ({kinds}) is not translated: the tool "
                             "loop runs for the AI Agent")


def _check_described(node: Node) -> dict[str, Any]:
    if not node.described:
        raise Untranslatable(f"{node.short_type} v{node.version:g} has no description in this n8n "
                             "(descriptions/langchain.json): its defaults are unknown (a newer n8n describes it: "
                             "CUTOVER_N8N_VERSION=<ver> CUTOVER_ORACLE_DIR=<dir> tests/oracle/install.sh, then "
                             "N8N_NODES_PACKAGE=@n8n/n8n-nodes-langchain node descriptions/extract.js, and its cases "
                             "proved against that n8n)")
    return _nested_defaults(node, node.settings)


def _nested_defaults(node: Node, params: dict[str, Any]) -> dict[str, Any]:
    """Fill the fixed collections set inside an optional collection (``options.textFormat.textOptions``).

    n8n leaves an optional collection's absent options out, but a fixed collection given in it gets
    its values' defaults (the oracle shows ``verbosity: medium`` sent for a bare ``{type}``).
    """
    from harness.platforms.n8n.descriptions import _fill_fixed, properties

    for prop in properties(node.type, node.version) or []:
        given = params.get(prop["name"])
        if prop.get("type") != "collection" or not isinstance(given, dict):
            continue
        for option in prop.get("options") or []:
            if option.get("type") == "fixedCollection" and isinstance(given.get(option["name"]), dict):
                given[option["name"]] = _fill_fixed(option, given[option["name"]], params, node.version)
    return params


def _message_node(node: Node, slot: Slot, app: catalogue.App, operation: str, api: str, path: ast.expr,
                  body: ast.expr, shape: ast.expr, headers: ast.expr | None = None,
                  params: ast.expr | None = None) -> NodeCode:
    provider, proposals = _provider(app, slot)
    op = app.operations[operation]
    kwargs: dict[str, Any] = {"provider": provider, "url": path, "step": slot.step, "api": api,
                              "body": _code.expr("lambda item, i: $body", body=body),
                              "shape": _code.expr("lambda answer: $shape", shape=shape)}
    if headers is not None:
        kwargs["headers"] = headers
    if params is not None:
        kwargs["params"] = params
    lines = [comment(node), _code.comment(f"{app.provider}: {operation} → {op.method} {app.base_url}{op.path}"),
             *stmts("items = $inp", inp=_input(slot)),
             *stmts("$var = await $run", var=name(slot.var),
                    run=call("n8n.ai.message", name("flow"), node.name, name("items"), **kwargs))]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals,
                    credentials=[_secret(app, provider, node)], why=f"a call to {app.provider} (proof: the shadow run"
                    " and the oracle's stand-in provider)")


def _audio_lines(node: Node, slot: Slot, operation: str, run: Callable[[str], ast.expr]) -> NodeCode:
    """The frame of an OpenAI audio node (``ai_audio``): its items, the run, the provider and the key."""
    provider, proposals = _provider(OPENAI, slot)
    op = OPENAI.operations[operation]
    lines = [comment(node), _code.comment(f"{OPENAI.provider}: {operation} → {op.method} {OPENAI.base_url}{op.path}"),
             *stmts("items = $inp", inp=_input(slot)), *stmts("$var = await $run", var=name(slot.var),
                                                              run=run(provider))]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals,
                    credentials=[_secret(OPENAI, provider, node)], why=f"a call to {OPENAI.provider} (proof: the "
                    "shadow run and the oracle's stand-in provider)")


def _operation(node: Node, params: dict[str, Any], wanted: str) -> None:
    got = f"{params.get('resource')}.{params.get('operation')}"
    if got != wanted:
        raise Untranslatable(f"{node.short_type} {got} is not translated ({wanted} is)")


def openai_node(node: Node, slot: Slot, workflow: Workflow) -> NodeCode:
    """OpenAI (``@n8n/n8n-nodes-langchain.openAi``): v1.x text.message, v2 text.response."""
    params = _check_described(node)
    _no_tools(workflow, node)
    v2 = node.version >= 2
    if params.get("resource") == "audio" and not v2:
        return ai_audio.audio_node(node, slot, params, OPENAI, _audio_lines)
    _operation(node, params, "text.response" if v2 else "text.message")
    options = expr.value(params.get("options") or {})
    simplify = flag(node, params, "simplify")
    if v2:
        if params.get("builtInTools"):
            raise Untranslatable("the OpenAI node's built-in tools (web search, code interpreter, file search) are "
                                 f"not translated; the call: {catalogue.skeleton('openai', 'response.create')}")
        unknown = set(params.get("options") or {}) - {"instructions", "maxTokens", "temperature", "topP", "store",
                                                      "parallelToolCalls", "maxToolsIterations", "textFormat"}
        if unknown:
            raise Untranslatable(f"OpenAI v2 options {', '.join(sorted(unknown))} are not translated")
        body = call("n8n.ai.openai_response_body", model_id(node, params), _responses(params), options)
        text_options = ((params.get("options") or {}).get("textFormat") or {}).get("textOptions")
        json_output = isinstance(text_options, dict) and text_options.get("type") in ("json_object", "json_schema")
        shape = call("n8n.ai.openai_response_items", name("answer"), simplify=simplify, json_output=json_output)
        return _message_node(node, slot, OPENAI, "response.create", "responses",
                             lit(OPENAI.base_url + "/v1/responses"), body, shape)
    json_output = flag(node, params, "jsonOutput")
    body = call("n8n.ai.openai_message_body", model_id(node, params), messages(params), options,
                json_output=json_output)
    shape = call("n8n.ai.openai_message_items", name("answer"), json_output=json_output, simplify=simplify)
    return _message_node(node, slot, OPENAI, "chat.complete", "chat", lit(OPENAI.base_url + "/v1/chat/completions"),
                         body, shape)


def _responses(params: dict[str, Any]) -> ast.expr:
    return messages({"messages": params.get("responses") or {}})


def anthropic_node(node: Node, slot: Slot, workflow: Workflow) -> NodeCode:
    """Anthropic (``@n8n/n8n-nodes-langchain.anthropic``) text.message, without attachments or tools."""
    params = _check_described(node)
    _no_tools(workflow, node)
    _operation(node, params, "text.message")
    if flag(node, params, "addAttachments"):
        raise Untranslatable("Anthropic attachments (files uploaded first) are not translated")
    opts = params.get("options") or {}
    if opts.get("codeExecution") or opts.get("webSearch"):
        raise Untranslatable("Anthropic code execution and web search are not translated")
    options = expr.value(opts)
    provider, _ = _provider(ANTHROPIC, slot)
    headers = dict_of([("anthropic-version", "2023-06-01"), ("anthropic-beta", "files-api-2025-04-14"),
                       ("x-api-key", _credential.source(_secret(ANTHROPIC, provider, node)))])
    body = call("n8n.ai.anthropic_body", model_id(node, params), messages(params), options)
    shape = call("n8n.ai.anthropic_items", name("answer"), options, simplify=flag(node, params, "simplify"))
    return _message_node(node, slot, ANTHROPIC, "text.message", "anthropic", lit(ANTHROPIC.base_url + "/v1/messages"),
                         body, shape, headers=headers)


def gemini_node(node: Node, slot: Slot, workflow: Workflow) -> NodeCode:
    """Google Gemini (``@n8n/n8n-nodes-langchain.googleGemini``) text.message, without tools.

    v1.1+ (n8n 2.x): blank messages are left out (none left fails the node), ``options.codeExecution``
    is v1's only (n8n 2.x reads it for v1 alone), ``options.includeMergedResponse`` adds each candidate's
    joined text; a built-in tool set in ``builtInTools`` is a TODO. The audio operations:
    :mod:`harness.platforms.n8n.translate.app_ai_media` (which dispatches this node's resources).
    """
    params = _check_described(node)
    _no_tools(workflow, node)
    _operation(node, params, "text.message")
    opts = dict(params.get("options") or {})
    newer = node.version >= 1.1
    if newer:
        opts.pop("codeExecution", None)  # n8n adds the code execution tool from options for v1 only
    if any((params.get("builtInTools") or {}).values()) or opts.get("codeExecution"):
        raise Untranslatable("Gemini built-in tools and code execution are not translated")
    merged = opts.pop("includeMergedResponse", False)
    if not isinstance(merged, bool):
        raise Untranslatable("googleGemini: options.includeMergedResponse set by an expression is not translated")
    options = expr.value(opts)
    provider, _ = _provider(GEMINI, slot)
    key = dict_of([("x-goog-api-key", _credential.source(_secret(GEMINI, provider, node)))])  # not the query: records
    url = call("n8n.concat", GEMINI.base_url + "/v1beta/", model_id(node, params), ":generateContent")
    extra = {"nonempty": True, "node": node.name} if newer else {}
    body = call("n8n.ai.gemini_body", messages(params), options, json_output=flag(node, params, "jsonOutput"), **extra)
    shape = call("n8n.ai.gemini_items", name("answer"), simplify=flag(node, params, "simplify"),
                 **({"merged": True} if merged else {}))
    return _message_node(node, slot, GEMINI, "text.message", "gemini", url, body, shape, headers=key)


Translator = Callable[[Node, Slot, Workflow], NodeCode]
TRANSLATORS: dict[str, Translator] = {"openAi": openai_node, "anthropic": anthropic_node, "googleGemini": gemini_node}
