"""The Azure OpenAI Chat Model (``lmChatAzureOpenAi`` v1) under a Basic LLM Chain: LangChain's AzureChatOpenAI.

n8n builds an ``AzureChatOpenAI`` with the node's model as both the model and the *deployment*,
its options spread in (the OpenAI Chat Model's: ``maxTokens``, ``temperature``, ``topP``, the
penalties, ``responseFormat``; ``timeout``/``maxRetries`` are the client's), and the credential's
resource, endpoint and ``apiVersion`` (n8n's default ``2025-03-01-preview``). The call is
``POST <base>/openai/deployments/<model>/chat/completions?api-version=<apiVersion>`` where the base is
``https://<resourceName>.openai.azure.com``, or the credential's endpoint when it has one: neither is
in the workflow, so it is the provider's ``base_url`` (configured) and the module calls a relative URL.
The body and the answer are the OpenAI chat completion's (``n8n.ai_chain.chat_body``/``chain``).

The two authentications: ``azureOpenAiApi`` sends the key as the ``api-key`` header (the module reads
``AZURE_OPENAI_API_KEY``); ``azureEntraCognitiveServicesOAuth2Api`` sends ``Authorization: Bearer``
with an Entra ID token for ``https://cognitiveservices.azure.com`` (n8n gets it by a client-credentials
grant): the provider's ``auth_env`` (``AZURE_OPENAI_TOKEN``), as the gateway sends every OAuth2 token.
"""

from __future__ import annotations

import ast
from typing import Any

from harness import catalogue
from harness.catalogue._ai import AZURE_API_VERSION
from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.platforms.n8n.translate.app_ai import _check_described
from harness.platforms.n8n.translate.nodes import NodeCode, Slot, _input, comment
from harness.scaffold import _code, _credential
from harness.scaffold._code import call, dict_of, name, stmts

CHAT_AZURE = "lmChatAzureOpenAi"
AZURE = catalogue.app("azure-openai")
OPTIONS = frozenset({"temperature", "maxTokens", "topP", "frequencyPenalty", "presencePenalty", "responseFormat",
                     "timeout", "maxRetries"})
API_KEY, ENTRA = "azureOpenAiApi", "azureEntraCognitiveServicesOAuth2Api"
TOKEN_ENV = "AZURE_OPENAI_TOKEN"


def azure_model(model: Node) -> tuple[Node, ast.expr, dict[str, Any]]:
    """Return the Azure OpenAI Chat Model, its model (the deployment) and options; Untranslatable otherwise."""
    if model.version != 1:
        raise Untranslatable(f"the Azure OpenAI Chat Model v{model.version:g} is not translated (v1 is)")
    params = _check_described(model)
    if params.get("authentication", API_KEY) not in (API_KEY, ENTRA):
        raise Untranslatable(f"the Azure OpenAI Chat Model's authentication {params.get('authentication')!r} "
                             "is not translated")
    options = dict(params.get("options") or {})
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        raise Untranslatable(f"Azure OpenAI Chat Model options {', '.join(unknown)} are not translated")
    if any(expr.is_expression(v) for v in options.values()):
        raise Untranslatable("Azure OpenAI Chat Model options set by an expression are not translated")
    if params.get("model") in (None, ""):
        raise Untranslatable("the Azure OpenAI Chat Model names no model (its deployment)")
    return model, expr.value(params.get("model")), options


def credential(model: Node, provider: str) -> _credential.Credential:
    """Return the secret the model's authentication sends: the ``api-key`` header or an Entra ID bearer token."""
    where = f'node "{model.name}"'
    if model.settings.get("authentication", API_KEY) == ENTRA:
        return _credential.Credential(TOKEN_ENV, provider, "n8n's Azure Entra ID OAuth2 credential (an access token "
                                      "for https://cognitiveservices.azure.com)", where, True)
    assert AZURE.secret is not None
    return _credential.Credential(AZURE.secret.env, provider, "n8n's Azure OpenAI credential (its API key)", where,
                                  False)


def chain_run(node: Node, slot: Slot, model: Node, model_name: ast.expr, messages: ast.expr,
              options: dict[str, Any], unwrap: bool) -> NodeCode:
    """Return a Basic LLM Chain's code whose chat model is the Azure OpenAI Chat Model."""
    provider = slot.providers.get(AZURE.host, AZURE.provider)
    proposals = {} if AZURE.host in slot.providers else {provider: AZURE.base_url}
    secret = credential(model, provider)
    extra: dict[str, Any] = {} if secret.bearer else {
        "headers": dict_of([("api-key", _credential.source(secret))])}
    body = call("n8n.ai_chain.chat_body", model_name, messages, _code.lit(options))
    run = call("n8n.ai_chain.chain", name("flow"), node.name, name("items"), provider=provider,
               url=call("n8n.ai_chain.azure_url", model_name, AZURE_API_VERSION), step=slot.step,
               body=_code.expr("lambda item, i: $body", body=body),
               json_output=options.get("responseFormat") == "json_object", unwrap=node.version >= 1.6, **extra)
    lines = [comment(node),
             _code.comment(f"its chat model {model.name!r} ({model.type} v{model.version:g}): POST <{provider}'s "
                           f"base_url>/openai/deployments/<model>/chat/completions?api-version={AZURE_API_VERSION}"),
             _code.comment(f"{provider}'s base_url: https://<resourceName>.openai.azure.com or the n8n credential's "
                           "endpoint; api-version: n8n's default (set the credential's apiVersion here if it differs)"),
             *stmts("items = $inp", inp=_input(slot)), *stmts("$var = await $run", var=name(slot.var), run=run)]
    return NodeCode(lines, [slot.var], call_step=slot.step, provider_proposals=proposals, credentials=[secret],
                    why=f"the chat calls of {model.name!r} to {provider} (proof: the oracle's stand-in provider)")
