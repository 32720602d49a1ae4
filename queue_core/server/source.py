"""Webhook sources: ``[tool.cutover.sources.<name>]`` tables of pyproject.toml.

.. code-block:: toml

    [tool.cutover.sources.github]
    scheme = "github"                 # standard-webhooks | github | stripe | shopify | bearer
    secret_env = "GITHUB_WEBHOOK_SECRET"
    automations = ["github-triage"]   # each verified delivery enqueues one job of each
    # delivery_id_header = "x-github-delivery"   # default depends on the scheme
    # tolerance_s = 300                           # timestamp tolerance (standard-webhooks, stripe)
    # max_body_bytes = 1048576                    # larger bodies get 413
    # mode = "live"                               # live | dry_run | shadow
    # replay_window_s = 86400   # github/shopify: a body seen within it under another delivery
    #                           # id is refused as a replay (their ids are unsigned); 0 turns it off
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, SignatureError
from ..states import Mode
from .verify import DEFAULT_TOLERANCE_S, DELIVERY_ID_HEADERS, Scheme

DEFAULT_MAX_BODY_BYTES = 1024 * 1024
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# Every key a source table may hold: the one list, which config.validate also checks against.
KEYS = ("scheme", "secret_env", "automations", "delivery_id_header", "tolerance_s", "max_body_bytes", "mode",
        "replay_window_s", "respond_timeout_s")
# The longest a held request may wait for its automation's answer (respond_timeout_s).
MAX_RESPOND_TIMEOUT_S = 300
_KEYS = frozenset(KEYS)
DEFAULT_REPLAY_WINDOW_S = 24 * 3600
# Schemes whose signature covers the body only: a replayed body under a new delivery id verifies,
# so the ingress refuses a body it saw within the window. The others sign their id and timestamp.
REPLAY_WINDOW_DEFAULTS: dict[Scheme, int] = {Scheme.GITHUB: DEFAULT_REPLAY_WINDOW_S, Scheme.SHOPIFY: DEFAULT_REPLAY_WINDOW_S}


@dataclass(frozen=True)
class Source:
    """One configured webhook sender. ``secret`` is read from ``secret_env`` at load time."""

    name: str
    scheme: Scheme
    secret_env: str
    secret: str
    automations: tuple[str, ...]
    delivery_id_header: str | None
    tolerance_s: int = DEFAULT_TOLERANCE_S
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    mode: Mode = Mode.LIVE
    replay_window_s: int = 0
    # > 0: the request is held until the automation answers (ctx.respond) or this many seconds pass.
    respond_timeout_s: int = 0

    def __repr__(self) -> str:  # the secret stays out of reprs, logs and tracebacks
        return f"Source(name={self.name!r}, scheme={self.scheme.value!r}, automations={self.automations!r})"


def _positive_int(table: Mapping[str, Any], key: str, default: int, fail: Any) -> int:
    value = table.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise fail(key, f"must be an integer >= 1, got {value!r}")
    return value


def parse_source(name: str, table: Any, environ: Mapping[str, str], where: str | None = None) -> Source:
    """Build one Source from its TOML table; raise ConfigError naming the field at fault.

    The secret is read from the environment variable ``secret_env`` names; an unset or empty
    variable is an error (a source without its secret would accept nothing, or worse).
    """
    prefix = f"tool.cutover.sources.{name}"

    def fail(key: str | None, message: str) -> ConfigError:
        return ConfigError(message, source=where, field=f"{prefix}.{key}" if key else prefix)

    if not _NAME.match(name):
        raise fail(None, "source names may hold letters, digits, '_', '.' and '-' only")
    if not isinstance(table, dict):
        raise fail(None, "must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown key; expected one of {', '.join(sorted(_KEYS))}")
    try:
        scheme = Scheme(str(table.get("scheme")))
    except ValueError:
        raise fail("scheme", f"must be one of {', '.join(s.value for s in Scheme)}, got {table.get('scheme')!r}") from None
    secret_env = table.get("secret_env")
    if not isinstance(secret_env, str) or not secret_env:
        raise fail("secret_env", "must name the environment variable holding the secret")
    secret = environ.get(secret_env, "")
    if not secret.strip():
        raise fail("secret_env", f"the environment variable {secret_env} is not set")
    automations = table.get("automations")
    if not isinstance(automations, list) or not automations or not all(isinstance(a, str) and a for a in automations):
        raise fail("automations", "must be a non-empty list of automation names")
    header = table.get("delivery_id_header", DELIVERY_ID_HEADERS[scheme])
    if header is not None and (not isinstance(header, str) or not header):
        raise fail("delivery_id_header", "must be a header name")
    try:
        mode = Mode(table.get("mode", Mode.LIVE.value))
    except ValueError:
        raise fail("mode", f"must be one of {', '.join(m.value for m in Mode)}") from None
    _check_secret(scheme, secret, fail)
    return Source(
        name=name, scheme=scheme, secret_env=secret_env, secret=secret,
        automations=tuple(dict.fromkeys(automations)),
        delivery_id_header=header.lower() if header else None,
        tolerance_s=_positive_int(table, "tolerance_s", DEFAULT_TOLERANCE_S, fail),
        max_body_bytes=_positive_int(table, "max_body_bytes", DEFAULT_MAX_BODY_BYTES, fail),
        mode=mode,
        replay_window_s=_window(table, REPLAY_WINDOW_DEFAULTS.get(scheme, 0), fail),
        respond_timeout_s=_respond_timeout(table, automations, fail),
    )


def _respond_timeout(table: Mapping[str, Any], automations: list[str], fail: Any) -> int:
    value = table.get("respond_timeout_s", 0)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_RESPOND_TIMEOUT_S:
        raise fail("respond_timeout_s", f"must be a number of seconds from 0 (answer at once) to "
                                        f"{MAX_RESPOND_TIMEOUT_S}, got {value!r}")
    if value and len(set(automations)) != 1:
        raise fail("respond_timeout_s", "a held request is answered by one automation: the source must name exactly one")
    return value


def _window(table: Mapping[str, Any], default: int, fail: Any) -> int:
    value = table.get("replay_window_s", default)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 366 * 24 * 3600:
        raise fail("replay_window_s", f"must be a number of seconds from 0 (off) to 31622400, got {value!r}")
    return value


def _check_secret(scheme: Scheme, secret: str, fail: Any) -> None:
    if scheme is Scheme.STANDARD_WEBHOOKS:
        from .. import signing

        try:
            for part in secret.split():
                signing.decode_secret(part)
        except SignatureError as exc:
            raise fail("secret_env", str(exc)) from None


def load_sources(raw: Mapping[str, Any], environ: Mapping[str, str] | None = None, where: str | None = None) -> dict[str, Source]:
    """Return every source of a ``[tool.cutover]`` table (``Settings.raw``), by name."""
    env = os.environ if environ is None else environ
    table = raw.get("sources", {})
    if not isinstance(table, dict):
        raise ConfigError("must be a table of sources", source=where, field="tool.cutover.sources")
    return {name: parse_source(name, value, env, where) for name, value in table.items()}
