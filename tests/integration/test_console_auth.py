"""The console's security: signed-out pages redirect to the login (303) and actions are refused (401)
before anything is done; each page and action checks its scope (403); forms need the session's CSRF
token; an expired session or a revoked token is signed out; the cookie and the database keep no
token; nothing secret is rendered; the bearer API is as closed as before."""

from __future__ import annotations

import hashlib
import uuid

import pytest

from queue_core.server import revoke_token
from tests.integration.console_support import ROLES, browser, csrf, job, ledger_kinds, reset, sign_in, status_of
from tests.support.control import app_for

SECRET = "sk_live_51HcKd8sZEXAMPLEveryS3cret"
PAGES = ["/console/runs", "/console/runs/table", "/console/runs/{id}", "/console/failing",
         "/console/failing/replay?automation=orders&error_kind=terminal&signature=x", "/console/automations"]
ACTIONS = {"/console/runs/{id}/cancel": "control", "/console/runs/{id}/replay": "replay",
           "/console/failing/replay": "replay", "/console/automations/orders/pause": "control",
           "/console/automations/orders/resume": "control"}


@pytest.fixture
async def setup(pool):
    tokens = await reset(pool)
    dead = await job(pool, status="dead", error="HTTP 404 from crm: no such contact 12", kind="terminal",
                     payload={"customer": "ada", "api_key": SECRET, "nested": {"password": "hunter2-very-secret"},
                              "note": "<script>alert(1)</script>"})
    return app_for(pool), tokens, dead


def _paths(paths, job_id: uuid.UUID):
    return [p.replace("{id}", str(job_id)) for p in paths]


async def test_signed_out_pages_redirect_to_the_login_and_actions_are_refused(pool, setup) -> None:
    app, _, dead = setup
    async with browser(app) as c:
        for path in _paths(PAGES, dead):
            answer = await c.get(path)
            assert answer.status_code == 303, path
            assert answer.headers["location"].startswith("/console/login?next=%2Fconsole%2F"), path
        for path in _paths(ACTIONS, dead):
            answer = await c.post(path, data={"reason": "r", "csrf": "guess", "automation": "orders",
                                              "error_kind": "terminal", "signature": "HTTP # from crm: no such contact #"})
            assert answer.status_code == 401, path
        assert (await c.post("/console/logout")).status_code == 401
    assert await status_of(pool, dead) == "dead"
    assert [k for k, _ in await ledger_kinds(pool, dead)] == ["enqueued"]
    assert await _pauses(pool) == []


async def _pauses(pool) -> list[str]:
    async with pool.connection() as conn:
        return [r[0] for r in await (await conn.execute("SELECT name FROM pauses")).fetchall()]


async def test_sign_in_sets_a_strict_httponly_expiring_cookie_and_stores_only_hashes(pool, setup) -> None:
    app, tokens, _ = setup
    async with browser(app) as c:
        refused = await c.post("/console/login", data={"token": "cut_" + "x" * 43})
        assert refused.status_code == 401 and "unknown or revoked" in refused.text
        assert "set-cookie" not in refused.headers
        answer = await sign_in(c, tokens["reader"])
        cookie = answer.headers["set-cookie"]
        for part in ("HttpOnly", "SameSite=strict", "Max-Age=28800", "Path=/console"):
            assert part.lower() in cookie.lower(), cookie
        assert "secure" not in cookie.lower()  # plain http: a Secure cookie would never come back
        session_id = c.cookies["cutover_console"]
        assert len(session_id) >= 43 and session_id not in tokens.values()
        assert (await c.get("/console/runs")).status_code == 200
    async with pool.connection() as conn:
        rows = await (await conn.execute("SELECT session_hash, token_hash, csrf_secret, expires_at - created_at "
                                         "FROM console_sessions")).fetchall()
    assert len(rows) == 1
    assert rows[0][0] == hashlib.sha256(session_id.encode()).hexdigest()
    assert rows[0][1] == hashlib.sha256(tokens["reader"].encode()).hexdigest()
    assert rows[0][3].total_seconds() == 8 * 3600
    assert session_id not in str(rows) and tokens["reader"] not in str(rows)
    async with browser(app, "https://cutover.test") as c:
        assert "secure" in (await sign_in(c, tokens["reader"])).headers["set-cookie"].lower()


async def test_the_login_redirects_only_into_the_console(pool, setup) -> None:
    app, tokens, _ = setup
    async with browser(app) as c:
        for target, lands in (("//evil.example/x", "/console/runs"), ("https://evil.example/", "/console/runs"),
                              ("/console/failing", "/console/failing")):
            answer = await c.post("/console/login", data={"token": tokens["reader"], "next": target})
            assert answer.headers["location"] == lands


async def test_each_page_needs_read_and_each_action_its_scope(pool, setup) -> None:
    app, tokens, dead = setup
    async with browser(app) as c:
        await sign_in(c, tokens["enqueuer"])  # a valid token without read
        for path in _paths(PAGES, dead):
            answer = await c.get(path)
            assert answer.status_code == 403 and "lacks the &#39;read&#39; scope" in answer.text, path
    for role in ("reader", "operator", "replayer"):
        async with browser(app) as c:
            await sign_in(c, tokens[role])
            page = await c.get(f"/console/runs/{dead}")
            assert page.status_code == 200
            token = csrf(page.text)
            for path, needed in ACTIONS.items():
                answer = await c.post(path.replace("{id}", str(dead)), data={"csrf": token})
                if needed not in ROLES[role]:
                    assert answer.status_code == 403, (role, path)
                    assert f"lacks the &#39;{needed}&#39; scope" in answer.text
                else:
                    # let in: the action's own answer (a dead job is not cancelable; a replay needs a reason;
                    # a pause is made, then resumed: 303 back to the page)
                    assert answer.status_code in (303, 409, 422), (role, path, answer.status_code)
    bulk = "/console/failing/replay?automation=orders&error_kind=terminal&signature=x"
    async with browser(app) as c:
        await sign_in(c, tokens["reader"])
        assert (await c.get(bulk)).status_code == 403  # the bulk replay's preview needs replay too
    assert await status_of(pool, dead) == "dead"


async def test_a_form_without_the_sessions_csrf_token_is_refused_before_anything_is_done(pool, setup) -> None:
    app, tokens, dead = setup
    pending = await job(pool)
    async with browser(app) as c:
        await sign_in(c, tokens["admin"])
        for sent in ({}, {"csrf": ""}, {"csrf": "x" * 43}):
            for path in (f"/console/runs/{pending}/cancel", f"/console/runs/{dead}/replay"):
                answer = await c.post(path, data={"reason": "because", **sent})
                assert answer.status_code == 403 and "CSRF" in answer.text, (path, sent)
        assert (await c.post("/console/logout", data={})).status_code == 403
        assert (await c.post("/console/automations/orders/pause", data={"reason": "r"})).status_code == 403
        async with browser(app) as other:  # another session's token is not this one's
            await sign_in(other, tokens["admin"])
            theirs = csrf((await other.get("/console/runs")).text)
        assert theirs != csrf((await c.get("/console/runs")).text)
        assert (await c.post(f"/console/runs/{pending}/cancel", data={"csrf": theirs})).status_code == 403
    assert await status_of(pool, pending) == "pending" and await status_of(pool, dead) == "dead"
    assert [k for k, _ in await ledger_kinds(pool, dead)] == ["enqueued"]
    assert await _pauses(pool) == []


async def test_an_expired_session_and_a_revoked_token_are_signed_out(pool, setup) -> None:
    app, tokens, dead = setup
    async with browser(app) as c:
        await sign_in(c, tokens["admin"])
        token = csrf((await c.get("/console/runs")).text)
        async with pool.connection() as conn:
            await conn.execute("UPDATE console_sessions SET expires_at = now() - interval '1 second'")
        assert (await c.get("/console/runs")).status_code == 303
        assert (await c.post(f"/console/runs/{dead}/replay", data={"csrf": token, "reason": "r"})).status_code == 401
    async with browser(app) as c:
        await sign_in(c, tokens["admin"])
        token = csrf((await c.get("/console/runs")).text)
        await revoke_token(pool, "admin")
        assert (await c.get("/console/runs")).status_code == 303
        assert (await c.post(f"/console/runs/{dead}/replay", data={"csrf": token, "reason": "r"})).status_code == 401
        from queue_core.server import create_token
        await create_token(pool, "admin", ("read", "replay"))  # the name reused by a new token
        assert (await c.get("/console/runs")).status_code == 303  # does not revive the old sessions
    assert await status_of(pool, dead) == "dead"


async def test_sign_out_ends_the_session(pool, setup) -> None:
    app, tokens, _ = setup
    async with browser(app) as c:
        await sign_in(c, tokens["reader"])
        token = csrf((await c.get("/console/runs")).text)
        out = await c.post("/console/logout", data={"csrf": token})
        assert out.status_code == 303 and out.headers["location"] == "/console/login"
        assert 'cutover_console=""' in out.headers["set-cookie"] or "Max-Age=0" in out.headers["set-cookie"]
    async with pool.connection() as conn:
        assert (await (await conn.execute("SELECT count(*) FROM console_sessions")).fetchone())[0] == 0


async def test_no_page_renders_a_token_a_session_id_or_a_credential_field(pool, setup) -> None:
    app, tokens, dead = setup
    async with browser(app) as c:
        await sign_in(c, tokens["admin"])
        session_id = c.cookies["cutover_console"]
        pages = _paths(PAGES, dead)[:-1] + ["/console/failing/replay?automation=orders&error_kind=terminal"
                                             "&signature=HTTP+%23+from+crm%3A+no+such+contact+%23", "/console/login"]
        for path in pages:
            answer = await c.get(path)
            assert answer.status_code == 200, path
            html = answer.text
            for secret in (*tokens.values(), session_id, SECRET, "hunter2-very-secret"):
                assert secret not in html, (path, secret[:6])
            assert "<script>alert(1)</script>" not in html  # autoescaped
            assert answer.headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in \
                answer.headers["content-security-policy"] and answer.headers["cache-control"] == "no-store"
        detail = (await c.get(f"/console/runs/{dead}")).text
        assert "&#34;api_key&#34;: &#34;***&#34;" in detail and "&lt;script&gt;alert(1)&lt;/script&gt;" in detail


async def test_the_bearer_api_stays_closed_and_the_console_is_not_in_the_openapi_document(pool, setup) -> None:
    app, tokens, _ = setup
    async with browser(app) as c:
        assert (await c.get("/jobs")).status_code == 401
        # The bearer gate does not take a console route for a bare /login: no route, 404 unread.
        assert (await c.post("/login", content=b"{not json", headers={"authorization": f"Bearer {tokens['reader']}"})
                ).status_code == 404
        assert (await c.get("/consoles")).status_code == 401  # only /console and /console/... are the console's
        assert (await c.get("/console")).status_code == 303
        assert "/console" not in str((await c.get("/openapi.json")).json()["paths"])


async def test_a_form_posted_from_another_site_is_refused_the_sign_in_included(pool, setup) -> None:
    app, tokens, dead = setup
    evil = {"origin": "https://evil.example"}
    async with browser(app) as c:
        refused = await c.post("/console/login", data={"token": tokens["admin"]}, headers=evil)
        assert refused.status_code == 403 and "set-cookie" not in refused.headers
        await sign_in(c, tokens["admin"])
        token = csrf((await c.get("/console/runs")).text)
        for origin in (evil, {"origin": "null"}):
            answer = await c.post(f"/console/runs/{dead}/replay", data={"csrf": token, "reason": "r"}, headers=origin)
            assert answer.status_code == 403 and "another site" in answer.text
        same = await c.post(f"/console/runs/{dead}/replay", data={"csrf": token, "reason": "r"},
                            headers={"origin": "http://cutover.test"})
        assert same.status_code == 303  # the console's own form
    async with pool.connection() as conn:
        assert (await (await conn.execute("SELECT count(*) FROM console_sessions")).fetchone())[0] == 1
