"""Catalogue rows of apps' older REST calls that legacy nodes still make (public API facts).

OpenAI's completions API (``/v1/completions``) and chat completions as n8n's legacy OpenAI node
(``n8n-nodes-base.openAi`` v1, v1.1) sends them: the same provider and secret as ``_ai``'s openai.
"""

from __future__ import annotations

from harness.catalogue._model import App, Auth, Operation, Secret

_OPTIONS = ("echo", "frequency_penalty", "max_tokens", "n", "presence_penalty", "temperature", "top_p")

LEGACY: tuple[App, ...] = (
    App("openai-v1", "openai", "https://api.openai.com",
        Secret(Auth.BEARER, "OPENAI_API_KEY", what="an OpenAI API key"), {
            "text.complete": Operation("text.complete", "POST", "/v1/completions", body=("model", "prompt", *_OPTIONS),
                                       note="the answer's choices[] (Simplify) or the whole answer"),
            "chat.complete": Operation("chat.complete", "POST", "/v1/chat/completions",
                                       body=("model", "messages", *_OPTIONS),
                                       note="the answer's choices[] (Simplify) or the whole answer")}),
)
