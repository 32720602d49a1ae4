"""n8n's LangChain roots at run time: a Basic LLM Chain and an AI Agent as the chat calls of their model sub-node.

What n8n does, and what this does:

- **Chat model** (the ``lmChatOpenAi`` sub-node, LangChain's ``ChatOpenAI``): a chat completion
  posted to ``/chat/completions``; :func:`chat_body` is its body (the model, the messages as
  ``{role, content}`` with LangChain's roles system/user/assistant, the sub-node's options under
  the API's names, ``stream: false``).
- **Basic LLM Chain** (:func:`chain`): the messages are the node's ``messages.messageValues``
  (system, AI or human templates) then the prompt as the human message; the item is
  ``{text: answer.trim()}``, or, when the model answers JSON (``responseFormat: json_object``), the
  parsed object itself (v1.6+), an array as ``{data}``.
- **AI Agent** (:func:`agent`): system message, the prompt as the human message, the tools
  offered as functions; while the model answers with ``tool_calls``, each tool runs (an async
  callable) and its result goes back as a ``role: tool`` message; the item is ``{output}``. After
  ``max_iterations`` model calls that still asked for tools, n8n's executor stops with the output
  "Agent stopped due to max iterations.".

Every model call is ``ctx.call`` under the node's step (memoised by occurrence: a retried job
reads the answers already stored and runs only what is left). In shadow, the call is answered with
the node's recorded output (``_n8n_ai.answer``): that is the item, and no tool runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..errors import NodeFailed
from ._n8n_ai import Body, Items, answer
from ._n8n_ai_memory import recall, remember, session_of
from ._n8n_ai_tools import binary_message, serpapi, tool_result, wikipedia
from ._n8n_ai_parse import (AGENT_INSTRUCTIONS, FORMAT_INSTRUCTIONS, FORMAT_TOOL, agent_input, format_instructions,
                             format_tool, structured)

Tool = Callable[[Any], Awaitable[Any]]
ROLES = {"SystemMessagePromptTemplate": "system", "AIMessagePromptTemplate": "assistant",
         "HumanMessagePromptTemplate": "user"}
MAX_ITERATIONS_OUTPUT = "Agent stopped due to max iterations."
_OPTIONS = {"temperature": "temperature", "maxTokens": "max_tokens", "topP": "top_p",
            "frequencyPenalty": "frequency_penalty", "presencePenalty": "presence_penalty"}


def chat_body(model: Any, messages: Sequence[Mapping[str, Any]], options: Mapping[str, Any],
              tools: Sequence[Mapping[str, Any]] | None = None, stream: bool = False,
              strict: bool | None = None) -> dict[str, Any]:
    """Return the body LangChain's ChatOpenAI posts for the ``lmChatOpenAi`` sub-node's ``options``.

    ``strict`` (n8n 2.x's LangChain, the Agent v3.1): each function spec says ``strict: false``.

    ``stream``: the answer streamed as server-sent events (the Agent v1.x's executor streams; the
    runtime reads the events back into one completion, ``_n8n_ai.answer``).
    """
    body: dict[str, Any] = {"model": model}
    reasoning = is_reasoning_model(model)
    for option, field in _OPTIONS.items():
        if options.get(option) is not None and not (option == "maxTokens" and options[option] == -1):
            body["max_completion_tokens" if reasoning and option == "maxTokens" else field] = options[option]
    body["stream"] = stream
    if stream:
        body["stream_options"] = {"include_usage": True}
    if tools:
        body["tools"] = [dict(t) for t in tools]
        if strict is not None:
            body["tools"] = [{**t, "function": {**t["function"], "strict": strict}} if "function" in t else t
                             for t in body["tools"]]
    if options.get("responseFormat"):
        body["response_format"] = {"type": options["responseFormat"]}
    if options.get("reasoningEffort") in ("low", "medium", "high"):
        body["reasoning_effort"] = options["reasoningEffort"]
    body["messages"] = [{**m, "role": "developer"} if reasoning and m.get("role") == "system" else dict(m)
                        for m in messages]
    return body


def is_reasoning_model(model: Any) -> bool:
    """Tell whether LangChain treats ``model`` as a reasoning model (``o1``…, ``gpt-5`` but not ``gpt-5-chat``):
    its system messages go as role ``developer`` and ``maxTokens`` as ``max_completion_tokens``."""
    text = str(model or "")
    return bool(re.match(r"o\d", text)) or (text.startswith("gpt-5") and not text.startswith("gpt-5-chat"))


def azure_url(deployment: Any, api_version: str) -> str:
    """Return an Azure OpenAI deployment's chat URL, relative to the provider's base_url (the resource's or the
    credential's endpoint): LangChain's AzureChatOpenAI names the deployment after the node's model."""
    return f"/openai/deployments/{deployment}/chat/completions?api-version={api_version}"


def chain_messages(templates: Sequence[Mapping[str, Any]], prompt: Any,
                   instructions: str | None = None) -> list[dict[str, Any]]:
    """Return a Basic LLM Chain's messages: its message templates, then the prompt as the human message.

    ``instructions``: an output parser's format instructions, after the prompt and a newline.
    """
    out = [{"role": ROLES[str(t.get("type", "SystemMessagePromptTemplate"))], "content": str(t.get("message") or "")}
           for t in templates]
    text = prompt if isinstance(prompt, str) else json.dumps(prompt)
    return [*out, {"role": "user", "content": f"{text}\n{instructions}" if instructions is not None else text}]


def chain_text(text: Any, *, json_output: bool, unwrap: bool = True) -> dict[str, Any]:
    """Return a Basic LLM Chain's item json for the model's answer text (n8n's ``formatResponse``)."""
    value: Any = text if isinstance(text, str) else ""
    if json_output:
        value = _json_answer(value)
    if isinstance(value, str):
        return {"text": value.strip()}
    if isinstance(value, list):
        return {"data": value}
    if isinstance(value, dict):
        return value if unwrap else {"text": json.dumps(value, separators=(",", ":"), ensure_ascii=False)}
    return {"response": {"text": value}}


def _json_answer(text: str) -> Any:
    """Parse a JSON answer as LangChain's JsonOutputParser does: the text, else a fenced block in it."""
    try:
        return json.loads(text)
    except ValueError:
        fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
        try:
            return json.loads(fenced.group(1) if fenced else text.strip())
        except ValueError:
            return text


_GEMINI_OPTIONS = ("maxOutputTokens", "temperature", "topK", "topP")


def gemini_chat_body(messages: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the body LangChain's ChatGoogleGenerativeAI posts for the ``lmChatGoogleGemini`` sub-node.

    A first system message is the ``systemInstruction``; the others are ``contents`` (an assistant
    message as role ``model``); the sub-node's options go in ``generationConfig``.
    """
    config: dict[str, Any] = {"stopSequences": []}
    config.update({k: options[k] for k in _GEMINI_OPTIONS if options.get(k) is not None})
    safety = ((options.get("safetySettings") or {}).get("values")) or []
    body: dict[str, Any] = {"generationConfig": config, "safetySettings": safety if isinstance(safety, list) else [safety]}
    rest = list(messages)
    if rest and rest[0].get("role") == "system":
        body["systemInstruction"] = {"role": "system", "parts": [{"text": rest.pop(0).get("content")}]}
    body["contents"] = [{"role": "model" if m.get("role") == "assistant" else "user", "parts": [{"text": m.get("content")}]}
                        for m in rest]
    return body


def gemini_url(base: str, model: Any) -> str:
    """Return the generateContent URL of a Gemini model (LangChain names it ``models/<name>`` either way)."""
    return f"{base}/v1beta/models/{str(model).removeprefix('models/')}:generateContent"


def _content(got: Mapping[str, Any]) -> Any:
    if "candidates" in got:  # Gemini: the first candidate's text parts, joined
        parts = ((got.get("candidates") or [{}])[0].get("content") or {}).get("parts") or []
        return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))
    choices = got.get("choices") or [{}]
    return (choices[0].get("message") or {}).get("content")


async def chain(flow: Any, node: str, items: Items, *, provider: str, url: str, step: str, body: Body,
                json_output: bool = False, unwrap: bool = True, api: str = "chat",
                headers: dict[str, str] | None = None, parser: Mapping[str, Any] | None = None) -> Items:
    """Run a Basic LLM Chain: one chat call per item, the answer as ``{text}`` (or the parsed JSON).

    ``parser`` (an output parser, ``_n8n_ai_parse.structured``'s): the item is the parsed ``{output}``.
    """
    ctx, out = flow.ctx, []  # type: Any, Items
    extra = {"headers": headers} if headers else {}
    for i, item in enumerate(items):
        response = await ctx.call(provider, "POST", url, json=body(item, i), step=step, **extra)
        got, recorded = answer(ctx, response, api, i, node)
        if got is not None and parser is not None:
            out.append({"json": await structured(ctx, node, _content(got), parser, index=i)})
            continue
        out += recorded if got is None else [{"json": chain_text(_content(got), json_output=json_output,
                                                                  unwrap=unwrap)}]
    return flow.emit(node, out) if items else []


CLASSIFIER_PROMPT = ("Please classify the text provided by the user into one of the following categories: {categories}, "
                     "and use the provided formatting instructions below. Don't explain, and only output the json.")
_FALLBACK = {"other": 'If no categories apply, select the "fallback" option.',
             "discard": "If there is not a very fitting category, select none of the categories."}


def classifier_system(template: str, categories: Sequence[tuple[str, str]], *, multi_class: bool,
                      fallback: str) -> str:
    """Return the Text Classifier's system message: its template, the schema's instructions, the rules."""
    properties = {name: {"type": "boolean", "description": f'Should be true if the input has category "{name}" '
                                                          f"(description: {description})"}
                  for name, description in categories}
    if fallback == "other":
        properties["fallback"] = {"type": "boolean", "description": "Should be true if none of the other categories apply"}
    schema = {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False,
              "$schema": "http://json-schema.org/draft-07/schema#"}
    rules = ("Categories are not mutually exclusive, and multiple can be true" if multi_class
             else "Categories are mutually exclusive, and only one can be true")
    head = template.replace("{categories}", ", ".join(name for name, _ in categories))
    instructions = FORMAT_INSTRUCTIONS.replace("{schema}", json.dumps(schema, separators=(",", ":"), ensure_ascii=False))
    return f"{head}\n\t{instructions}\n\t{rules}\n\t{_FALLBACK.get(fallback, '')}"


def classification(text: Any, names: Sequence[str], node: str) -> dict[str, bool]:
    """Parse the model's answer as the StructuredOutputParser does: JSON (in a fence or not), booleans."""
    raw = str(text or "").strip()
    if "```" in raw:
        raw = re.split(r"```(?:json)?", raw)[1]
    try:
        parsed = json.loads(raw, strict=False)
    except ValueError:
        raise NodeFailed(f"{node}: Failed to parse. Text: {str(text)[:200]}") from None
    if not isinstance(parsed, dict) or any(not isinstance(parsed.get(n), bool) for n in names):
        raise NodeFailed(f"{node}: Failed to parse: the answer is not a boolean per category: {str(text)[:200]}")
    return {n: parsed[n] for n in names}


async def classify(flow: Any, node: str, items: Items, *, provider: str, url: str, step: str, body: Body,
                   categories: Sequence[str], fallback: str = "discard") -> list[Items]:
    """Run a Text Classifier: one chat call per item, the item sent to each category's output it is true for.

    In shadow the recorded output cannot say which category an item went to (the importer keeps a
    node's items, not their outputs): the node fails naming that, rather than route by guess.
    """
    ctx = flow.ctx
    names = [*categories, *(["fallback"] if fallback == "other" else [])]
    outputs: list[Items] = [[] for _ in names]
    for i, item in enumerate(items):
        response = await ctx.call(provider, "POST", url, json=body(item, i), step=step)
        got, _ = answer(ctx, response, "chat", i, node)
        if got is None:
            raise NodeFailed(f"{node}: the recorded output does not say which category each item went to "
                             "(the history keeps the node's items, not its outputs): replay needs them per output")
        chosen = classification(_content(got), names, node)
        for index, category in enumerate(names):
            if chosen[category]:
                outputs[index].append(item)
    return flow.emit_outputs(node, outputs) if items else outputs


def tool_message(call: Mapping[str, Any], result: Any) -> dict[str, Any]:
    """Return the ``role: tool`` message that answers one tool call (an object as its JSON text)."""
    content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    return {"role": "tool", "content": content, "tool_call_id": call.get("id")}


async def tool_loop(ctx: Any, node: str, request: dict[str, Any], *, provider: str, url: str, step: str,
                    tools: Mapping[str, Tool], max_iterations: int, index: int = 0,
                    final_tool: str | None = None, engine: str | None = None,
                    sent_names: Mapping[str, str] | None = None) -> tuple[Any, Items | None]:
    """Call the model until it answers without tool calls; return (its answer text, None).

    Each answer's tool calls run in order and go back as tool messages. Returns (None, items)
    when a call was answered with a recorded node output (shadow). After ``max_iterations`` calls
    that still asked for tools the text is n8n's "Agent stopped due to max iterations.".
    ``final_tool`` (an output parser's ``format_final_json_response``): a call of it ends the loop,
    returning ``{"final": its arguments as JSON text}``, what n8n hands the parser.
    ``engine`` (the Agent v3: each tool call a sub-node run of n8n's engine): the calls sent back
    carry their id in their arguments, each in an assistant message of its own named after its
    tool node (``sent_names``: the offered name → n8n's ``nodeNameToToolName`` of the node); "3.1"
    (n8n 2.x): that message's content is ``[]``.
    """
    messages = request["messages"]
    for _ in range(max(1, max_iterations)):
        response = await ctx.call(provider, "POST", url, json=request, step=step)
        got, recorded = answer(ctx, response, "chat", index, node)
        if got is None:
            return None, recorded
        message = dict((got.get("choices") or [{}])[0].get("message") or {})
        calls = message.get("tool_calls") or []
        if not calls:
            return message.get("content"), None
        calls = [_sent_call(c, engine is not None) for c in calls]
        final = next((c for c in calls if final_tool and (c.get("function") or {}).get("name") == final_tool), None)
        if final is not None:
            raw = _arguments_object(final["function"].get("arguments"))
            return {"final": json.dumps(raw, separators=(",", ":"), ensure_ascii=False)}, None
        if engine is None:
            messages.append({"role": "assistant", "content": message.get("content") or "", "tool_calls": calls})
        for call in calls:
            function = call.get("function") or {}
            tool = tools.get(str(function.get("name")))
            arguments = _arguments(function.get("arguments"))
            result = await tool(arguments) if tool is not None else f"{function.get('name')} is not a valid tool"
            if engine is not None:  # one assistant message per call, named after its tool node (buildSteps)
                named = {**call, "function": {**function, "name": (sent_names or {}).get(str(function.get("name")),
                                                                                         function.get("name"))}}
                messages.append({"role": "assistant", "content": [] if engine == "3.1" else "",
                                 "tool_calls": [named]})
            messages.append(tool_message(call, result))
    return MAX_ITERATIONS_OUTPUT, None


def _sent_call(call: Mapping[str, Any], with_id: bool = False) -> dict[str, Any]:
    """Return a tool call as LangChain sends it back: its arguments parsed and written compactly
    (``with_id``: the Agent v3's, the call's id added to them)."""
    function = dict(call.get("function") or {})
    try:
        parsed = json.loads(function.get("arguments") or "{}")
        if with_id and isinstance(parsed, dict):
            parsed = {**parsed, "id": call.get("id")}
        function["arguments"] = json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        pass
    return {"id": call.get("id"), "type": call.get("type", "function"), "function": function}


async def http_tool(ctx: Any, provider: str, method: str, url: str, *, step: str) -> str:
    """Run an HTTP Request tool (no parameters from the model): its answer as the tool result text.

    n8n hands the model a JSON answer as ``JSON.stringify(body, null, 2)``, any other as its text.
    """
    response = await ctx.call(provider, method, url, step=step)
    try:
        body = response.json()
    except ValueError:
        return str(response.text)
    return json.dumps(body, indent=2, ensure_ascii=False)


def engine_tool(tool: Tool) -> Tool:
    """Return ``tool`` as the Agent v3's engine runs a LangChain tool node: its result as the node's items' JSON."""
    async def run(arg: Any) -> str:
        return tool_result([{"json": {"response": await tool(arg)}}])
    return run


async def think(thought: Any) -> str:
    """Run n8n's Think tool: no call; the thought goes back to the model as the tool's result."""
    return thought if isinstance(thought, str) else json.dumps(thought, ensure_ascii=False)


def _arguments_object(raw: Any) -> Any:
    try:
        return json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return raw


def _arguments(raw: Any) -> Any:
    """Return a tool call's input as n8n hands it to the tool: the ``input`` field, else the object."""
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return raw
    return parsed.get("input", parsed) if isinstance(parsed, dict) else parsed


async def agent(flow: Any, node: str, items: Items, *, provider: str, url: str, step: str, body: Body,
                tools: Mapping[str, Tool] | None = None, max_iterations: int = 10,
                parser: Mapping[str, Any] | None = None, memory: Mapping[str, Any] | None = None,
                binary_images: bool = True, fails: str | None = None, engine: str | None = None,
                sent_names: Mapping[str, str] | None = None) -> Items:
    """Run an AI Agent over its items: the tool loop per item, the answer as ``{output}``.

    ``parser`` (an output parser): the answer, or the ``format_final_json_response`` call's
    arguments, parsed as n8n's agent parses them (``_n8n_ai_parse.agent_input``): the item is ``{output}``.
    ``memory`` (a Simple Memory, ``_n8n_ai_memory.recall``): the session's last turns go before the
    prompt, and the turn (the prompt, the output) is appended after the answer.
    ``binary_images`` (n8n's passthroughBinaryImages, on unless set off): an item's image and text
    files go to the model as a user message after the prompt (``_n8n_ai_tools.binary_message``).
    ``fails``: a tool n8n refuses (its message): the node fails before any call, as n8n's does.
    """
    if fails is not None and items:
        raise NodeFailed(f"{node}: {fails}")
    ctx, out = flow.ctx, []  # type: Any, Items
    session = session_of(memory, node, items) if memory is not None and items else None
    for i, item in enumerate(items):
        request = body(item, i)
        ordinal = await recall(flow, memory, session, request) if memory is not None and session is not None else 0
        prompt = request["messages"][-1].get("content")
        files = binary_message(item) if binary_images and isinstance(item, Mapping) else None
        if files is not None:
            request["messages"].append(files)
        text, recorded = await tool_loop(ctx, node, request, provider=provider, url=url, step=step,
                                         tools=tools or {}, max_iterations=max_iterations, index=i,
                                         final_tool=FORMAT_TOOL if parser is not None else None, engine=engine,
                                         sent_names=sent_names)
        if recorded is None and parser is not None:
            given = text["final"] if isinstance(text, dict) else agent_input(text)
            out.append({"json": await structured(ctx, node, given, parser, index=i)})
            continue
        got = recorded if recorded is not None else [{"json": {"output": text if text is not None else ""}}]
        if session is not None:
            answered = got[0]["json"].get("output") if got else ""
            await remember(flow, session, (str(prompt), answered if isinstance(answered, str) else
                                           json.dumps(answered)), ordinal)
        out += got
    return flow.emit(node, out) if items else []


__all__ = ["AGENT_INSTRUCTIONS", "CLASSIFIER_PROMPT", "FORMAT_INSTRUCTIONS", "MAX_ITERATIONS_OUTPUT", "ROLES", "agent",
           "azure_url", "chain", "chain_messages", "chain_text", "chat_body", "classification", "classifier_system",
           "classify", "engine_tool", "format_instructions", "format_tool", "gemini_chat_body", "gemini_url",
           "http_tool", "is_reasoning_model", "serpapi", "think", "tool_loop", "tool_message", "tool_result",
           "wikipedia"]
