"""Pinned cases of Make's AI modules: OpenAI completions, image generation and analysis; Gemini completions and uploads.

Make's output bundles as the estate's ``metadata.interface`` blocks list them: a completion's
``result`` first (the first choice's content), then the API's answer; an image's ``created`` and
``data[]``; Gemini's answer with ``result`` (the first candidate's text); an uploaded file's
fields (``uri``, ``mimeType``).
"""

from __future__ import annotations

from tests.conformance.make.runner import Call, MakeCase, Reply

_OPENAI = ("https://www.make.com/en/help/app/openai-gpt-3 (Create a completion: Result; Generate an image; "
           "Analyze images); https://platform.openai.com/docs/api-reference/chat/create")
_GEMINI = ("https://apps.make.com/NrUNDw84SHdHFeIeX-yKe (Google Gemini AI: Create a completion, Upload a file); "
           "https://ai.google.dev/api/generate-content; https://ai.google.dev/api/files")
_RECORDED = {"X-Cutover-Recorded": "recording"}
_D = {"designer": {"x": 300, "y": 0}}


def _module(module: str, mapper: dict) -> dict:
    return {"module": module, "version": 1, "parameters": {"__IMTCONN__": 1}, "mapper": mapper, "metadata": _D}


_CHAT = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1717400000, "model": "gpt-4o-mini",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": "Fresh ideas"}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}}
_GEM = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Dear Ada, "}, {"text": "thanks!"}]},
                        "finishReason": "STOP"}], "usageMetadata": {"totalTokenCount": 20}, "modelVersion": "gemini-2.5-flash"}

CASES = [
    MakeCase(
        id="openai-create-completion-chat",
        module=_module("openai-gpt-3:CreateCompletion", {
            "model": "gpt-4o-mini", "top_p": "1", "select": "chat", "max_tokens": "2048", "temperature": "0.7",
            "n_completions": "1", "response_format": "text", "presence_penalty": "0", "frequency_penalty": "0",
            "messages": [{"role": "system", "content": "Six words at most"},
                         {"role": "user", "content": "A subject for {{1.company}}", "imageDetail": "auto"}]}),
        input={"company": "Acme"},
        replies=(Reply(200, json=_CHAT),),
        calls=(Call("POST", "https://api.openai.com/v1/chat/completions", provider="openai", json={
            "model": "gpt-4o-mini", "messages": [{"role": "system", "content": "Six words at most"},
                                                 {"role": "user", "content": "A subject for Acme"}],
            "max_tokens": 2048, "temperature": 0.7, "top_p": 1, "n": 1, "frequency_penalty": 0,
            "presence_penalty": 0, "response_format": {"type": "text"}}),),
        output=[{"result": "Fresh ideas", **_CHAT}], source=_OPENAI),
    MakeCase(
        id="openai-create-completion-recorded",
        module=_module("openai-gpt-3:CreateCompletion", {"model": "gpt-4o-mini", "select": "chat",
                                                         "messages": [{"role": "user", "content": "hi"}]}),
        replies=(Reply(200, json={"result": "Hello", "id": "chatcmpl-9", "choices": []}, headers=_RECORDED),),
        calls=(Call("POST", "https://api.openai.com/v1/chat/completions",
                    json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}),),
        output=[{"result": "Hello", "id": "chatcmpl-9", "choices": []}], source=_OPENAI),
    MakeCase(
        id="openai-generate-image-url",
        module=_module("openai-gpt-3:GenerateImage", {"size": "1024x1024", "model": "dall-e-3", "style": "vivid",
                                                      "prompt": "A poster: {{1.topic}}", "quality": "standard",
                                                      "response_format": "url"}),
        input={"topic": "spring"},
        replies=(Reply(200, json={"created": 1717400000, "data": [{"url": "https://img/x.png", "revised_prompt": "p"}]}),),
        calls=(Call("POST", "https://api.openai.com/v1/images/generations", json={
            "model": "dall-e-3", "prompt": "A poster: spring", "size": "1024x1024", "quality": "standard",
            "style": "vivid", "n": 1, "response_format": "url"}),),
        output=[{"created": 1717400000, "data": [{"url": "https://img/x.png", "revised_prompt": "p"}]}], source=_OPENAI),
    MakeCase(
        id="openai-analyze-images",
        module=_module("openai-gpt-3:analyzeImages", {
            "model": "gpt-4o", "top_p": "1", "prompt": "Write a caption", "max_tokens": "2048", "temperature": "1",
            "n_completions": "1", "images": [{"imageUrl": "{{1.attachments[].url}}", "imageUploadType": "url"}]}),
        input={"attachments": [{"url": "https://cdn/bike.jpg"}]},
        replies=(Reply(200, json=_CHAT),),
        calls=(Call("POST", "https://api.openai.com/v1/chat/completions", json={
            "model": "gpt-4o", "messages": [{"role": "user", "content": [
                {"type": "text", "text": "Write a caption"},
                {"type": "image_url", "image_url": {"url": "https://cdn/bike.jpg"}}]}],
            "max_tokens": 2048, "temperature": 1, "top_p": 1, "n": 1}),),
        output=[{"result": "Fresh ideas", **_CHAT}], source=_OPENAI),
    MakeCase(
        id="gemini-create-completion",
        module=_module("gemini-ai:createACompletionGeminiPro", {
            "model": "gemini-2.5-flash",
            "contents": [{"role": "user", "parts": [{"text": "Reply to {{1.fromName}}", "type": "text"}]}],
            "generationConfig": {"imageConfig": {}, "thinkingConfig": {}, "responseModalities": ["text"]},
            "system_instruction": {"parts": [{"text": "You are an email assistant."}]}}),
        input={"fromName": "Ada"},
        replies=(Reply(200, json=_GEM),),
        calls=(Call("POST", "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
                    provider="gemini", json={
                        "contents": [{"role": "user", "parts": [{"text": "Reply to Ada"}]}],
                        "generationConfig": {"responseModalities": ["TEXT"]},
                        "system_instruction": {"parts": [{"text": "You are an email assistant."}]}}),),
        output=[{"result": "Dear Ada, thanks!", **_GEM}], source=_GEMINI),
    MakeCase(
        id="gemini-create-completion-file-part",
        module=_module("gemini-ai:createACompletionGeminiPro", {
            "model": "gemini-2.5-flash", "contents": [{"role": "user", "parts": [
                {"type": "file", "file_data": {"file_uri": "{{1.uri}}", "mime_type": "{{1.mimeType}}"}}]}]}),
        input={"uri": "https://generativelanguage.googleapis.com/v1beta/files/f1", "mimeType": "application/pdf"},
        replies=(Reply(200, json=_GEM),),
        calls=(Call("POST", "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
                    json={"contents": [{"role": "user", "parts": [{"file_data": {
                        "file_uri": "https://generativelanguage.googleapis.com/v1beta/files/f1",
                        "mime_type": "application/pdf"}}]}]}),),
        output=[{"result": "Dear Ada, thanks!", **_GEM}], source=_GEMINI),
    MakeCase(
        id="gemini-upload-a-file",
        module=_module("gemini-ai:uploadAFile", {"file_data": "{{1.data}}", "file_name": "{{1.filename}}",
                                                 "useFileSearchStore": False}),
        input={"data": "%PDF-1.4", "filename": "invoice.pdf"},
        replies=(Reply(200, json={}, headers={"X-Goog-Upload-URL": "https://generativelanguage.googleapis.com/upload/v1beta/files?upload_id=u1"}),
                 Reply(200, json={"file": {"name": "files/f1", "displayName": "invoice.pdf", "mimeType": "application/pdf",
                                           "uri": "https://generativelanguage.googleapis.com/v1beta/files/f1",
                                           "state": "ACTIVE"}})),
        calls=(Call("POST", "https://generativelanguage.googleapis.com/upload/v1beta/files",
                    json={"file": {"display_name": "invoice.pdf"}},
                    headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                             "X-Goog-Upload-Header-Content-Type": "application/pdf",
                             "X-Goog-Upload-Header-Content-Length": "8"}),
               Call("POST", "https://generativelanguage.googleapis.com/upload/v1beta/files?upload_id=u1",
                    content=b"%PDF-1.4", headers={"X-Goog-Upload-Command": "upload, finalize"})),
        output=[{"name": "files/f1", "displayName": "invoice.pdf", "mimeType": "application/pdf",
                 "uri": "https://generativelanguage.googleapis.com/v1beta/files/f1", "state": "ACTIVE"}],
        source=_GEMINI),
]

_CLAUDE = ("https://docs.anthropic.com/en/api/messages (the request); Make's output as an exported blueprint's "
           "metadata.interface of anthropic-claude:createAMessage lists it: files, textResponse, id, type, role, "
           "content, model, container, stop_reason, stop_sequence, usage")
_MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-3-7-sonnet-20250219",
            "content": [{"type": "text", "text": "Hello "}, {"type": "text", "text": "Ada"}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 2}}

CASES += [
    MakeCase(
        id="claude-create-a-message",
        module=_module("anthropic-claude:createAMessage", {
            "model": "claude-3-7-sonnet-20250219", "max_tokens": "1000", "temperature": "0", "system": "Be brief.",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Greet {{1.name}}"}]}]}),
        input={"name": "Ada"},
        replies=(Reply(200, json=_MESSAGE),),
        calls=(Call("POST", "https://api.anthropic.com/v1/messages", provider="anthropic",
                    headers={"anthropic-version": "2023-06-01"},
                    json={"model": "claude-3-7-sonnet-20250219", "max_tokens": 1000, "system": "Be brief.",
                          "temperature": 0, "messages": [{"role": "user", "content": [
                              {"type": "text", "text": "Greet Ada"}]}]}),),
        output=[{"textResponse": "Hello Ada", **_MESSAGE}], source=_CLAUDE),
    MakeCase(
        id="claude-create-a-message-text-content",
        module=_module("anthropic-claude:createAMessage", {
            "model": "claude-haiku-4-5-20251001", "max_tokens": 300,
            "messages": [{"role": "user", "content": "<m>{{1.m}}</m>", "inputType": "single"}]}),
        input={"m": "hi"},
        replies=(Reply(200, json=_MESSAGE),),
        calls=(Call("POST", "https://api.anthropic.com/v1/messages", json={
            "model": "claude-haiku-4-5-20251001", "max_tokens": 300,
            "messages": [{"role": "user", "content": "<m>hi</m>"}]}),),
        output=[{"textResponse": "Hello Ada", **_MESSAGE}], source=_CLAUDE),
]

_API = ("https://www.make.com/en/help/app/openai-gpt-3 (Make an API call: a URL relative to https://api.openai.com, "
        "output Body, Headers, Status code; a blueprint maps {{75.body.data[].embedding}})")

CASES += [
    MakeCase(
        id="openai-make-an-api-call-embeddings",
        module={"module": "openai-gpt-3:makeApiCall", "version": 1, "parameters": {"__IMTCONN__": 1}, "metadata": _D,
                "mapper": {"url": "/v1/embeddings", "body": "{{1.json}}", "method": "POST",
                           "headers": [{"key": "Content-Type", "value": "application/json"}]}},
        input={"json": '{"model":"text-embedding-3-small","input":"hi"}'},
        replies=(Reply(200, json={"data": [{"embedding": [0.5]}]}),),
        calls=(Call("POST", "/v1/embeddings", provider="openai",
                    content=b'{"model":"text-embedding-3-small","input":"hi"}',
                    headers={"Content-Type": "application/json"}),),
        output=[{"body": {"data": [{"embedding": [0.5]}]},
                 "headers": {"content-length": "30", "content-type": "application/json"}, "statusCode": 200}],
        source=_API),
]

CASES += [
    MakeCase(
        id="openai-create-completion-image-url",
        module=_module("openai-gpt-3:CreateCompletion", {
            "model": "gpt-4o", "select": "chat", "messages": [
                {"role": "user", "content": "What is in the picture?", "imageInputType": "url",
                 "imageUrl": "{{1.photo}}", "imageDetail": "low"}]}),
        input={"photo": "https://img/cat.jpg"},
        replies=(Reply(200, json=_CHAT),),
        calls=(Call("POST", "https://api.openai.com/v1/chat/completions", json={
            "model": "gpt-4o", "messages": [{"role": "user", "content": [
                {"type": "text", "text": "What is in the picture?"},
                {"type": "image_url", "image_url": {"url": "https://img/cat.jpg", "detail": "low"}}]}]}),),
        output=[{"result": "Fresh ideas", **_CHAT}], source=_OPENAI),
]

_PPLX = ("https://docs.perplexity.ai/api-reference/chat-completions (the request); Make outputs the answer as it is: "
         "an exported blueprint maps {{7.choices[].message.content}} of perplexity-ai:createAChatCompletion")
_PPLX_ANSWER = {"id": "p1", "model": "sonar", "citations": ["https://a.test"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "1. Intro"}}]}

CASES += [
    MakeCase(
        id="perplexity-create-chat-completion",
        module=_module("perplexity-ai:createAChatCompletion", {
            "model": "llama-3.1-sonar-large-128k-online", "max_tokens": "2000",
            "messages": [{"role": "user", "content": "A table of contents on {{1.text}}"}]}),
        input={"text": "bees"},
        replies=(Reply(200, json=_PPLX_ANSWER),),
        calls=(Call("POST", "https://api.perplexity.ai/chat/completions", provider="perplexity", json={
            "model": "llama-3.1-sonar-large-128k-online",
            "messages": [{"role": "user", "content": "A table of contents on bees"}], "max_tokens": 2000}),),
        output=[_PPLX_ANSWER], source=_PPLX),
]
