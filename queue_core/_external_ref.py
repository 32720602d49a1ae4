"""External references: where a provider's response names the object a call created.

A provider table may say where to find it::

    external_ref = "/id"                # a JSON pointer (RFC 6901) into the response body
    external_ref = "/data/0/id"         # array elements by index
    external_ref = "header:Location"    # a response header

The gateway stores the value found in a successful response on the call's step
(``steps.external_ref``) and in its ``call`` ledger event, so an operator can go from a job to
the object it made. Pure: parsing and extraction take values and return values.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

from .errors import ConfigError

MAX_LENGTH = 512  # an id or a URL; anything longer is not a reference and is not stored
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_SECRET_PARTS = ("authorization", "cookie", "token", "secret", "password", "signature", "api-key", "apikey",
                 "session")


@dataclass(frozen=True)
class ExternalRefSpec:
    """Where the reference is: ``header`` names a response header, else ``pointer`` is a JSON pointer."""

    text: str
    pointer: tuple[str, ...] = ()
    header: str | None = None


def parse_external_ref(value: Any, field: str, source: str = "pyproject.toml") -> ExternalRefSpec | None:
    """Validate an ``external_ref`` setting; raise ConfigError naming ``field`` when it is not one.

    Accepts a JSON pointer (``/id``, ``/data/0/id``; ``~1`` is ``/`` and ``~0`` is ``~``) or
    ``header:<Name>``. Header names that look like credentials are refused: a reference is
    stored in the ledger, which never holds secrets.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"expected a JSON pointer like '/id' or 'header:Location', got {value!r}",
                          source=source, field=field)
    if value.startswith("header:"):
        name = value[len("header:"):].strip()
        if not _HEADER_NAME.match(name):
            raise ConfigError(f"expected a header name after 'header:', got {name!r}", source=source, field=field)
        if any(part in name.lower() for part in _SECRET_PARTS):
            raise ConfigError(f"header {name!r} looks like a credential; it would be stored in the ledger",
                              source=source, field=field)
        return ExternalRefSpec(value, header=name)
    if not value.startswith("/") or re.search(r"~(?![01])", value):
        raise ConfigError(f"expected a JSON pointer starting with '/' (like '/id') or 'header:<Name>', got {value!r}",
                          source=source, field=field)
    tokens = tuple(t.replace("~1", "/").replace("~0", "~") for t in value[1:].split("/"))
    return ExternalRefSpec(value, pointer=tokens)


def extract_external_ref(spec: ExternalRefSpec | None, response: httpx.Response | None) -> str | None:
    """Return the reference ``spec`` points at in ``response`` as text, or None when it is not there.

    A string or number is a reference; a missing member, a null, a boolean, an object, an array,
    a body that is not JSON or a value longer than MAX_LENGTH characters is not (None).
    """
    if spec is None or response is None:
        return None
    if spec.header is not None:
        found: Any = response.headers.get(spec.header)
    else:
        try:
            found = json.loads(response.content)
        except ValueError:
            return None
        for token in spec.pointer:
            found = _member(found, token)
    if isinstance(found, bool) or not isinstance(found, (str, int, float)):
        return None
    text = str(found)
    return text if 0 < len(text) <= MAX_LENGTH else None


def _member(value: Any, token: str) -> Any:
    if isinstance(value, dict):
        return value.get(token)
    if isinstance(value, list) and token.isdigit() and (token == "0" or not token.startswith("0")):
        index = int(token)
        return value[index] if index < len(value) else None
    return None
