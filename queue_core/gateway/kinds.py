"""The transports of the providers that are not HTTP APIs, mounted on the gateway's live client only.

One per provider, on its origin: ``sql://`` a database (``sql``), ``smtp://`` a mail server
(``smtp``), ``ssh://`` a remote host (``ssh``), ``exec://`` the worker's own host (``exec``).
Shadow and dry-run calls never reach the live client, so none of these ever runs there.
"""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from ..provider import ProviderConfig
from .exec import mounts as exec_mounts
from .smtp import mounts as smtp_mounts
from .sql import mounts as sql_mounts
from .ssh import mounts as ssh_mounts


def live_mounts(providers: Mapping[str, ProviderConfig], environ: Mapping[str, str]) -> dict[str, httpx.AsyncBaseTransport]:
    """Return every non-HTTP provider's transport, keyed by its origin (httpx ``mounts``)."""
    return {**sql_mounts(providers, environ), **smtp_mounts(providers, environ), **ssh_mounts(providers, environ),
            **exec_mounts(providers, environ)}
