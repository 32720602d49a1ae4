"""Pinned cases of Zapier's built-in logic steps: Filter by Zapier, Delay by Zapier, Looping by Zapier.

Filter rules: Zapier's help "Filters Types" (https://help.zapier.com/hc/en-us/articles/8496014252301-Filters-Types)
and "Filter and path rules in Zaps" (https://help.zapier.com/hc/en-us/articles/8496180919949-Filter-and-path-rules-in-Zaps):
(Text) Contains is not case sensitive, Exactly matches is; (Number) Greater than 10 passes 11 and
100, not 9 or -1; (Boolean) Is true; rules in one group are ANDed, groups ORed. The node shape
(``filter_criteria[{key, match, value, group, action}]``, the ``key`` a field reference without
braces) is a real Zap export's (``igreater``/``iless``/``icontains``/``boolean`` appear in them).
"""

from __future__ import annotations

from typing import Any

from tests.conformance.zapier.runner import Case

FILTERS = "https://help.zapier.com/hc/en-us/articles/8496014252301-Filters-Types"
RULES = "https://help.zapier.com/hc/en-us/articles/8496180919949-Filter-and-path-rules-in-Zaps"


def _filter(*rules: tuple[str, str, Any, int]) -> dict[str, Any]:
    return {"type_of": "filter", "selected_api": "FilterAPI", "action": "filter", "params": {"filter_criteria": [
        {"id": i, "group": group, "key": key, "value": value, "match": match, "action": "continue"}
        for i, (key, match, value, group) in enumerate(rules)]}}


CASES: tuple[Case, ...] = (
    Case("text contains is not case sensitive", FILTERS, _filter(("1__title", "icontains", "Brown Fox", 1)),
         trigger={"title": "The quick brown fox"}, passes=True, decisions={"filterapi-filter": "passed"}),
    Case("text contains stops what does not contain it", FILTERS, _filter(("1__title", "icontains", "brown fox", 1)),
         trigger={"title": "jumps over the lazy dog"}, passes=False, decisions={"filterapi-filter": "stopped"}),
    Case("exactly matches is case sensitive", FILTERS, _filter(("1__name", "exact", "Apples", 1)),
         trigger={"name": "apples"}, passes=False),
    Case("number greater than 10 passes 100", RULES, _filter(("1__n", "igreater", "10", 1)), trigger={"n": 100},
         passes=True),
    Case("number greater than 10 stops -1", RULES, _filter(("1__n", "igreater", "10", 1)), trigger={"n": "-1"},
         passes=False),
    Case("number less than 10 passes 9", RULES, _filter(("1__n", "iless", "10", 1)), trigger={"n": "9"}, passes=True),
    Case("is in takes a comma-separated list", RULES, _filter(("1__fruit", "iin", "Apples, bananas", 1)),
         trigger={"fruit": "Bananas"}, passes=True),
    Case("starts with", RULES, _filter(("1__fruit", "istartswith", "App", 1)), trigger={"fruit": "Apricots"},
         passes=False),
    Case("boolean is true on a Code step's true", RULES, _filter(("1__isValid", "boolean", "", 1)),
         trigger={"isValid": True}, passes=True),
    Case("boolean is true stops false", RULES, _filter(("1__isValid", "boolean", "", 1)),
         trigger={"isValid": False}, passes=False),
    Case("exists stops an empty field", FILTERS, _filter(("1__email", "exists", "", 1)), trigger={"email": ""},
         passes=False),
    Case("rules of one group are ANDed", RULES, _filter(("1__t", "igreater", "45", 7), ("1__p", "iless", "50", 7)),
         trigger={"t": "50", "p": "60"}, passes=False),
    Case("groups are ORed", RULES, _filter(("1__t", "igreater", "45", 7), ("1__p", "iless", "50", 8)),
         trigger={"t": "50", "p": "60"}, passes=True),
    Case("a nested field is read by its __ path", RULES, _filter(("1__channel__name", "icontains", "editor", 1)),
         trigger={"channel": {"name": "editorial"}}, passes=True),
)

DELAY = "https://help.zapier.com/hc/en-us/articles/8496288754829-Add-delays-to-Zaps"

# "Delay releases instantly when the Date/Time Delay Until value is set in the past [or] the Time
# Delayed For value is 0 or a negative number" (the page above). The step's output is not compared:
# Zapier does not document it (a step reading it stays a TODO).
TIMED: tuple[Case, ...] = (
    Case("delay for 5 minutes waits 300 s", DELAY,
         {"type_of": "write", "selected_api": "DelayCLIAPI", "action": "delay_for",
          "params": {"time_delay_for_value": "5", "time_delay_for_unit": "minutes"}}, slept=300.0),
    Case("delay for a negative value releases at once", DELAY,
         {"type_of": "write", "selected_api": "DelayCLIAPI", "action": "delay_for",
          "params": {"time_delay_for_value": "{{1__n}}", "time_delay_for_unit": "hours"}}, trigger={"n": "-2"},
         slept=0.0),
    Case("delay until a mapped time waits until it", DELAY,
         {"type_of": "write", "selected_api": "DelayCLIAPI", "action": "delay_until",
          "params": {"delay_until": "{{1__at}}"}}, trigger={"at": "2024-05-01T13:00:00Z"}, slept=3600.0),
    Case("delay until a past time releases at once", DELAY,
         {"type_of": "write", "selected_api": "DelayCLIAPI", "action": "delay_until",
          "params": {"delay_until": "2024-04-01T00:00:00Z"}}, slept=0.0),
)

# Paths (the page below): each path branch has its rules (the filter rules above), which "determine
# whether the Zap will perform subsequent steps in the path"; paths are tried in order.
# The node shape (a BranchingAPI branch whose children are BranchingAPI filter nodes, a path's
# "do not continue if" rule with action "stop") is a real Zap export's.
PATHS_HELP = "https://help.zapier.com/hc/en-us/articles/8496288555917-Add-branching-logic-to-Zaps-with-Paths"
_BRANCH = {"type_of": "write", "selected_api": "BranchingAPI", "action": "branch", "params": {}}


def _path(ident: int, action: str) -> dict[str, Any]:
    return {"id": ident, "parent_id": 2, "type_of": "filter", "selected_api": "BranchingAPI", "action": "filter",
            "params": {"filter_criteria": [{"id": ident, "group": 1, "key": "1__channel__name", "value": "editor",
                                            "match": "icontains", "action": action}]}}


def _ran(ident: int, parent: int, label: str) -> dict[str, Any]:
    return {"id": ident, "parent_id": parent, "type_of": "write", "selected_api": "CodeAPI", "action": "run_python",
            "params": {"code": f"output = {{'ran': {label!r}}}"}}


_PATHS = (_path(3, "continue"), _path(4, "stop"), _ran(5, 3, "A"), _ran(6, 4, "B"))
PATHS: tuple[Case, ...] = (
    Case("the path whose rules pass runs", PATHS_HELP, _BRANCH, trigger={"channel": {"name": "Editorial"}},
         more=_PATHS, decisions={"branchingapi-branch": "Path A"}),
    Case("a path's do-not-continue rule runs it when the rule does not hold", PATHS_HELP, _BRANCH,
         trigger={"channel": {"name": "general"}}, more=_PATHS, decisions={"branchingapi-branch": "Path B"}),
    Case("every path whose rules pass runs, in order", PATHS_HELP, _BRANCH, trigger={"channel": {"name": "editor"}},
         more=(_path(3, "continue"), _path(4, "continue"), _ran(5, 3, "A"), _ran(6, 4, "B")),
         decisions={"branchingapi-branch": ["Path A", "Path B"]}),
    Case("no path's rules pass: the run is filtered", PATHS_HELP, _BRANCH, trigger={"channel": {"name": "general"}},
         more=(_path(3, "continue"), _ran(5, 3, "A")), passes=False),
)
