"""Keep credentials out of generated code: one that a definition holds becomes an environment variable.

A header, query parameter or body field whose *name* looks like a credential (authorization,
proxy-authorization, cookie, or holding key, token, secret, password or signature) and whose
*value* is not item data (a literal, or an expression reading ``$credentials``, ``$env``,
``$vars`` or nothing at all) is never written into a module, a manifest or the scaffold's output:

- ``Authorization: Bearer …`` is dropped from the call: the provider sends it from the variable
  its ``auth_env`` names (``queue_core.provider``; the gateway adds ``Authorization: Bearer``);
- anything else (another header, since a provider table has no key for a custom auth header;
  a query parameter; a body field) is read by the module at call time from the variable, by the
  ``credential(ctx, NAME)`` function the module then defines.

The variable is ``CUTOVER_<PROVIDER>_TOKEN`` for a bearer token, ``CUTOVER_<PROVIDER>_<NAME>``
otherwise, or the name an n8n ``$env.NAME`` expression already used. A value mapped from item
data (``{{ $json.token }}``, ``{{1.session}}``) is not in the definition, so it stays code.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from harness.scaffold._code import call, name

_NAMES = ("authorization", "cookie", "key", "token", "secret", "password", "passwd", "signature")
_NOT_CREDENTIALS = ("idempotency-key", "keyword", "keywords")
_BEARER = re.compile(r"^\s*bearer\s+", re.I)
_N8N_SECRET_SOURCES = re.compile(r"\$(credentials|env|vars|secrets)\b")
_N8N_DATA = re.compile(r"\$(json|input|node|item|items|binary|\(|fromAI)")
_N8N_ENV = re.compile(r"\$env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]\s*\])")
_MAKE_DATA = re.compile(r"\{\{[^}]*\b\d+\.")  # a mapping from a module's output: {{1.session}}
REDACTED = "[credential: not copied by cutover scaffold]"

HELPER = '''
def credential(ctx: Context, name: str) -> str:
    """Return the credential held in the environment variable ``name`` (the workflow held it in clear).

    Shadow and dry runs send no request, so they need none; a live run without it fails, naming it.
    """
    value = os.environ.get(name)
    if value is None and ctx.mode == 'live':
        raise TerminalError(f'set the environment variable {name}: a credential this automation sends')
    return value or ''
'''  # the function a module defines when a call reads a credential (a template of harness.scaffold._code)


@dataclass(frozen=True)
class Credential:
    """A credential found in a definition, and the environment variable that now holds it."""

    env: str
    provider: str
    was: str  # "a literal Authorization header", "an $env expression in the Authorization header"
    where: str  # 'node "Get issues"', 'module "List contacts"'
    bearer: bool  # the provider's auth_env sends it: the call drops the header
    how: str = ""  # how the gateway sends an auth_env secret that is not a bearer header (a query parameter)

    def line(self) -> str:
        """Return what the scaffold prints: the variable to set and where the credential was."""
        return f"set {self.env} (was {self.was} in {self.where})"


def is_credential_name(name: Any) -> bool:
    """Return whether a header, parameter or field name looks like a credential's."""
    low = str(name).strip().lower()
    return low not in _NOT_CREDENTIALS and any(part in low for part in _NAMES)


def n8n_secret(value: Any) -> bool:
    """Return whether an n8n parameter value holds a secret of the definition (not item data)."""
    if not isinstance(value, str) or not value.startswith("="):
        return value not in (None, "")
    return bool(_N8N_SECRET_SOURCES.search(value)) or not _N8N_DATA.search(value)


def make_secret(value: Any) -> bool:
    """Return whether a Make mapped value holds a secret of the blueprint (not a module's output)."""
    return value not in (None, "") and not (isinstance(value, str) and _MAKE_DATA.search(value))


def found(value: Any, *, name: str, kind: str, provider: str, where: str) -> Credential:
    """Return the Credential a secret ``value`` of the ``kind`` (header, query parameter, body
    field) called ``name`` becomes, for a call to ``provider``; never holds the value itself."""
    text = str(value)
    bearer = kind == "header" and name.strip().lower() == "authorization" and bool(_BEARER.match(text.lstrip("=")))
    env_match = _N8N_ENV.search(text) if text.startswith("=") else None
    if env_match:
        env = env_match.group(1) or env_match.group(2)
    else:
        stem = "TOKEN" if bearer else re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_") or "SECRET"
        env = f"CUTOVER_{re.sub(r'[^A-Z0-9]+', '_', provider.upper()).strip('_')}_{stem}"
    label = f"{name} header" if kind == "header" else f"{kind} {name}"
    if text.startswith("="):
        source = _N8N_SECRET_SOURCES.search(text)
        was = f"an n8n expression{' of $' + source.group(1) if source else ''} in the {label}"
    else:
        was = f"a literal {label}"
    return Credential(env, provider, was, where, bearer)


def source(credential: Credential) -> ast.expr:
    """Return the Python expression that reads ``credential`` at call time."""
    return call("credential", name("ctx"), credential.env)


def redacted(value: Any) -> Any:
    """Return ``value`` (a definition's parameters) with every credential's value replaced by REDACTED.

    For the verbatim copy beside a TODO: ``{"name": "Authorization", "value": …}`` pairs, keys
    named like credentials, JSON text holding either, and ``Bearer …`` text.
    """
    if isinstance(value, dict):
        pair = "name" in value and "value" in value and is_credential_name(value["name"])
        return {k: (REDACTED if (pair and k == "value") or (is_credential_name(k) and not isinstance(v, dict | list)
                                                           and v not in (None, "", False, True))
                    else redacted(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(v) for v in value]
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
            try:
                return json.dumps(redacted(json.loads(stripped)), ensure_ascii=False)
            except ValueError:
                pass
        if re.search(r"\bbearer\s+\S", value, re.I) or (value.startswith("=") and _N8N_SECRET_SOURCES.search(value)):
            return REDACTED
    return value


def holds_credential(value: Any) -> bool:
    """Return whether ``redacted`` would replace anything in ``value`` (JSON text compared parsed)."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            value = json.loads(value)
        except ValueError:
            pass
    changed: bool = redacted(value) != value
    return changed


def auth_envs(credentials: list[Credential]) -> dict[str, str]:
    """Return {provider: env var} for the bearer tokens (what each provider's ``auth_env`` names)."""
    return {c.provider: c.env for c in credentials if c.bearer}
