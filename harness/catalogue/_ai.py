"""The catalogue's AI providers: OpenAI, Google Gemini, Anthropic and Azure OpenAI, the REST calls their models answer
(and Wikipedia and SerpApi, the calls of two agent tools).

These are the calls n8n's AI nodes make (``@n8n/n8n-nodes-langchain``): the OpenAI node's
``text.message`` posts ``/v1/chat/completions`` and its v2 ``text.response`` posts
``/v1/responses``; the Gemini node posts ``/v1beta/models/{modelId}:generateContent`` (n8n sends
the key as the query parameter ``key``; here it is the header ``x-goog-api-key``, which Google
accepts alike and which keeps it out of every recorded URL); the Anthropic node posts
``/v1/messages`` with ``x-api-key`` and ``anthropic-version: 2023-06-01``. A chain or an agent
calls the same endpoints through its chat model sub-node (LangChain's ChatOpenAI and friends).
The body fields are the providers' documented ones, in the order n8n builds them.

The rows here are the AI providers' whole set (``openai``, ``gemini``, …).
"""

from __future__ import annotations

from harness.catalogue._model import App, Auth, Operation, Secret

_CHAT = ("model", "messages", "tools", "response_format", "frequency_penalty", "max_completion_tokens", "n",
         "presence_penalty", "temperature", "top_p", "reasoning_effort")
_RESPONSE = ("model", "input", "parallel_tool_calls", "store", "instructions", "max_output_tokens", "temperature",
             "top_p", "tools", "background", "text", "reasoning", "conversation", "include", "metadata")


AZURE_BASE = "https://your-resource.openai.azure.com"  # the provider's base_url: set the resource's own
AZURE_API_VERSION = "2025-03-01-preview"  # n8n's default apiVersion of both Azure OpenAI credentials


def _app(name: str, base_url: str, secret: Secret | None, *operations: Operation) -> App:
    return App(name, name, base_url, secret, {op.name: op for op in operations})


AI_APPS: dict[str, App] = {a.name: a for a in (
    _app("openai", "https://api.openai.com", Secret(Auth.BEARER, "OPENAI_API_KEY", what="an OpenAI API key"),
         Operation("chat.complete", "POST", "/v1/chat/completions", body=_CHAT,
                   note="the answer's choices[].message; tool_calls ask for tools, answered by role 'tool' messages"),
         Operation("response.create", "POST", "/v1/responses", body=_RESPONSE,
                   note="the answer's output[] items of type 'message'; 'function_call' items ask for tools"),
         Operation("image.generate", "POST", "/v1/images/generations",
                   body=("model", "prompt", "n", "size", "quality", "style", "response_format")),
         Operation("audio.speech", "POST", "/v1/audio/speech", body=("model", "input", "voice", "response_format",
                                                                       "speed"),
                   note="the answer is the audio file (binary data)"),
         Operation("audio.transcribe", "POST", "/v1/audio/transcriptions", body=("file", "model", "language",
                                                                                "temperature"),
                   note="a multipart form with the audio file (the item's binary data)"),
         Operation("audio.translate", "POST", "/v1/audio/translations", body=("file", "model", "temperature"),
                   note="a multipart form with the audio file (the item's binary data)")),
    _app("gemini", "https://generativelanguage.googleapis.com",
         Secret(Auth.HEADER, "GEMINI_API_KEY", name="x-goog-api-key", what="a Gemini API key (n8n's googlePalmApi)"),
         Operation("text.message", "POST", "/v1beta/{modelId}:generateContent",
                   body=("tools", "contents", "generationConfig", "systemInstruction"),
                   note="modelId is 'models/<name>'; the answer's candidates[] are the items"),
         Operation("audio.analyze", "POST", "/v1beta/{modelId}:generateContent", body=("contents",),
                   note="the audio as inlineData (base64) or a file uploaded first to /upload/v1beta/files")),
    _app("anthropic", "https://api.anthropic.com",
         Secret(Auth.HEADER, "ANTHROPIC_API_KEY", name="x-api-key", what="an Anthropic API key"),
         Operation("text.message", "POST", "/v1/messages",
                   body=("model", "messages", "tools", "max_tokens", "system", "temperature", "top_p", "top_k"),
                   note="headers anthropic-version: 2023-06-01, anthropic-beta: files-api-2025-04-14")),
    # the Azure OpenAI Chat Model (lmChatAzureOpenAi, LangChain's AzureChatOpenAI): the base URL is the
    # resource's, https://<resourceName>.openai.azure.com or the credential's endpoint (configured, not known here)
    _app("azure-openai", AZURE_BASE, Secret(Auth.HEADER, "AZURE_OPENAI_API_KEY", name="api-key",
                                            what="an Azure OpenAI key (n8n's azureOpenAiApi)"),
         Operation("chat.complete", "POST", "/openai/deployments/{deployment}/chat/completions", body=_CHAT,
                   query=("api-version",),
                   note="the deployment is the node's model; api-version the credential's (n8n's default "
                        "2025-03-01-preview); Entra ID: Authorization: Bearer instead of api-key")),
    # an AI Agent's tools whose calls LangChain fixes (toolWikipedia, toolSerpApi)
    _app("wikipedia", "https://en.wikipedia.org", None,
         Operation("page.search", "GET", "/w/api.php", query=("action", "list", "srsearch", "format"),
                   note="action=query&list=search: the hits' titles in query.search[]"),
         Operation("page.extract", "GET", "/w/api.php",
                   query=("action", "prop", "explaintext", "redirects", "format", "titles"),
                   note="action=query&prop=extracts: the page's plain text in query.pages.<id>.extract")),
    _app("serpapi", "https://serpapi.com", Secret(Auth.QUERY, "SERPAPI_API_KEY", name="api_key",
                                                  what="a SerpApi key (n8n's serpApi credential)"),
         Operation("search", "GET", "/search", query=("q", "api_key", "gl", "hl", "google_domain", "device", "no_cache"),
                   note="the tool's result is read from answer_box, then the result lists, then organic_results[0]")),
)}
