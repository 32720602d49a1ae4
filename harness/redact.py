"""Redaction on ingest: secrets never enter a recording set, yet diffs still line up.

Credential and signature headers, and values at configured JSON paths, are replaced by
deterministic pseudonyms: ``redacted:`` followed by the first 24 hex digits of
HMAC-SHA256(per-set salt, canonical JSON of the value). The same value under the same salt always
gives the same pseudonym, so a redacted email in a trigger still equals the redacted email the
legacy run sent it to. Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from harness.errors import RedactionError
from harness.manifest import Redaction
from harness.recording import LegacyTrace, RecordedTrigger
from queue_core.redaction import is_credential_header

PSEUDONYM_PREFIX = "redacted:"
WILDCARD = "*"

# Credentials and webhook signatures of the common providers, named for the reader: the policy is
# queue_core.redaction's, which denies every name that looks like a credential (these and more).
SENSITIVE_HEADERS = frozenset({
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
    "api-key",
    "x-auth-token",
    "x-gitlab-token",
    "x-hub-signature",
    "x-hub-signature-256",
    "stripe-signature",
    "x-shopify-hmac-sha256",
    "webhook-signature",
    "svix-signature",
    "x-slack-signature",
    "x-twilio-signature",
    "x-zm-signature",
})


@dataclass(frozen=True)
class RedactionPolicy:
    """What to redact and the salt that keys the pseudonyms."""

    salt: bytes
    headers: frozenset[str] = frozenset()
    json_paths: tuple[tuple[str, ...], ...] = ()


def policy_from_settings(settings: Redaction, salt: bytes | None = None) -> RedactionPolicy:
    """Build a policy from manifest settings; the salt comes from ``salt`` or the named env var.

    Raises RedactionError when no salt is available or a JSON path is malformed.
    """
    key = salt if salt is not None else settings.salt()
    if not key:
        raise RedactionError(
            f"no redaction salt: set the environment variable {settings.salt_env} to a long random "
            "string and keep it for the life of the set (the same salt gives the same pseudonyms)",
            setting="redaction.salt_env",
        )
    return RedactionPolicy(
        salt=key,
        headers=frozenset(name.lower() for name in settings.headers),
        json_paths=tuple(parse_json_path(path) for path in settings.json_paths),
    )


def pseudonym(value: Any, salt: bytes) -> str:
    """Return the deterministic pseudonym of a JSON value under ``salt``."""
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hmac.new(salt, canonical.encode("utf-8"), hashlib.sha256).hexdigest()
    return f"{PSEUDONYM_PREFIX}{digest[:24]}"


def is_pseudonym(value: Any) -> bool:
    """Tell whether a value is already a pseudonym (redaction is idempotent)."""
    return isinstance(value, str) and value.startswith(PSEUDONYM_PREFIX)


def is_sensitive_header(name: str, extra: Iterable[str] = ()) -> bool:
    """Tell whether a header carries a credential or signature and must not be stored.

    queue_core.redaction's header policy decides (deny by default what looks like a credential,
    the delivery ids excepted); ``extra`` names a set's manifest adds are sensitive too.
    """
    lower = name.lower()
    return is_credential_header(lower) or lower in SENSITIVE_HEADERS or lower in {e.lower() for e in extra}


def redact_headers(headers: Mapping[str, str], policy: RedactionPolicy) -> dict[str, str]:
    """Return headers (names lower-cased) with sensitive values replaced by pseudonyms."""
    return {
        name.lower(): _pseudonymise(value, policy.salt)
        if is_sensitive_header(name, policy.headers) else value
        for name, value in headers.items()
    }


def _pseudonymise(value: Any, salt: bytes) -> Any:
    return value if is_pseudonym(value) else pseudonym(value, salt)


def parse_json_path(text: str) -> tuple[str, ...]:
    """Parse a redaction path such as ``data.object.customer_email`` or ``$.items[*].email``.

    Segments are object keys separated by dots; ``*`` (or a ``[*]``/``[]`` suffix) matches every
    element of an array or every value of an object. Raises RedactionError for an empty segment.
    """
    body = text[2:] if text.startswith("$.") else text
    segments: list[str] = []
    for part in body.split("."):
        for suffix in ("[*]", "[]"):
            if part.endswith(suffix) and len(part) > len(suffix):
                segments.extend([part[: -len(suffix)], WILDCARD])
                break
        else:
            segments.append(part)
    if not body or any(not segment for segment in segments):
        raise RedactionError(f"malformed JSON path {text!r}", setting="redaction.json_paths")
    return tuple(segments)


def redact_json(value: Any, policy: RedactionPolicy) -> tuple[Any, dict[str, str]]:
    """Return ``value`` with every configured path pseudonymised, and the string replacements made.

    The replacements (original string → pseudonym) let :func:`redact_trace` hide the same values
    wherever the legacy run repeated them. Paths that do not match are ignored.
    """
    replaced: dict[str, str] = {}
    for path in policy.json_paths:
        value = _redact_at(value, path, policy.salt, replaced)
    return value, replaced


def _redact_at(value: Any, path: tuple[str, ...], salt: bytes, replaced: dict[str, str]) -> Any:
    if not path:
        if value is None or is_pseudonym(value):
            return value
        hidden = pseudonym(value, salt)
        if isinstance(value, str):
            replaced[value] = hidden
        return hidden
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        keys = value.keys() if head == WILDCARD else [head] if head in value else []
        return {**value, **{k: _redact_at(value[k], rest, salt, replaced) for k in keys}}
    if isinstance(value, list) and head == WILDCARD:
        return [_redact_at(item, rest, salt, replaced) for item in value]
    return value


MIN_EMBEDDED = 4  # a replaced value this long or longer is also hidden where a longer string holds it


def scrub(value: Any, replacements: Mapping[str, str]) -> Any:
    """Replace every string equal to a key of ``replacements`` anywhere inside ``value``.

    A string that merely contains such a key (an error message naming an email, a URL with it in
    the query) has each occurrence replaced too, longest key first, for keys of at least
    ``MIN_EMBEDDED`` characters: shorter ones would clobber unrelated text.
    """
    if not replacements:
        return value
    if isinstance(value, str):
        exact = replacements.get(value)
        return exact if exact is not None else _embedded(value, replacements)
    if isinstance(value, list):
        return [scrub(item, replacements) for item in value]
    if isinstance(value, dict):
        return {key: scrub(item, replacements) for key, item in value.items()}
    return value


def _embedded(text: str, replacements: Mapping[str, str]) -> str:
    for key in sorted((k for k in replacements if len(k) >= MIN_EMBEDDED and k in text), key=len, reverse=True):
        text = text.replace(key, replacements[key])
    return text


def redact_trigger(trigger: RecordedTrigger, policy: RedactionPolicy) -> tuple[RecordedTrigger, dict[str, str]]:
    """Redact a trigger's headers and body; return it with the string replacements made."""
    body, replaced = redact_json(trigger.body, policy)
    headers = redact_headers(trigger.headers, policy)
    return replace(trigger, headers=headers, body=body), replaced


def redact_trace(trace: LegacyTrace, replacements: Mapping[str, str]) -> LegacyTrace:
    """Hide, in a legacy trace and its items, the values its trigger's redaction replaced.

    An item's key is replaced too: a fan-out keyed by a redacted field (an email) must not keep
    the value in the key.
    """
    items = [replace(item, key=replacements.get(item.key, item.key), decisions=scrub(item.decisions, replacements),
                     calls=scrub(item.calls, replacements), outputs=scrub(item.outputs, replacements),
                     error=scrub(item.error, replacements)) for item in trace.items]
    return replace(
        trace,
        decisions=scrub(trace.decisions, replacements),
        calls=scrub(trace.calls, replacements),
        outputs=scrub(trace.outputs, replacements),
        nodes=scrub(trace.nodes, replacements),
        error=scrub(trace.error, replacements),
        items=items,
    )
