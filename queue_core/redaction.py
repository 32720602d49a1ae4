"""The one redaction policy: which headers are credentials, and which values are secrets.

Two rules, used by every writer of what is stored or served (step outputs and call records,
errors and ``last_error``, the ledger, decision traces, ``trigger_meta``, recordings):

* **Headers, by name, deny by default.** A header whose lower-cased name contains one of
  ``CREDENTIAL_PARTS`` (authorization, cookie, key, token, secret, signature, hmac, password,
  auth, session, credential) is a credential, except the delivery-id headers of the verified
  signature schemes (``ID_HEADERS``: ids, not secrets) and names a caller allows (the gateway's
  own idempotency header). :func:`safe_headers` drops them; :func:`mask_headers` keeps the name
  with ``[redacted]`` as the value.
* **Values, by value and by pattern.** A :class:`Redactor` knows the configured secret values
  (every provider's ``*_env`` variables, see ``ProviderConfig.secret_env_names``, and the
  credential headers the gateway has sent) and replaces each with ``***`` wherever it occurs:
  as a whole string, inside a longer one, and in its JSON-escaped and URL-encoded forms (a JSON
  body held in a string). Patterns catch what no configuration names: ``Bearer``/``Basic``
  credentials in data, and :func:`scrub`'s fuller set (``token=…``, ``"api_key": "…"``,
  ``sk_live_…``, long opaque runs) in one-line summaries.

Everything here is pure: values in, values out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

MASK = "***"
HEADER_MASK = "[redacted]"
MIN_EMBEDDED = 6  # a secret this long or longer is also hidden inside a longer string
MEMO = 4096  # masked header values, and masked texts, a Redactor remembers (then starts over)
MEMO_TEXT = 1024  # ... of texts up to this long
CREDENTIAL_PARTS = ("authorization", "auth", "cookie", "key", "token", "secret", "signature", "hmac",
                    "password", "passwd", "session", "credential")
# The delivery ids of the verified schemes (queue_core.server.verify.DELIVERY_ID_HEADERS) and of
# the senders a recording is paired by (harness.importer.pairing): ids a diff needs, not secrets.
ID_HEADERS = frozenset({"webhook-id", "x-github-delivery", "x-shopify-webhook-id", "idempotency-key",
                        "svix-id", "x-delivery-id", "x-request-id", "x-ms-client-tracking-id"})

_SECRET_NAME = (r"(?:password|passwd|secret|token|api[_-]?key|apikey|authorization|access[_-]?key"
                r"|private[_-]?key|signature|session|cookie)")
_NAMED = (
    (re.compile(r'("[\w-]*' + _SECRET_NAME + r'[\w-]*"\s*:\s*)"[^"]*"', re.I), r'\1"***"'),
    (re.compile(r"(\b[\w-]*" + _SECRET_NAME + r"[\w-]*=)[^&\s\"']+", re.I), r"\1***"),
)
_SCHEME = (re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]+", re.I), r"\1 ***")
_PREFIXED = (re.compile(r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]+|\bwhsec_[A-Za-z0-9+/=]+|\bgh[pousr]_[A-Za-z0-9]+"
                        r"|\bxox[abprs]-[A-Za-z0-9-]+|\bAKIA[0-9A-Z]{16}\b"), MASK)
# Long opaque runs mixing letters and digits look like keys; hashes of ours are harmless to lose.
_OPAQUE = (re.compile(r"\b(?=[A-Za-z0-9+/_=-]*\d)(?=[A-Za-z0-9+/_=-]*[A-Za-z])[A-Za-z0-9+/_=-]{40,}"), MASK)
_CREDENTIALS: tuple[tuple[re.Pattern[str], str], ...] = (*_NAMED, _SCHEME, _PREFIXED)
_SCRUBBERS = (*_CREDENTIALS, _OPAQUE)
# In data (a stored body, a step's output) only a credential after its scheme word: a value
# with a digit, so prose such as "Bearer token required" is left alone.
_DATA_SCHEME = re.compile(r"\b(Bearer|Basic)\s+(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}", re.I)


def is_credential_header(name: str, allow: Iterable[str] = ()) -> bool:
    """Tell whether header ``name`` looks like a credential (see the module docstring).

    ``allow`` names (any case) are never credentials, nor are ``ID_HEADERS``.
    """
    low = name.lower()
    if low in ID_HEADERS or low in {a.lower() for a in allow}:
        return False
    return any(part in low for part in CREDENTIAL_PARTS)


def safe_headers(headers: Mapping[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """Return ``headers`` without the credential ones (what a job or a log may keep)."""
    allowed = tuple(allow)
    return {k: v for k, v in headers.items() if not is_credential_header(k, allowed)}


def mask_headers(headers: Iterable[tuple[str, str]], redactor: Redactor | None = None,
                 allow: Iterable[str] = ()) -> tuple[tuple[str, str], ...]:
    """Return ``headers`` with every credential's value replaced by ``[redacted]``.

    The other values lose the redactor's secrets and what :func:`scrub` masks: a header may
    still echo a secret (a ``Location`` with a key in its query). ``allow`` names are kept as is.
    """
    allowed, known = {a.lower() for a in allow}, redactor or NO_SECRETS
    return tuple((name, value if allowed and name.lower() in allowed else known.header(name, value))
                 for name, value in headers)


def credential_values(headers: Iterable[tuple[str, str]], allow: Iterable[str] = ()) -> set[str]:
    """Return the values of the credential headers in ``headers``, with a scheme word stripped."""
    allowed = tuple(allow)
    found: set[str] = set()
    for name, value in headers:
        if is_credential_header(name, allowed) and value:
            found.add(value)
            scheme, _, rest = value.partition(" ")
            if rest and scheme.lower() in ("bearer", "basic", "token"):
                found.add(rest.strip())
    return found


def scrub(text: str) -> str:
    """Return ``text`` with obvious secrets (tokens, keys, passwords, bearer values) masked."""
    for pattern, replacement in _SCRUBBERS:
        text = pattern.sub(replacement, text)
    return text


@dataclass(frozen=True)
class Redactor:
    """Replaces known secret values (and credential patterns) in text and JSON data.

    ``secrets`` are the exact values; each also stands for its JSON-escaped and URL-encoded
    forms. Idempotent: redacting twice gives what redacting once gave.
    """

    secrets: frozenset[str] = frozenset()
    # (header name, value) -> its masked value (see header): answers repeat a few header shapes
    _headers: dict[tuple[str, str], str] = field(default_factory=dict, compare=False, repr=False)
    # free text -> masked (see text): a call's reason and summary repeat a few phrasings
    _texts: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, values: Iterable[str | None]) -> Redactor:
        """Return a redactor of the non-empty ``values`` and their encoded forms."""
        forms: set[str] = set()
        for value in values:
            if value:
                forms.update({value, json.dumps(value)[1:-1], quote(value, safe="")})
        return cls(frozenset(forms))

    def __or__(self, other: Redactor) -> Redactor:
        return Redactor(self.secrets | other.secrets)

    def values(self, text: str) -> str:
        """Return ``text`` with every secret value (whole or, long enough, embedded) masked."""
        if not self.secrets:  # nothing configured, nothing sent: the common case of a replay
            return text
        if text in self.secrets:
            return MASK
        for secret in sorted((s for s in self.secrets if len(s) >= MIN_EMBEDDED and s in text), key=len, reverse=True):
            text = text.replace(secret, MASK)
        return text

    def header(self, name: str, value: str) -> str:
        """Return a header's value as :func:`mask_headers` keeps it (``[redacted]`` for a
        credential's; else the secrets and :func:`scrub`'s patterns masked), remembered."""
        key = (name, value)
        masked = self._headers.get(key)
        if masked is None:
            masked = HEADER_MASK if is_credential_header(name) else scrub(self.values(value))
            if len(value) <= MEMO_TEXT:
                if len(self._headers) >= MEMO:
                    self._headers.clear()
                self._headers[key] = masked
        return masked

    def text(self, text: str) -> str:
        """Return free text (an error, a reason) with secrets and credential patterns masked.

        Not the long-opaque-run pattern of :func:`scrub`: an error naming a fingerprint or a
        key of ours must still say which.
        """
        masked = self._texts.get(text)
        if masked is None:
            masked = self.values(text)
            for pattern, replacement in _CREDENTIALS:
                masked = pattern.sub(replacement, masked)
            if len(text) <= MEMO_TEXT:
                if len(self._texts) >= MEMO:
                    self._texts.clear()
                self._texts[text] = masked
        return masked

    def data(self, value: Any) -> Any:
        """Return a JSON value with secrets masked in every string and key (scheme credentials too).

        The hot path (nothing to hide) does not walk: an object or array is serialised and its
        text searched for the secrets and scheme words first; ``value`` itself is returned then.
        """
        if isinstance(value, dict | list):
            try:
                if not self.needed(json.dumps(value)):
                    return value
            except (TypeError, ValueError):  # not JSON (yet): walk it
                pass
        return self._walk(value)

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            value = self.values(value)
            if value.isascii():  # then the pattern can only match where lower() shows its words
                low = value.lower()
                if "bearer" not in low and "basic" not in low:
                    return value  # a body without them: no regex pass over every character
            return _DATA_SCHEME.sub(r"\1 ***", value)
        if isinstance(value, list | tuple):
            return [self._walk(item) for item in value]
        if isinstance(value, dict):
            return {self._walk(k) if isinstance(k, str) else k: self._walk(v) for k, v in value.items()}
        return value

    def needed(self, text: str) -> bool:
        """Tell whether ``text`` may hold something :meth:`data` would mask."""
        low = text.lower()
        return "bearer" in low or "basic" in low or any(s in text for s in self.secrets)


NO_SECRETS = Redactor()


# Field names whose values a person reading a job is not shown (``jobs show``): narrower than the
# header rule, whose "key" would hide an issue's key or a sort key.
FIELD_PARTS = ("password", "passwd", "secret", "token", "apikey", "api_key", "api-key", "authorization",
               "credential", "private_key", "access_key", "cookie", "signature")


def mask_fields(value: Any, redactor: Redactor | None = None) -> Any:
    """Return a JSON value for display: credential-named fields' values as ``***``, and every string
    through ``redactor`` (known secrets, ``Bearer``/``Basic`` credentials)."""
    redactor = redactor or Redactor()
    if isinstance(value, dict):
        return {k: MASK if isinstance(k, str) and any(p in k.lower() for p in FIELD_PARTS) and v not in (None, "")
                else mask_fields(v, redactor) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_fields(v, redactor) for v in value]
    return redactor.data(value) if isinstance(value, str) else value

