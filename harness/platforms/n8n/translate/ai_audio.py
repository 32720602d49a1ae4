"""The OpenAI node's (``@n8n/n8n-nodes-langchain.openAi`` v1.x) audio operations: transcribe and generate.

``audio.transcribe`` posts the item's file to ``/v1/audio/transcriptions`` (a multipart form:
``whisper-1``, the language and temperature options, the file); ``audio.generate`` posts
``{model, input, voice, response_format, speed}`` to ``/v1/audio/speech`` and the answer is the
item's audio file. The runtime is ``queue_core.compat._n8n_ai_audio``; the proof is the oracle's
stand-in provider (``tests/oracle/test_ai_conformance.py``) and the shadow run. ``audio.translate``
and the v2 node's audio are not translated (the call named).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from harness import catalogue
from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.nodes import NodeCode, Slot
from harness.scaffold import _code
from harness.scaffold._code import call, dict_of, lit, name

_SPEECH_OPTIONS = ("response_format", "speed", "binaryPropertyOutput")


def _fixed(node: Node, params: dict[str, Any], key: str, default: Any) -> Any:
    value = params.get(key, default)
    if expr.is_expression(value):
        raise Untranslatable(f"{node.short_type} audio: {key} set by an expression is not translated")
    return value


Frame = Callable[[Node, Slot, str, Callable[[str], ast.expr]], NodeCode]


def audio_node(node: Node, slot: Slot, params: dict[str, Any], openai: catalogue.App, lines_of: Frame) -> NodeCode:
    """Translate audio.transcribe or audio.generate (``lines_of``: app_ai's call-node frame)."""
    operation = params.get("operation", "generate")
    options = dict(params.get("options") or {})
    if operation == "transcribe":
        unknown = sorted(set(options) - {"language", "temperature"})
        if unknown:
            raise Untranslatable(f"OpenAI audio.transcribe options {', '.join(unknown)} are not translated")
        prop = _fixed(node, params, "binaryPropertyName", "data")
        run = lambda provider: call("n8n.ai_audio.transcribe", name("flow"), node.name, name("items"),  # noqa: E731
                                    provider=provider, url=openai.base_url + "/v1/audio/transcriptions",
                                    step=slot.step, prop=prop, options=expr.value(options))
        return lines_of(node, slot, "audio.transcribe", run)
    if operation == "generate":
        unknown = sorted(set(options) - set(_SPEECH_OPTIONS))
        if unknown:
            raise Untranslatable(f"OpenAI audio.generate options {', '.join(unknown)} are not translated")
        fmt = _fixed(node, options, "response_format", "mp3") or "mp3"
        speed = _fixed(node, options, "speed", 1) or 1
        body = dict_of([("model", expr.value(params.get("model", "tts-1"))), ("input", expr.value(params.get(
            "input", ""))), ("voice", expr.value(params.get("voice", "alloy"))), ("response_format", lit(fmt)),
                        ("speed", lit(speed))])
        output = _fixed(node, options, "binaryPropertyOutput", "data") or "data"
        run = lambda provider: call("n8n.ai_audio.speech", name("flow"), node.name, name("items"),  # noqa: E731
                                    provider=provider, url=openai.base_url + "/v1/audio/speech", step=slot.step,
                                    body=_code.expr("lambda item, i: $body", body=body), output=output, fmt=fmt)
        return lines_of(node, slot, "audio.speech", run)
    raise Untranslatable(f"openAi audio.{operation} is not translated (transcribe and generate are); the call: "
                         f"{catalogue.skeleton('openai', 'audio.translate')}")


__all__ = ["audio_node"]
