"""Rendering the console's pages: one Jinja2 environment (autoescape on for every template), the
security headers every answer carries, and the console's own stylesheet and script."""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from typing import Any

import jinja2
from fastapi import Request
from fastapi.responses import HTMLResponse, Response

from ...redaction import mask_fields

# No inline script or style, no framing, no form posted elsewhere; pages hold run data: never cached.
HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    # same-origin: the console's own POSTs carry its Origin (no-referrer would make it "null",
    # which the console refuses as another site's), and no URL of it leaks to another site.
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}

_ENV = jinja2.Environment(loader=jinja2.PackageLoader("queue_core.server.console", "templates"),
                          autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def _when(value: datetime | None) -> str:
    return "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S")


def _shown(value: Any) -> str:
    """A JSON value for display, with credential fields and known secrets masked."""
    return json.dumps(mask_fields(value), default=str, indent=2, ensure_ascii=False)


def _first_line(text: str | None, width: int = 120) -> str:
    return "" if not text else str(mask_fields(text)).splitlines()[0][:width]


_ENV.filters.update(when=_when, shown=_shown, first_line=_first_line)


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Render ``template`` with ``context`` (and the request) as an HTML answer with the headers."""
    html = _ENV.get_template(template).render(request=request, **context)
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def refusal(request: Request, status: int, message: str) -> HTMLResponse:
    """A refused request's page (401, 403, 404, 409, 413, 422): the reason, no data."""
    return page(request, "refused.html", status, status_code=status, message=message, session=None)


def static(name: str) -> Response:
    """The console's stylesheet or script, from the package (no build step, nothing fetched)."""
    media = {"css": "text/css", "js": "text/javascript"}[name.rsplit(".", 1)[1]]
    body = resources.files("queue_core.server.console").joinpath("static", name).read_bytes()
    return Response(body, media_type=media, headers={**HEADERS, "cache-control": "max-age=300"})
