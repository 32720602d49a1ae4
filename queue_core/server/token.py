"""Bearer tokens of the control API: created once, stored only as a sha256 hash, scoped.

A token is ``cut_`` followed by 43 URL-safe characters (256 random bits). The database keeps its
sha256 (hex), its first characters (so listings can tell tokens apart) and its scopes; the token
itself is returned once by :func:`create_token` and never stored, logged or echoed.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from psycopg_pool import AsyncConnectionPool

from ..errors import TokenError
from ..store import tokens as store

TOKEN_PREFIX = "cut_"
SHOWN_CHARS = 8  # of the random part, kept in api_tokens.prefix


class Scope(StrEnum):
    """What a token may do; each endpoint names the one it needs."""

    ENQUEUE = "enqueue"
    CONTROL = "control"
    REPLAY = "replay"
    READ = "read"


@dataclass(frozen=True)
class Principal:
    """Who a request authenticated as: the token's name and scopes (never the token)."""

    name: str
    scopes: frozenset[str]

    @property
    def actor(self) -> str:
        """The actor written to the ledger and the audit trail."""
        return f"token:{self.name}"


def hash_token(token: str) -> str:
    """Return the hex sha256 of ``token``: the only form in which a token is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def parse_scopes(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Return the scopes of ``"enqueue,replay"`` (or a list) sorted; raise TokenError on an unknown one."""
    items = text.split(",") if isinstance(text, str) else list(text)
    scopes = sorted({s.strip() for s in items if s.strip()})
    known = {s.value for s in Scope}
    bad = [s for s in scopes if s not in known]
    if bad or not scopes:
        problem = f"unknown scope {bad[0]!r}" if bad else "at least one scope is needed"
        raise TokenError(f"{problem}; scopes are {', '.join(sorted(known))}")
    return tuple(scopes)


async def create_token(pool: AsyncConnectionPool, name: str, scopes: tuple[str, ...], *, actor: str = "cli") -> str:
    """Create token ``name`` with ``scopes`` and return the token (the only time it is seen).

    Raises TokenError when a live token already has that name (revoke it first); a revoked
    token's name is reused. The creation is audited in control_events (name and scopes only).
    """
    if not name or len(name) > 100:
        raise TokenError("a token name must be 1 to 100 characters")
    scopes = parse_scopes(list(scopes))
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    params = {"name": name, "token_hash": hash_token(token), "prefix": token[: len(TOKEN_PREFIX) + SHOWN_CHARS],
              "scopes": list(scopes)}
    async with pool.connection() as conn:
        async with conn.transaction():
            if not await store.create(conn, params):
                raise TokenError(f"a token named {name!r} exists; revoke it first or pick another name")
            await store.audit(conn, actor=actor, action="token_created", target_kind="token", target=name,
                              detail=json.dumps({"scopes": list(scopes)}))
    return token


async def revoke_token(pool: AsyncConnectionPool, name: str, *, actor: str = "cli") -> None:
    """Revoke the live token ``name`` (at once: its next request gets 401); raise TokenError if none."""
    async with pool.connection() as conn:
        async with conn.transaction():
            if not await store.revoke(conn, name):
                raise TokenError(f"no live token is named {name!r}")
            await store.audit(conn, actor=actor, action="token_revoked", target_kind="token", target=name, detail="{}")


async def list_tokens(pool: AsyncConnectionPool) -> list[dict[str, Any]]:
    """Return every token's name, prefix, scopes and timestamps (never a hash)."""
    return await store.list_all(pool)


async def authenticate(pool: AsyncConnectionPool, token: str) -> Principal | None:
    """Return who ``token`` belongs to, or None for an unknown or revoked token.

    The lookup is by hash (an index probe, so its timing says nothing about the token); the hash
    found is then compared with ``hmac.compare_digest``. Records ``last_used_at``.
    """
    if not token.startswith(TOKEN_PREFIX):
        return None
    digest = hash_token(token)
    row = await store.by_hash(pool, digest)
    if row is None or not hmac.compare_digest(row[2].encode(), digest.encode()):
        return None
    return Principal(name=row[0], scopes=frozenset(row[1]))

