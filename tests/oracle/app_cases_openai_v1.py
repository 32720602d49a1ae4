"""The legacy OpenAI node (``n8n-nodes-base.openAi`` v1, v1.1) for ``app_oracle``: text and chat completions.

The replies are OpenAI's shapes (a ``text_completion`` and a ``chat.completion`` object). One case is
a hand-written workflow's node (``messages`` and ``options.responseFormat``, which are not the
node's parameters): n8n runs text.complete with an empty prompt, and so must the translation.
"""

from __future__ import annotations

from tests.oracle.app_oracle import TOKEN, AppCase, Credential, Reply

OPENAI = "n8n-nodes-base.openAi"
KEY = Credential("openAiApi", {"apiKey": TOKEN, "url": "https://api.openai.com/v1"})
_TEXT = {"id": "cmpl-1", "object": "text_completion", "created": 1733000000, "model": "gpt-3.5-turbo-instruct",
         "choices": [{"text": "\n\nScore: 7", "index": 0, "logprobs": None, "finish_reason": "length"},
                     {"text": "\n\nScore: 8", "index": 1, "logprobs": None, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}
_CHAT = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1733000000, "model": "gpt-4o-mini",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"score\": 7}", "refusal": None},
                      "logprobs": None, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 20, "completion_tokens": 6, "total_tokens": 26}}
_MESSAGES = {"messages": [{"role": "system", "content": "Score the lead."},
                          {"role": "user", "content": "={{ JSON.stringify($json) }}"}]}

CASES = [
    AppCase("openAi v1 text.complete a hand-written node (messages, responseFormat ignored)", OPENAI, 1,
            {"model": "gpt-4o-mini", "messages": {"values": [{"role": "system", "content": "You score leads."},
                                                             {"role": "user", "content": "{{ JSON.stringify($json) }}"}]},
             "options": {"temperature": 0.3, "responseFormat": "json"}},
            KEY, [Reply("POST", "/v1/completions", _TEXT)], items=({"name": "Ada"}, {"name": "Bob"})),
    AppCase("openAi v1 text.complete prompt and options", OPENAI, 1,
            {"resource": "text", "prompt": "=Say {{ $json.name }}", "options": {"maxTokens": 40, "topP": 0.5, "echo": True}},
            KEY, [Reply("POST", "/v1/completions", _TEXT)], items=({"name": "Ada"},)),
    AppCase("openAi v1 chat.complete messages", OPENAI, 1,
            {"resource": "chat", "model": "gpt-4o-mini", "prompt": _MESSAGES,
             "options": {"temperature": 0.2, "maxTokens": 100, "n": 1}},
            KEY, [Reply("POST", "/v1/chat/completions", _CHAT)], items=({"name": "Ada"},)),
    AppCase("openAi v1.1 chat.complete chatModel, not simplified", OPENAI, 1.1,
            {"resource": "chat", "chatModel": "gpt-4o", "prompt": _MESSAGES, "simplifyOutput": False},
            KEY, [Reply("POST", "/v1/chat/completions", _CHAT)], items=({"name": "Ada"},)),
]
