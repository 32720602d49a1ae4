"""n8n's OpenAI node (``@n8n/n8n-nodes-langchain.openAi`` v1.x) audio operations as the REST calls they make.

What n8n does (its v1 ``audio`` actions, read in its source):

- **transcribe** (:func:`transcribe`): one ``POST /v1/audio/transcriptions`` per item, a multipart
  form of ``model`` (``whisper-1``), ``language`` and ``temperature`` when the options set them
  (a temperature of 0 is left out), and ``file``: the item's binary property (its file name and
  MIME type); the item is the answer's JSON (``{text}``).
- **generate** (:func:`speech`): one ``POST /v1/audio/speech`` per item, the JSON body
  ``{model, input, voice, response_format, speed}`` (mp3 and 1 unless the options say); the answer
  is the audio: the item's binary ``data`` (or the option's property) is the file n8n's
  ``prepareBinaryData`` makes of it, named ``audio.<format>`` with the type ``audio/<format>``,
  and the item's json is that entry without its data.

Each call is ``ctx.call`` under the node's step. In shadow the answer is the recorded node output:
a transcription's json as it is; a speech's json with a stand-in binary entry (the export keeps no bytes).
"""

from __future__ import annotations

from typing import Any

from ._n8n_binary import entry, file_part, recorded_files
from ..gateway.request import OFFLINE_HEADERS

Items = list[dict[str, Any]]


def _js_number(value: Any) -> str:
    """``value.toString()`` of a JSON number (1.0 as ``1``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _offline(response: Any) -> bool:
    return any(h in response.headers for h in OFFLINE_HEADERS)


async def transcribe(flow: Any, node: str, items: Items, *, provider: str, url: str, step: str, prop: str,
                     options: dict[str, Any]) -> Items:
    """Run audio.transcribe: the item's file posted as a multipart form, the answer's JSON as the item."""
    ctx, out = flow.ctx, []  # type: Any, Items
    for i, item in enumerate(items):
        form = {"model": "whisper-1"}
        if options.get("language"):
            form["language"] = str(options["language"])
        if options.get("temperature"):
            form["temperature"] = _js_number(options["temperature"])
        name, data, mime = file_part(item, prop, i, ctx)
        response = await ctx.call(provider, "POST", url, data=form, files={"file": (name, data, mime)}, step=step)
        got = response.json()
        if _offline(response) and isinstance(got, list):  # a recorded output of several items: this item's
            got = got[i] if i < len(got) else {}
        out.append({"json": got})
    return flow.emit(node, out) if items else []


async def speech(flow: Any, node: str, items: Items, *, provider: str, url: str, step: str,
                 body: Any, output: str, fmt: str) -> Items:
    """Run audio.generate: one JSON post per item, the answer the item's audio file."""
    ctx, out = flow.ctx, []  # type: Any, Items
    for i, item in enumerate(items):
        response = await ctx.call(provider, "POST", url, json=body(item, i), step=step)
        if _offline(response):
            out += recorded_files({"json": {}}, response, output)
            continue
        made = entry(response.content, mime_type=f"audio/{fmt}", file_path=f"audio.{fmt}")
        out.append({"json": {k: v for k, v in made.items() if k != "data"}, "binary": {output: made}})
    return flow.emit(node, out) if items else []


__all__ = ["speech", "transcribe"]
