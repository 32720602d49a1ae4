"""AI node cases against the real n8n: its credentials point at a loopback stand-in provider (``ai_server``).

n8n cannot reach OpenAI here, but its OpenAI, Anthropic and Gemini credentials take a base URL:
imported with ``n8n import:credentials`` (the data in clear: n8n encrypts it on import) pointing at
the stand-in, the real nodes run and the stand-in keeps every request body. The scaffolded module
runs the same workflow with its calls sent to the same stand-in. A case is proved when both
sides' node outputs are equal *and* the request bodies the stand-in received from each are.

The workflows are built like the other cases' (``workflow.workflow``: Code nodes feed the node
under test), plus the sub-nodes a root needs (a chat model) on ``ai_*`` connections.
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from pathlib import Path
from typing import Any

import httpx
from psycopg import sql

from tests.oracle import runner
from tests.oracle.scaffolded import run_with
from tests.oracle.ai_server import StandInRequests
from tests.oracle.outcome import Outcome
from tests.oracle.workflow import UNDER_TEST, Case, input_name, workflow

LC = "@n8n/n8n-nodes-langchain."
CREDENTIALS = {"openAiApi": "oraclecredopenai", "anthropicApi": "oraclecredanthro", "googlePalmApi": "oraclecredgemini",
               "serpApi": "oraclecredserpap", "gmailOAuth2": "oraclecredgmail0", "azureOpenAiApi": "oraclecredazure0",
               "azureEntraCognitiveServicesOAuth2Api": "oraclecredentra0"}
AZURE_KEY = "oracle-azure-key"  # the azureOpenAiApi credential's key (the module reads AZURE_OPENAI_API_KEY)
HOSTS = ("https://api.openai.com", "https://api.anthropic.com", "https://generativelanguage.googleapis.com",
         "https://en.wikipedia.org", "https://serpapi.com", "https://gmail.googleapis.com")
# fixed URLs (LangChain's tools through fetch, the Gmail node through axios): sent to the stand-in
# (and n8n 2.x's Entra ID token URL: it evaluates the hidden accessTokenUrl, login.microsoftonline.com/<tenant>/…)
REDIRECTED = ("https://en.wikipedia.org", "https://serpapi.com", "https://www.googleapis.com",
              "https://login.microsoftonline.com")
SERP_KEY = "oracle-serp-key"  # the serpApi credential's key: n8n puts it in the query, the gateway in place of
SECRET_SEGMENT = "__auth_env__"  # the module's placeholder (queue_core.gateway.request.SECRET_SEGMENT)


def credentials(base: str) -> list[dict[str, Any]]:
    """Return n8n credentials (export format, data in clear) whose base URLs are the stand-in's."""
    data = {"openAiApi": {"apiKey": "sk-oracle", "url": f"{base}/v1"},
            "anthropicApi": {"apiKey": "sk-ant-oracle", "url": base},
            "googlePalmApi": {"apiKey": "oracle-key", "host": base}, "serpApi": {"apiKey": SERP_KEY},
            "gmailOAuth2": {"clientId": "oracle", "clientSecret": "oracle", "scope": "", "grantType": "authorizationCode",
                            "authUrl": f"{base}/auth", "accessTokenUrl": f"{base}/token", "authentication": "body",
                            "oauthTokenData": {"access_token": "oracle-gmail-token", "token_type": "Bearer",
                                               "refresh_token": "oracle-refresh", "expires_in": 3600}},
            # Azure: no apiVersion (n8n's default), the endpoint the stand-in (LangChain's <endpoint>/openai/deployments/)
            "azureOpenAiApi": {"apiKey": AZURE_KEY, "resourceName": "oracle", "endpoint": base},
            "azureEntraCognitiveServicesOAuth2Api": {
                "clientId": "oracle", "clientSecret": "oracle", "grantType": "clientCredentials", "tenantId": "oracle",
                "authUrl": f"{base}/oauth2/authorize", "accessTokenUrl": f"{base}/oauth2/token", "authentication": "body",
                "scope": "https://cognitiveservices.azure.com/.default", "resourceName": "oracle", "endpoint": base,
                "oauthTokenData": {"access_token": "oracle-entra-token", "token_type": "Bearer", "expires_in": 3600}}}
    return [{"id": cid, "name": f"oracle {kind}", "type": kind, "data": data[kind]} for kind, cid in CREDENTIALS.items()]


def _credential(kind: str) -> dict[str, Any]:
    return {kind: {"id": CREDENTIALS[kind], "name": f"oracle {kind}"}}


def document(case: Case, index: int, subs: list[dict[str, Any]], credential: str | None) -> dict[str, Any]:
    """Return the case's workflow: the node under test with its credential, and its sub-nodes wired to it."""
    doc = workflow(case, runner.workflow_id(index))
    node = next(n for n in doc["nodes"] if n["name"] == UNDER_TEST)
    if credential:
        node["credentials"] = _credential(credential)
    _with_files(doc)
    for position, sub in enumerate(subs):
        kind, target = sub.pop("_kind"), sub.pop("_to", UNDER_TEST)  # _to: a sub-node's sub-node (a parser's model)
        doc["nodes"].append({"position": [400, 300 + 100 * position], **sub})
        doc["connections"].setdefault(sub["name"], {})[f"ai_{kind}"] = [[{"node": target, "type": f"ai_{kind}",
                                                                         "index": 0}]]
    return doc


def _with_files(doc: dict[str, Any]) -> None:
    """Give the Code nodes' items whose json holds ``_binary`` that binary data (n8n's item ``binary``)."""
    for node in doc["nodes"]:
        source = node.get("parameters", {}).get("jsCode", "")
        if node["type"] != "n8n-nodes-base.code" or "_binary" not in source:
            continue
        items = json.loads(source[len("return "):-1])
        for item in items:
            if "_binary" in item["json"]:
                item["binary"] = item["json"].pop("_binary")
        node["parameters"]["jsCode"] = "return " + json.dumps(items, ensure_ascii=False) + ";"


def run_n8n(documents: list[dict[str, Any]], base: str, timeout: float = 900,
            version: str = runner.VERSION) -> list[Outcome]:
    """Run the documents in one batch of n8n ``version`` with the stand-in's credentials imported first
    (uncached: the stand-in must see n8n's requests)."""
    database = runner.Database.from_env()
    name = f"n8n_oracle_ai_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="cutover-n8n-ai-") as tmp:
        folder = Path(tmp)
        (folder / "workflows").mkdir()
        ids = [d["id"] for d in documents]
        for document_ in documents:
            (folder / "workflows" / f"{document_['id']}.json").write_text(json.dumps(document_), encoding="utf-8")
        (folder / "credentials.json").write_text(json.dumps(credentials(base)), encoding="utf-8")
        env = runner._environment(folder / "n8n", database, name, version)
        env["NODE_OPTIONS"] = (f"--require={Path(__file__).with_name('no_sqlite3.js')} "  # the Agent loads sqlite3
                               f"--require={Path(__file__).with_name('redirect_fetch.js')} "
                               f"--require={Path(__file__).with_name('ai_redirect_axios.js')}")
        env["CUTOVER_ORACLE_REDIRECT"] = ",".join(f"{host}={base}" for host in REDIRECTED)
        runner._admin(database, sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            runner._n8n(["import:credentials", f"--input={folder / 'credentials.json'}"], env, timeout, version=version)
            runner._n8n(["import:workflow", "--separate", f"--input={folder / 'workflows'}"], env, timeout,
                        version=version)
            (folder / "ids.txt").write_text(",".join(ids), encoding="utf-8")
            (folder / "snapshots").mkdir()
            runner._n8n(["execute-batch", f"--ids={folder / 'ids.txt'}", f"--snapshot={folder / 'snapshots'}",
                         f"--output={folder / 'output.json'}", "--concurrency=4"], env, timeout, ok=(0, 1),
                        version=version)
            results = json.loads((folder / "output.json").read_text(encoding="utf-8"))
        finally:
            runner._admin(database, sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        by_id = {e["workflowId"]: e for e in results.get("executions", [])}
        return [runner._outcome(by_id.get(wid), folder / "snapshots" / f"{wid}-snapshot.json") for wid in ids]


class _StandInContext:
    """A context whose provider calls go to the stand-in (the catalogue's base URL swapped for it)."""

    def __init__(self, base: str) -> None:
        self.job_id = uuid.UUID(int=0)
        self.mode = "live"
        self.n8n_flows: list[Any] = []
        self.base = base

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None,
                   params: Any = None, headers: Any = None, data: Any = None, files: Any = None,
                   content: bytes | None = None) -> httpx.Response:
        for host in HOSTS:
            if url.startswith(host):
                url = self.base + url[len(host):]
        if url.startswith("/"):  # a call relative to its provider's base_url (Azure OpenAI's resource): the stand-in's
            url = self.base + url
        url = url.replace(SECRET_SEGMENT, SERP_KEY)  # what the gateway does on the wire with the provider's auth_env
        async with httpx.AsyncClient() as client:
            response = await client.request(method, url, json=json, params=params, headers=headers, data=data,
                                            files=files, content=content)
        response.raise_for_status()
        return response

    async def sleep(self, seconds: float) -> None:  # a Gemini upload's poll: the stand-in's file is ACTIVE at once
        return None


def run_scaffold(doc: dict[str, Any], workdir: Path, base: str) -> Outcome:
    """Scaffold the case's workflow and run the module, its calls sent to the stand-in."""
    for env in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY"):  # the module reads these header/query secrets live
        os.environ.setdefault(env, "oracle-key")
    os.environ.setdefault("AZURE_OPENAI_API_KEY", AZURE_KEY)
    return run_with(doc, workdir, _StandInContext(base))


def with_binary(doc: dict[str, Any], binary: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Give every item of the case's first input the binary properties ``binary`` (name → n8n's entry:
    ``data`` base64, ``mimeType``, ``fileName``), as its Code node returns them."""
    for node in doc["nodes"]:
        if node["name"] == input_name(0):
            items = json.loads(node["parameters"]["jsCode"][len("return "):-1])
            node["parameters"]["jsCode"] = "return " + json.dumps([{**i, "binary": binary} for i in items]) + ";"
    return doc


def measure(cases: list[tuple[Case, list[dict[str, Any]], str | None]], base: str,
            seen: StandInRequests, binary: dict[str, dict[str, dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    """Run every case in n8n, then scaffolded; return per case both outputs and both sides' request bodies.

    ``binary``: case id → the binary properties its input items carry (``with_binary``).
    """
    documents = [json.loads(json.dumps(document(case, i, [dict(s) for s in subs], credential)).replace("__BASE__", base))
                 for i, (case, subs, credential) in enumerate(cases)]
    documents = [with_binary(d, (binary or {})[case.id]) if case.id in (binary or {}) else d
                 for d, (case, _, _) in zip(documents, cases, strict=True)]
    seen.clear()
    oracle: list[Outcome | None] = [None] * len(cases)
    for version in dict.fromkeys(case.n8n or runner.VERSION for case, _, _ in cases):  # each n8n its cases
        chosen = [i for i, (case, _, _) in enumerate(cases) if (case.n8n or runner.VERSION) == version]
        for i, outcome in zip(chosen, run_n8n([documents[i] for i in chosen], base, version=version), strict=True):
            oracle[i] = outcome
    n8n_bodies = {case.id: seen.of(_tag(case)) for case, _, _ in cases}
    n8n_auth = {case.id: seen.auth_of(_tag(case)) for case, _, _ in cases}
    results = []
    with tempfile.TemporaryDirectory(prefix="cutover-oracle-ai-") as tmp:
        for index, ((case, _, _), doc, expected) in enumerate(zip(cases, documents, oracle, strict=True)):
            seen.clear()
            got = run_scaffold(doc, Path(tmp) / str(index), base)
            results.append({"case": case, "n8n": expected, "scaffold": got, "n8n_requests": n8n_bodies[case.id],
                            "scaffold_requests": seen.of(_tag(case)), "n8n_auth": n8n_auth[case.id],
                            "scaffold_auth": seen.auth_of(_tag(case))})
    return results


def _tag(case: Case) -> str:
    """The case's model-name prefix (``<tag>-<answer>``): its requests' mark at the stand-in."""
    return case.id.split(" ", 1)[0]
