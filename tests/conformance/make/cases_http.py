"""Pinned cases of Make's HTTP modules: every v3 body type, parse response, errors, the auth variants,
v4 "Make a request" and "Get a file"."""

from __future__ import annotations

from typing import Any

from tests.conformance.make.runner import Call, MakeCase, Reply

_DOC = "https://www.make.com/en/help/app/http (Make a request: body types Raw, application/x-www-form-urlencoded, multipart/form-data; output Status code, Headers, Data)"
_ERR = "https://www.make.com/en/help/app/http (Evaluate all states as errors (except for 2xx and 3xx))"
_AUTH = "https://www.make.com/en/help/app/http (Make a Basic Auth request, Make an OAuth 2.0 request, Make an API Key Auth request)"
_V4 = "https://apps.make.com/http (HTTP v4 Make a request: body content type JSON, authentication type)"
_FILE = "https://www.make.com/en/help/app/http (Get a file: File name, Data)"
_JSON = {"content-type": "application/json"}


def _http(app: str = "http:ActionSendData", version: int = 3, parameters: dict[str, Any] | None = None,
          **mapper: Any) -> dict[str, Any]:
    base = {"url": "https://api.example.com/items", "method": "post", "headers": [], "qs": [], "bodyType": "",
            "parseResponse": True, "serializeUrl": False, "shareCookies": False, "followRedirect": True,
            "useQuerystring": False, "gzip": True, "timeout": ""}
    return {"module": app, "version": version, "parameters": parameters or {"handleErrors": False},
            "mapper": {**base, **mapper}, "metadata": {"designer": {"x": 300, "y": 0}}}


def _bundle(data: Any, status: int = 200, length: int | None = None, kind: str = "application/json") -> dict[str, Any]:
    headers = [{"name": "content-type", "value": kind}] if kind else []
    if length is not None:
        headers.append({"name": "content-length", "value": str(length)})
    return {"statusCode": status, "headers": headers, "data": data}


CASES = [
    MakeCase(
        id="http-v3-raw-json-body",
        module=_http(bodyType="raw", contentType="application/json", data='{"name": "{{1.name}}", "qty": {{1.qty}}}'),
        input={"name": "bolt", "qty": 3},
        replies=(Reply(201, json={"id": 7}, headers=_JSON),),
        calls=(Call("POST", "https://api.example.com/items", json={"name": "bolt", "qty": 3}),),
        output=[_bundle({"id": 7}, 201, 8)],
        source=_DOC),
    MakeCase(
        id="http-v3-raw-json-body-that-does-not-parse-is-sent-as-text",
        module=_http(bodyType="raw", contentType="application/json", data='{"note": "{{1.note}}"}'),
        input={"note": 'say "hi"'},
        replies=(Reply(200, json={"ok": False}, headers=_JSON),),
        calls=(Call("POST", "https://api.example.com/items", content=b'{"note": "say "hi""}',
                    headers={"Content-Type": "application/json"}),),
        output=[_bundle({"ok": False}, 200, 12)], source=_DOC),
    MakeCase(
        id="http-v3-raw-text-body",
        module=_http(bodyType="raw", contentType="text/plain", data="Hello {{1.name}}"),
        input={"name": "Ada"},
        replies=(Reply(200, text="ok", headers={"content-type": "text/plain"}),),
        calls=(Call("POST", "https://api.example.com/items", content=b"Hello Ada", headers={"Content-Type": "text/plain"}),),
        output=[_bundle("ok", 200, 2, "text/plain")],
        source=_DOC),
    MakeCase(
        id="http-v3-raw-xml-body",
        module=_http(bodyType="raw", contentType="application/xml", data="<order id=\"{{1.id}}\"/>"),
        input={"id": 5},
        replies=(Reply(200, text="<ok/>", headers={"content-type": "application/xml"}),),
        calls=(Call("POST", "https://api.example.com/items", content=b'<order id="5"/>',
                    headers={"Content-Type": "application/xml"}),),
        output=[_bundle("<ok/>", 200, 5, "application/xml")],
        source=_DOC),
    MakeCase(
        id="http-v3-form-urlencoded",
        module=_http(bodyType="x_www_form_urlencoded",
                     formFields=[{"key": "email", "value": "{{1.email}}"}, {"key": "plan", "value": "pro"}]),
        input={"email": "ada@example.com"},
        replies=(Reply(200, json={"ok": True}, headers=_JSON),),
        calls=(Call("POST", "https://api.example.com/items", data={"email": "ada@example.com", "plan": "pro"}),),
        output=[_bundle({"ok": True}, 200, 11)],
        source=_DOC),
    MakeCase(
        id="http-v3-multipart-with-file",
        module=_http(bodyType="multipart_form_data", formDataFields=[
            {"key": "title", "value": "{{1.title}}", "fieldType": "text"},
            {"key": "file", "fieldType": "file", "fileName": "{{1.name}}", "data": "{{1.body}}"}]),
        input={"title": "Report", "name": "r.txt", "body": "line 1"},
        replies=(Reply(200, json={"uploaded": 1}, headers=_JSON),),
        calls=(Call("POST", "https://api.example.com/items", data={"title": "Report"},
                    files={"file": ("r.txt", b"line 1", None)}),),
        output=[_bundle({"uploaded": 1}, 200, 14)],
        source=_DOC),
    MakeCase(
        id="http-v3-parse-response-off",
        module=_http(method="get", parseResponse=False),
        replies=(Reply(200, json={"a": 1}, headers=_JSON),),
        calls=(Call("GET", "https://api.example.com/items"),),
        output=[_bundle('{"a":1}', 200, 7)],
        source=_DOC),
    MakeCase(
        id="http-v3-non-json-answer-is-text",
        module=_http(method="get"),
        replies=(Reply(200, text="<html>hi</html>", headers={"content-type": "text/html"}),),
        calls=(Call("GET", "https://api.example.com/items"),),
        output=[_bundle("<html>hi</html>", 200, 15, "text/html")],
        source=_DOC),
    MakeCase(
        id="http-v3-evaluate-errors-4xx-fails",
        module=_http(method="get", parameters={"handleErrors": True}),
        replies=(Reply(404, json={"error": "no such item"}, headers=_JSON),),
        calls=(Call("GET", "https://api.example.com/items"),),
        output=[], error="HTTP 404",
        source=_ERR),
    MakeCase(
        id="http-v3-query-and-headers",
        module=_http(method="get", qs=[{"name": "page", "value": "{{1.page}}"}],
                     headers=[{"name": "Accept", "value": "application/json"}]),
        input={"page": 2},
        replies=(Reply(200, json=[1, 2], headers=_JSON),),
        calls=(Call("GET", "https://api.example.com/items", params={"page": "2"}, headers={"Accept": "application/json"}),),
        output=[_bundle([1, 2], 200, 5)],
        source=_DOC),
    MakeCase(
        id="http-v3-mapped-url-host",
        module=_http(method="get", url="{{1.link}}"),
        input={"link": "https://jobs.example.org/job/9"},
        providers={"jobs.example.org": "jobs"},
        replies=(Reply(200, json={"id": 9}, headers=_JSON),),
        calls=(Call("GET", "https://jobs.example.org/job/9", provider="jobs"),),
        output=[_bundle({"id": 9}, 200, 8)],
        source=_DOC),
    MakeCase(
        id="http-v3-replayed-bundle-taken-as-is",
        module=_http(method="get"),
        replies=(Reply(200, json={"statusCode": 200, "headers": [], "data": {"id": 1}}, headers=_JSON),),
        calls=(Call("GET", "https://api.example.com/items"),),
        output=[{"statusCode": 200, "headers": [], "data": {"id": 1}}],
        source=_DOC),
    MakeCase(
        id="http-v3-oauth-request",
        module=_http("http:ActionSendDataOAuth", parameters={"account": 1, "handleErrors": False}, method="get",
                     url="https://script.googleapis.com/v1/projects/{{1.id}}/content"),
        input={"id": "abc"},
        replies=(Reply(200, json={"files": []}, headers=_JSON),),
        calls=(Call("GET", "https://script.googleapis.com/v1/projects/abc/content", headers={}),),
        output=[_bundle({"files": []}, 200, 12)],
        source=_AUTH),
    MakeCase(
        id="http-v3-api-key-request",
        module=_http("http:ActionSendDataAPIKeyAuth", parameters={"auth": 2, "handleErrors": False}, method="get",
                     url="https://app.example.co.uk/api/holidays", qs=[{"name": "UserIds", "value": "{{1.user}}"}]),
        input={"user": 42},
        replies=(Reply(200, json={"holidays": []}, headers=_JSON),),
        calls=(Call("GET", "https://app.example.co.uk/api/holidays", params={"UserIds": "42"}),),
        output=[_bundle({"holidays": []}, 200, 15)],
        source=_AUTH),
    MakeCase(
        id="http-v3-basic-auth-request",
        module=_http("http:ActionSendDataBasicAuth", parameters={"key": 3, "handleErrors": True}, method="get"),
        replies=(Reply(200, json={"ok": 1}, headers=_JSON),),
        calls=(Call("GET", "https://api.example.com/items"),),
        output=[_bundle({"ok": 1}, 200, 8)],
        source=_AUTH),
    MakeCase(
        id="http-v4-make-request-json",
        module={"module": "http:MakeRequest", "version": 4, "parameters": {"authenticationType": "noAuth"},
                "mapper": {"url": "https://api.example.com/v4/{{1.kind}}", "method": "post", "contentType": "json",
                           "inputMethod": "jsonString", "jsonStringBodyContent": '{"n": {{1.n}}}',
                           "queryParameters": [{"name": "dry", "value": "1"}], "headers": [], "parseResponse": True},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"kind": "orders", "n": 2},
        replies=(Reply(200, json={"done": True}, headers=_JSON),),
        calls=(Call("POST", "https://api.example.com/v4/orders", json={"n": 2}, params={"dry": "1"}),),
        output=[_bundle({"done": True}, 200, 13)],
        source=_V4),
    MakeCase(
        id="http-v4-make-request-data-structure",
        module={"module": "http:MakeRequest", "version": 4, "parameters": {"authenticationType": "noAuth"},
                "mapper": {"url": "https://api.example.com/v1/speech", "method": "post", "contentType": "json",
                           "inputMethod": "dataStructure", "bodyDataStructure": 299818,
                           "dataStructureBodyContent": {"text": "{{1.t}}", "settings": {"stability": "0.45"}},
                           "parseResponse": True, "stopOnHttpError": True},
                "metadata": {"designer": {"x": 300, "y": 0}, "expect": [
                    {"name": "dataStructureBodyContent", "type": "collection", "spec": [
                        {"name": "text", "type": "text"},
                        {"name": "settings", "type": "collection", "spec": [{"name": "stability", "type": "number"}]}]}]}},
        input={"t": "Hi"},
        replies=(Reply(200, json={"ok": 1}, headers=_JSON),),
        calls=(Call("POST", "https://api.example.com/v1/speech", json={"text": "Hi", "settings": {"stability": 0.45}}),),
        output=[_bundle({"ok": 1}, 200, 8)],
        source=_V4),
    MakeCase(
        id="http-get-a-file-replayed-bundle",
        module={"module": "http:ActionGetFile", "version": 3, "parameters": {"handleErrors": False},
                "mapper": {"url": "https://files.example.com/a.pdf", "method": "get", "headers": [], "qs": []},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        replies=(Reply(200, json={"fileName": "a.pdf", "fileSize": 3, "data": "IMTBuffer(3, binary)"},
                       headers={"content-type": "application/json", "X-Cutover-Recorded": "recording"}),),
        calls=(Call("GET", "https://files.example.com/a.pdf"),),
        output=[{"fileName": "a.pdf", "fileSize": 3, "data": "IMTBuffer(3, binary)"}],
        source=_FILE),
    MakeCase(
        id="http-get-a-file",
        module={"module": "http:ActionGetFile", "version": 3, "parameters": {"handleErrors": False},
                "mapper": {"url": "https://files.example.com/report%20may.pdf", "method": "get", "headers": [], "qs": [],
                           "shareCookies": False}, "metadata": {"designer": {"x": 300, "y": 0}}},
        replies=(Reply(200, content=b"%PDF-1", headers={"content-type": "application/pdf"}),),
        calls=(Call("GET", "https://files.example.com/report%20may.pdf"),),
        output=[{"fileName": "report may.pdf", "fileSize": 6, "data": b"%PDF-1"}],
        source=_FILE),
]
