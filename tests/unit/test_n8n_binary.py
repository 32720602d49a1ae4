"""n8n's binary data: HTTP Request's file answers and multipart uploads, the entries' fields, the limit, the records."""

from __future__ import annotations

import base64
import hashlib

import httpx
import pytest
import respx

from queue_core.compat import _n8n_binary as binary
from queue_core.errors import NodeFailed
from queue_core.gateway import Gateway, prepare
from queue_core.gateway.binary import is_binary
from queue_core.provider import ProviderConfig, parse_providers
from tests.support.app_calls import run_node, scaffold_node
from tests.support.call_context import MemoryCallContext, call

BASES = {"example": "https://api.example.test"}
PDF = b"%PDF-1.7\n\x00\xff\xfe binary"


def _download(version: float = 4.2, url: str = "https://api.example.test/files/report.pdf", **response: object) -> dict[str, object]:
    return {"name": "Fetch", "type": "n8n-nodes-base.httpRequest", "typeVersion": version, "parameters": {
        "url": url, "options": {"response": {"response": {"responseFormat": "file", **response}}}}}


def _items_of(ctx: object, node: str = "Fetch") -> list[dict[str, object]]:
    return ctx.n8n_flows[-1].outputs[node][0]  # type: ignore[attr-defined]


@respx.mock
def test_a_file_answer_is_the_items_binary_property_with_n8ns_fields_and_the_input_json_kept() -> None:
    respx.get("https://api.example.test/files/report.pdf").mock(
        return_value=httpx.Response(200, content=PDF, headers={"content-type": "application/pdf; charset=binary"}))
    ctx, out, error = run_node(_download(outputPropertyName="doc"), [{"id": 7}], BASES)
    assert error is None and out == [{"id": 7}]
    entry = _items_of(ctx)[0]["binary"]["doc"]
    assert entry == {"mimeType": "application/pdf", "fileType": "pdf", "fileExtension": "pdf",
                     "data": base64.b64encode(PDF).decode(), "directory": "https://api.example.test/files/report.pdf",
                     "fileName": "report.pdf", "fileSize": f"{len(PDF)} B"}


@respx.mock
def test_a_content_disposition_names_the_file_and_a_v3_node_keeps_no_directory() -> None:
    respx.get("https://api.example.test/dl").mock(return_value=httpx.Response(
        200, content=b"\x89PNG", headers={"content-type": "image/png",
                                          "content-disposition": "attachment; filename*=UTF-8''chart%20one.png"}))
    ctx, _, error = run_node(_download(3, "https://api.example.test/dl"), [{}], BASES)
    assert error is None
    entry = _items_of(ctx)[0]["binary"]["data"]
    assert entry["fileName"] == "chart one.png" and "directory" not in entry and entry["fileType"] == "image"


@respx.mock
def test_a_nameless_file_is_called_after_its_output_property_and_the_type_s_extension() -> None:
    respx.get("https://api.example.test/").mock(return_value=httpx.Response(
        200, content=b"\x00\x01", headers={"content-type": "application/octet-stream"}))
    ctx, _, _ = run_node(_download(url="https://api.example.test/", outputPropertyName="blob"), [{}], BASES)
    entry = _items_of(ctx)[0]["binary"]["blob"]
    assert entry["fileName"] == "blob.bin" and entry["fileExtension"] == "bin" and "fileType" not in entry


@respx.mock
def test_autodetect_takes_an_image_as_a_file_and_json_as_items() -> None:
    respx.get("https://api.example.test/pic").mock(return_value=httpx.Response(
        200, content=b"\xff\xd8\xff", headers={"content-type": "image/jpeg"}))
    node = {"name": "Fetch", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2,
            "parameters": {"url": "https://api.example.test/pic"}}
    ctx, out, _ = run_node(node, [{"a": 1}], BASES)
    assert out == [{"a": 1}] and _items_of(ctx)[0]["binary"]["data"]["fileExtension"] == "jpg"
    respx.get("https://api.example.test/pic").mock(return_value=httpx.Response(200, json={"b": 2}))
    ctx, out, _ = run_node(node, [{"a": 1}], BASES)
    assert out == [{"b": 2}] and "binary" not in _items_of(ctx)[0]


@respx.mock
def test_a_multipart_upload_sends_the_items_file_and_records_its_digest_not_its_bytes() -> None:
    route = respx.post("https://api.example.test/stt").mock(return_value=httpx.Response(200, json={"text": "hi"}))
    node = {"name": "Fetch", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {
        "method": "POST", "url": "https://api.example.test/stt", "sendBody": True, "contentType": "multipart-form-data",
        "bodyParameters": {"parameters": [{"name": "audio", "parameterType": "formBinaryData", "inputDataFieldName": "voice"},
                                          {"name": "model_id", "value": "={{ $json.model }}"}]}}}
    voice = {"data": base64.b64encode(PDF).decode(), "mimeType": "audio/ogg", "fileName": "v.ogg"}
    ctx, out, error = run_node(node, [{"json": {"model": "m1"}, "binary": {"voice": voice}}], BASES)
    assert error is None and out == [{"text": "hi"}]
    sent = route.calls.last.request
    assert sent.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert b'name="audio"; filename="v.ogg"\r\nContent-Type: audio/ogg\r\n\r\n' + PDF in sent.content
    assert b'name="model_id"\r\n\r\nm1\r\n' in sent.content
    recorded = ctx.sent[0][3]
    assert recorded == {"fields": {"model_id": "m1"}, "files": {"audio": {
        "fileName": "v.ogg", "mimeType": "audio/ogg", "size": len(PDF), "sha256": hashlib.sha256(PDF).hexdigest()}}}


def test_an_upload_of_an_item_without_the_binary_property_fails_in_n8ns_words() -> None:
    with pytest.raises(NodeFailed, match="expects the node's input data to contain a binary file 'data'"):
        binary.file_part({"json": {}}, "data")


def test_a_multipart_call_has_one_body_and_fingerprint_on_every_attempt_and_another_for_other_bytes() -> None:
    config = ProviderConfig("x", "https://x.test")
    a = prepare(config, "POST", "/u", json=None, params=None, headers=None, key="k", data={"f": "1"},
                files={"file": ("a.txt", b"one", "text/plain")})
    b = prepare(config, "POST", "/u", json=None, params=None, headers=None, key="k", data={"f": "1"},
                files={"file": ("a.txt", b"one", "text/plain")})
    c = prepare(config, "POST", "/u", json=None, params=None, headers=None, key="k", data={"f": "1"},
                files={"file": ("a.txt", b"two", "text/plain")})
    assert a.body == b.body and a.fingerprint == b.fingerprint != c.fingerprint
    assert b"one" not in repr(a.intent("s", "live")).encode()


async def test_a_binary_answer_is_stored_by_size_and_sha256_and_a_retry_asks_again() -> None:
    providers = parse_providers({"files": {"base_url": "https://files.test"}})
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, content=PDF, headers={"content-type": "application/pdf"})

    ctx = MemoryCallContext()
    async with Gateway(providers, None, transport=httpx.MockTransport(answer)) as gw:
        first = await call(gw, ctx, "files", "GET", "/r.pdf", step="download")
        stored = ctx.calls["download"]
        assert stored["body"] == "" and stored["body_size"] == len(PDF)
        assert stored["body_sha256"] == hashlib.sha256(PDF).hexdigest()
        again = await call(gw, ctx, "files", "GET", "/r.pdf", step="download")
    assert first.content == again.content == PDF and len(sent) == 2


def test_only_a_body_that_is_not_text_counts_as_binary() -> None:
    assert is_binary(httpx.Response(200, content=b"\x00", headers={"content-type": "image/png"}))
    assert not is_binary(httpx.Response(200, json={"a": 1}))
    assert not is_binary(httpx.Response(200, content="é".encode(), headers={"content-type": "text/plain"}))


def test_file_sizes_are_written_as_n8n_writes_them() -> None:
    assert [binary.pretty_bytes(n) for n in (0, 999, 1000, 1289, 12345, 999_999, 1_500_000)] == [
        "0 B", "999 B", "1 kB", "1.29 kB", "12.3 kB", "1000 kB", "1.5 MB"]


def test_an_item_over_the_binary_limit_fails_its_node_naming_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUTOVER_N8N_BINARY_MAX_BYTES", "10")
    response = httpx.Response(200, content=b"x" * 11, headers={"content-type": "image/png"},
                              request=httpx.Request("GET", "https://x.test/a.png"))
    with pytest.raises(NodeFailed, match="11 bytes, over the runtime's limit of 10 bytes.*CUTOVER_N8N_BINARY_MAX_BYTES"):
        binary.file_response({"json": {}}, response, node="Fetch")


def test_a_recorded_answer_in_a_shadow_run_is_the_recorded_json_with_a_stand_in_entry() -> None:
    response = httpx.Response(200, json=[{"id": 1}], headers={"X-Cutover-Recorded": "recording"},
                              request=httpx.Request("GET", "https://x.test/a.png"))
    [item] = binary.file_response({"json": {}}, response, "doc")
    assert item["json"] == {"id": 1} and item["binary"]["doc"]["data"] == ""


def test_an_output_property_given_by_an_expression_is_a_precise_todo() -> None:
    status, _ = scaffold_node(_download(outputPropertyName="={{ $json.name }}"))
    assert status.startswith("todo") and "output field given by an expression" in status


class _Shadow:
    mode = "shadow"


def test_a_shadow_upload_of_an_item_recorded_without_bytes_sends_an_empty_stand_in_part() -> None:
    assert binary.file_part({"json": {}}, "data", 0, _Shadow()) == binary.STAND_IN_PART
    with pytest.raises(NodeFailed):
        binary.file_part({"json": {}}, "data", 0, type("Live", (), {"mode": "live"})())


def test_merge_by_position_merges_the_inputs_binary_the_preferred_input_last() -> None:
    from queue_core.compat import n8n

    a = {"json": {"a": 1}, "binary": {"data": {"fileName": "a.csv"}, "doc": {"fileName": "d.pdf"}}}
    b = {"json": {"b": 2}, "binary": {"data": {"fileName": "b.csv"}}}
    [merged] = n8n.merge_by_position([[a], [b]])
    assert merged == {"json": {"a": 1, "b": 2}, "binary": {"data": {"fileName": "b.csv"}, "doc": {"fileName": "d.pdf"}}}
    [plain] = n8n.merge_by_position([[{"json": {"a": 1}}], [{"json": {"b": 2}}]])
    assert "binary" not in plain
