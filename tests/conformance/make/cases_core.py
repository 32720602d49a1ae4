"""Pinned cases of Make's IML as the modules map it (functions, system variables, paths after a call)
and of data store "Search records" (the make-datastore provider, Make's API)."""

from __future__ import annotations

from typing import Any

from tests.conformance.make.runner import Call, MakeCase, Reply

_FN = "https://www.make.com/en/help/functions (general, math, text, date and array functions)"
_DATES = "https://www.make.com/en/help/functions/date---time-functions (parseDate, formatDate, addMonths, setHour)"
_VARS = "https://help.make.com/system-variables (scenario name, execution ID)"
_VARIABLES = "https://www.make.com/en/help/tools/tools (Set multiple variables, Get variable: the variables under their names)"
_STORE = "https://www.make.com/en/help/tools/data-store (Search records: filter, sort, limit; output Key, Record) and https://developers.make.com/api-documentation/api-reference/data-stores-greater-than-data"


def _compose(value: str) -> dict[str, Any]:
    return {"module": "util:ComposeTransformer", "version": 1, "parameters": {}, "mapper": {"value": value},
            "metadata": {"designer": {"x": 300, "y": 0}}}


def _case(ident: str, value: str, expected: str, source: str = _FN, **fields: Any) -> MakeCase:
    return MakeCase(id=ident, module=_compose(value), input=fields, output=[{"value": expected}], source=source)


CASES = [
    _case("iml-if-with-an-empty-argument", '{{if(1.test; "*Testing* of "; )}}done', "done", test=False),
    _case("iml-if-empty-argument-taken", '{{if(1.test; "*Testing* of "; )}}done', "*Testing* of done", test=True),
    _case("iml-path-after-a-call", "{{first(1.rows).supplier_id}}", "s-1", rows=[{"supplier_id": "s-1"}, {}]),
    _case("iml-parse-then-format-date", '{{formatDate(parseDate(1.date; "D/M/YYYY"); "YYYY-MM-DD")}}', "2024-07-03",
          _DATES, date="3/7/2024"),
    _case("iml-parse-date-with-time-and-zone", '{{formatDate(parseDate(1.at; "DD.MM.YYYY HH:mm"; "Europe/Rome"); '
          '"YYYY-MM-DDTHH:mm:ssZ")}}', "2024-01-15T08:30:00+00:00", _DATES, at="15.01.2024 09:30"),
    _case("iml-add-months-clamps-the-day", '{{formatDate(addMonths(1.d; 1); "YYYY-MM-DD")}}', "2024-02-29", _DATES,
          d="2024-01-31T10:00:00.000Z"),
    _case("iml-set-hour", '{{formatDate(setHour(1.d; 7); "YYYY-MM-DD HH:mm")}}', "2024-01-31 07:00", _DATES,
          d="2024-01-31T10:00:00.000Z"),
    _case("iml-sha256-and-base64", "{{sha256(1.s)}} {{base64(1.s)}}",
          "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824 aGVsbG8=", s="hello"),
    _case("iml-encode-url", "{{encodeURL(1.q)}}", "a%20b%26c%2Fd", q="a b&c/d"),
    _case("iml-strip-and-escape-html", "{{stripHTML(1.h)}}|{{escapeHTML(1.t)}}", "Hi & bye|&lt;b&gt;", h="<b>Hi</b> &amp; bye",
          t="<b>"),
    _case("iml-sort-flatten-deduplicate", "{{join(sort(deduplicate(flatten(1.a))); \",\")}}", "1,2,3",
          a=[[3, 1], [2, 3]]),
    _case("iml-format-number", '{{formatNumber(1.n; 2; ","; ".")}}', "1.234.567,89", n=1234567.891),
    _case("iml-keywords", "{{timestamp}}|{{length(emptyarray)}}|{{nbsp}}|{{carriagereturn}}",
          "1717407000|0|\u00a0|\r", "https://www.make.com/en/help/functions/general-functions (keywords: timestamp, emptyarray, nbsp, carriagereturn)"),
    _case("iml-scenario-name", "{{var.scenario.name}}", "conformance iml-scenario-name", _VARS),
    _case("iml-execution-id-is-the-job", "{{var.scenario.executionId}}", "00000000-0000-0000-0000-000000000000", _VARS),
    MakeCase(id="iml-scenario-url-is-a-setting", module=_compose("{{var.scenario.url}}"),
             env={"MAKE_SCENARIO_URL": "https://eu1.make.com/1/scenarios/2/edit"},
             output=[{"value": "https://eu1.make.com/1/scenarios/2/edit"}], source=_VARS),
    MakeCase(id="iml-scenario-url-unset-names-the-setting", module=_compose("{{var.team.name}}"),
             output=[], error="var.team.name: set MAKE_TEAM_NAME", source=_VARS),
    MakeCase(
        id="set-multiple-variables",
        module={"module": "util:SetVariables", "version": 1, "parameters": {},
                "mapper": {"scope": "roundtrip", "variables": [{"name": "who", "value": "{{1.name}}"},
                                                               {"name": "n", "value": "{{1.n + 1}}"}]},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"name": "Ada", "n": 1},
        output=[{"who": "Ada", "n": 2}], source=_VARIABLES),
    MakeCase(
        id="get-variable-set-earlier",
        before=({"id": 2, "module": "util:SetVariable2", "version": 1, "parameters": {},
                 "mapper": {"name": "greeting", "scope": "roundtrip", "value": "Hello {{1.name}}"},
                 "metadata": {"designer": {"x": 150, "y": 0}}},),
        module={"module": "util:GetVariable2", "version": 1, "parameters": {}, "mapper": {"name": "greeting"},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"name": "Ada"},
        output=[{"greeting": "Hello Ada"}], source=_VARIABLES),
    MakeCase(
        id="sleep-waits-then-goes-on",
        module={"module": "util:FunctionSleep", "version": 1, "parameters": {}, "mapper": {"duration": "{{1.s}}"},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"s": "5"}, output=[{}],
        source="https://www.make.com/en/help/tools/tools (Sleep: Delay in seconds; no output)"),
    MakeCase(
        id="set-variable-v1",
        module={"module": "util:SetVariable", "version": 1, "parameters": {},
                "mapper": {"name": "total", "scope": "roundtrip", "value": "{{1.a * 2}}"},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"a": 4}, output=[{"total": 8}], source=_VARIABLES),
    MakeCase(
        id="get-multiple-variables",
        before=({"id": 2, "module": "util:SetVariables", "version": 1, "parameters": {},
                 "mapper": {"scope": "roundtrip", "variables": [{"name": "Method", "value": "{{1.m}}"}]},
                 "metadata": {"designer": {"x": 150, "y": 0}}},),
        module={"module": "util:GetVariables", "version": 1, "parameters": {},
                "mapper": {"variables": ["Method", "Unset"]}, "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"m": "email"},
        output=[{"Method": "email", "Unset": None}], source=_VARIABLES),
    MakeCase(
        id="datastore-search-records-filter-sort-limit",
        module={"module": "datastore:SearchRecord", "version": 1,
                "parameters": {"limit": 2, "datastore": 3796, "continueWhenNoRes": False},
                "mapper": {"sort": [{"key": "Name", "order": -1}],
                           "filter": [[{"a": "Team", "b": "{{1.team}}", "o": "text:equal"}]]},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"team": "ops"},
        replies=(Reply(200, json={"records": [
            {"key": "a", "data": {"Name": "Ada", "Team": "ops"}}, {"key": "b", "data": {"Name": "Bob", "Team": "dev"}},
            {"key": "c", "data": {"Name": "Cy", "Team": "ops"}}, {"key": "d", "data": {"Name": "Di", "Team": "ops"}}],
            "count": 4, "pg": {"limit": 1000, "offset": 0}}, headers={"content-type": "application/json"}),),
        calls=(Call("GET", "/data-stores/3796/data", params={"pg[limit]": "1000", "pg[offset]": "0"},
                    provider="make-datastore"),),
        output=[{"key": "d", "data": {"Name": "Di", "Team": "ops"}}, {"key": "c", "data": {"Name": "Cy", "Team": "ops"}}],
        source=_STORE),
    MakeCase(
        id="datastore-search-records-none-found",
        module={"module": "datastore:SearchRecord", "version": 1,
                "parameters": {"limit": None, "datastore": 7, "continueWhenNoRes": False},
                "mapper": {"sort": [], "filter": [[{"a": "key", "b": "{{1.k}}", "o": "text:equal"}]]},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"k": "zz"},
        replies=(Reply(200, json={"records": [{"key": "a", "data": {}}], "count": 1}, headers={"content-type": "application/json"}),),
        calls=(Call("GET", "/data-stores/7/data", provider="make-datastore"),),
        output=[], source=_STORE),
    MakeCase(
        id="datastore-search-records-replayed-bundle",
        module={"module": "datastore:SearchRecord", "version": 1,
                "parameters": {"limit": None, "datastore": 7, "continueWhenNoRes": False},
                "mapper": {"sort": [], "filter": [[{"a": "Email ID", "b": "{{1.e}}", "o": "text:equal"}]]},
                "metadata": {"designer": {"x": 300, "y": 0}}},
        input={"e": "ada@example.com"},
        replies=(Reply(200, json={"key": "k1", "data": {"Email ID": "ada@example.com"}},
                       headers={"content-type": "application/json", "X-Cutover-Recorded": "recording"}),),
        calls=(Call("GET", "/data-stores/7/data"),),
        output=[{"key": "k1", "data": {"Email ID": "ada@example.com"}}], source=_STORE),
]
