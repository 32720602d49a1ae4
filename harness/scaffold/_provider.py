"""The provider of a URL a definition calls: the project's provider for its host, or a proposed one.

Both translators (n8n's HTTP Request and app nodes, Make's HTTP and app modules) name a call's
provider so: the one whose ``base_url`` has the URL's host in ``[tool.cutover.providers]``, else
a provider named after the host, proposed (printed by ``cutover scaffold`` and written into the
module's docstring).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from harness.errors import Untranslatable

_STATIC_PREFIX = re.compile(r"^([^{]*)")


def provider_for(url: Any, providers: dict[str, str]) -> tuple[str, str, dict[str, str]]:
    """Return (provider, base URL, proposals) for a URL parameter; raise Untranslatable without a host."""
    raw = url[1:] if isinstance(url, str) and url.startswith("=") else url  # an n8n expression
    if not isinstance(raw, str):
        raise Untranslatable("the URL is not text")
    static = _STATIC_PREFIX.match(raw.strip())
    parts = urlsplit(static.group(1) if static else "")
    if not parts.scheme or not parts.hostname:
        raise Untranslatable("the URL's host is computed by an expression: choose the provider by hand")
    host = parts.hostname
    base = f"{parts.scheme}://{parts.netloc}"
    if host in providers:
        return providers[host], base, {}
    name = _provider_name(host)
    return name, base, {name: base}


def _provider_name(host: str) -> str:
    labels = [label for label in host.split(".") if label not in ("api", "www", "com", "io", "net", "org", "co")]
    stem = labels[0] if labels else host.split(".")[0]
    return re.sub(r"[^a-z0-9_]+", "_", stem.lower()).strip("_") or "provider"
