"""Make's HTTP modules at run time: the request of "Make a request" (v3 ``ActionSendData`` and its
Basic-auth / OAuth / API-key variants, v4 ``MakeRequest``) and "Get a file", through ``ctx.call``.

Body types (v3 ``bodyType``), as Make sends them:

- ``raw``: the ``data`` text with the chosen ``contentType`` (a JSON content type is sent as
  the parsed JSON, so the gateway records it as JSON; any other type, and JSON text that does
  not parse, as the text itself, as Make sends it);
- ``x_www_form_urlencoded``: the ``formFields`` as a form;
- ``multipart_form_data``: the ``formDataFields``: text fields, and file fields (``fileName``
  and ``data``) as files.

The output bundle is Make's: ``statusCode``, ``headers`` (a list of ``{name, value}``), ``data``
(the parsed body when ``parseResponse`` is on and the answer is JSON, else the text), and for
"Get a file" ``fileName``, ``fileSize`` and ``data`` (the bytes). Authentication (basic, OAuth,
API key) is the provider's configuration: the generated call carries no secret.

A 4xx/5xx answer: with ``handleErrors`` on ("Evaluate all states as errors") Make stops the
module with an error, which is what the gateway does (4xx terminal, 5xx and 429 retried). With it
off Make outputs the error bundle and goes on; the gateway still fails the call, so such a run
fails here where Make went on (named in the module's note).
"""

from __future__ import annotations

import json as jsonlib
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import ModuleFailed
from ._make_filter import text
from ._n8n_records import offline

__all__ = ["file_bundle", "get_file", "provider_of", "request", "response_bundle"]

_JSON_TYPE = re.compile(r"[/+]json\b", re.I)


def provider_of(ctx: Any, url: str, module: str) -> str:
    """Return the configured provider whose base URL the computed ``url`` starts with (the longest).

    For a module whose URL's host is mapped (``{{33.jobURL}}``); the providers are the worker's
    (``ctx.providers``). ModuleFailed naming the module and the URL's origin when none is.
    """
    providers: dict[str, str] = dict(getattr(ctx, "providers", None) or {})
    matches = [(len(base), name) for name, base in providers.items()
               if url == base or url.startswith((base.rstrip("/") + "/", base + "?"))]
    if not matches:
        origin = "/".join(url.split("/")[:3])
        raise ModuleFailed(f"{module}: no provider is configured for {origin!r} (the URL the module computed): add "
                           f'[tool.cutover.providers.<name>] base_url = "{origin}"')
    return max(matches)[1]


def _pairs(pairs: Sequence[tuple[Any, Any]]) -> dict[str, str]:
    return {text(k): text(v) for k, v in pairs if text(k) != ""}


def _json_of(raw: Any) -> tuple[Any] | None:
    """``(value,)`` of a JSON body's text, None when it does not parse."""
    try:
        return (jsonlib.loads(text(raw)),)
    except ValueError:
        return None


def _bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    return text(value).encode("utf-8")


async def request(ctx: Any, provider: str, method: str, url: str, *, step: str, module: str = "", parse: bool = True,
                  headers: Sequence[tuple[Any, Any]] = (), params: Sequence[tuple[Any, Any]] = (),
                  raw: Any = None, content_type: str = "", form: Sequence[tuple[Any, Any]] | None = None,
                  fields: Sequence[tuple[Any, Any]] | None = None,
                  files: Sequence[tuple[Any, Any, Any]] | None = None, body: Any = None) -> dict[str, Any]:
    """Send one HTTP module's request; return its output bundle (``response_bundle``).

    ``raw`` is the rendered raw body (sent as ``content_type``), ``form`` the urlencoded fields,
    ``fields``/``files`` a multipart form's text fields and ``(name, file name, data)`` files,
    ``body`` a JSON body already built (v4's data structure).
    """
    kwargs: dict[str, Any] = {}
    sent = _pairs(headers)
    if params:
        kwargs["params"] = _pairs(params)
    if body is not None:
        kwargs["json"] = body
    elif raw is not None and text(raw) != "":
        parsed = _json_of(raw) if _JSON_TYPE.search(content_type) else None
        if parsed is not None:
            kwargs["json"] = parsed[0]
        else:  # any other type, or JSON text that does not parse: Make sends the text as it is
            kwargs["content"] = _bytes(raw)
            if content_type and not any(k.lower() == "content-type" for k in sent):
                sent["Content-Type"] = content_type  # a JSON body's the call sets itself
    elif form is not None:
        kwargs["data"] = _pairs(form)
    elif fields is not None or files is not None:
        kwargs["data"] = _pairs(fields or ())
        kwargs["files"] = {text(name): (text(file_name) or text(name), _bytes(data), None)
                           for name, file_name, data in files or ()}
    if sent:
        kwargs["headers"] = sent
    response = await ctx.call(provider, method, url, step=step, **kwargs)
    return response_bundle(response, parse)


def response_bundle(response: Any, parse: bool = True) -> dict[str, Any]:
    """Return an HTTP module's output bundle for ``response``: statusCode, headers, data.

    A shadow replay answers with the legacy run's recorded output (the gateway marks it offline),
    which is already a bundle: it is taken as it is, as is any object with ``statusCode`` and
    ``data``. Otherwise ``data`` is the parsed JSON body when ``parse`` is on and the answer is
    JSON, else the body's text.
    """
    try:
        recorded = response.json()
    except ValueError:
        recorded = None
    if isinstance(recorded, dict) and (offline(response) or ("statusCode" in recorded and "data" in recorded)):
        return recorded
    kind = str(getattr(response, "headers", {}).get("content-type", ""))
    body: Any = response.text
    if parse and recorded is not None and _JSON_TYPE.search(kind):
        body = recorded
    headers = [{"name": k, "value": v} for k, v in getattr(response, "headers", {}).items()]
    return {"statusCode": response.status_code, "headers": headers, "data": body}


async def get_file(ctx: Any, provider: str, url: str, *, step: str, headers: Sequence[tuple[Any, Any]] = (),
                   params: Sequence[tuple[Any, Any]] = ()) -> dict[str, Any]:
    """HTTP "Get a file": a GET; its bundle is the file (``file_bundle``)."""
    kwargs: dict[str, Any] = {}
    if headers:
        kwargs["headers"] = _pairs(headers)
    if params:
        kwargs["params"] = _pairs(params)
    response = await ctx.call(provider, "GET", url, step=step, **kwargs)
    return file_bundle(response, url)


def file_bundle(response: Any, url: str) -> dict[str, Any]:
    """Return "Get a file"'s bundle: ``fileName`` (Content-Disposition's, else the URL path's last part),
    ``fileSize`` and ``data`` (the bytes). A recorded bundle (a shadow replay's answer) is taken as it is."""
    if offline(response):
        try:
            recorded = response.json()
        except ValueError:
            recorded = None
        if isinstance(recorded, dict):
            return recorded
    disposition = str(getattr(response, "headers", {}).get("content-disposition", ""))
    named = re.search(r"filename\*=(?:UTF-8'')?([^;]+)|filename=\"?([^\";]+)\"?", disposition, re.I)
    if named:
        file_name = unquote((named.group(1) or named.group(2)).strip())
    else:
        file_name = unquote(urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1])
    data = response.content
    return {"fileName": file_name, "fileSize": len(data), "data": data}
