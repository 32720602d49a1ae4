"""Pinned cases of Make's Text parser (Match pattern, Replace, HTML to text), Create JSON and the webhook response."""

from __future__ import annotations

from typing import Any

from tests.conformance.make.runner import MakeCase

_PARSER = "https://www.make.com/en/help/app/regexp (Match pattern: Global match, Case sensitive, Multiline, Singleline, Continue the execution of the route even if the module finds no matches; output $1…, i, Fallback match)"
_REPLACE = "https://www.make.com/en/help/app/regexp (Replace: $1 in the new value; output Text)"
_HTML = "https://www.make.com/en/help/app/regexp (HTML to text: Line break, Uppercase headings; output Text)"
_JSON = "https://www.make.com/en/help/app/json (Create JSON: the data structure's fields; output JSON string)"
_TRANSFORM = "https://www.make.com/en/help/app/json (Transform to JSON: Object, Indentation; output JSON string)"
_SWITCH = "https://www.make.com/en/help/tools/tools (Switch: Input, Cases (Pattern, Output), Use regular expressions to match, Else; output Output)"
_RESPOND = "https://www.make.com/en/help/tools/webhooks (Webhook response: Status, Body, Custom headers)"


def _parser(pattern: str, text: str = "{{1.text}}", **flags: Any) -> dict[str, Any]:
    parameters = {"pattern": pattern, "global": False, "sensitive": True, "multiline": False, "singleline": False,
                  "continueWhenNoRes": False, **flags}
    return {"module": "regexp:Parser", "version": 1, "parameters": parameters, "mapper": {"text": text},
            "metadata": {"designer": {"x": 300, "y": 0}}}


CASES = [
    MakeCase(
        id="regexp-parser-first-match-groups",
        module=_parser(r"order (\d+) for (\w+)"),
        input={"text": "order 12 for ada, order 13 for bob"},
        output=[{"$1": "12", "$2": "ada", "i": 1, "__IMTMATCH__": "order 12 for ada"}],
        source=_PARSER),
    MakeCase(
        id="regexp-parser-global-one-bundle-per-match",
        module=_parser(r"order (\d+)", **{"global": True}),
        input={"text": "order 12, order 13"},
        output=[{"$1": "12", "i": 1, "__IMTMATCH__": "order 12"}, {"$1": "13", "i": 2, "__IMTMATCH__": "order 13"}],
        source=_PARSER),
    MakeCase(
        id="regexp-parser-no-group-fallback-match",
        module=_parser(r"\[\/JOBS\/[^\s]*?\]", **{"global": True}),
        input={"text": "A [/JOBS/~01AB/] and [/JOBS/~02CD/]"},
        output=[{"i": 1, "__IMTMATCH__": "[/JOBS/~01AB/]"}, {"i": 2, "__IMTMATCH__": "[/JOBS/~02CD/]"}],
        source=_PARSER),
    MakeCase(
        id="regexp-parser-named-groups",
        module=_parser(r"(?<user>\w+)@(?<host>[\w.]+)"),
        input={"text": "mail ada@example.com now"},
        output=[{"$1": "ada", "$2": "example.com", "user": "ada", "host": "example.com", "i": 1,
                 "__IMTMATCH__": "ada@example.com"}],
        source=_PARSER),
    MakeCase(
        id="regexp-parser-case-insensitive",
        module=_parser(r"total: (\d+)", sensitive=False),
        input={"text": "TOTAL: 40"},
        output=[{"$1": "40", "i": 1, "__IMTMATCH__": "TOTAL: 40"}],
        source=_PARSER),
    MakeCase(
        id="regexp-parser-singleline-dot-matches-newline",
        module=_parser(r"<p>(.*?)</p>", singleline=True),
        input={"text": "<p>one\ntwo</p>"},
        output=[{"$1": "one\ntwo", "i": 1, "__IMTMATCH__": "<p>one\ntwo</p>"}],
        source=_PARSER),
    MakeCase(
        id="regexp-parser-multiline-anchors",
        module=_parser(r"^id=(\d+)$", multiline=True, **{"global": True}),
        input={"text": "id=1\nid=2"},
        output=[{"$1": "1", "i": 1, "__IMTMATCH__": "id=1"}, {"$1": "2", "i": 2, "__IMTMATCH__": "id=2"}],
        source=_PARSER),
    MakeCase(
        id="regexp-parser-no-match-stops-the-route",
        module=_parser(r"(\d+)"),
        input={"text": "none here"},
        output=[],
        source=_PARSER),
    MakeCase(
        id="regexp-parser-no-match-continues-when-asked",
        module=_parser(r"(\d+)", continueWhenNoRes=True),
        input={"text": "none here"},
        output=[{}],
        source=_PARSER),
    MakeCase(
        id="regexp-replace-with-group",
        module={"module": "regexp:Replace", "version": 1,
                "parameters": {"pattern": r"(\d{4})-(\d{2})", "global": True, "sensitive": True, "multiline": False,
                               "singleline": False},
                "mapper": {"text": "{{1.text}}", "value": "$2/$1"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"text": "2024-06 and 2025-01"},
        output=[{"text": "06/2024 and 01/2025"}],
        source=_REPLACE),
    MakeCase(
        id="regexp-html-to-text",
        module={"module": "regexp:HTMLToText", "version": 1, "parameters": {},
                "mapper": {"html": "{{1.html}}", "newline": "lf", "uppercaseHeadings": True},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"html": "<html><head><style>p{}</style></head><body><h2>Open jobs</h2><p>First line<br>second &amp; "
                       "last</p><p>See <a href=\"/jobs/1\">the job</a></p></body></html>"},
        output=[{"text": "OPEN JOBS\n\nFirst line\nsecond & last\n\nSee the job [/jobs/1]"}],
        source=_HTML),
    MakeCase(
        id="json-create-json-typed-fields",
        module={"module": "json:CreateJSON", "version": 1, "parameters": {"type": 415902, "space": ""},
                "mapper": {"model": "m-1", "temperature": "0.5", "messages": [{"role": "user", "content": "{{1.q}}"}]},
                "metadata": {"designer": {"x": 300, "y": 0}, "expect": [
                    {"name": "model", "type": "text", "label": "Model"},
                    {"name": "temperature", "type": "number", "label": "Temperature"},
                    {"name": "messages", "type": "array", "spec": {"name": "value", "type": "collection", "spec": [
                        {"name": "role", "type": "text"}, {"name": "content", "type": "text"}]}}]}},
        input={"q": "Hi \"there\""},
        output=[{"json": '{"model":"m-1","temperature":0.5,"messages":[{"role":"user","content":"Hi \\"there\\""}]}'}],
        source=_JSON),
    MakeCase(
        id="json-transform-to-json-compact",
        module={"module": "json:TransformToJSON", "version": 1, "parameters": {"space": ""},
                "mapper": {"object": "{{1.lines}}"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"lines": [{"sku": "a", "qty": 2, "note": "café"}]},
        output=[{"json": '[{"sku":"a","qty":2,"note":"café"}]'}],
        source=_TRANSFORM),
    MakeCase(
        id="json-transform-to-json-indented-by-tab",
        module={"module": "json:TransformToJSON", "version": 1, "parameters": {"space": "tab"},
                "mapper": {"object": "{{1.o}}"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"o": {"a": [1]}},
        output=[{"json": '{\n\t"a": [\n\t\t1\n\t]\n}'}],
        source=_TRANSFORM),
    MakeCase(
        id="switch-first-matching-case",
        module={"module": "util:Switcher", "version": 1, "parameters": {},
                "mapper": {"input": "{{1.event}}", "useRegExpMatch": False, "elseOutput": "stop",
                           "casesTable": [{"pattern": "complete", "output": "continue"},
                                          {"pattern": "failed", "output": "{{1.id}} failed"}]},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"event": "failed", "id": 7}, output=[{"output": "7 failed"}], source=_SWITCH),
    MakeCase(
        id="switch-else-output",
        module={"module": "util:Switcher", "version": 1, "parameters": {},
                "mapper": {"input": "{{1.event}}", "useRegExpMatch": True, "elseOutput": "stop",
                           "casesTable": [{"pattern": "^comp", "output": "continue"}]},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"event": "incomplete"}, output=[{"output": "stop"}], source=_SWITCH),
    MakeCase(
        id="webhook-respond-status-body-headers",
        module={"module": "gateway:WebhookRespond", "version": 1, "parameters": {},
                "mapper": {"status": "400", "body": "{{1.name}} is on leave today!",
                           "headers": [{"key": "X-Reason", "value": "leave"}]},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"name": "Ada"},
        output=[{}],
        response=(400, "Ada is on leave today!", {"X-Reason": "leave"}),
        source=_RESPOND),
]
