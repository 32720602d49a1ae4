"""HTTP Request cases: drawn node parameters, run in n8n and in the scaffold against one loopback server.

``http_cases(base)`` draws HTTP Request v3 and v4.x nodes with Hypothesis (a fixed seed per
version) over what the translator claims: methods, query and header parameters (fields or
JSON), JSON and form-urlencoded bodies, full response, batching, a URL given whole or computed by
an expression, and ``onError`` stop / continue (regular output) / continue (error output)
against routes that answer 200, a JSON array, text, 404 and 500 (``http_server``). ``measure``
runs every case in n8n (one batch) and scaffolds and runs each one with a context whose
``ctx.call`` sends the request to the same server and classifies the answer as the gateway does
(``queue_core.classify``): 4xx terminal, 5xx retryable.

Compared as the conformance suite compares (``outcome.differences``), with one normalisation,
named: an error item's ``error`` is compared by its HTTP ``status`` only; n8n's message, name,
code and stack are its HTTP client's words (axios), not the node's output.
"""

from __future__ import annotations

import base64
import json
import random
import tempfile
import uuid
import zlib
from pathlib import Path
from typing import Any

import httpx
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from queue_core.classify import Kind, classify_response
from queue_core.errors import RetryableError, TerminalError
from queue_core.gateway.binary import encode as multipart_encode


from tests.oracle import runner
from tests.oracle.scaffolded import run_with
from tests.oracle.outcome import Outcome, differences
from tests.oracle.workflow import Case, input_name, workflow

NODE = "n8n-nodes-base.httpRequest"
VERSIONS = (3.0, 4.0, 4.1, 4.2, 4.3, 4.4)
ON_NEWER = (4.4,)  # versions n8n 1.123.81 does not have: run on the second oracle (runner.NEWER)
_PAIRS = st.lists(st.tuples(st.sampled_from(["q", "x", "X-Case"]), st.sampled_from(["1", "a b", "={{ $json.a }}"])),
                  min_size=1, max_size=2, unique_by=lambda p: p[0])


def _pairs(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    return {"parameters": [{"name": k, "value": v} for k, v in pairs]}


@st.composite
def http_parameters(draw: st.DrawFn, base: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (parameters, node settings) of one HTTP Request node as an export holds them."""
    route = draw(st.sampled_from(["/echo", "/echo", "/echo", "/list", "/text", "/status/404", "/status/500"]))
    params: dict[str, Any] = {"url": draw(st.sampled_from([base + route, f"={{{{ $json.base }}}}{route}",
                                                          f"={base}{route}"])), "options": {}}
    method = draw(st.sampled_from([None, "GET", "POST", "PUT", "DELETE"]))
    if method:
        params["method"] = method
    if draw(st.booleans()):
        params["sendQuery"] = True
        params["queryParameters"] = _pairs(draw(_PAIRS))
    if draw(st.booleans()):
        params["sendHeaders"] = True
        params["headerParameters"] = _pairs([("X-Case", draw(st.sampled_from(["v", "={{ $json.a }}"])))])
    if method in ("POST", "PUT") and draw(st.booleans()):
        params["sendBody"] = True
        kind = draw(st.sampled_from(["json-fields", "json-text", "form"]))
        if kind == "form":
            params["contentType"] = "form-urlencoded"
            params["bodyParameters"] = _pairs(draw(_PAIRS))
        elif kind == "json-text":
            params["specifyBody"] = "json"
            params["jsonBody"] = draw(st.sampled_from(['{"k": 1}', '={{ JSON.stringify({k: $json.a}) }}']))
        else:
            params["bodyParameters"] = _pairs(draw(_PAIRS))
    if draw(st.booleans()):
        params["options"]["response"] = {"response": {"fullResponse": True}}
    if draw(st.booleans()):
        params["options"]["batching"] = {"batch": {"batchSize": draw(st.sampled_from([1, 2])), "batchInterval": 0}}
    on_error = draw(st.sampled_from([None, None, "continueRegularOutput", "continueErrorOutput"]))
    return params, ({"onError": on_error} if on_error else {})


def http_cases(base: str, count: int = 12) -> list[Case]:
    """Return the drawn HTTP Request cases for the server at ``base``, the same ones for one Hypothesis release."""
    items = st.lists(st.fixed_dictionaries({"a": st.sampled_from([1, "x", "a b"]), "base": st.just(base)}),
                     min_size=1, max_size=2)
    cases: list[Case] = []
    for version in VERSIONS:
        found: list[Any] = []

        @seed(zlib.crc32(f"httpRequest v{version:g}".encode()))
        @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None,
                  suppress_health_check=list(HealthCheck))
        @given(http_parameters(base), items)
        def draw_one(drawn: tuple[dict[str, Any], dict[str, Any]], inputs: list[dict[str, Any]]) -> None:
            found.append((drawn, inputs))

        draw_one()
        for index, ((params, node_settings), inputs) in enumerate(found):
            cases.append(Case(f"httpRequest v{version:g} #{index + 1}", NODE, version, params, [inputs], node_settings,
                              n8n=runner.NEWER if version in ON_NEWER else None))
    return cases


def text_cases(base: str) -> list[Case]:
    """Return the fixed cases of response format "text" (not drawn, so the drawn cases and their cached
    n8n outcomes stay as they were): a text body, a JSON body read as text, a named output field with the
    full response, on v3 and v4.x."""
    def text(version: float, route: str, **response: Any) -> Case:
        params = {"url": base + route, "options": {"response": {"response": {"responseFormat": "text", **response}}}}
        label = "+".join(f"{k}={v}" for k, v in response.items()) or "plain"
        return Case(f"httpRequest v{version:g} text {route} {label}", NODE, version, params, [[{"a": 1}]], {})

    return [text(3.0, "/text"), text(4.2, "/text"), text(4.2, "/echo"), text(4.1, "/list", outputPropertyName="page"),
            text(4.2, "/text", fullResponse=True, outputPropertyName="body")]


class _LoopbackContext:
    """A context whose calls go to the loopback server, answered and classified as the gateway does."""

    def __init__(self, base: str) -> None:
        self.job_id = uuid.UUID(int=0)
        self.n8n_flows: list[Any] = []
        self.providers = {"oracle": base}
        self.calls: list[tuple[str, str]] = []

    def decide(self, name: str, value: Any) -> None:
        return None

    async def call(self, provider: str, method: str, url: str, *, step: str, json: Any = None,
                   data: Any = None, params: Any = None, headers: Any = None, files: Any = None) -> httpx.Response:
        self.calls.append((provider, url))
        async with httpx.AsyncClient() as client:
            if files is not None:  # the gateway's own multipart body (queue_core.gateway.binary)
                form = multipart_encode(data, files)
                headers = {**(headers or {}), "Content-Type": form.content_type}
                response = await client.request(method, url, content=form.body, params=params, headers=headers)
            else:
                response = await client.request(method, url, json=json, data=data, params=params, headers=headers)
        verdict = classify_response(response.status_code, response.headers, response.text, now=0.0,
                                     rng=random.Random(0))
        if verdict.kind is Kind.OK:
            return response
        message = f"{provider} {method} {url} (step {step!r}): {verdict.reason}; {verdict.summary}"
        raise RetryableError(message) if verdict.kind is Kind.RETRYABLE else TerminalError(message)


def _scaffold_run(document: dict[str, Any], workdir: Path, base: str) -> Outcome:
    return run_with(document, workdir, _LoopbackContext(base))


def _error_status(outcome: Outcome) -> Outcome:
    """Reduce every item's ``error`` object to its HTTP status (see the module docstring)."""
    for outputs in outcome.nodes.values():
        for items in outputs:
            for item in items:
                if isinstance(item, dict) and isinstance(item.get("error"), dict):
                    item["error"] = {"status": item["error"].get("status")}
    return outcome


def measure(cases: list[Case], base: str,
            carried: list[tuple[str, ...]] | None = None) -> list[tuple[Case, Outcome, Outcome, list[str]]]:
    """Run every case on both sides (the server at ``base`` must be serving); return each with its differences.

    ``carried`` names, per case, the binary properties its input items carry (``binary_cases``).
    """
    documents = [workflow(case, runner.workflow_id(i)) for i, case in enumerate(cases)]
    if carried is not None:
        documents = [_binary_input(d, props) for d, props in zip(documents, carried, strict=True)]
    oracle: list[Outcome | None] = [None] * len(cases)
    for version in dict.fromkeys(case.n8n or runner.VERSION for case in cases):  # each n8n its cases
        chosen = [i for i, case in enumerate(cases) if (case.n8n or runner.VERSION) == version]
        got, _ = runner.cached_run([documents[i] for i in chosen], version=version)
        for i, outcome in zip(chosen, got, strict=True):
            oracle[i] = outcome
    results = []
    with tempfile.TemporaryDirectory(prefix="cutover-oracle-http-") as tmp:
        for index, (case, document, expected) in enumerate(zip(cases, documents, oracle, strict=True)):
            got = _scaffold_run(document, Path(tmp) / str(index), base)
            expected, got = _error_status(expected), _error_status(got)
            found = differences(expected, got, [n["name"] for n in document["nodes"]]) if got.translated else []
            results.append((case, expected, got, found))
    return results


# The file the binary cases' input items carry (a Code node returns it as binary property "data" or "doc").
UPLOADED = b"name,score\nada,3\n\x00\xff binary tail"


def _binary_input(document: dict[str, Any], properties: tuple[str, ...]) -> dict[str, Any]:
    """Make the case's input Code nodes return their items with binary properties (n8n's default mode: base64
    inline): a name is input 1's, a name ending ``@2`` input 2's (its file called ``other.csv``)."""
    entry = {"data": base64.b64encode(UPLOADED).decode(), "mimeType": "text/csv", "fileName": "scores.csv",
             "fileExtension": "csv"}
    for index in (0, 1):
        names = [p.removesuffix("@2") for p in properties if p.endswith("@2") == (index == 1)]
        for node in document["nodes"]:
            if node["name"] == input_name(index) and names:
                source = node["parameters"]["jsCode"]
                items = json.loads(source[len("return "):-1])
                for item in items:
                    item["binary"] = {name: {**entry, **({"fileName": "other.csv"} if index else {})} for name in names}
                node["parameters"]["jsCode"] = "return " + json.dumps(items) + ";"
    return document


def binary_cases(base: str) -> list[tuple[Case, tuple[str, ...]]]:
    """Return the fixed binary cases, each with the binary properties its input items carry: response
    format "file" (a named output property, the full response, a Content-Disposition file name, a name from
    the URL, none at all), autodetect of a file's content type, and multipart bodies with file parts."""
    def node(version: float, label: str, params: dict[str, Any], carried: tuple[str, ...] = ()) -> tuple[Case, tuple[str, ...]]:
        return Case(f"httpRequest v{version:g} binary {label}", NODE, version, params, [[{"a": 1}]], {}), carried

    def file(route: str, **response: Any) -> dict[str, Any]:
        return {"url": base + route, "options": {"response": {"response": {"responseFormat": "file", **response}}}}

    def upload(*parts: dict[str, Any]) -> dict[str, Any]:
        return {"url": base + "/upload", "method": "POST", "sendBody": True, "contentType": "multipart-form-data",
                "bodyParameters": {"parameters": list(parts)}}

    binary = {"parameterType": "formBinaryData", "name": "file", "inputDataFieldName": "data"}
    return [
        node(4.2, "file disposition", file("/file/attached/report%20one.png")),
        node(4.2, "file url name", file("/file/chart.pdf", outputPropertyName="doc"), ("data",)),
        node(4.1, "file untyped full", file("/file/blob", fullResponse=True)),
        node(3.0, "file root name", file("/file/")),
        node(3.0, "file query name", file("/file/chart.pdf?v=2")),
        node(4.2, "file no follow", {**file("/file/"), "options": {**file("/file/")["options"],
                                                                   "redirect": {"redirect": {"followRedirects": False}}}}),
        node(4.0, "file extension from url", file("/file/archive.zip")),
        node(4.2, "autodetect image", {"url": base + "/file/attached/pic.png", "options": {}}),
        node(4.2, "upload file and field", upload(binary, {"name": "note", "value": "={{ $json.a }} x"}), ("data",)),
        node(4.1, "upload two files", upload(binary, {**binary, "name": "other", "inputDataFieldName": "doc"}),
             ("data", "doc")),
        node(3.0, "upload file", upload(binary), ("data",)),
    ]


def carry_cases() -> list[tuple[Case, tuple[str, ...]]]:
    """Return cases of nodes that pass items on, their input items carrying binary data: Set (v2 with and without
    Keep Only Set, v3.3 with Include Binary, v3.4 by default and with other fields kept or Strip Binary) and IF."""
    assignments = {"assignments": [{"id": "1", "name": "b", "value": "x", "type": "string"}]}
    v2 = {"values": {"string": [{"name": "b", "value": "x"}]}, "options": {}}

    def case(node_type: str, version: float, label: str, params: dict[str, Any]) -> tuple[Case, tuple[str, ...]]:
        short = node_type.rsplit(".", 1)[1]
        return Case(f"{short} v{version:g} binary {label}", node_type, version, params, [[{"a": 1}]], {}), ("data",)

    return [
        case("n8n-nodes-base.set", 2, "kept", v2),
        case("n8n-nodes-base.set", 2, "keep only set", {**v2, "keepOnlySet": True}),
        case("n8n-nodes-base.set", 3.3, "include binary", {"assignments": assignments, "options": {"includeBinary": True}}),
        case("n8n-nodes-base.set", 3.4, "default", {"assignments": assignments, "options": {}}),
        case("n8n-nodes-base.set", 3.4, "other fields", {"assignments": assignments, "includeOtherFields": True,
                                                          "options": {}}),
        case("n8n-nodes-base.set", 3.4, "strip", {"assignments": assignments, "includeOtherFields": True,
                                                   "options": {"stripBinary": True}}),
        case("n8n-nodes-base.if", 1, "passed on", {"conditions": {"number": [
            {"value1": "={{ $json.a }}", "operation": "equal", "value2": 1}]}}),
    ]


def merge_carry_cases() -> list[tuple[Case, tuple[str, ...]]]:
    """Return Merge cases whose inputs carry binary data (input 1 ``data`` and ``doc``, input 2 ``data``): combine
    by position, by fields, all (v3) and v2's merge by position and multiplex, with the clash settings."""
    node = "n8n-nodes-base.merge"
    items = [[{"a": 1}, {"a": 2}], [{"a": 1, "b": 2}]]

    def case(version: float, label: str, params: dict[str, Any]) -> tuple[Case, tuple[str, ...]]:
        return Case(f"merge v{version:g} binary {label}", node, version, params, items, {}), ("data", "doc", "data@2")

    return [
        case(3, "position", {"mode": "combine", "combineBy": "combineByPosition"}),
        case(3, "position unpaired prefer 1", {"mode": "combine", "combineBy": "combineByPosition",
                                               "options": {"includeUnpaired": True,
                                                           "clashHandling": {"values": {"resolveClash": "preferInput1"}}}}),
        case(3.1, "fields", {"mode": "combine", "fieldsToMatchString": "a"}),
        case(3.1, "fields suffix", {"mode": "combine", "fieldsToMatchString": "a", "options": {
            "clashHandling": {"values": {"resolveClash": "addSuffix"}}}}),
        case(3.2, "all", {"mode": "combine", "combineBy": "combineAll"}),
        case(3, "append", {"mode": "append"}),
        case(2.1, "position", {"mode": "combine", "combinationMode": "mergeByPosition"}),
        case(2.1, "multiplex", {"mode": "combine", "combinationMode": "multiplex"}),
    ]
