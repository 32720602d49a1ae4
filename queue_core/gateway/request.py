"""The requests of outbound calls, without secrets: prepared, fingerprinted, stored, recorded.

Pure: building a request, its fingerprint and its stored form reads no clock and no connection,
so the same call prepared on any attempt of a job has the same key and the same fingerprint.
"""

from __future__ import annotations

import hashlib
import json as jsonlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeAlias
from urllib.parse import urlencode

import httpx

from ..errors import ForeignURLError, StandInURLError
from ..provider import ProviderConfig
from ..redaction import Redactor, mask_headers
from . import binary as multipart
from .binary import FilePart

# A URL holding this text takes the provider's ``auth_env`` secret there (Telegram's /bot<token>/):
# the gateway puts the secret in only on the wire, so every record, intent and log keeps this text.
SECRET_SEGMENT = "__auth_env__"
# The header on a shadow/dry-run call's answer that came from a recording (and X-Cutover-Synthetic on
# one the gateway made up): a runtime that takes a recorded node output in place of the API's answer
# accepts it only with one of them, so a live answer of an unexpected shape fails instead.
RECORDED_HEADER = "X-Cutover-Recorded"
OFFLINE_HEADERS = (RECORDED_HEADER, "X-Cutover-Synthetic")


@dataclass(frozen=True)
class RecordedResponse:
    """A response the harness supplies for a shadow/dry-run call (from a recording)."""

    status: int = 200
    json: Any = None
    text: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def content(self) -> bytes:
        if self.text is not None:
            return self.text.encode()
        return b"" if self.json is None else jsonlib.dumps(self.json).encode()


@dataclass(frozen=True)
class OutboundRequest:
    """One call as prepared, without secrets: what is fingerprinted, recorded and (maybe) sent."""

    provider: str
    method: str
    url: str
    json: Any
    body: bytes | None
    headers: tuple[tuple[str, str], ...]
    idempotency_key: str
    fingerprint: str
    occurrence: int = 0  # which call at its step name in this run of the job (0 = the first)
    anonymous: bool = False  # sent without the provider's secret (a URL that is its own authority: a session URL)

    def intent(self, step: str, mode: str) -> dict[str, Any]:
        """Return the JSON intent recorded in the ledger and the decision trace (secret-free)."""
        return {
            "step": step, "occurrence": self.occurrence, "provider": self.provider, "method": self.method,
            "url": self.url,
            "body": self.json, "headers": dict(redact_headers(self.headers)),
            "idempotency_key": self.idempotency_key, "fingerprint": self.fingerprint, "mode": mode,
        }


@dataclass(frozen=True)
class StoredCall:
    """What the gateway stores with a step: the request's fingerprint and, once known, the outcome.

    ``status`` is None while the call was sent but no response recorded (or none came). JSON-safe
    through ``dataclasses.asdict``; ``StoredCall.coerce`` reads that form back.
    """

    fingerprint: str
    idempotency_key: str
    method: str
    url: str
    status: int | None = None
    kind: str | None = None
    reason: str | None = None
    summary: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""
    body_sha256: str | None = None  # set when the body was binary: its bytes are not kept, ``body`` is ""
    body_size: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The JSON form stored with the step (what ``asdict`` and a JSON round trip would give)."""
        return {"fingerprint": self.fingerprint, "idempotency_key": self.idempotency_key,
                "method": self.method, "url": self.url, "status": self.status, "kind": self.kind,
                "reason": self.reason, "summary": self.summary,
                "headers": [[name, value] for name, value in self.headers], "body": self.body,
                "body_sha256": self.body_sha256, "body_size": self.body_size}

    @classmethod
    def coerce(cls, value: StoredCall | Mapping[str, Any] | None) -> StoredCall | None:
        """Return ``value`` as a StoredCall (it may be the dict ``asdict`` made of one)."""
        if value is None or isinstance(value, StoredCall):
            return value
        data = dict(value)
        data["headers"] = tuple((str(k), str(v)) for k, v in data.get("headers") or ())
        return cls(**data)

    def response(self) -> httpx.Response:
        """Rebuild the recorded response (status, safe headers, body)."""
        return httpx.Response(self.status or 0, headers=list(self.headers), content=self.body.encode(),
                              request=httpx.Request(self.method, parsed_url(self.url)))



ResponseSource: TypeAlias = Callable[[str, "str | None", str, OutboundRequest], "RecordedResponse | None"]

def redact_headers(headers: tuple[tuple[str, str], ...] | Mapping[str, str],
                   redactor: Redactor | None = None) -> tuple[tuple[str, str], ...]:
    """Return the headers with every credential's value replaced by ``[redacted]``
    (queue_core.redaction's header policy), the others' secrets masked by ``redactor``."""
    items = tuple(headers.items() if isinstance(headers, Mapping) else headers)
    return mask_headers(items, redactor, allow=idempotency_names(items))


def idempotency_names(headers: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """Our own child key's header, whatever a provider names it: a hash, needed to read the ledger."""
    return tuple(name for name, _ in headers if "idempotency" in name.lower())


def fingerprint(method: str, url: str, json: Any) -> str:
    """Return ``sha256:<hex>`` of the method, the URL with sorted query and the canonical body."""
    body = "" if json is None else _canonical_json(json)
    return _fingerprint(method, _canonical_url(normal_url(url)), body)


@lru_cache(maxsize=4096)
def parsed_url(url: str) -> httpx.URL:
    """``httpx.URL(url)``, parsed once per URL (an ``httpx.URL`` is immutable): a call's URL is
    parsed to resolve it and again for its answer's request, and a replay repeats URLs."""
    return httpx.URL(url)


@lru_cache(maxsize=4096)
def normal_url(url: str) -> str:
    """``str(httpx.URL(url))``: the URL as httpx normalises it, worked out once per URL."""
    return str(parsed_url(url))


def _canonical_json(value: Any) -> str:
    return jsonlib.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _canonical_url(url: str) -> str:
    """``url`` (already normalised by httpx) with its query parameters sorted."""
    if "?" not in url:
        return url
    u = httpx.URL(url)
    return str(u.copy_with(params=httpx.QueryParams(sorted(u.params.multi_items()))))


def _fingerprint(method: str, canonical_url: str, canonical_body: str) -> str:
    digest = hashlib.sha256("\n".join((method.upper(), canonical_url, canonical_body)).encode())
    return "sha256:" + digest.hexdigest()


def resolve_url(config: ProviderConfig, url: str, params: Mapping[str, Any] | None) -> str:
    """Join ``url`` to the provider's base URL and merge ``params``; refuse foreign absolute URLs."""
    if url.startswith(("http://", "https://")):
        base = config.base_url
        if not (url == base or url.startswith((base + "/", base + "?"))):
            if config.stand_in:
                absolute = httpx.URL(url)
                raise StandInURLError(config.name, url, f"{absolute.scheme}://{absolute.netloc.decode('ascii')}")
            raise ForeignURLError(config.name, url, base)
        full = url
    else:
        full = config.base_url + ("" if url.startswith("/") else "/") + url
    return str(parsed_url(full).copy_merge_params(dict(params))) if params else normal_url(full)


def prepare(config: ProviderConfig, method: str, url: str, *, json: Any, params: Mapping[str, Any] | None,
            headers: Mapping[str, str] | None, key: str, data: Mapping[str, Any] | None = None,
            files: Mapping[str, FilePart] | None = None, content: bytes | None = None) -> OutboundRequest:
    """Build the secret-free request of a call: URL, body bytes, headers, key, fingerprint.

    ``json`` is sent as JSON, ``data`` as an HTML form (``application/x-www-form-urlencoded``, what
    Stripe and OAuth token endpoints take): keys in sorted order, a list value as the key
    repeated, booleans as ``true``/``false``, ``None`` values left out. Raises TypeError for both.
    ``files`` (name -> (file name, bytes, content type)) makes it ``multipart/form-data`` with
    ``data`` as its text fields (``multipart/related`` when the headers ask for it): recorded and
    fingerprinted by each file's size and sha256, never its bytes. ``content`` is a raw byte body (a file
    upload's bytes, ``application/octet-stream`` unless the headers say): recorded and fingerprinted by its
    size and sha256 too.
    """
    if json is not None and data is not None:
        raise TypeError("a call takes json= or data= (a form), not both")
    full = resolve_url(config, url, params)
    if content is not None:
        if json is not None or data is not None or files is not None:
            raise TypeError("a call takes content= (raw bytes) alone, not with json=, data= or files=")
        raw = {"size": len(content), "sha256": hashlib.sha256(content).hexdigest()}
        sent = {k: v for k, v in (headers or {}).items() if k.lower() != config.idempotency_header.lower()}
        if not any(k.lower() == "content-type" for k in sent):
            sent["Content-Type"] = "application/octet-stream"
        sent[config.idempotency_header] = key
        return OutboundRequest(config.name, method.upper(), full, {"bytes": raw}, bytes(content), tuple(sent.items()),
                               key, _fingerprint(method, _canonical_url(full), "raw:" + _canonical_json(raw)))
    if files is not None:
        if json is not None:
            raise TypeError("a call takes json= or files= (a multipart form), not both")
        given = next((v for k, v in (headers or {}).items() if k.lower() == "content-type"), "")
        parts = multipart.encode(data, files, "related" if given.startswith("multipart/related") else "form-data")
        merged = {k: v for k, v in (headers or {}).items()
                  if k.lower() not in (config.idempotency_header.lower(), "content-type")}
        merged["Content-Type"] = parts.content_type
        merged[config.idempotency_header] = key
        return OutboundRequest(config.name, method.upper(), full, parts.recorded, parts.body, tuple(merged.items()), key,
                               _fingerprint(method, _canonical_url(full), parts.canonical))
    # One encoding serves both: the body is sent with sorted keys, which is also its canonical
    # form for the fingerprint (JSON objects are unordered).
    if data is not None:
        form = form_body(data)
        canonical: str | None = "form:" + form  # never equal to a JSON body's fingerprint
        body: bytes | None = form.encode()
        content_type, recorded = "application/x-www-form-urlencoded", dict(data)
    else:
        canonical = None if json is None else _canonical_json(json)
        body = None if canonical is None else canonical.encode()
        content_type, recorded = "application/json", json
    merged = {k: v for k, v in (headers or {}).items() if k.lower() != config.idempotency_header.lower()}
    if body is not None:
        merged.setdefault("Content-Type", content_type)
    merged[config.idempotency_header] = key
    return OutboundRequest(config.name, method.upper(), full, recorded, body, tuple(merged.items()), key,
                           _fingerprint(method, _canonical_url(full), canonical or ""))


def form_body(data: Mapping[str, Any]) -> str:
    """Return ``data`` as a form body (see :func:`prepare`); raise TypeError for a nested value."""
    pairs: list[tuple[str, str]] = []
    for name in sorted(data):
        values = data[name] if isinstance(data[name], list | tuple) else [data[name]]
        for value in values:
            if value is None:
                continue
            if isinstance(value, dict | list | tuple):
                raise TypeError(f"form field {name!r}: a form value is a string, number or boolean, "
                                f"not a {type(value).__name__} (name nested fields 'a[b]')")
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            pairs.append((str(name), text))
    return urlencode(pairs)


