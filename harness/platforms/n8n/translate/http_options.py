"""HTTP Request's authentication and options, as the call's keyword arguments and how its items come out.

Authentication never copies a secret (n8n's credentials are not in an export anyway): a bearer
token (``httpBearerAuth``, OAuth2 and the predefined app credentials that send one) is the
provider's ``auth_env``, which the gateway sends; Header Auth and Basic Auth are read from
environment variables at call time (``credential(ctx, NAME)``) and sent as headers, which the
gateway redacts from every record. What the gateway cannot carry without logging it (a secret in
the query string) or does not do (digest auth, custom auth) raises ``Untranslatable`` naming it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from harness.errors import Untranslatable
from harness.platforms.n8n.definition import Node
from harness.platforms.n8n.translate import expr
from harness.scaffold import _credential
from harness.scaffold._code import call

# Predefined credential types whose requests carry "Authorization: Bearer <token>" (n8n's
# credential definitions); an OAuth2 type does too, with a token refreshed outside cutover.
_BEARER_TYPES = frozenset({
    "httpBearerAuth", "hubspotAppToken", "slackApi", "openAiApi", "airtableTokenApi", "notionApi", "githubApi",
    "asanaApi", "stripeApi", "linearApi", "clickUpApi", "mistralCloudApi", "groqApi", "openRouterApi",
    "anthropicApi", "perplexityApi", "deepSeekApi", "wordpressApi",
})
_HEADER_TYPES = {"azureOpenAiApi": "api-key", "httpHeaderAuth": ""}  # "" : the credential names the header
_OPTIONS = frozenset({"response", "timeout", "batching", "redirect", "allowUnauthorizedCerts", "lowercaseHeaders"})


@dataclass
class HttpAuth:
    """What one node's authentication adds to its call."""

    headers: ast.expr | None = None  # a dict expression merged into the headers
    credentials: list[_credential.Credential] = field(default_factory=list)


def _env(provider: str, stem: str) -> str:
    return f"CUTOVER_{re.sub(r'[^A-Z0-9]+', '_', provider.upper()).strip('_')}_{stem}"


def _reader(provider: str, stem: str, was: str, where: str) -> tuple[ast.expr, _credential.Credential]:
    found = _credential.Credential(_env(provider, stem), provider, was, where, bearer=False)
    return _credential.source(found), found


def auth(node: Node, provider: str) -> HttpAuth:
    """Return the headers and credentials of the node's authentication; raise Untranslatable for one not carried."""
    params = node.parameters
    mode = params.get("authentication", "none")
    where = f'node "{node.name}"'
    if mode in (None, "none"):
        return HttpAuth()
    if mode == "genericCredentialType":
        kind = str(params.get("genericAuthType") or "")
    elif mode == "predefinedCredentialType":
        kind = str(params.get("nodeCredentialType") or "")
    else:  # v1/v2 names: basicAuth, headerAuth, oAuth2 ...
        kind = {"basicAuth": "httpBasicAuth", "headerAuth": "httpHeaderAuth", "oAuth2": "oAuth2Api",
                "digestAuth": "httpDigestAuth", "queryAuth": "httpQueryAuth"}.get(str(mode), str(mode))
    if kind in _BEARER_TYPES or kind.endswith("OAuth2Api") or kind == "oAuth2Api":
        token = _credential.Credential(_env(provider, "TOKEN"), provider, f"the n8n credential {kind}", where,
                                       bearer=True)
        return HttpAuth(credentials=[token])
    if kind == "httpBasicAuth":
        user, user_cred = _reader(provider, "USER", "the n8n Basic Auth credential's user", where)
        password, password_cred = _reader(provider, "PASSWORD", "the n8n Basic Auth credential's password", where)
        return HttpAuth(call("n8n.basic_auth", user, password), [user_cred, password_cred])
    if kind in _HEADER_TYPES:
        fixed = _HEADER_TYPES[kind]
        header, header_cred = _reader(provider, "HEADER_NAME", f"the n8n credential {kind}'s header name", where)
        value, value_cred = _reader(provider, "HEADER_VALUE", f"the n8n credential {kind}'s value", where)
        if fixed:
            return HttpAuth(call("n8n.header_auth", fixed, value), [value_cred])
        return HttpAuth(call("n8n.header_auth", header, value), [header_cred, value_cred])
    if kind == "httpQueryAuth":
        raise Untranslatable("Query Auth puts the secret in the URL, which every call record keeps: move the key "
                             "into a header the provider accepts, or give the provider its auth_env")
    raise Untranslatable(f"authentication {kind or mode!r} is not translated (bearer, OAuth2, Basic and Header "
                         "Auth are)")


@dataclass(frozen=True)
class Options:
    """The node's options the generated call honours."""

    full_response: bool = False
    text: bool = False  # response format 'text': the body as text under ``output``
    file: bool = False  # response format 'file': the answer as the item's binary property ``output``
    detect: bool = True  # autodetect: an answer of a file's content type is a file too
    followed: bool = True  # n8n's client follows redirects (a file's name and directory are the answer URL's)
    output: str = "data"


def _follows(node: Node, chosen: dict[str, Any]) -> bool:
    """Tell whether n8n's client follows redirects: v4+ unless the Redirect option is set, else as it says."""
    if "redirect" not in chosen:
        return node.version >= 4
    return bool(((chosen.get("redirect") or {}).get("redirect") or {}).get("followRedirects"))


def options(node: Node) -> Options:
    """Return the node's options; raise Untranslatable for one the gateway does not do as n8n does."""
    chosen = dict(node.parameters.get("options") or {})
    unknown = sorted(set(chosen) - _OPTIONS)
    if unknown:
        raise Untranslatable(f"options.{unknown[0]} is not translated (translated: {', '.join(sorted(_OPTIONS))})")
    response: dict[str, Any] = ((chosen.get("response") or {}).get("response")) or {}
    if response.get("neverError"):
        raise Untranslatable("Never Error: the gateway fails a call answered 4xx/5xx; classify those statuses as ok "
                             "for the provider ([[tool.cutover.providers.<name>.classify]] kind = \"ok\")")
    fmt = response.get("responseFormat")
    if fmt not in (None, "autodetect", "json", "text", "file"):
        raise Untranslatable(f"response format {fmt!r} is not translated (autodetect, json, text, file are)")
    output = response.get("outputPropertyName")
    if fmt not in ("text", "file") and output not in (None, "data"):
        raise Untranslatable("a response output field other than 'data' is not translated (but for text and file)")
    if expr.is_expression(output):
        raise Untranslatable("a response output field given by an expression is not translated")
    if chosen.get("allowUnauthorizedCerts"):
        raise Untranslatable("Ignore SSL Issues is not translated: the gateway verifies certificates")
    return Options(full_response=bool(response.get("fullResponse")), text=fmt == "text", file=fmt == "file",
                   detect=fmt in (None, "autodetect"), followed=_follows(node, chosen), output=str(output or "data"))
