"""The served OpenAPI document is accurate: schemathesis fuzzes a real ``cutover serve`` app over
loopback and finds no 5xx and no response that breaks the document (bounded examples, no deadline)."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, settings

from queue_core import db
from queue_core.server import create_app, create_token
from tests.support.control import ALL_SCOPES, sources

ENV = {"GH": "It's a Secret to Everybody", "SW": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
SOURCES = {"gh": {"scheme": "github", "secret_env": "GH", "automations": ["noop"]},
           "sw": {"scheme": "standard-webhooks", "secret_env": "SW", "automations": ["noop"]}}


async def _token(url: str) -> str:
    async with db.pool(url, max_size=1) as pool:
        return await create_token(pool, "fuzzer", ALL_SCOPES)


@pytest.fixture(scope="module")
def server(db_url: str) -> Iterator[tuple[str, str]]:
    """A uvicorn server on a free loopback port in a thread; yields (base URL, all-scopes token)."""
    token = asyncio.run(_token(db_url))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(database_url=db_url, sources=sources(SOURCES, ENV))
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(500):
        if srv.started:
            break
        threading.Event().wait(0.01)
    assert srv.started, "uvicorn did not start"
    yield base, token
    srv.should_exit = True
    thread.join(timeout=10)


# The document depends on the code only, not on the database: build it once at import, and
# prove below that the running server serves exactly this document.
DOCUMENT = create_app(database_url="postgresql://document-only", sources=sources(SOURCES, ENV)).openapi()
schema = schemathesis.openapi.from_dict(DOCUMENT)


def test_the_server_serves_the_document_under_test(server: tuple[str, str]) -> None:
    assert httpx.get(f"{server[0]}/openapi.json").json() == DOCUMENT


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_keeps_to_its_openapi_document(case: schemathesis.Case, server: tuple[str, str]) -> None:
    case.call_and_validate(base_url=server[0], headers={"Authorization": f"Bearer {server[1]}"})


def test_the_document_declares_bearer_auth_on_every_control_route(server: tuple[str, str]) -> None:
    doc = httpx.get(f"{server[0]}/openapi.json").json()
    assert doc["components"]["securitySchemes"]["HTTPBearer"] == {
        "type": "http", "scheme": "bearer", "description": "A token from `cutover token create`."}
    open_routes = {"/healthz", "/readyz", "/hooks/{source}"}
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            assert ("security" in op) == (path not in open_routes), (method, path)
            if "security" in op:
                assert {"401", "403"} <= set(op["responses"]), (method, path)
