"""The console in a real browser: Playwright drives Debian's Chromium (``/usr/bin/chromium``; never
``playwright install``) against ``cutover serve``'s app under uvicorn on a loopback port. A signed-out
visit is sent to the login; signing in with a control token shows the runs; the filters narrow them;
the table refreshes itself; a run's page shows its steps in their real state; a group of dead jobs is
bulk-replayed and its jobs are pending again; an automation is paused and resumed; signing out
signs out.

Screenshots of the main pages are written to the test's tmp dir; with ``CUTOVER_UPDATE_SCREENSHOT=1``
the runs page's is copied to ``docs/console.png`` (the README's). Without Chromium or the
``playwright`` package the test is skipped with the reason (failed where ``CI`` is set).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from queue_core import JobSpec, Queue, db
from queue_core.server import create_app, create_token
from tests.support.external import find_binary, require_binary

ROOT = Path(__file__).resolve().parents[2]
MISSING = ("the console's browser test drives Chromium with Playwright and {what} was not found; install "
           "Debian's chromium (apt-get install -y chromium) and the dev extra (pip install -e '.[dev]')")


def _chromium() -> str:
    found = require_binary(find_binary("CUTOVER_CHROMIUM", ["chromium", "chromium-browser"]),
                           MISSING.format(what="Chromium (CUTOVER_CHROMIUM, else chromium on PATH)"),
                           test="the console's browser test")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        require_binary(None, MISSING.format(what="the playwright package"), test="the console's browser test")
    return found


async def _seed(url: str) -> dict[str, Any]:
    async with db.pool(url, max_size=2) as pool:
        async with pool.connection() as conn:
            await conn.execute("TRUNCATE jobs, steps, ledger, api_tokens, console_sessions CASCADE")
        token = await create_token(pool, "ops", ("read", "control", "replay"))
        queue = Queue(pool)

        async def made(automation: str, status: str, error: str | None = None, kind: str | None = None,
                       payload: Any = None) -> uuid.UUID:
            job_id = await queue.enqueue(JobSpec(automation, payload or {"n": 1}))
            async with pool.connection() as conn:
                await conn.execute("UPDATE jobs SET status = %s::job_status, last_error = %s, error_kind = %s::error_kind,"
                                   " finished_at = now() WHERE id = %s", (status, error, kind, job_id))
            return job_id

        ok = [await made("invoice-sync", "succeeded") for _ in range(4)]
        dead = [await made("crm-contacts", "dead", f"HTTP 404 from crm: no such contact {n}", "terminal")
                for n in (17, 2048, 99)]
        other = await made("crm-contacts", "failed", "HTTP 500 from crm", "retryable")
        stepped = await made("crm-contacts", "dead", "HTTP 422 from crm: email is invalid", "terminal",
                             {"email": "ada@example.com", "api_key": "sk_live_browserSECRET42"})
        call = {"fingerprint": "f", "idempotency_key": "crm-create-1", "method": "POST",
                "url": "https://crm.example/contacts", "status": 422, "kind": "terminal"}
        async with pool.connection() as conn:
            await conn.execute(
                "INSERT INTO steps (job_id, step_name, position, status, attempt, idempotency_key, output, external_ref)"
                " VALUES (%s, 'find-contact', 0, 'done', 1, 'crm-find-1', '{}', 'crm:contact:7'),"
                " (%s, 'create-contact', 1, 'done', 1, 'crm-create-1', %s, NULL)", (stepped, stepped, json.dumps(call)))
    return {"token": token, "ok": ok, "dead": dead, "other": other, "stepped": stepped}


async def _statuses(url: str, ids: list[uuid.UUID]) -> list[str]:
    async with db.pool(url, max_size=1) as pool, pool.connection() as conn:
        rows = await (await conn.execute("SELECT id, status::text FROM jobs WHERE id = ANY(%s)", (ids,))).fetchall()
    found = dict(rows)
    return [found[i] for i in ids]


async def _enqueue(url: str, automation: str) -> uuid.UUID:
    async with db.pool(url, max_size=1) as pool:
        return await Queue(pool).enqueue(JobSpec(automation, {"n": 2}))


def _run(coro: Any) -> Any:
    """Run ``coro`` to its end in a thread of its own (Playwright's sync API holds this thread's loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


@pytest.fixture(scope="module")
def server(db_url: str) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(database_url=db_url), host="127.0.0.1", port=port,
                                        log_level="warning", lifespan="on"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(500):
        if srv.started:
            break
        threading.Event().wait(0.01)
    assert srv.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


def test_the_console_signs_in_filters_reads_a_run_and_bulk_replays_dead_jobs(
        server: str, db_url: str, tmp_path: Path) -> None:
    chromium = _chromium()
    from playwright.sync_api import expect, sync_playwright

    seeded = asyncio.run(_seed(db_url))
    base = server
    refused = httpx.post(f"{base}/console/failing/replay", data={"reason": "x"}, follow_redirects=False)
    assert refused.status_code == 401  # a signed-out action, outside the browser
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/console/runs")
        assert page.url.startswith(f"{base}/console/login?next=")  # the signed-out visit is sent to sign in
        assert page.locator("table").count() == 0
        page.fill("input[name=token]", seeded["token"])
        page.click("#login button")
        page.wait_for_url(f"{base}/console/runs")
        expect(page.locator("table.runs tbody tr")).to_have_count(9)
        assert "dead 4" in page.locator("#counts").inner_text().replace("\n", " ")
        page.screenshot(path=str(tmp_path / "runs.png"), full_page=True)

        page.select_option("select[name=status]", "dead")
        page.fill("input[name=automation]", "crm-contacts")
        page.click("#filters button")
        expect(page.locator("table.runs tbody tr")).to_have_count(4)
        assert set(page.locator("table.runs tbody .status").all_inner_texts()) == {"dead"}

        page.goto(f"{base}/console/runs")
        new = _run(_enqueue(db_url, "late-arrival"))
        expect(page.locator(f'a[href="/console/runs/{new}"]')).to_have_count(1, timeout=12_000)  # refreshed in place

        page.goto(f"{base}/console/runs/{seeded['stepped']}")
        states = page.locator("#steps td.state").all_inner_texts()
        assert states == ["done", "failed (HTTP 422, terminal)"]
        assert "crm:contact:7" in page.locator("#steps").inner_text()
        assert "sk_live_browserSECRET42" not in page.content()
        assert "dead (terminal) because: HTTP 422 from crm: email is invalid" in page.locator("#explain").inner_text()
        page.screenshot(path=str(tmp_path / "run.png"), full_page=True)

        page.goto(f"{base}/console/failing")
        first = page.locator("#groups tbody tr").first
        assert first.locator("td.count").inner_text() == "3"
        assert first.locator("td.error").inner_text() == "HTTP # from crm: no such contact #"
        page.screenshot(path=str(tmp_path / "failing.png"), full_page=True)
        first.locator("a.bulk").click()
        assert page.locator("#touches").inner_text() == "3"
        page.fill("#bulk input[name=reason]", "crm contact sync repaired")
        page.click("#bulk button")
        expect(page.locator("#result")).to_contain_text("Replayed 3 jobs")
        assert _run(_statuses(db_url, seeded["dead"])) == ["pending"] * 3
        assert _run(_statuses(db_url, [seeded["other"], seeded["stepped"]])) == ["failed", "dead"]
        page.goto(f"{base}/console/runs?automation=crm-contacts&status=pending")
        expect(page.locator("table.runs tbody tr")).to_have_count(3)
        page.goto(f"{base}/console/runs/{seeded['dead'][0]}")
        assert "console:ops" in page.locator("#ledger").inner_text()

        page.goto(f"{base}/console/automations")
        row = page.locator("#automation-crm-contacts")
        assert row.locator("td.day").inner_text() == "5 (2 failed)"  # 3 replayed pending, 1 failed, 1 dead
        row.locator("form.pause input[name=reason]").fill("crm maintenance")
        row.locator("form.pause button").click()
        expect(page.locator("#automation-crm-contacts td.paused")).to_contain_text("by console:ops")
        page.screenshot(path=str(tmp_path / "automations.png"), full_page=True)
        page.locator("#automation-crm-contacts form.resume button").click()
        expect(page.locator("#automation-crm-contacts td.paused")).to_have_text("no")

        page.click("header .signout button")
        page.wait_for_url(f"{base}/console/login")
        page.goto(f"{base}/console/failing")
        assert page.url.startswith(f"{base}/console/login?next=")
        browser.close()
    for name in ("runs.png", "run.png", "failing.png", "automations.png"):
        assert (tmp_path / name).stat().st_size > 10_000, name
    if os.environ.get("CUTOVER_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(tmp_path / "runs.png", ROOT / "docs" / "console.png")
