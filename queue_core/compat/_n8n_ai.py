"""n8n's AI nodes at run time: every model call one REST call through ``ctx.call``, its answer shaped as n8n shapes it.

What n8n does (``@n8n/n8n-nodes-langchain``), and what this does:

- **OpenAI** ``text.message`` (v1.x) posts ``/chat/completions`` with ``{model, messages,
  response_format, …options}`` (``maxTokens`` sent as ``max_completion_tokens``, ``topP`` as
  ``top_p``; "Output Content as JSON" adds ``response_format: json_object`` and a first system
  message); each ``choices[]`` entry is an item, its ``message.content`` JSON-parsed when asked.
  v2 ``text.response`` posts ``/responses`` (:func:`openai_response_body`); the item is
  ``{output: [the message items]}``.
- **Anthropic** ``text.message`` posts ``/v1/messages`` (``max_tokens`` 1024 unless set); the
  item is ``{content, merged_response}``.
- **Gemini** ``text.message`` posts ``/v1beta/{model}:generateContent``; each candidate is an item.
- **LangChain chains and agents** (Basic LLM Chain, Text Classifier, AI Agent) call their chat
  model sub-node's endpoint (:func:`chat_body`: an OpenAI chat model's ``/chat/completions``); the
  chain's item is ``{text}`` (the answer trimmed), the agent's ``{output}``, the classifier sends
  each item to the outputs of the categories the model answered true.
- **Tools** (:func:`tool_loop`): the model answers with ``tool_calls``, the tools run (each an
  async callable the scaffold generates: a sub-workflow as a child job, an HTTP call), their
  results go back as ``role: tool`` messages, until an answer without tool calls or the
  iteration limit. Every model call is ``ctx.call`` under the node's step, so it is durable: a
  retried job reads the stored answers of the calls already made (memoised by occurrence) and
  runs no tool twice whose call completed.

Shadow (and dry-run) replays: the gateway answers a call from the legacy run's recorded output of
the node's step, which is the node's *output* (``{text}``, ``{output}``, a choice), not the
provider's answer. :func:`answer` tells the two apart by shape; a recorded output is taken as
the node's items for that item (no tool runs: an agent's tool calls are not in its output), and
the comparison is of the node's output items. Live, an answer of neither shape fails the node.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from copy import deepcopy
from typing import Any

from ..errors import NodeFailed

Item = dict[str, Any]
Items = list[Item]
Body = Callable[[Item, int], dict[str, Any]]
Tool = Callable[[Any], Awaitable[Any]]

JSON_SYSTEM = "You are a helpful assistant designed to output JSON."
# How each API's answer is told from a node output recorded in its place (see ``answer``).
ANSWERS: dict[str, Callable[[Any], bool]] = {
    "chat": lambda b: isinstance(b, dict) and isinstance(b.get("choices"), list),
    "responses": lambda b: isinstance(b, dict) and b.get("object") == "response" and isinstance(b.get("output"), list),
    "anthropic": lambda b: isinstance(b, dict) and b.get("type") == "message" and isinstance(b.get("content"), list),
    "gemini": lambda b: isinstance(b, dict) and isinstance(b.get("candidates"), list),
}


def _defined(pairs: dict[str, Any]) -> dict[str, Any]:
    """Drop the ``undefined`` fields (None here) as ``JSON.stringify`` does."""
    return {k: v for k, v in pairs.items() if v is not None}


def openai_message_body(model: Any, messages: Sequence[dict[str, Any]], options: dict[str, Any], *,
                        json_output: bool) -> dict[str, Any]:
    """Return the body n8n's OpenAI node v1.x ``text.message`` posts to ``/chat/completions``."""
    opts = dict(options)
    opts.pop("maxToolsIterations", None)
    if "maxTokens" in opts:
        opts["max_completion_tokens"] = opts.pop("maxTokens")
    if "topP" in opts:
        opts["top_p"] = opts.pop("topP")
    sent = [dict(m) for m in messages]
    response_format = None
    if json_output:
        response_format = {"type": "json_object"}
        sent = [{"role": "system", "content": JSON_SYSTEM}, *sent]
    return _defined({"model": model, "messages": sent, "response_format": response_format, **opts})


def openai_message_items(answer: dict[str, Any], *, json_output: bool, simplify: bool) -> Items:
    """Return the OpenAI node's items of a chat completion: each choice (simplified), else the answer."""
    answer = deepcopy(answer)
    if json_output:
        for choice in answer.get("choices") or []:
            message = choice.get("message") if isinstance(choice, dict) else None
            if isinstance(message, dict) and isinstance(message.get("content"), str):
                try:
                    message["content"] = json.loads(message["content"])
                except ValueError:
                    pass  # n8n keeps text that is not JSON as it is
    if simplify:
        return [{"json": choice} for choice in answer.get("choices") or []]
    return [{"json": answer}]


def openai_response_body(model: Any, messages: Sequence[dict[str, Any]], options: dict[str, Any]) -> dict[str, Any]:
    """Return the body n8n's OpenAI node v2 ``text.response`` posts to ``/responses`` (text messages).

    The options the translator reads (``instructions``, ``maxTokens``, ``temperature``, ``topP``,
    ``store``, ``parallelToolCalls``) are sent; empty values are left out as n8n does.
    """
    body = {
        "model": model,
        "input": [{"role": m.get("role"), "content": [{"type": "input_text", "text": m.get("content")}]}
                  for m in messages],
        "parallel_tool_calls": options.get("parallelToolCalls", True),
        "store": options.get("store", True),
        "instructions": options.get("instructions"),
        "max_output_tokens": options.get("maxTokens"),
        "temperature": options.get("temperature"),
        "top_p": options.get("topP"),
        "background": False,
    }
    text_options = (options.get("textFormat") or {}).get("textOptions")
    if isinstance(text_options, dict):
        kind, config = text_options.get("type"), _defined({"verbosity": text_options.get("verbosity")})
        if kind == "json_schema":
            schema = text_options.get("schema")
            config["format"] = _full({"type": kind, "name": text_options.get("name"),
                                      "schema": json.loads(schema) if isinstance(schema, str) else schema})
        elif kind in ("json_object", "text"):
            config["format"] = {"type": kind}
        if kind == "json_object":
            body["input"] = [{"role": "system", "content": [{"type": "input_text", "text": JSON_SYSTEM}]},
                             *body["input"]]
        body["text"] = config
    return _full(body)


def _full(pairs: dict[str, Any]) -> dict[str, Any]:
    """Drop the empty fields as n8n's ``removeEmptyProperties`` does (``""``, undefined, ``{}``, ``[]``)."""
    return {k: v for k, v in pairs.items() if v is not None and v != "" and v != {} and v != []}


def openai_response_items(answer: dict[str, Any], *, simplify: bool, json_output: bool = False) -> Items:
    """Return the OpenAI v2 node's item of a response: ``{output: [message items]}`` (simplified).

    ``json_output`` (a json_object or json_schema text format): each output text is JSON-parsed.
    """
    answer = deepcopy(answer)
    if json_output:
        for entry in answer.get("output") or []:
            for content in entry.get("content") or [] if entry.get("type") == "message" else []:
                if content.get("type") == "output_text" and isinstance(content.get("text"), str):
                    try:
                        content["text"] = json.loads(content["text"])
                    except ValueError:
                        pass
    if simplify:
        return [{"json": {"output": [o for o in answer.get("output") or [] if o.get("type") == "message"]}}]
    return [{"json": answer}]


def anthropic_body(model: Any, messages: Sequence[dict[str, Any]], options: dict[str, Any]) -> dict[str, Any]:
    """Return the body n8n's Anthropic node ``text.message`` posts to ``/v1/messages`` (no tools)."""
    return _defined({"model": model, "messages": [dict(m) for m in messages], "tools": [],
                     "max_tokens": options.get("maxTokens", 1024), "system": options.get("system"),
                     "temperature": options.get("temperature"), "top_p": options.get("topP"),
                     "top_k": options.get("topK")})


def anthropic_items(answer: dict[str, Any], options: dict[str, Any], *, simplify: bool) -> Items:
    """Return the Anthropic node's item: ``{content, merged_response}`` (simplified), else the answer."""
    merged = None
    if options.get("includeMergedResponse"):
        merged = "".join(c.get("text", "") for c in answer.get("content") or [] if c.get("type") == "text")
    if simplify:
        return [{"json": _defined({"content": answer.get("content"), "merged_response": merged})}]
    return [{"json": _defined({**answer, "merged_response": merged})}]


def gemini_body(messages: Sequence[dict[str, Any]], options: dict[str, Any], *, json_output: bool,
                nonempty: bool = False, node: str = "Google Gemini") -> dict[str, Any]:
    """Return the body n8n's Gemini node ``text.message`` posts to ``:generateContent`` (no tools).

    ``nonempty`` (v1.1+, n8n 2.x): a message whose content is blank is left out, and none left fails
    the node ("A non-empty prompt is required."), as n8n 2.x's node does.
    """
    if nonempty:
        messages = [m for m in messages if str(m.get("content") or "").strip()]
        if not messages:
            raise NodeFailed(f"{node}: A non-empty prompt is required.")
    config = _defined({"frequencyPenalty": options.get("frequencyPenalty"),
                       "maxOutputTokens": options.get("maxOutputTokens"),
                       "candidateCount": options.get("candidateCount"),
                       "presencePenalty": options.get("presencePenalty"), "temperature": options.get("temperature"),
                       "topP": options.get("topP"), "topK": options.get("topK"),
                       "responseMimeType": "application/json" if json_output else None})
    if options.get("thinkingBudget") is not None:
        config["thinkingConfig"] = {"thinkingBudget": options["thinkingBudget"]}
    system = options.get("systemMessage")
    return _defined({"tools": [{"codeExecution": {}}] if options.get("codeExecution") else [],
                     "contents": [{"parts": [{"text": m.get("content")}], "role": m.get("role")} for m in messages],
                     "generationConfig": config,
                     "systemInstruction": {"parts": [{"text": system}]} if system else None})


def gemini_items(answer: dict[str, Any], *, simplify: bool, merged: bool = False) -> Items:
    """Return the Gemini node's items: each candidate (simplified), else the answer.

    ``merged`` (options.includeMergedResponse, v1.1+): each candidate gets ``mergedResponse``, the text of
    its parts joined.
    """
    candidates = answer.get("candidates") or []
    if merged:
        candidates = [{**c, "mergedResponse": "".join(str(p["text"]) for p in (c.get("content") or {}).get("parts") or []
                                                      if isinstance(p, dict) and isinstance(p.get("text"), str))}
                      for c in candidates]
    if simplify:
        return [{"json": candidate} for candidate in candidates]
    return [{"json": {**answer, "candidates": candidates} if merged else answer}]


def sse_completion(text: str) -> dict[str, Any] | None:
    """Return a streamed chat completion (``data:`` events of chunks) as the one completion it makes.

    Each choice's ``content`` is its deltas joined; its ``tool_calls`` are merged by ``index``
    (id, name, the arguments' pieces joined), as the OpenAI client assembles them. None when
    ``text`` holds no chunk.
    """
    choices: dict[int, dict[str, Any]] = {}
    head: dict[str, Any] | None = None
    for line in text.splitlines():
        data = line[5:].strip() if line.startswith("data:") else ""
        if not data or data == "[DONE]":
            continue
        try:
            chunk = json.loads(data)
        except ValueError:
            continue
        head = head or {k: v for k, v in chunk.items() if k not in ("choices", "object")}
        for entry in chunk.get("choices") or []:
            choice = choices.setdefault(int(entry.get("index", 0)), {"role": "assistant", "content": None,
                                                                   "calls": {}, "finish_reason": None})
            delta = entry.get("delta") or {}
            if delta.get("content") is not None:
                choice["content"] = (choice["content"] or "") + str(delta["content"])
            for call in delta.get("tool_calls") or []:
                held = choice["calls"].setdefault(int(call.get("index", 0)), {"id": None, "type": "function",
                                                                              "function": {"name": "", "arguments": ""}})
                held["id"] = call.get("id") or held["id"]
                function = call.get("function") or {}
                held["function"]["name"] += function.get("name") or ""
                held["function"]["arguments"] += function.get("arguments") or ""
            choice["finish_reason"] = entry.get("finish_reason") or choice["finish_reason"]
    if head is None:
        return None
    out = []
    for index in sorted(choices):
        choice = choices[index]
        message: dict[str, Any] = {"role": "assistant", "content": choice["content"]}
        if choice["calls"]:
            message["tool_calls"] = [choice["calls"][k] for k in sorted(choice["calls"])]
        out.append({"index": index, "message": message, "finish_reason": choice["finish_reason"]})
    return {**head, "object": "chat.completion", "choices": out}


def answer(ctx: Any, response: Any, api: str, index: int, node: str) -> tuple[dict[str, Any] | None, Items]:
    """Return the provider's answer in ``response``, or (None, the node's items) for a recorded node output.

    In shadow and dry-run the gateway answers with the legacy run's recorded output of the node's
    step: one item's json (an object), or the list of every item's (item ``index``'s is taken).
    Live, a body that is not the API's answer raises NodeFailed naming the node.
    """
    try:
        body = response.json()
    except ValueError:
        body = sse_completion(str(response.text)) if api == "chat" else None
    if ANSWERS[api](body):
        return body, []
    if getattr(ctx, "mode", "live") == "live":
        raise NodeFailed(f"{node}: the model's answer is not a {api} answer: {str(body)[:200]}")
    if isinstance(body, list):
        return None, [{"json": body[index]}] if index < len(body) and isinstance(body[index], dict) else []
    return None, [{"json": body if isinstance(body, dict) else {}}]


async def message(flow: Any, node: str, items: Items, *, provider: str, url: str, step: str, body: Body, api: str,
                  shape: Callable[[dict[str, Any]], Items], headers: dict[str, str] | None = None,
                  params: dict[str, str] | None = None) -> Items:
    """Run a "message a model" node: one call per item, each answer shaped into the node's items."""
    ctx, out = flow.ctx, []  # type: Any, Items
    extra: dict[str, Any] = {k: v for k, v in (("headers", headers), ("params", params)) if v}
    for i, item in enumerate(items):
        response = await ctx.call(provider, "POST", url, json=body(item, i), step=step, **extra)
        got, recorded = answer(ctx, response, api, i, node)
        out += shape(got) if got is not None else recorded
    return flow.emit(node, out) if items else []


__all__ = ["ANSWERS", "JSON_SYSTEM", "sse_completion", "anthropic_body", "anthropic_items", "answer", "gemini_body", "gemini_items",
           "message", "openai_message_body", "openai_message_items", "openai_response_body", "openai_response_items"]
