"""Google Gemini's audio operations (``googleGemini`` audio.analyze / audio.transcribe) as n8n 2.x runs them.

n8n's node sends each binary input file to Gemini's Files API and then asks the model about it;
per item and file (``queue_core.compat._n8n_ai.gemini_media``):

1. ``POST /upload/v1beta/files`` with ``X-Goog-Upload-Protocol: resumable``, ``X-Goog-Upload-Command:
   start``, ``X-Goog-Upload-Header-Content-Length`` (the file's size) and ``-Content-Type`` (its MIME
   type): the answer's ``x-goog-upload-url`` header is where the bytes go;
2. ``POST <that URL>`` with the file's bytes as the body (a raw-bytes call, ``content=``; ``upload,
   finalize`` at offset 0, no API key, as n8n sends it): the answer's ``file``, then ``GET
   /v1beta/<file.name>`` every second until its state is ACTIVE (FAILED: the node fails);
3. ``POST /v1beta/<model>:generateContent`` with ``contents: [{role: user, parts: [{fileData: {fileUri,
   mimeType}}, …, {text: <prompt>}]}]`` — analyze: the node's ``text`` ("What's in this audio?" by
   default) and ``generationConfig`` (``maxOutputTokens``); transcribe: "Generate a transcript of the
   speech" with ``options.startTime``/``endTime`` — its candidates the items, as text.message's.

Not translated (a TODO naming the calls): audio given by URL (``inputType: url``: n8n downloads it first),
an option other than those above.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate import app_ai, expr
from harness.platforms.n8n.translate.app_ai import GEMINI, _check_described, _no_tools, _provider, _secret, flag, model_id
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, _input, comment
from harness.scaffold import _code, _credential
from harness.scaffold._code import call, dict_of, name, stmts

_OPTIONS = {"analyze": {"maxOutputTokens"}, "transcribe": {"startTime", "endTime"}}
_CALLS = ("POST https://generativelanguage.googleapis.com/upload/v1beta/files (resumable start), the bytes to its "
          "x-goog-upload-url, GET /v1beta/<file> until ACTIVE, then POST /v1beta/<model>:generateContent")


def _lambda(value: ast.expr) -> ast.expr:
    return _code.expr("lambda item, i: $value", value=value)


def _prompt(operation: str, params: dict[str, Any], options: dict[str, Any]) -> ast.expr:
    if operation == "analyze":
        return call("n8n.text", expr.value(params.get("text", "What's in this audio?")))
    parts: list[ast.expr] = [ast.Constant("Generate a transcript of the speech")]
    for key, word in (("startTime", " from "), ("endTime", " to ")):
        if options.get(key) not in (None, ""):
            parts.append(_code.expr("($w + n8n.text($v) if n8n.text($v) else '')", w=word, v=expr.value(options[key])))
    return call("n8n.concat", *parts)


def gemini_node(node: Node, slot: Slot, workflow: Workflow) -> NodeCode:
    """Google Gemini: its audio resource here, the others (text.message) ``app_ai.gemini_node``."""
    params = _check_described(node)
    if params.get("resource") == "audio":
        return gemini_audio(node, params, slot, workflow)
    return app_ai.gemini_node(node, slot, workflow)


def gemini_audio(node: Node, params: dict[str, Any], slot: Slot, workflow: Workflow) -> NodeCode:
    """audio.analyze / audio.transcribe of binary input files: uploads, then one generateContent call per item."""
    operation = str(params.get("operation") or "transcribe")
    if operation not in _OPTIONS:
        raise Untranslatable(f"googleGemini audio.{operation} is not an operation of the node")
    if params.get("inputType", "url") != "binary":
        raise Untranslatable(f"googleGemini audio.{operation} of audio URLs (inputType 'url': n8n downloads each "
                             f"first) is not translated (binary input files are); the calls: {_CALLS}")
    _no_tools(workflow, node)
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - _OPTIONS[operation])
    if unknown:
        raise Untranslatable(f"googleGemini audio.{operation} options {', '.join(unknown)} are not translated")
    if operation == "analyze":
        text = params.get("text", "What's in this audio?")
        if isinstance(text, str) and not expr.is_expression(text) and not text.strip():
            raise Untranslatable("googleGemini audio.analyze with an empty prompt fails in n8n ('A non-empty prompt is "
                                 "required.')")
        config = _lambda(dict_of([("maxOutputTokens", expr.value(options.get("maxOutputTokens")))]))  # None: left out
    else:
        config = _lambda(ast.Constant(None))
    provider, proposals = _provider(GEMINI, slot)
    secret = _secret(GEMINI, provider, node)
    run = call("n8n.ai.gemini_media", name("flow"), node.name, name("items"), provider=provider, base=GEMINI.base_url,
               step=slot.step, model=_lambda(model_id(node, params)),
               names=_lambda(expr.value(params.get("binaryPropertyName", "data"))),
               prompt=_lambda(_prompt(operation, params, options)), config=config,
               simplify=flag(node, params, "simplify"),
               headers=dict_of([("x-goog-api-key", _credential.source(secret))]))
    lines = [comment(node), _code.comment(f"{provider}: audio.{operation} → {_CALLS}"),
             *stmts("items = $inp", inp=_input(slot)), *stmts("$var = await $run", var=name(slot.var), run=run)]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals, credentials=[secret],
                    why=f"calls to {provider} (proof: the shadow run and the oracle's stand-in provider)")


TRANSLATORS: dict[str, app_ai.Translator] = {"googleGemini": gemini_node}  # over app_ai's (ai_roots)
