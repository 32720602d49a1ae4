"""Pinned cases: variables, data operations, Response and Delay, as Microsoft documents them."""

from __future__ import annotations

from tests.conformance.power_automate.runner import Case

VARIABLES = "https://learn.microsoft.com/azure/logic-apps/logic-apps-create-variables-store-values"
DATA = "https://learn.microsoft.com/azure/logic-apps/logic-apps-perform-data-operations"
ACTIONS = "https://learn.microsoft.com/azure/logic-apps/logic-apps-workflow-actions-triggers"


def _init(name: str, kind: str, value: object = None) -> dict[str, object]:
    declared: dict[str, object] = {"name": name, "type": kind}
    if value is not None:
        declared["value"] = value
    return {"type": "InitializeVariable", "runAfter": {}, "inputs": {"variables": [declared]}}


def _after(spec: dict[str, object], before: str) -> dict[str, object]:
    return {**spec, "runAfter": {before: ["Succeeded"]}}


ROWS = [{"id": 1, "name": "Ana", "team": "red"}, {"id": 2, "name": "Bo", "team": "blue"}, {"id": 3, "name": "Cy", "team": "red"}]

CASES = [
    Case("compose-outputs-its-inputs-evaluated", ("Compose",), f"{ACTIONS}#compose-action",
         {"Compose": {"type": "Compose", "runAfter": {},
                      "inputs": {"who": "@triggerBody()?['name']", "greeting": "Hello @{triggerBody()?['name']}!", "n": 2}}},
         body={"name": "Ana"}, outputs={"Compose": {"who": "Ana", "greeting": "Hello Ana!", "n": 2}}),
    Case("initialize-then-set-a-variable", ("InitializeVariable", "SetVariable"), VARIABLES,
         {"Init": _init("city", "string", "Oslo"),
          "Set": _after({"type": "SetVariable", "inputs": {"name": "city", "value": "@triggerBody()?['city']"}}, "Init")},
         body={"city": "Bergen"}, variables={"city": "Bergen"}, status={"Init": "Succeeded", "Set": "Succeeded"}),
    Case("a-variable-of-another-type-fails-initialize", ("InitializeVariable",), VARIABLES,
         {"Init": _init("count", "integer", "@triggerBody()?['count']")},
         body={"count": "three"}, status={"Init": "Failed"}, outcome="failed"),
    Case("setting-a-variable-never-initialized-fails", ("SetVariable",), VARIABLES,
         {"Set": {"type": "SetVariable", "runAfter": {}, "inputs": {"name": "nope", "value": 1}}},
         status={"Set": "Failed"}, outcome="failed"),
    Case("increment-by-one-unless-a-value-is-given-and-decrement", ("IncrementVariable", "DecrementVariable",
                                                                    "InitializeVariable"), VARIABLES,
         {"Init": _init("n", "integer", 10),
          "Up": _after({"type": "IncrementVariable", "inputs": {"name": "n"}}, "Init"),
          "Up_5": _after({"type": "IncrementVariable", "inputs": {"name": "n", "value": 5}}, "Up"),
          "Down": _after({"type": "DecrementVariable", "inputs": {"name": "n", "value": 3}}, "Up_5")},
         variables={"n": 13}),
    Case("increment-a-string-variable-fails", ("IncrementVariable",), VARIABLES,
         {"Init": _init("s", "string", "a"), "Up": _after({"type": "IncrementVariable", "inputs": {"name": "s"}}, "Init")},
         status={"Up": "Failed"}, outcome="failed"),
    Case("append-to-array-and-to-string", ("AppendToArrayVariable", "AppendToStringVariable", "InitializeVariable"),
         VARIABLES,
         {"Init": {"type": "InitializeVariable", "runAfter": {}, "inputs": {"variables": [
             {"name": "list", "type": "array", "value": [1]}, {"name": "text", "type": "string", "value": "a"}]}},
          "Push": _after({"type": "AppendToArrayVariable", "inputs": {"name": "list", "value": {"x": 2}}}, "Init"),
          "Add": _after({"type": "AppendToStringVariable", "inputs": {"name": "text", "value": "-b"}}, "Push")},
         variables={"list": [1, {"x": 2}], "text": "a-b"}),
    Case("parse-json-parses-text-and-checks-the-schema", ("ParseJson",), f"{DATA}#parse-json-action",
         {"Parse": {"type": "ParseJson", "runAfter": {},
                    "inputs": {"content": "@triggerBody()?['raw']",
                               "schema": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}}},
         body={"raw": "{\"id\": 7, \"tags\": [\"x\"]}"}, outputs={"Parse": {"body": {"id": 7, "tags": ["x"]}}}),
    Case("parse-json-fails-when-a-required-property-is-missing", ("ParseJson",), f"{DATA}#parse-json-action",
         {"Parse": {"type": "ParseJson", "runAfter": {},
                    "inputs": {"content": "@triggerBody()", "schema": {"type": "object", "required": ["id"]}}}},
         body={"name": "no id"}, status={"Parse": "Failed"}, outcome="failed"),
    Case("filter-array-keeps-the-items-where-the-condition-holds", ("Query",), f"{DATA}#filter-array-action",
         {"Filter": {"type": "Query", "runAfter": {},
                     "inputs": {"from": "@triggerBody()?['rows']", "where": "@item()?['active']"}}},
         body={"rows": [{"n": 1, "active": True}, {"n": 2, "active": False}, {"n": 3, "active": True}]},
         outputs={"Filter": {"body": [{"n": 1, "active": True}, {"n": 3, "active": True}]}}),
    Case("select-maps-each-item", ("Select",), f"{DATA}#select-action",
         {"Select": {"type": "Select", "runAfter": {},
                     "inputs": {"from": "@triggerBody()?['rows']", "select": {"key": "@item()?['id']", "who": "@item()?['name']"}}}},
         body={"rows": ROWS}, outputs={"Select": {"body": [{"key": 1, "who": "Ana"}, {"key": 2, "who": "Bo"},
                                                             {"key": 3, "who": "Cy"}]}}),
    Case("join-writes-the-items-with-the-separator", ("Join",), f"{DATA}#join-action",
         {"Join": {"type": "Join", "runAfter": {}, "inputs": {"from": "@triggerBody()?['xs']", "joinWith": "; "}}},
         body={"xs": ["a", 1, "c"]}, outputs={"Join": {"body": "a; 1; c"}}),
    Case("create-csv-table-with-automatic-columns", ("Table",), f"{DATA}#create-csv-table-action",
         {"CSV": {"type": "Table", "runAfter": {}, "inputs": {"from": "@triggerBody()?['rows']", "format": "CSV"}}},
         body={"rows": ROWS[:2]}, outputs={"CSV": {"body": "id,name,team\r\n1,Ana,red\r\n2,Bo,blue\r\n"}}),
    Case("create-csv-table-with-custom-columns", ("Table",), f"{DATA}#create-csv-table-action",
         {"CSV": {"type": "Table", "runAfter": {},
                  "inputs": {"from": "@triggerBody()?['rows']", "format": "CSV",
                             "columns": [{"header": "Who", "value": "@item()?['name']"}]}}},
         body={"rows": ROWS[:2]}, outputs={"CSV": {"body": "Who\r\nAna\r\nBo\r\n"}}),
    Case("response-answers-the-request-trigger", ("Response",), f"{ACTIONS}#response-action",
         {"Response": {"type": "Response", "kind": "Http", "runAfter": {},
                       "inputs": {"statusCode": 201, "headers": {"x-id": "@triggerBody()?['id']"},
                                  "body": {"created": "@triggerBody()?['id']"}}}},
         body={"id": "r-1"}, response={"status": 201, "body": {"created": "r-1"}, "headers": {"x-id": "r-1"}}),
    Case("find-text-position-is-the-index-or-minus-one", ("Expression:IndexOf",), f"{DATA}",
         {"Find": {"type": "Expression", "kind": "IndexOf", "runAfter": {},
                   "inputs": {"text": "@triggerBody()?['t']", "searchText": "v1.0"}},
          "Miss": {"type": "Expression", "kind": "IndexOf", "runAfter": {"Find": ["Succeeded"]},
                   "inputs": {"text": "abc", "searchText": "z"}}},
         body={"t": "https://graph/v1.0/users"}, outputs={"Find": {"body": 14}, "Miss": {"body": -1}}),
]
