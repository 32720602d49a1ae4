"""The legacy OpenAI node (``n8n-nodes-base.openAi`` v1, v1.1): text.complete and chat.complete as n8n sends them.

The node is declarative: n8n's routing sends, per item, the model, the prompt (text) or the
messages (chat, ``prompt.messages``) and each option that is set under its API name (maxTokens →
``max_tokens``, topP → ``top_p``) as the JSON body; an answer with a 4xx/5xx status fails the
node. With Simplify (the default) each of the answer's ``choices`` is an item (a text choice trimmed), else the answer.
A parameter that is not one of the node's (a hand-written workflow's ``messages``, an option
such as ``responseFormat``) is ignored by n8n: the translation ignores it too and says so, loudly,
in the node's note — n8n runs the node's defaults (text.complete, an empty prompt) instead.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import Slot
from harness.scaffold._code import dict_of, name, stmts

BASE = "https://api.openai.com"
_OPTIONS = {"echo": "echo", "frequency_penalty": "frequency_penalty", "maxTokens": "max_tokens", "n": "n",
            "presence_penalty": "presence_penalty", "temperature": "temperature", "topP": "top_p"}
_KNOWN = {"resource", "operation", "model", "chatModel", "prompt", "simplifyOutput", "options"}


def _ignored(node: Node) -> list[str]:
    """Return the parameters and options the node sets that n8n's legacy OpenAI node does not read."""
    params = node.parameters
    ignored = sorted(k for k in params if k not in _KNOWN)
    ignored += [f"options.{k}" for k in sorted(params.get("options") or {}) if k not in _OPTIONS]
    return ignored


def openai_v1_note(node: Node) -> str | None:
    """Return the loud note of a legacy OpenAI node with parameters n8n ignores (None: it has none)."""
    ignored = _ignored(node)
    if not ignored:
        return None
    settings = node.settings if node.described else node.parameters
    empty = settings.get("resource") == "text" and settings.get("prompt") in (None, "")
    return (f"NOTE: {', '.join(ignored)} {'is' if len(ignored) == 1 else 'are'} not parameters of n8n's legacy "
            f"OpenAI v{node.version:g} node: n8n ignores them and runs {settings.get('resource')}."
            f"{settings.get('operation')} with the node's own parameters{' (an empty prompt)' if empty else ''} "
            "(a hand-written workflow?), and so does this translation")


def openai_v1(node: Node, slot: Slot, provider: str) -> list[ast.stmt]:
    """text.complete / chat.complete: one POST per item, the answer's choices (Simplify) or the answer."""
    if not node.described:
        raise Untranslatable(f"openAi v{node.version:g} has no known description (its defaults are unknown)")
    params: dict[str, Any] = node.settings
    resource = params.get("resource")
    options = {k: v for k, v in (params.get("options") or {}).items() if k in _OPTIONS}
    if resource == "chat":
        model = params.get("model") if node.version == 1 else params.get("chatModel")
        prompt = params.get("prompt") or {}
        body = [("model", expr.value(model))]
        if isinstance(prompt, dict) and "messages" in prompt:
            body.append(("messages", expr.value(prompt["messages"])))
        path = "/v1/chat/completions"
    else:
        body = [("model", expr.value(params.get("model"))), ("prompt", expr.value(params.get("prompt", "")))]
        path = "/v1/completions"
    if resource == "chat":
        options.pop("echo", None)  # shown for text completions only
    body += [(_OPTIONS[k], expr.value(v)) for k, v in options.items()]
    return stmts("""
items = $inp
$var: n8n.Items = []
for i, item in enumerate(items):
    response = await ctx.call($provider, 'POST', $url, json=$body, step=$step)
    $var.extend(n8n.openai_v1_items(response, simplify=n8n.truthy($simplify), text_choices=$text))
if items:
    flow.emit($node, $var)
""", inp=slot.inputs[0] if slot.inputs else [], var=name(slot.var), provider=provider, url=BASE + path,
                 body=dict_of(body), step=slot.step, simplify=expr.value(params.get("simplifyOutput", True)),
                 text=resource != "chat", node=node.name)
