"""Slack v2.5 user.lookupByEmail against n8n ``runner.NEWER`` (2.x), both sides calling one loopback stand-in.

n8n's Slack node calls ``https://slack.com/api/users.lookupByEmail`` (a URL no credential can change):
``slack_redirect.js``, preloaded into n8n, sends it to the stand-in below as plain HTTP; the scaffold's
context sends its calls there too. The stand-in answers as Slack does (an unknown address: HTTP 200 with
``"ok": false``) and keeps each request's path and query, so the cases compare the node's items (or the
node it failed at) and the requests.
"""

from __future__ import annotations

import json
import tempfile
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest

from tests.oracle import runner
from tests.oracle.conftest import require_oracle
from tests.oracle.outcome import Outcome, differences
from tests.oracle.scaffolded import run_with
from tests.oracle.workflow import UNDER_TEST, Case, workflow

NODE = "n8n-nodes-base.slack"
TOKEN = "xoxb-oracle"
CREDENTIAL: dict[str, Any] = {"id": "oracleSlack00001", "name": "oracle slack", "type": "slackApi",
                              "data": {"accessToken": TOKEN}}
USERS = {"ana@example.com": {"id": "U1", "name": "ana", "real_name": "Ana", "profile": {"email": "ana@example.com"}},
         "bo@example.com": {"id": "U2", "name": "bo", "profile": {"email": "bo@example.com"}, "is_bot": False}}
LOOKUP = {"resource": "user", "operation": "lookupByEmail", "email": "={{ $json.email }}"}
CASES = [  # each case asks for addresses of its own (n8n runs the cases concurrently)
    Case("slack v2.5 lookupByEmail continue", NODE, 2.5, LOOKUP,
         [[{"email": "ana@example.com", "case": 1}, {"email": "zed@example.com", "case": 1}]],
         {"onError": "continueRegularOutput"}, n8n=runner.NEWER),
    Case("slack v2.5 lookupByEmail found", NODE, 2.5, LOOKUP, [[{"email": "bo@example.com", "case": 2}]],
         n8n=runner.NEWER),
    Case("slack v2.5 lookupByEmail not found fails", NODE, 2.5, {**LOOKUP, "email": "=zed+{{ $json.case }}@example.com"},
         [[{"case": 3}]], n8n=runner.NEWER),
]


EMAILS = [{"ana@example.com", "zed@example.com"}, {"bo@example.com"}, {"zed+3@example.com"}]


def _handler(seen: list[tuple[str, dict[str, str]]]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            return None

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            path, _, query = self.path.partition("?")
            fields = dict(parse_qsl(query))
            seen.append((path, {**fields, "auth": self.headers.get("Authorization", "")}))
            user = USERS.get(fields.get("email", ""))
            body = {"ok": True, "user": user} if user else {"ok": False, "error": "users_not_found"}
            data = json.dumps(body).encode()
            self.send_response_only(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)

    return Handler


class _SlackContext:
    """The scaffold's calls go to the stand-in; the gateway's bearer token is the credential's."""

    def __init__(self, base: str) -> None:
        self.job_id = uuid.UUID(int=0)
        self.n8n_flows: list[Any] = []
        self.base = base

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, params: Any = None,
                   **_: Any) -> httpx.Response:
        async with httpx.AsyncClient() as client:
            response = await client.request(method, url.replace("https://slack.com", self.base), params=params,
                                            headers={"Authorization": f"Bearer {TOKEN}"})
        response.raise_for_status()
        return response


@pytest.fixture(scope="module")
def results() -> Iterator[list[tuple[Case, Outcome, Outcome, list[Any], list[Any]]]]:
    require_oracle(runner.NEWER)
    seen: list[tuple[str, dict[str, str]]] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(seen))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        documents = [workflow(case, runner.workflow_id(i)) for i, case in enumerate(CASES)]
        for document in documents:
            node = next(n for n in document["nodes"] if n["name"] == UNDER_TEST)
            node["credentials"] = {"slackApi": {"id": CREDENTIAL["id"], "name": CREDENTIAL["name"]}}
        preload = Path(__file__).with_name("slack_redirect.js")
        oracle, _ = runner.run(documents, credentials=[CREDENTIAL], version=runner.NEWER,
                               env={"NODE_OPTIONS": f"--require={preload}", "CUTOVER_ORACLE_SLACK": base})
        n8n_seen = list(seen)
        out = []
        with tempfile.TemporaryDirectory(prefix="cutover-oracle-slack-") as tmp:
            for index, (case, document, expected) in enumerate(zip(CASES, documents, oracle, strict=True)):
                seen.clear()
                got = run_with(document, Path(tmp) / str(index), _SlackContext(base))
                mine = sorted(map(repr, seen))
                theirs = sorted(repr(r) for r in n8n_seen if r[1].get("email") in EMAILS[index])
                out.append((case, expected, got, theirs, mine))
        yield out
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c.id for c in CASES])
def test_slack_lookup_by_email_equals_n8n_2x(index: int, results: list[Any]) -> None:
    case, expected, got, theirs, mine = results[index]
    assert got.translated, f"{case.id} is a TODO of the scaffold"
    if expected.error is None:
        assert theirs and mine == theirs  # the same GETs (path, email, bearer token), one per item
    else:  # execute-batch runs a failed workflow once more (its --retries, 1 by default): each GET twice
        assert theirs and sorted(set(mine)) == sorted(set(theirs)) and len(theirs) == 2 * len(mine)
    found = differences(expected, got, [UNDER_TEST])
    assert not found, found
    if index == 2:  # an unknown address without On Error: both fail at the node, in Slack's words
        assert expected.error_node == UNDER_TEST and 'Slack error response: "users_not_found"' in str(expected.error)
        assert 'Slack error response: "users_not_found"' in str(got.error)
    else:
        assert expected.error is None, expected.error
