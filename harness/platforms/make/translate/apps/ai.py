"""Make's AI apps onto the catalogue: OpenAI (``openai-gpt-3:*``), Google Gemini (``gemini-ai:*``), Anthropic Claude, Perplexity.

- OpenAI Create a completion: the chat method posts ``/v1/chat/completions`` (``model``,
  ``messages`` of role and text content, ``max_tokens``, ``temperature``, ``top_p``, ``n``,
  penalties, ``response_format``, ``stop``, ``seed``); the prompt method ``/v1/completions``.
  Make outputs the answer with ``result`` first (the estate's ``metadata.interface``: result, id,
  object, created, model, choices, usage…). Analyze images: one user message of the prompt and
  each image URL, to the same chat endpoint; ``result`` likewise. Generate an image (URL response
  format): ``/v1/images/generations``; Make outputs ``created`` and ``data[]`` (url, revised_prompt).
- Gemini Create a completion: ``/v1beta/models/{model}:generateContent`` with ``contents`` (text and
  file parts), ``generationConfig`` and ``system_instruction``; the answer with ``result``, the text.
  Upload a file: the Files API's resumable upload; Make outputs the file (``uri``, ``mimeType``).
- Anthropic Claude Create a prompt (``anthropic-claude:createAMessage``): ``/v1/messages`` (model,
  max_tokens, messages of text, system, temperature, top_p, top_k, stop_sequences); the answer with
  ``textResponse``, as the module's ``metadata.interface`` lists it.
- Perplexity Create a chat completion: ``/chat/completions``; the answer as it is.
What these modules offer beyond that (image files, tools, JSON-schema answers) stays a TODO naming it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.make.definition import Module
from harness.platforms.make.translate.apps._call import fields, guarded, provider_of, required, url_of
from harness.platforms.make.translate.base import Gen, ModuleCode, var
from harness.platforms.make.translate.iml import template
from harness.scaffold._code import call, dict_of, lit, stmts

_OPTIONS = {"max_tokens": "max_tokens", "temperature": "temperature", "top_p": "top_p", "n_completions": "n",
            "frequency_penalty": "frequency_penalty", "presence_penalty": "presence_penalty", "seed": "seed"}


def _ai_call(module: Module, gen: Gen, app_name: str, op_name: str, shape: str, body: ast.expr,
             path: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> ModuleCode:
    app, op = catalogue.app(app_name), catalogue.operation(app_name, op_name)
    provider = provider_of(app, module, gen)
    kwargs = {"headers": lit(headers)} if headers else {}
    lines = stmts("$var = await make.ai.call(ctx, $provider, $method, $url, step=$step, shape=$shape, json=$body, **$kw)",
                  var=var(module), provider=provider, method=op.method, url=url_of(app, op, path or {}),
                  step=gen.steps[module.id], shape=shape, body=body, kw=kwargs)
    return ModuleCode(lines, bundle=var(module), note=f"{app.provider}: {op.name} -> {op.method} {app.base_url}{op.path}")


def _unread(module: Module, *keys: str) -> None:
    for key in keys:
        if module.mapper.get(key) not in (None, "", [], {}, False):
            raise Untranslatable(f"{module.app}: the {key} field is not translated")


def _options(module: Module) -> list[tuple[str, ast.expr]]:
    options = fields(module, _OPTIONS, numbers=tuple(_OPTIONS))
    pairs = list(zip([k.value for k in options.keys], options.values, strict=True))  # type: ignore[union-attr]
    stop = module.mapper.get("stop")
    if stop not in (None, "", []):
        pairs.append(("stop", template(stop)))
    return pairs


def _message(message: dict[str, Any]) -> ast.expr:
    """One chat message: its text, and an image by URL as a second content part (``image_url`` with its detail)."""
    extra = {k for k, v in message.items() if k not in ("role", "content", "imageDetail", "imageInputType", "imageUrl")
             and v not in (None, "", [], {})}
    kind = message.get("imageInputType")
    if extra or kind not in (None, "", "url"):
        raise Untranslatable(f"a message's {', '.join(sorted(extra)) or 'image file'} is not translated")
    content = call("make.text", template(message.get("content", "")))
    if kind != "url" or message.get("imageUrl") in (None, ""):
        return dict_of([("role", template(message["role"])), ("content", content)])
    image = dict_of([("url", call("make.text", template(message["imageUrl"]))),
                     ("detail", template(message.get("imageDetail") or "auto"))])
    parts = ast.List([dict_of([("type", "text"), ("text", content)]),
                      dict_of([("type", "image_url"), ("image_url", image)])], ast.Load())
    return dict_of([("role", template(message["role"])), ("content", parts)])


def _messages(module: Module) -> ast.expr:
    messages = module.mapper.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Untranslatable("the completion has no messages")
    out: list[ast.expr] = []
    for message in messages:
        if not isinstance(message, dict) or not message.get("role"):
            raise Untranslatable("a message has no role")
        out.append(_message(message))
    return ast.List(out, ast.Load())


def openai_completion(module: Module, gen: Gen) -> ModuleCode:
    """OpenAI Create a completion: chat or prompt; the answer with ``result``."""
    _unread(module, "additionalParameters", "logit_bias", "tools", "parseJSONResponse", "jsonResponse", "prediction")
    method = module.mapper.get("select", "chat")
    model = required(module, "model", "Model")
    rf = module.mapper.get("response_format")
    if rf not in (None, "", "text", "json_object"):
        raise Untranslatable(f"openai: the response format {rf!r} is not translated")
    response_format = [("response_format", dict_of([("type", template(rf))]))] if rf else []
    if method == "chat":
        body = dict_of([("model", model), ("messages", _messages(module)), *_options(module), *response_format])
        return _ai_call(module, gen, "openai-v1", "chat.complete", "openai.chat", body)
    if method == "prompt":
        body = dict_of([("model", model), ("prompt", call("make.text", required(module, "prompt", "Prompt"))),
                    *_options(module)])
        return _ai_call(module, gen, "openai-v1", "text.complete", "openai.text", body)
    raise Untranslatable(f"openai: the {method!r} method is not translated")


def openai_image(module: Module, gen: Gen) -> ModuleCode:
    """OpenAI Generate an image (URL response format): ``/v1/images/generations``; ``created`` and ``data[]``."""
    if module.mapper.get("response_format", "url") not in ("url", "", None):
        raise Untranslatable("openai: an image returned as a file (resImgData) is not translated")
    body = fields(module, {"model": "model", "prompt": "prompt", "size": "size", "quality": "quality", "style": "style"},
                  texts=("prompt",))
    required(module, "prompt", "Prompt")
    body.keys += [lit("n"), lit("response_format")]
    body.values += [lit(1), lit("url")]
    return _ai_call(module, gen, "openai", "image.generate", "openai.image", body)


def openai_analyze(module: Module, gen: Gen) -> ModuleCode:
    """OpenAI Analyze images: the prompt and each image URL as one user message; the answer with ``result``."""
    parts: list[ast.expr] = [dict_of([("type", "text"), ("text", call("make.text", required(module, "prompt", "Prompt")))])]
    for image in module.mapper.get("images") or []:
        if not isinstance(image, dict) or image.get("imageUploadType", "url") != "url":
            raise Untranslatable("openai: an image given as a file (not a URL) is not translated")
        parts.append(dict_of([("type", "image_url"),
                              ("image_url", dict_of([("url", call("make.text", required_in(image, "imageUrl")))]))]))
    if len(parts) == 1:
        raise Untranslatable("openai: no image to analyze")
    message = dict_of([("role", "user"), ("content", ast.List(parts, ast.Load()))])
    body = dict_of([("model", required(module, "model", "Model")), ("messages", ast.List([message], ast.Load())),
                    *_options(module)])
    return _ai_call(module, gen, "openai", "chat.complete", "openai.chat", body)


def required_in(entry: dict[str, Any], key: str) -> ast.expr:
    if entry.get(key) in (None, ""):
        raise Untranslatable(f"an item's {key} is not filled in")
    return template(entry[key])


def _part(part: Any) -> ast.expr:
    if not isinstance(part, dict):
        raise Untranslatable("a message part is not a collection")
    kind = part.get("type", "text")
    if kind == "text":
        return dict_of([("text", call("make.text", template(part.get("text", ""))))])
    if kind == "file":
        data = part.get("file_data") or {}
        return dict_of([("file_data", dict_of([("file_uri", required_in(data, "file_uri")),
                                                ("mime_type", template(data.get("mime_type", "")))]))])
    raise Untranslatable(f"gemini: a {kind!r} message part is not translated")


def gemini_completion(module: Module, gen: Gen) -> ModuleCode:
    """Gemini Create a completion: ``generateContent`` of the model; the answer with ``result`` (its text)."""
    _unread(module, "tools", "toolConfig", "safetySettings", "cachedContent")
    config = module.mapper.get("generationConfig") or {}
    if isinstance(config, dict) and (config.get("responseMimeType") not in (None, "", "text/plain")
                                     or config.get("responseSchema") not in (None, "", {})):
        raise Untranslatable("gemini: a JSON answer (responseMimeType/responseSchema): whether Make parses "
                             "result is not pinned")
    contents: list[ast.expr] = []
    for content in module.mapper.get("contents") or []:
        if not isinstance(content, dict):
            raise Untranslatable("a content is not a collection")
        parts = ast.List([_part(p) for p in content.get("parts") or []], ast.Load())
        contents.append(dict_of([("role", template(content.get("role") or "user")), ("parts", parts)]))
    if not contents:
        raise Untranslatable("gemini: the completion has no contents")
    pairs: list[tuple[str, ast.expr]] = [("contents", ast.List(contents, ast.Load()))]
    if config:
        pairs.append(("generationConfig", call("make.ai.gemini_config", template(config))))
    system = module.mapper.get("system_instruction")
    if isinstance(system, dict) and system.get("parts"):
        pairs.append(("system_instruction", dict_of([("parts", ast.List([_part(p) for p in system["parts"]],
                                                                         ast.Load()))])))
    model = required(module, "model", "AI Model")
    return _ai_call(module, gen, "gemini", "text.message", "gemini.completion", dict_of(pairs),
                    path={"modelId": call("make.concat", "models/", model)})


def gemini_upload(module: Module, gen: Gen) -> ModuleCode:
    """Gemini Upload a file: the Files API's resumable upload of the module's data; the file's fields."""
    if module.mapper.get("useFileSearchStore") not in (None, False, ""):
        raise Untranslatable("gemini: uploading into a file search store is not translated")
    app, op = catalogue.app("gemini"), catalogue.operation("gemini", "file.upload")
    provider = provider_of(app, module, gen)
    lines = stmts("$var = await make.ai.gemini_upload(ctx, $provider, $url, step=$step, name=$name, data=$data)",
                  var=var(module), provider=provider, url=url_of(app, op, {}), step=gen.steps[module.id],
                  name=required(module, "file_name", "Name"), data=required(module, "file_data", "Data"))
    return ModuleCode(lines, bundle=var(module), note=f"gemini: file.upload -> POST {app.base_url}{op.path} (resumable)")


def _claude_content(raw: Any) -> ast.expr:
    if not isinstance(raw, list):
        return call("make.text", template(raw if raw is not None else ""))
    parts: list[ast.expr] = []
    for part in raw:
        if not isinstance(part, dict) or part.get("type", "text") != "text":
            kind = part.get("type") if isinstance(part, dict) else part
            raise Untranslatable(f"anthropic-claude: a {kind!r} content part (documents, images, tools) is not translated")
        parts.append(dict_of([("type", "text"), ("text", call("make.text", template(part.get("text", ""))))]))
    return ast.List(parts, ast.Load())


def claude_message(module: Module, gen: Gen) -> ModuleCode:
    """Anthropic Claude Create a prompt: ``/v1/messages``; the answer with ``textResponse`` (its text blocks)."""
    _unread(module, "additionalParameters", "tools", "tool_choice", "container", "mcp_servers")
    for key in ("thinking", "outputFormat"):
        chosen = module.mapper.get(key)
        if isinstance(chosen, dict) and chosen.get("type") not in (None, "", "disabled", "text"):
            raise Untranslatable(f"anthropic-claude: {key} {chosen.get('type')!r} is not translated")
    messages: list[ast.expr] = []
    for message in module.mapper.get("messages") or []:
        if not isinstance(message, dict) or not message.get("role"):
            raise Untranslatable("a message has no role")
        messages.append(dict_of([("role", template(message["role"])), ("content", _claude_content(message.get("content")))]))
    if not messages:
        raise Untranslatable("anthropic-claude: the prompt has no messages")
    options = fields(module, {"system": "system", "temperature": "temperature", "top_p": "top_p", "top_k": "top_k",
                              "stop_sequences": "stop_sequences"}, numbers=("temperature", "top_p", "top_k"))
    extra = list(zip([k.value for k in options.keys], options.values, strict=True))  # type: ignore[union-attr]
    user = (module.mapper.get("metadata") or {}).get("user_id") if isinstance(module.mapper.get("metadata"), dict) else None
    if user not in (None, ""):
        extra.append(("metadata", dict_of([("user_id", template(user))])))
    body = dict_of([("model", required(module, "model", "Model")),
                    ("max_tokens", call("make.apps.num", required(module, "max_tokens", "Max Tokens"), "max_tokens")),
                    ("messages", ast.List(messages, ast.Load())), *extra])
    return _ai_call(module, gen, "anthropic", "text.message", "anthropic.message", body,
                    headers={"anthropic-version": "2023-06-01"})


def perplexity_completion(module: Module, gen: Gen) -> ModuleCode:
    """Perplexity Create a chat completion: ``/chat/completions``; Make outputs Perplexity's answer as it is
    (a blueprint maps ``{{7.choices[].message.content}}``)."""
    _unread(module, "response_format", "additionalParameters")
    messages = module.mapper.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Untranslatable("perplexity: the completion has no messages")
    out: list[ast.expr] = []
    for message in messages:
        if not isinstance(message, dict) or not message.get("role"):
            raise Untranslatable("a message has no role")
        out.append(dict_of([("role", template(message["role"])),
                            ("content", call("make.text", template(message.get("content", ""))))]))
    numbers = ("max_tokens", "temperature", "top_p", "top_k", "presence_penalty", "frequency_penalty")
    options = fields(module, {**{k: k for k in numbers}, "search_domain_filter": "search_domain_filter",
                              "search_recency_filter": "search_recency_filter", "return_images": "return_images",
                              "return_related_questions": "return_related_questions"},
                     numbers=numbers, flags=("return_images", "return_related_questions"))
    pairs = list(zip([k.value for k in options.keys], options.values, strict=True))  # type: ignore[union-attr]
    body = dict_of([("model", required(module, "model", "Model")), ("messages", ast.List(out, ast.Load())), *pairs])
    return _ai_call(module, gen, "perplexity", "chat.complete", "body", body)


TRANSLATORS: dict[str, Callable[[Module, Gen], ModuleCode]] = guarded({
    "perplexity-ai:createAChatCompletion": perplexity_completion,
    "anthropic-claude:createAMessage": claude_message,
    "openai-gpt-3:CreateCompletion": openai_completion, "openai-gpt-3:GenerateImage": openai_image,
    "openai-gpt-3:analyzeImages": openai_analyze, "gemini-ai:createACompletionGeminiPro": gemini_completion,
    "gemini-ai:uploadAFile": gemini_upload,
})
OPERATIONS: dict[str, tuple[str, str]] = {
    "perplexity-ai:createAChatCompletion": ("perplexity", "chat.complete"),
    "anthropic-claude:createAMessage": ("anthropic", "text.message"),
    "openai-gpt-3:CreateCompletion": ("openai-v1", "chat.complete"), "openai-gpt-3:GenerateImage": ("openai", "image.generate"),
    "openai-gpt-3:analyzeImages": ("openai", "chat.complete"),
    "gemini-ai:createACompletionGeminiPro": ("gemini", "text.message"), "gemini-ai:uploadAFile": ("gemini", "file.upload"),
}
