"""The Azure OpenAI Chat Model's oracle cases (``lmChatAzureOpenAi`` v1 under a Basic LLM Chain).

Its credentials (``ai_cases.credentials``) name the stand-in as their endpoint and no apiVersion
(n8n's default); the stand-in keeps each call's path *with its query* (the deployment and
``api-version``) and the ``api-key``/``Authorization`` headers (``StandInRequests.auth``). A model
named ``gpt-5…`` is one LangChain treats as a reasoning model (the system message as ``developer``,
``maxTokens`` as ``max_completion_tokens``), as the estate's ``gpt-5.2`` is.
"""

from __future__ import annotations

from typing import Any

from tests.oracle import ai_cases, runner
from tests.oracle.workflow import Case

LC = ai_cases.LC
MAIL = [{"text": "Please send the invoice for March.", "from": "ana@example.com"},
        {"text": "Lunch on Friday?", "from": "bo@example.com"}]
SYSTEM = {"messageValues": [{"message": "=You sort mail from {{ $json.from }}."}]}


def azure_model(model: str, credential: str | None = None, **options: Any) -> dict[str, Any]:
    """The Azure OpenAI Chat Model sub-node; ``credential`` None: the default authentication (the API key)."""
    parameters: dict[str, Any] = {"model": model, "options": options}
    if credential is not None:
        parameters = {"authentication": credential, **parameters}
    return {"_kind": "languageModel", "name": "Azure OpenAI Chat Model", "type": f"{LC}lmChatAzureOpenAi",
            "typeVersion": 1, "parameters": parameters,
            "credentials": ai_cases._credential(credential or "azureOpenAiApi")}


ENTRA = "azureEntraCognitiveServicesOAuth2Api"
CASES: list[tuple[Case, list[dict[str, Any]], str | None]] = [
    (Case("a1 chainLlm v1.7 azure api key", f"{LC}chainLlm", 1.7, {
        "promptType": "define", "text": "=Mail: {{ $json.text }}", "messages": SYSTEM}, [MAIL]),
     [azure_model("a1-text", maxTokens=64, temperature=0.3, topP=0.9, frequencyPenalty=0.1)], None),
    (Case("gpt-5-a2 chainLlm v1.7 azure entra id, a reasoning model", f"{LC}chainLlm", 1.7, {
        "promptType": "define", "text": "={{ $json.text }}", "messages": SYSTEM}, [MAIL[:1]]),
     [azure_model("gpt-5-a2-text", ENTRA, maxTokens=100)], None),
    (Case("a3 chainLlm v1.7 azure json", f"{LC}chainLlm", 1.7, {"promptType": "define", "text": "={{ $json.text }}"},
          [MAIL[:1]]), [azure_model("a3-json", "azureOpenAiApi", responseFormat="json_object")], None),
]
# the estate's shape (chainLlm v1.9, Entra ID, a gpt-5 model, no options): n8n runner.NEWER has v1.9
V2_CASES: list[tuple[Case, list[dict[str, Any]], str | None]] = [
    (Case("gpt-5-a4 chainLlm v1.9 azure entra id", f"{LC}chainLlm", 1.9, {
        "promptType": "define", "text": "={{ $json.text }}", "messages": SYSTEM}, [MAIL[:1]], n8n=runner.NEWER),
     [azure_model("gpt-5-a4-text", ENTRA)], None),
    (Case("a5 chainLlm v1.9 azure api key", f"{LC}chainLlm", 1.9, {
        "promptType": "define", "text": "=Mail: {{ $json.text }}"}, [MAIL], n8n=runner.NEWER),
     [azure_model("a5-text", maxTokens=32, presencePenalty=0.2)], None),
]
AUTH = {"a1": (ai_cases.AZURE_KEY, None), "gpt-5-a2": (None, "Bearer oracle-entra-token"), "a3": (ai_cases.AZURE_KEY, None),
        "gpt-5-a4": (None, "Bearer oracle-entra-token"), "a5": (ai_cases.AZURE_KEY, None)}
"""What n8n sends per case (api-key, Authorization); the module sends the api-key itself, a bearer through its
provider's auth_env (the gateway's, not the stand-in context's: its side of a bearer case is (None, None))."""
