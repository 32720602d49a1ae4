"""The runtime of Make's AI modules (``make.ai``): OpenAI and Google Gemini, their answers as Make's bundles.

- OpenAI Create a completion (chat), Analyze images: the chat completion's body with ``result``
  first, the first choice's ``message.content``; the prompt method: ``choices[0].text``. Generate an
  image: the body as it is (``created``, ``data[].url``).
- Anthropic Claude Create a prompt (Messages API): the answer with ``textResponse`` first, the text
  of its ``text`` content blocks (the module's ``metadata.interface``: textResponse, id, type, role,
  content, model, stop_reason, stop_sequence, usage).
- Gemini Create a completion: the body (``candidates``, ``usageMetadata``…) with ``result``, the
  text of the first candidate's parts. Upload a file: the Files API's resumable upload (a start
  call with the display name, then the bytes to the upload URL it answers); Make outputs the
  ``file`` object's fields (``name``, ``uri``, ``mimeType``…).

A shadow replay's recorded bundle (``X-Cutover-Recorded``) is returned unchanged, with no second call.
"""

from __future__ import annotations

import mimetypes
from typing import Any

from ..errors import ModuleFailed
from ._make_apps import _body, recorded, shaped
from ._make_filter import text

__all__ = ["call", "gemini_config", "gemini_upload", "openai_result"]


def openai_result(body: Any, chat: bool = True) -> Any:
    """Return an OpenAI completion as Make outputs it: ``result`` (the first choice's text) and the body."""
    if not isinstance(body, dict) or "choices" not in body:
        return body
    choices = body.get("choices") or [{}]
    first = choices[0] if isinstance(choices[0], dict) else {}
    result = (first.get("message") or {}).get("content") if chat else first.get("text")
    return {"result": result, **body}


def _gemini(body: Any) -> Any:
    if not isinstance(body, dict) or "candidates" not in body:
        return body
    candidates = body.get("candidates") or [{}]
    parts = ((candidates[0] or {}).get("content") or {}).get("parts") or []
    result = "".join(p.get("text", "") for p in parts if isinstance(p, dict) and not p.get("thought"))
    return {"result": result, **body}


def _anthropic(body: Any) -> Any:
    if not isinstance(body, dict) or "content" not in body:
        return body
    content = body.get("content")
    blocks: list[Any] = content if isinstance(content, list) else []
    text_response = "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    return {"textResponse": text_response, **body}


SHAPES = {"anthropic.message": _anthropic, "openai.chat": openai_result, "openai.image": lambda body: body,
          "body": lambda body: body, "openai.text": lambda body: openai_result(body, chat=False),
          "gemini.completion": _gemini}


async def call(ctx: Any, provider: str, method: str, url: str, *, step: str, shape: str, json: Any = None,
               headers: dict[str, str] | None = None) -> Any:
    """Make an AI module's call; return its bundle (the recorded one unchanged)."""
    return await shaped(ctx, provider, method, url, SHAPES[shape], step=step, json=json, headers=headers)


def gemini_config(config: Any) -> Any:
    """Return a generation config as the API reads it: the response modalities' names upper-cased (``TEXT``)."""
    if isinstance(config, dict) and isinstance(config.get("responseModalities"), list):
        return {**config, "responseModalities": [text(m).upper() for m in config["responseModalities"]]}
    return config


async def gemini_upload(ctx: Any, provider: str, url: str, *, step: str, name: Any, data: Any) -> Any:
    """Upload a file to Gemini's Files API (resumable: start, then upload and finalize); return its ``file``."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, bytes | bytearray):
        raise ModuleFailed(f"step {step!r}: the file's data is {type(data).__name__}, not binary data")
    mime = mimetypes.guess_type(text(name))[0] or "application/octet-stream"
    start = await ctx.call(provider, "POST", url, step=step, json={"file": {"display_name": text(name)}},
                           headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                                    "X-Goog-Upload-Header-Content-Length": str(len(data)),
                                    "X-Goog-Upload-Header-Content-Type": mime})
    if recorded(start):
        return _body(start, step)
    upload = start.headers.get("x-goog-upload-url")
    if not upload:
        raise ModuleFailed(f"step {step!r}: Gemini answered no upload URL (X-Goog-Upload-URL)")
    done = await ctx.call(provider, "POST", upload, step=step, content=bytes(data),
                          headers={"X-Goog-Upload-Offset": "0", "X-Goog-Upload-Command": "upload, finalize"})
    body = _body(done, step)
    return body.get("file", body) if isinstance(body, dict) else {"value": body}
