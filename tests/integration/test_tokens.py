"""Bearer tokens: shown once, stored as a hash, scoped, revocable, audited by name."""

from __future__ import annotations

import hashlib

import pytest

from queue_core.server import TokenError, create_token, revoke_token
from queue_core.server.token import authenticate, list_tokens, parse_scopes
from tests.support.control import reset_control_tables


@pytest.fixture
async def tpool(pool):
    await reset_control_tables(pool)
    return pool


async def test_a_created_token_authenticates_with_its_name_and_scopes(tpool):
    token = await create_token(tpool, "ci", ("replay", "enqueue"))
    who = await authenticate(tpool, token)
    assert who is not None and who.name == "ci" and who.scopes == {"enqueue", "replay"}
    assert who.actor == "token:ci"


async def test_only_the_sha256_of_a_token_is_stored(tpool):
    token = await create_token(tpool, "ci", ("read",))
    async with tpool.connection() as conn:
        row = await (await conn.execute("SELECT token_hash, prefix, api_tokens::text FROM api_tokens")).fetchone()
    assert row[0] == hashlib.sha256(token.encode()).hexdigest()
    assert token.startswith(row[1]) and len(row[1]) < len(token) // 3
    assert token not in row[2]


async def test_unknown_tokens_and_near_misses_do_not_authenticate(tpool):
    token = await create_token(tpool, "ci", ("read",))
    assert await authenticate(tpool, token[:-1]) is None
    assert await authenticate(tpool, token + "x") is None
    assert await authenticate(tpool, token[4:]) is None  # without the cut_ prefix
    assert await authenticate(tpool, "") is None


async def test_a_revoked_token_stops_authenticating_and_its_name_can_be_reused(tpool):
    old = await create_token(tpool, "ci", ("read",))
    await revoke_token(tpool, "ci")
    assert await authenticate(tpool, old) is None
    new = await create_token(tpool, "ci", ("enqueue",))
    assert new != old and (await authenticate(tpool, new)).scopes == {"enqueue"}
    assert await authenticate(tpool, old) is None


async def test_a_live_token_name_cannot_be_taken_twice(tpool):
    await create_token(tpool, "ci", ("read",))
    with pytest.raises(TokenError, match="revoke it first"):
        await create_token(tpool, "ci", ("read",))


async def test_revoking_an_unknown_token_names_it(tpool):
    with pytest.raises(TokenError, match="'nobody'"):
        await revoke_token(tpool, "nobody")


@pytest.mark.parametrize(("text", "match"), [("read,admin", "unknown scope 'admin'"), (" , ", "at least one scope")])
def test_bad_scopes_are_refused_with_the_list_of_scopes(text, match):
    with pytest.raises(TokenError, match=match) as caught:
        parse_scopes(text)
    assert "control, enqueue, read, replay" in str(caught.value)


async def test_authentication_records_last_use_and_listing_shows_no_hash(tpool):
    token = await create_token(tpool, "ci", ("read",))
    assert (await list_tokens(tpool))[0]["last_used_at"] is None
    await authenticate(tpool, token)
    listed = await list_tokens(tpool)
    assert listed[0]["last_used_at"] is not None and "token_hash" not in listed[0]


async def test_token_creation_and_revocation_are_audited_by_name_only(tpool):
    token = await create_token(tpool, "ci", ("read",), actor="cli:alice")
    await revoke_token(tpool, "ci", actor="cli:bob")
    async with tpool.connection() as conn:
        rows = await (await conn.execute(
            "SELECT actor, action, target, detail::text, control_events::text FROM control_events ORDER BY seq")).fetchall()
    assert [(r[0], r[1], r[2]) for r in rows] == [("cli:alice", "token_created", "ci"), ("cli:bob", "token_revoked", "ci")]
    assert all(token not in r[4] and hashlib.sha256(token.encode()).hexdigest() not in r[4] for r in rows)
