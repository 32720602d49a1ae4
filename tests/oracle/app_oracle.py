"""App nodes against the real n8n: n8n's own node and cutover's translation, both calling one stand-in API.

How it works. Each ``AppCase`` is one app node (type, typeVersion, parameters as an export holds
them), the items it receives, the credential n8n runs it with, and the API's canned replies.
``measure(cases)`` runs every case's workflow in the real n8n (one batch, ``n8n import:credentials``
first) with ``app_redirect.js`` preloaded, which moves each outbound HTTP(S) request of the node
(whatever its host) to the loopback stand-in ``app_server`` and says where it was going
(``x-oracle-origin``); the stand-in records it and answers the case's ``Reply``. Then the same
workflow file is scaffolded (``scaffolded.run_with``) and run with a context that sends each
``ctx.call`` to the same stand-in as the gateway would put it on the wire (``queue_core.gateway
.request.prepare``: the same body encoding; the secret as ``Authorization: Bearer`` or in the path).
A case passes (``Result.ok``) when the node is translated, both sides made the same requests
(``request_shape``: method, scheme and host (``SAME_API`` names one API's two hosts), path,
query, content type, body, where the secret went, and the ``AppCase.headers`` named) and the node output the same items
(``outcome.differences``, and the node's binary entries). n8n's outcome and requests are cached per batch in the oracle's
install directory (``CUTOVER_ORACLE_FRESH=1`` runs n8n again).

Telling cases apart: n8n runs a batch concurrently, so each case gets a token of its own,
``token(index)`` (``oracle-case-<index>-token``), and the stand-in files a request under the case
whose mark it carries. A credential's ``data`` writes ``TOKEN`` where the token goes (a reply's body and
headers may too: a session URL in a ``Location`` header that the node then calls without its credential).

How to add a case (another app or operation): write (or extend) a module
``tests/oracle/app_cases_<app>.py`` whose ``CASES`` is a list of ``AppCase``; ``all_cases()``
finds every such module, ``test_app_conformance.py`` runs them and ``proved.py`` counts each
(type, typeVersion, resource.operation) as proved by the oracle (a case marked ``differs="why"``
is a known difference not fixed yet: the test holds that it still differs, and it proves
nothing). For example::

    AppCase("slack v2.2 message.post", "n8n-nodes-base.slack", 2.2,
            {"select": "channel", "channelId": {"__rl": True, "mode": "id", "value": "C1"},
             "text": "={{ $json.text }}", "otherOptions": {"includeLinkToWorkflow": False}},
            Credential("slackApi", {"accessToken": TOKEN}),
            [Reply("POST", "/api/chat.postMessage", {"ok": True, "channel": "C1", "ts": "1.2",
                                                      "message": {"text": "hi"}})],
            items=({"text": "hi"},))

The replies must be in the app's real response shape (the API's documentation, and what n8n's
node reads of it: its source in ``n8n-nodes-base/dist/nodes/<App>``), since the outputs compared
are built from them. Turn off what only an n8n instance knows (attribution links carrying its
id, links to the workflow). Use ``resource``/``operation`` as the export does (leave them out
when the export does: n8n's defaults then apply on both sides).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from psycopg import sql

from queue_core.gateway.request import SECRET_SEGMENT, prepare
from queue_core.provider import ProviderConfig

from tests.oracle import runner
from tests.oracle.app_server import ORIGIN, Reply, Seen, StandIn, serving
from tests.oracle.outcome import Outcome, differences, js_value
from tests.oracle.scaffolded import run_with
from tests.oracle.workflow import UNDER_TEST, Case, workflow

HERE = Path(__file__).resolve().parent
HOOK = HERE / "app_redirect.js"
TOKEN = "{token}"  # in a Credential's data: the case's own token
PRIVATE_KEY = "{private key}"  # in a Credential's data: an RSA key (PEM) made once for the oracle (a service account)
__all__ = ["AppCase", "Credential", "PRIVATE_KEY", "Reply", "Result", "TOKEN", "all_cases", "covered", "measure", "token"]


def token(index: int) -> str:
    """Return the token of the ``index``-th case of a batch (the stand-in's mark of its requests)."""
    return f"oracle-case-{index}-token"


@dataclass(frozen=True)
class Credential:
    """The n8n credential a case runs with: its type (``slackApi``) and data (``TOKEN`` where the token goes)."""

    type: str
    data: dict[str, Any]

    def filled(self, index: int) -> dict[str, Any]:
        text = json.dumps(self.data).replace(TOKEN, token(index))
        if PRIVATE_KEY in text:
            text = text.replace(PRIVATE_KEY, json.dumps(private_key())[1:-1])
        filled: dict[str, Any] = json.loads(text)
        return filled


def private_key() -> str:
    """Return an RSA private key (PEM) for service-account credentials: made once by node's crypto and kept in the
    oracle's install directory (a test key signing JWTs only the stand-in reads)."""
    import subprocess

    path = runner.install_dir() / "oracle-service-account.pem"
    if not path.exists():
        script = ("const {generateKeyPairSync} = require('crypto'); process.stdout.write(generateKeyPairSync('rsa', "
                  "{modulusLength: 2048, privateKeyEncoding: {type: 'pkcs8', format: 'pem'}, publicKeyEncoding: "
                  "{type: 'spki', format: 'pem'}}).privateKey)")
        pem = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True, timeout=60).stdout
        path.write_text(pem, encoding="utf-8")
    return path.read_text(encoding="utf-8")


@dataclass(frozen=True)
class AppCase:
    """One app node, its input items, its credential and the API's replies (see the module's docstring)."""

    id: str
    node_type: str
    version: float
    parameters: dict[str, Any]
    credential: Credential
    replies: list[Reply]
    items: tuple[dict[str, Any], ...] = ({"n": 1},)
    headers: tuple[str, ...] = ()  # request headers compared too (lower case), e.g. notion-version
    differs: str = ""  # a known, not yet fixed difference (why): the test holds it still differs; not proved
    refused: str = ""  # n8n refuses to run the node as exported (why): the test holds n8n fails and the scaffold leaves a TODO
    view: str = ""  # a name in VIEWS: how both sides' request bodies are read before they are compared
    binary: tuple[str, ...] = ()  # binary properties every input item carries (``http_cases._binary_input``'s CSV)

    def operation(self) -> str:
        """Return the ``resource.operation`` the node runs (the export's, else n8n's default), as the translator reads it."""
        from harness.platforms.n8n.definition import Node
        from harness.platforms.n8n.translate.apps import N8N_APPS, _choice

        node = Node(UNDER_TEST, self.node_type, self.version, self.parameters)
        resource, operation = _choice(node, N8N_APPS[node.short_type])
        return f"{resource}.{operation}"


@dataclass
class Result:
    """One case's outcome on both sides, and what differs."""

    case: AppCase
    n8n: Outcome
    scaffold: Outcome
    n8n_requests: list[dict[str, Any]]
    scaffold_requests: list[dict[str, Any]]
    found: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Tell whether the node is translated and both sides made the same requests and output the same items."""
        return self.scaffold.translated and not self.found


def all_cases() -> list[AppCase]:
    """Return the ``CASES`` of every ``tests/oracle/app_cases_<app>.py``, in file-name order."""
    cases: list[AppCase] = []
    for path in sorted(HERE.glob("app_cases_*.py")):
        cases += importlib.import_module(f"tests.oracle.{path.stem}").CASES
    ids = [c.id for c in cases]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        raise ValueError(f"app cases with one id: {duplicated}")
    return cases


def document(case: AppCase, index: int) -> dict[str, Any]:
    """Return the case's workflow (``workflow.workflow``), the node under test given the case's credential."""
    doc = workflow(Case(case.id, case.node_type, case.version, case.parameters, [list(case.items)]),
                   runner.workflow_id(index))
    if case.binary:
        from tests.oracle.http_cases import _binary_input

        doc = _binary_input(doc, case.binary)
    node = next(n for n in doc["nodes"] if n["name"] == UNDER_TEST)
    node["credentials"] = {case.credential.type: {"id": _credential_id(index), "name": f"oracle {index}"}}
    return doc


def _credential_id(index: int) -> str:
    return f"oracleApp{index:07d}"


def credentials(cases: list[AppCase]) -> list[dict[str, Any]]:
    """Return the credentials n8n imports, one per case (its own token)."""
    return [{"id": _credential_id(i), "name": f"oracle {i}", "type": c.credential.type, "data": c.credential.filled(i)}
            for i, c in enumerate(cases)]


def _digest(documents: list[dict[str, Any]], creds: list[dict[str, Any]], cases: list[AppCase]) -> str:
    replies = [[dataclasses.asdict(r) for r in c.replies] for c in cases]
    reader = (HERE / "app_server.py").read_text(encoding="utf-8")  # how requests are read into their shapes
    text = json.dumps([runner.VERSION, HOOK.read_text(encoding="utf-8"), reader, documents, creds, replies],
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def run_n8n(cases: list[AppCase], state: StandIn, base: str,
            timeout: float = 900) -> tuple[list[Outcome], list[list[dict[str, Any]]]]:
    """Run every case in one n8n batch against the stand-in; return each one's outcome and requests (cached)."""
    documents = [document(c, i) for i, c in enumerate(cases)]
    creds = credentials(cases)
    store = runner.install_dir() / "outcomes"
    store.mkdir(exist_ok=True)
    cached = store / f"app-{_digest(documents, creds, cases)}.json"
    if cached.exists() and os.environ.get("CUTOVER_ORACLE_FRESH") != "1":
        saved = json.loads(cached.read_text(encoding="utf-8"))
        return [Outcome(**o) for o in saved["outcomes"]], saved["requests"]
    database = runner.Database.from_env()
    name = f"n8n_oracle_app_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    state.reset()
    with tempfile.TemporaryDirectory(prefix="cutover-n8n-app-") as tmp:
        folder = Path(tmp)
        (folder / "workflows").mkdir()
        (folder / "snapshots").mkdir()
        ids = [d["id"] for d in documents]
        for doc in documents:
            (folder / "workflows" / f"{doc['id']}.json").write_text(json.dumps(doc), encoding="utf-8")
        (folder / "credentials.json").write_text(json.dumps(creds), encoding="utf-8")
        env = runner._environment(folder / "n8n", database, name)
        env["NODE_OPTIONS"] = f"--require={HOOK}"
        env["CUTOVER_ORACLE_STANDIN"] = base
        runner._admin(database, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            runner._n8n(["import:credentials", f"--input={folder / 'credentials.json'}"], env, timeout)
            runner._n8n(["import:workflow", "--separate", f"--input={folder / 'workflows'}"], env, timeout)
            (folder / "ids.txt").write_text(",".join(ids), encoding="utf-8")
            runner._n8n(["execute-batch", f"--ids={folder / 'ids.txt'}", f"--snapshot={folder / 'snapshots'}",
                         f"--output={folder / 'output.json'}", "--concurrency=4"], env, timeout, ok=(0, 1))
            results = json.loads((folder / "output.json").read_text(encoding="utf-8"))
        finally:
            runner._admin(database, sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        by_id = {e["workflowId"]: e for e in results.get("executions", [])}
        outcomes = [runner._outcome(by_id.get(wid), folder / "snapshots" / f"{wid}-snapshot.json") for wid in ids]
    requests = [[request_shape(s, i, case.headers) for s in state.of(i)] for i, case in enumerate(cases)]
    cached.write_text(json.dumps({"outcomes": [dataclasses.asdict(o) for o in outcomes], "requests": requests}),
                      encoding="utf-8")
    return outcomes, requests


def _auth(seen: Seen, secret: str) -> str:
    """Return where a request carried the case's token: ``authorization:<scheme>``, ``path``, ``query:<name>``,
    ``header:<name>``, or ``none``."""
    import base64

    given = seen.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    if secret in given or (scheme.lower() == "basic" and secret in base64.b64decode(value + "==").decode("utf-8", "replace")):
        return f"authorization:{scheme.lower()}"
    if secret in seen.path:
        return "path"
    for key, values in seen.query.items():
        if any(secret in v for v in values):
            return f"query:{key}"
    for key, value in seen.headers.items():
        if secret in value and key != ORIGIN:
            return f"header:{key}"
    return "none"


def request_shape(seen: Seen, index: int, headers: tuple[str, ...] = ()) -> dict[str, Any]:
    """Return what a case compares of one request (the token, case-specific, is written ``<token>``)."""
    secret = token(index)
    shape = {"method": seen.method.upper(), "url": f"{seen.origin}{seen.path}".replace(secret, "<token>"),
             "query": seen.query, "auth": _auth(seen, secret), "status": seen.status}
    if seen.body is not None:
        shape["content_type"] = seen.content_type
        shape["body"] = js_value(seen.body)
    for name in headers:
        shape[f"header {name}"] = seen.headers.get(name)
    return shape


def _mime(raw: str) -> dict[str, Any]:
    """Return a base64url MIME message as compared: its addressing headers and each part's type and text.

    Its Message-ID, Date, MIME boundaries and transfer encodings differ from run to run and from
    library to library (n8n's mailcomposer, Python's ``email``), not what a mail client shows."""
    import base64
    from email import message_from_bytes, policy

    message = message_from_bytes(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)), policy=policy.default)
    headers = {k.lower(): str(v) for k, v in message.items()
               if k.lower() in ("to", "cc", "bcc", "from", "subject", "reply-to", "in-reply-to", "references")}
    parts = [{"type": p.get_content_type(), "text": str(p.get_content()).replace("\r\n", "\n")}
             for p in message.walk() if not p.is_multipart()]
    return {"headers": headers, "parts": parts}


def gmail_raw(body: Any) -> Any:
    """Gmail's ``raw`` (messages.send) or ``message.raw`` (drafts.create) read as ``_mime`` does."""
    if isinstance(body, dict) and isinstance(body.get("raw"), str):
        return {**body, "raw": _mime(body["raw"])}
    if isinstance(body, dict) and isinstance(body.get("message"), dict):
        return {**body, "message": gmail_raw(body["message"])}
    return body


VIEWS = {"gmail-raw": gmail_raw}


# One API at two of its documented hosts: n8n's Gmail node calls Google's older www.googleapis.com
# root, the catalogue the Gmail service's own (gmail.googleapis.com); the paths are the same.
SAME_API = {"https://www.googleapis.com/gmail/": "https://gmail.googleapis.com/gmail/"}
# A credential's own token exchange (a Google service account's signed JWT for an access token): the
# gateway's configured secret stands for it, so it is not one of the node's requests compared.
TOKEN_EXCHANGES = {"https://oauth2.googleapis.com/token"}


def _viewed(requests: list[dict[str, Any]], view: str) -> list[dict[str, Any]]:
    out = []
    for request in requests:
        if request["url"] in TOKEN_EXCHANGES:
            continue
        request = dict(request)
        for old, new in SAME_API.items():
            if request["url"].startswith(old):
                request["url"] = new + request["url"][len(old):]
        if view and "body" in request:
            request["body"] = VIEWS[view](request["body"])
        out.append(request)
    return out


class AppContext:
    """A context whose calls go to the stand-in as the gateway sends them (body encoding, headers, the secret)."""

    def __init__(self, base: str, secret: str) -> None:
        self.job_id = uuid.UUID(int=0)
        self.mode = "live"
        self.n8n_flows: list[Any] = []
        self.base = base
        self.secret = secret

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None, params: Any = None,
                   headers: Any = None, data: Any = None, files: Any = None, content: bytes | None = None,
                   anonymous: bool = False) -> httpx.Response:
        target = httpx.URL(url)
        origin = f"{target.scheme}://{target.netloc.decode('ascii')}"
        request = prepare(ProviderConfig(provider, origin), method, url, json=json, params=params, headers=headers,
                          key="oracle", data=data, files=files, content=content)
        sent = {k: v for k, v in request.headers if k.lower() != "idempotency-key"}
        wire = request.url
        if SECRET_SEGMENT in wire:
            wire = wire.replace(SECRET_SEGMENT, self.secret)
        elif not anonymous:
            sent["Authorization"] = f"Bearer {self.secret}"
        sent[ORIGIN] = origin
        async with httpx.AsyncClient() as client:
            response = await client.request(request.method, self.base + wire[len(origin):], content=request.body,
                                            headers=sent)
        response.raise_for_status()
        return response


def measure(cases: list[AppCase] | None = None) -> list[Result]:
    """Run ``cases`` (default: ``all_cases()``) in n8n and scaffolded, against one stand-in; return each result."""
    cases = all_cases() if cases is None else cases
    state = StandIn(replies={i: [dataclasses.replace(r, body=json.loads(json.dumps(r.body).replace(TOKEN, token(i))),
                                                     headers=tuple((k, v.replace(TOKEN, token(i))) for k, v in r.headers))
                                 for r in c.replies] for i, c in enumerate(cases)})
    results = []
    with serving(state) as base:
        oracle, n8n_requests = run_n8n(cases, state, base)
        with tempfile.TemporaryDirectory(prefix="cutover-oracle-apps-") as tmp:
            for index, (case, expected) in enumerate(zip(cases, oracle, strict=True)):
                state.reset()
                doc = document(case, index)
                got = run_with(doc, Path(tmp) / str(index), AppContext(base, token(index)))
                mine = [request_shape(s, index, case.headers) for s in state.of(index)]
                result = Result(case, expected, got, n8n_requests[index], mine)
                if got.translated:
                    result.found = differences(expected, got, [n["name"] for n in doc["nodes"]])
                    if expected.error is None and expected.binary.get(UNDER_TEST) != got.binary.get(UNDER_TEST):
                        result.found.append(f"binary: n8n {str(expected.binary.get(UNDER_TEST))[:200]}, "
                                            f"scaffold {str(got.binary.get(UNDER_TEST))[:200]}")
                    result.found += _request_differences(_viewed(n8n_requests[index], case.view),
                                                         _viewed(mine, case.view))
                    if expected.error is not None:
                        result.found.insert(0, f"n8n failed: {expected.error[:300]}")
                results.append(result)
    return results


def _request_differences(n8n: list[dict[str, Any]], scaffold: list[dict[str, Any]]) -> list[str]:
    found = []
    if len(n8n) != len(scaffold):
        found.append(f"n8n made {len(n8n)} requests, the scaffold {len(scaffold)}: "
                     f"n8n {[r['method'] + ' ' + r['url'] for r in n8n]}, "
                     f"scaffold {[r['method'] + ' ' + r['url'] for r in scaffold]}")
    for number, (left, right) in enumerate(zip(n8n, scaffold), 1):
        for key in sorted(set(left) | set(right)):
            if left.get(key) != right.get(key):
                found.append(f"request {number} {key}: n8n {left.get(key)!r}, scaffold {right.get(key)!r}"[:600])
    return found


def covered(results: list[Result]) -> dict[str, dict[str, list[str]]]:
    """Return the (type -> typeVersion -> [resource.operation]) that passing cases cover."""
    out: dict[str, dict[str, set[str]]] = {}
    for result in results:
        if result.ok and not result.case.differs:
            out.setdefault(result.case.node_type, {}).setdefault(f"{float(result.case.version):g}", set()).add(
                result.case.operation())
    return {t: {v: sorted(ops) for v, ops in sorted(versions.items())} for t, versions in sorted(out.items())}
