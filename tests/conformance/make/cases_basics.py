"""Pinned cases of the modules translated first: HTTP "Make a request" (JSON), Set variable, Parse JSON."""

from __future__ import annotations

from tests.conformance.make.runner import Call, MakeCase, Reply

_HTTP_DOC = "https://www.make.com/en/help/app/http (Make a request: output bundle Status code, Headers, Data)"
_TOOLS_DOC = "https://www.make.com/en/help/tools/tools (Set variable: outputs the variable under its name)"
_JSON_DOC = "https://www.make.com/en/help/app/json (Parse JSON: an array is one bundle per item)"

CASES = [
    MakeCase(
        id="http-v3-get-json",
        module={"module": "http:ActionSendData", "version": 3, "parameters": {"handleErrors": False},
                "mapper": {"url": "https://api.example.com/orders/{{1.id}}", "method": "get", "headers": [],
                           "qs": [{"name": "expand", "value": "lines"}], "bodyType": "", "parseResponse": True},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"id": 42},
        replies=(Reply(200, json={"id": 42, "total": 9.5}, headers={"content-type": "application/json"}),),
        calls=(Call("GET", "https://api.example.com/orders/42", params={"expand": "lines"}),),
        output=[{"statusCode": 200, "headers": [{"name": "content-type", "value": "application/json"},
                                                {"name": "content-length", "value": "21"}],
                 "data": {"id": 42, "total": 9.5}}],
        source=_HTTP_DOC),
    MakeCase(
        id="set-variable-2",
        module={"module": "util:SetVariable2", "version": 1, "parameters": {},
                "mapper": {"name": "greeting", "scope": "roundtrip", "value": "Hello {{1.name}}"},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"name": "Ada"},
        output=[{"greeting": "Hello Ada"}],
        source=_TOOLS_DOC),
    MakeCase(
        id="parse-json-array",
        module={"module": "json:ParseJSON", "version": 1, "parameters": {"type": ""},
                "mapper": {"json": "{{1.payload}}"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"payload": '[{"a": 1}, {"a": 2}]'},
        output=[{"a": 1}, {"a": 2}],
        source=_JSON_DOC),
]
