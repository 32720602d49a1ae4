"""Google Gemini's media operations (``googleGemini`` audio analyze/transcribe, v1.1+ as n8n 2.x runs them).

n8n's node sends a binary input file to Gemini's Files API first and then asks the model about it;
three kinds of call the gateway would make per file, in order:

1. ``POST /upload/v1beta/files`` with ``X-Goog-Upload-Protocol: resumable``, ``X-Goog-Upload-Command:
   start``, ``X-Goog-Upload-Header-Content-Length`` (the file's size) and ``-Content-Type`` (its MIME
   type): the answer's ``x-goog-upload-url`` header is where the bytes go;
2. ``POST <that URL>`` with the file's bytes as the body (``X-Goog-Upload-Command: upload, finalize``,
   offset 0): the answer's ``file`` (``name``, ``uri``, ``mimeType``, ``state``), then
   ``GET /v1beta/<file.name>`` until its state is ACTIVE (or FAILED: the node fails);
3. ``POST /v1beta/<model>:generateContent`` with ``contents: [{role: user, parts: [{fileData: {fileUri,
   mimeType}}, …, {text: <prompt>}]}]`` (analyze: the node's ``text``, "What's in this audio?" by default,
   and ``generationConfig.maxOutputTokens``; transcribe: "Generate a transcript of the speech" with the
   start and end times), its candidates the items as for text.message.

The gateway's calls carry JSON, a form or a multipart form, not a raw byte body, so call 2 has no
translation yet: these operations stay a TODO whose text is the sequence above.
"""

from __future__ import annotations

from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node, Workflow
from harness.platforms.n8n.translate.nodes import NodeCode, Slot

_PROMPT = {"analyze": "the node's text (\"What's in this audio?\" by default)",
           "transcribe": "\"Generate a transcript of the speech\" (with options.startTime/endTime)"}


def gemini_audio(node: Node, params: dict[str, Any], slot: Slot, workflow: Workflow) -> NodeCode:
    """audio.analyze / audio.transcribe: a precise TODO (the upload's raw body has no gateway call yet)."""
    operation = str(params.get("operation") or "transcribe")
    given = params.get("inputType", "url")
    source = ("each binary input file (binaryPropertyName, 'data' by default)" if given == "binary" else
              "each URL of audioUrls, downloaded first (a generativelanguage.googleapis.com file URL: its metadata read)")
    raise Untranslatable(
        f"googleGemini audio.{operation} is not translated: n8n uploads {source} to Gemini's Files API "
        "(POST https://generativelanguage.googleapis.com/upload/v1beta/files, resumable start; then the bytes to the "
        "answer's x-goog-upload-url with 'upload, finalize'; then GET /v1beta/<file> until ACTIVE) and calls POST "
        f"/v1beta/<model>:generateContent with each file's fileData and {_PROMPT.get(operation, 'its prompt')}; "
        "the gateway has no call with a raw byte body for the upload ($GEMINI_API_KEY)")
