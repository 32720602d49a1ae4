"""Pinned cases of Make's error handlers (Ignore, Resume, Commit, Rollback, Break) and of the Repeater
as a scenario's first module."""

from __future__ import annotations

from typing import Any

from tests.conformance.make.runner import Call, MakeCase, Reply

_ERRORS = "https://www.make.com/en/help/errors/directives-for-error-handling (Ignore, Resume, Commit, Rollback, Break)"
_BREAK = "https://www.make.com/en/help/errors/break-error-handler (Break: number of attempts, interval between attempts)"
_AGGREGATOR = "https://www.make.com/en/help/tools/flow-control (Array aggregator: Source module; output Array)"
_ITERATOR = "https://www.make.com/en/help/tools/flow-control (Iterator: one bundle per element, Bundle order position, Total number of bundles)"
_TEXT_AGG = "https://www.make.com/en/help/tools/tools (Text aggregator: Row separator; output Text)"
_ROUTER = "https://www.make.com/en/help/tools/flow-control (Router: a bundle goes down every route whose filter passes, in order)"
_REPEATER = "https://www.make.com/en/help/tools/flow-control (Repeater: Initial value, Repeats, Step; output i)"


def _failing(handler: str, **mapper: Any) -> dict[str, Any]:
    """An HTTP module that errs on a 4xx ("Evaluate all states as errors"), with one error handler."""
    return {"module": "http:ActionSendData", "version": 3, "parameters": {"handleErrors": True},
            "mapper": {"url": "https://api.example.com/items/{{1.id}}", "method": "get", "headers": [], "qs": [],
                       "bodyType": "", "parseResponse": True},
            "metadata": {"designer": {"x": 300, "y": 0}},
            "onerror": [{"id": 901, "module": handler, "version": 1, "parameters": {}, "mapper": mapper,
                         "metadata": {"designer": {"x": 300, "y": 150}}}]}


def _with_route(*handlers: dict[str, Any]) -> dict[str, Any]:
    """The failing module with an error handler route of ``handlers`` (the last may be a directive)."""
    module = _failing("builtin:Ignore")
    module["onerror"] = [{**h, "metadata": {"designer": {"x": 300 + 150 * i, "y": 150}}} for i, h in enumerate(handlers)]
    return module


_NOTIFY = {"id": 905, "module": "http:ActionSendData", "version": 3, "parameters": {"handleErrors": False},
           "mapper": {"url": "https://alerts.example.com/hook", "method": "post", "headers": [], "qs": [],
                      "bodyType": "raw", "contentType": "application/json",
                      "data": '{"failed": "{{900.error.message}}", "id": "{{1.id}}"}', "parseResponse": True}}
_ROUTE = "https://help.make.com/overview-of-error-handling (the error handler route runs its modules, then its directive; a route without one is handled as Ignore)"
_CALL = (Call("GET", "https://api.example.com/items/5"),)
_SEARCH = {"id": 2, "module": "datastore:SearchRecord", "version": 1,
           "parameters": {"limit": None, "datastore": 7, "continueWhenNoRes": False},
           "mapper": {"sort": [], "filter": []}, "metadata": {"designer": {"x": 150, "y": 0}},
           "onerror": [{"id": 3, "module": "builtin:Ignore", "version": 1, "parameters": {}, "mapper": {},
                        "metadata": {"designer": {"x": 150, "y": 150}}}]}
_REJECTED = (Reply(400, json={"error": "bad"}, headers={"content-type": "application/json"}),)

CASES = [
    MakeCase(
        id="error-handler-ignore-stops-the-bundle",
        module=_failing("builtin:Ignore"), input={"id": 5}, replies=_REJECTED, calls=_CALL,
        output=[], source=_ERRORS),
    MakeCase(
        id="error-handler-resume-substitutes-the-output",
        module=_failing("builtin:Resume", statusCode=200, data="{{1.id}} not found"), input={"id": 5},
        replies=_REJECTED, calls=_CALL,
        output=[{"statusCode": 200, "data": "5 not found"}], source=_ERRORS),
    MakeCase(
        id="error-handler-resume-not-used-on-success",
        module=_failing("builtin:Resume", statusCode=200, data="fallback"), input={"id": 5},
        replies=(Reply(200, json={"id": 5}, headers={"content-type": "application/json"}),), calls=_CALL,
        output=[{"statusCode": 200, "headers": [{"name": "content-type", "value": "application/json"},
                                                {"name": "content-length", "value": "8"}], "data": {"id": 5}}],
        source=_ERRORS),
    MakeCase(
        id="error-handler-commit-ends-the-run-successfully",
        module=_failing("builtin:Commit"), input={"id": 5}, replies=_REJECTED, calls=_CALL,
        output=[], source=_ERRORS),
    MakeCase(
        id="error-handler-rollback-fails-the-run",
        module=_failing("builtin:Rollback"), input={"id": 5}, replies=_REJECTED, calls=_CALL,
        output=[], error="TerminalError: module 900: step 'http-actionsenddata-900': HTTP 400 client error "
                         "(error handler Rollback: the run fails)", source=_ERRORS),
    MakeCase(
        id="error-handler-break-retries-after-the-interval",
        module=_failing("builtin:Break", retry=True, count="3", interval="15"), input={"id": 5}, replies=_REJECTED,
        calls=_CALL, output=[], error="RetryableError: module 900: step 'http-actionsenddata-900': HTTP 400 client "
                                      "error (error handler Break: retry 1 of 3)", source=_BREAK),
    MakeCase(
        id="error-handler-break-fails-when-attempts-are-spent",
        module=_failing("builtin:Break", retry=True, count="3", interval="15"), input={"id": 5}, replies=_REJECTED,
        calls=_CALL, attempt=4, output=[], error="TerminalError: module 900: step 'http-actionsenddata-900': HTTP 400 "
                                                 "client error (error handler Break: no retry left)", source=_BREAK),
    MakeCase(
        id="error-route-modules-run-then-ignore",
        module=_with_route(_NOTIFY, {"id": 906, "module": "builtin:Ignore", "version": 1, "parameters": {}, "mapper": {}}),
        input={"id": 5}, replies=(*_REJECTED, Reply(200, json={"ok": True}, headers={"content-type": "application/json"})),
        calls=(*_CALL, Call("POST", "https://alerts.example.com/hook",
                            json={"failed": "step 'http-actionsenddata-900': HTTP 400 client error", "id": "5"})),
        output=[], source=_ROUTE),
    MakeCase(
        id="error-route-without-a-directive-is-ignore",
        module=_with_route(_NOTIFY),
        input={"id": 5}, replies=(*_REJECTED, Reply(200, json={"ok": True}, headers={"content-type": "application/json"})),
        calls=(*_CALL, Call("POST", "https://alerts.example.com/hook")),
        output=[], source=_ROUTE),
    MakeCase(
        id="error-route-router-ending-in-rollback",
        module=_with_route({"id": 907, "module": "builtin:BasicRouter", "version": 1, "parameters": {}, "mapper": None,
                            "routes": [{"flow": [{"id": 908, "module": "builtin:Rollback", "version": 1, "parameters": {},
                                                  "mapper": {}, "metadata": {"designer": {"x": 600, "y": 150}}}]}]}),
        input={"id": 5}, replies=_REJECTED, calls=_CALL,
        output=[], error="(error handler Rollback: the run fails)", source=_ROUTE),
    MakeCase(
        id="error-route-modules-then-resume",
        module=_with_route(_NOTIFY, {"id": 906, "module": "builtin:Resume", "version": 1, "parameters": {},
                                     "mapper": {"statusCode": 299, "data": "skipped"}}),
        input={"id": 5}, replies=(*_REJECTED, Reply(200, json={"ok": True}, headers={"content-type": "application/json"})),
        calls=(*_CALL, Call("POST", "https://alerts.example.com/hook")),
        output=[{"statusCode": 299, "data": "skipped"}], source=_ROUTE),
    MakeCase(
        id="array-aggregator-over-a-module-that-outputs-bundles",
        before=({"id": 2, "module": "json:ParseJSON", "version": 1, "parameters": {"type": ""},
                 "mapper": {"json": "{{1.payload}}"}, "metadata": {"designer": {"x": 150, "y": 0}}},),
        module={"module": "builtin:BasicAggregator", "version": 1, "parameters": {"feeder": 2},
                "mapper": {"sku": "{{2.sku}}"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"payload": '[{"sku": "a"}, {"sku": "b"}]'},
        output=[{"array": [{"sku": "a"}, {"sku": "b"}]}], source=_AGGREGATOR),
    MakeCase(
        id="array-aggregator-after-a-search-whose-error-is-ignored",
        before=(_SEARCH,),
        module={"module": "builtin:BasicAggregator", "version": 1, "parameters": {"feeder": 2},
                "mapper": {"k": "{{2.key}}"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        replies=_REJECTED, calls=(Call("GET", "/data-stores/7/data"),),
        output=[], source=_AGGREGATOR),
    MakeCase(
        id="array-aggregator-after-a-search-with-an-error-route",
        before=(_SEARCH,),
        module={"module": "builtin:BasicAggregator", "version": 1, "parameters": {"feeder": 2},
                "mapper": {"k": "{{2.key}}"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        replies=(Reply(200, json=[{"key": "a", "data": {}}, {"key": "b", "data": {}}],
                       headers={"content-type": "application/json", "X-Cutover-Recorded": "recording"}),),
        calls=(Call("GET", "/data-stores/7/data"),),
        output=[{"array": [{"k": "a"}, {"k": "b"}]}], source=_AGGREGATOR),
    MakeCase(
        id="iterator-one-bundle-per-element",
        module={"module": "builtin:BasicFeeder", "version": 1, "parameters": {}, "mapper": {"array": "{{1.items}}"},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"items": [{"id": 1}, "two"]},
        output=[{"id": 1, "__IMTINDEX__": 1, "__IMTLENGTH__": 2}, {"value": "two", "__IMTINDEX__": 2, "__IMTLENGTH__": 2}],
        source=_ITERATOR),
    MakeCase(
        id="text-aggregator-joins-rows",
        before=({"id": 2, "module": "json:ParseJSON", "version": 1, "parameters": {"type": ""},
                 "mapper": {"json": "{{1.payload}}"}, "metadata": {"designer": {"x": 150, "y": 0}}},),
        module={"module": "util:TextAggregator", "version": 1, "parameters": {"feeder": 2, "rowSeparator": "\n"},
                "mapper": {"value": "{{2.sku}} x{{2.qty}}"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"payload": '[{"sku": "a", "qty": 1}, {"sku": "b", "qty": 2}]'},
        output=[{"text": "a x1\nb x2"}], source=_TEXT_AGG),
    MakeCase(
        id="text-aggregator-other-separator",
        before=({"id": 2, "module": "builtin:BasicFeeder", "version": 1, "parameters": {},
                 "mapper": {"array": "{{1.words}}"}, "metadata": {"designer": {"x": 150, "y": 0}}},),
        module={"module": "util:TextAggregator", "version": 1,
                "parameters": {"feeder": 2, "rowSeparator": "other", "otherRowSeparator": " "},
                "mapper": {"value": "{{2.word}}"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"words": [{"word": "hello"}, {"word": "there"}]},
        output=[{"text": "hello there"}], source=_TEXT_AGG),
    MakeCase(
        id="array-aggregator-whose-source-is-a-one-bundle-module",
        before=({"id": 2, "module": "util:SetVariable2", "version": 1, "parameters": {},
                 "mapper": {"name": "who", "scope": "roundtrip", "value": "{{1.who}}"},
                 "metadata": {"designer": {"x": 100, "y": 0}}},
                {"id": 3, "module": "builtin:BasicFeeder", "version": 1, "parameters": {},
                 "mapper": {"array": "{{1.items}}"}, "metadata": {"designer": {"x": 200, "y": 0}}}),
        module={"module": "builtin:BasicAggregator", "version": 1, "parameters": {"feeder": 2},
                "mapper": {"line": "{{2.who}}: {{3.value}}"}, "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"who": "ada", "items": ["a", "b"]},
        output=[{"array": [{"line": "ada: a"}, {"line": "ada: b"}]}], source=_AGGREGATOR),
    MakeCase(
        id="router-every-passing-route-runs",
        module={"module": "builtin:BasicRouter", "version": 1, "parameters": {}, "mapper": None,
                "metadata": {"designer": {"x": 300, "y": 0, "name": "By size"}},
                "routes": [{"flow": [{"id": 910, "module": "util:ComposeTransformer", "version": 1, "parameters": {},
                                      "mapper": {"value": "big"}, "metadata": {"designer": {"x": 450, "y": 0}},
                                      "filter": {"name": "Big", "conditions": [[{"a": "{{1.n}}", "o": "number:greater",
                                                                                 "b": "10"}]]}}]},
                           {"flow": [{"id": 911, "module": "util:ComposeTransformer", "version": 1, "parameters": {},
                                      "mapper": {"value": "small"}, "metadata": {"designer": {"x": 450, "y": 150}},
                                      "filter": {"name": "Small", "conditions": [[{"a": "{{1.n}}", "o": "number:less",
                                                                                   "b": "10"}]]}}]},
                           {"flow": [{"id": 912, "module": "util:ComposeTransformer", "version": 1, "parameters": {},
                                      "mapper": {"value": "any"}, "metadata": {"designer": {"x": 450, "y": 300}}}]}]},
        input={"n": 50},
        decisions={"by-size": ["Big", "2"]}, source=_ROUTER),
    MakeCase(
        id="repeater-first-module-counts",
        module={"module": "builtin:BasicRepeater", "version": 1, "parameters": {},
                "mapper": {"start": "1", "repeats": "3", "step": "2"}, "metadata": {"designer": {"x": 0, "y": 0}}},
        first=True,
        output=[{"i": 1}, {"i": 3}, {"i": 5}], source=_REPEATER),
]
