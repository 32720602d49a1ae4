"""Generate the conformance cases: node parameters and input items, with Hypothesis.

For every node type × typeVersion n8n 1.123 ships for IF, Filter, Set (Edit Fields), Switch,
Merge and NoOp, a strategy draws the node's parameters the way an n8n export holds them —
every optional parameter may be left out (an export omits a parameter equal to its default, so
the node then runs on n8n's default), conditions of every type and operation, OR as well as
AND, case and type-validation options — and the items of each of its inputs: fields of every
JSON type, nulls, missing fields, nested lists and objects, empty inputs, several inputs (a
Merge on its third input).

Generation is deterministic for one Hypothesis release: each (type, version) has its own fixed
seed, no example database, and a bounded number of examples (``CUTOVER_ORACLE_EXAMPLES``, default
30) so the whole suite stays one n8n batch of a few hundred workflows. Another Hypothesis release
draws other cases from the same seed (a CI run on a fresh install did), so the cases the committed
table measured are pinned in ``cases.json``, written with the table by ``python -m
tests.oracle.conformance --write``: :func:`pinned` reads them, and the suite runs exactly those.
Cases are generated first and run together; nothing here runs a node.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tests.oracle import targeted
from tests.oracle.workflow import Case

FIELDS = ("a", "b", "c")
_STRINGS = ["", "a", "A", "abc", "ABC", "b", "xa", "10", "2.5", "-3", "true", "false", "2024-01-15",
            "2024-03-01T10:00:00Z", " a ", "null"]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from([0.5, -2.5, 10.25]),
                    st.sampled_from(_STRINGS))
VALUES = st.one_of(SCALARS, SCALARS, SCALARS, st.lists(SCALARS, max_size=3),
                   st.dictionaries(st.sampled_from(["x", "y"]), SCALARS, max_size=2))
ITEM = st.fixed_dictionaries({}, optional={name: VALUES for name in FIELDS})


def _items(item: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[list[dict[str, Any]]]:
    """One input's items: one to four, or (one draw in eight) none at all."""
    return st.integers(1, 8).flatmap(lambda n: st.just([]) if n == 8 else st.lists(item, min_size=1, max_size=4))


ITEMS = _items(ITEM)
# A Merge matching on fields needs values that collide across its inputs.
KEYED_ITEM = st.fixed_dictionaries({}, optional={"a": st.one_of(st.integers(1, 3), st.sampled_from(["1", "x"]), st.none()),
                                                 "b": SCALARS, "c": SCALARS})
KEYED_ITEMS = _items(KEYED_ITEM)


def _omittable(draw: st.DrawFn, params: dict[str, Any], name: str, value: st.SearchStrategy[Any]) -> None:
    """Set ``params[name]`` to a drawn value, or leave it out (n8n's default then applies)."""
    if draw(st.booleans()):
        params[name] = draw(value)


def _field_ref() -> st.SearchStrategy[str]:
    return st.sampled_from(FIELDS).map(lambda f: f"={{{{ $json.{f} }}}}")


# -- conditions of the filter model (IF v2, Filter v2, Switch v3) ------------------------------

OPERATIONS: dict[str, list[str]] = {
    "string": ["exists", "notExists", "empty", "notEmpty", "equals", "notEquals", "contains", "notContains",
               "startsWith", "notStartsWith", "endsWith", "notEndsWith", "regex", "notRegex"],
    "number": ["exists", "notExists", "empty", "notEmpty", "equals", "notEquals", "gt", "lt", "gte", "lte"],
    "boolean": ["exists", "notExists", "empty", "notEmpty", "true", "false", "equals", "notEquals"],
    "dateTime": ["exists", "notExists", "empty", "notEmpty", "equals", "notEquals", "after", "before",
                 "afterOrEquals", "beforeOrEquals"],
    "array": ["exists", "notExists", "empty", "notEmpty", "contains", "notContains", "lengthEquals",
              "lengthNotEquals", "lengthGt", "lengthLt", "lengthGte", "lengthLte"],
    "object": ["exists", "notExists", "empty", "notEmpty"],
}
SINGLE_VALUE = {"exists", "notExists", "empty", "notEmpty", "true", "false"}
_RIGHT: dict[str, st.SearchStrategy[Any]] = {
    "string": st.sampled_from(["a", "A", "abc", "", "10", "b"]),
    "number": st.one_of(st.integers(-3, 12), st.sampled_from(["3", "2.5", 0.5])),
    "boolean": st.one_of(st.booleans(), st.sampled_from(["true", "false"])),
    "dateTime": st.sampled_from(["2024-01-15", "2024-02-01T00:00:00Z", "2023-12-31"]),
    "array": st.one_of(st.integers(0, 3), st.sampled_from(["a", 1])),
    "object": st.just(""),
}
_REGEX = st.sampled_from(["^a", "b$", "/A/i", "[0-9]+", "^$"])


@st.composite
def filter_condition(draw: st.DrawFn) -> dict[str, Any]:
    """Return one condition of n8n's filter model, as the editor stores it."""
    kind = draw(st.sampled_from(sorted(OPERATIONS)))
    operation = draw(st.sampled_from(OPERATIONS[kind]))
    operator: dict[str, Any] = {"type": kind, "operation": operation}
    condition: dict[str, Any] = {"id": f"c{draw(st.integers(0, 999))}",
                                 "leftValue": draw(st.one_of(_field_ref(), _field_ref(), _RIGHT[kind]))}
    if operation in SINGLE_VALUE:
        operator["singleValue"] = True
    else:
        if kind == "array":
            operator["rightType"] = "number" if operation.startswith("length") else "any"
        right = _REGEX if operation in ("regex", "notRegex") else _RIGHT[kind]
        _omittable(draw, condition, "rightValue", st.one_of(right, right, _field_ref()))
    condition["operator"] = operator
    return condition


@st.composite
def filter_value(draw: st.DrawFn, filter_version: int, ignore_case: bool, loose: bool) -> dict[str, Any]:
    """Return a filter-type parameter value as the editor writes it.

    The editor always writes the whole value (``conditions``, ``combinator``, ``options``) and
    derives ``options`` from the node's own parameters (``caseSensitive`` is not Ignore Case,
    ``typeValidation`` is loose when Less Strict Type Validation is on); n8n reads only the
    value's options when it runs. Exports made before the filter model had versions carry no
    ``version`` (n8n then runs version 1), so that one key may be missing.
    """
    options: dict[str, Any] = {"caseSensitive": not ignore_case, "leftValue": "",
                               "typeValidation": "loose" if loose else "strict"}
    _omittable(draw, options, "version", st.just(filter_version))
    # n8n reads a value without "combinator" as no filter at all (every item passes); the
    # editor never writes one, so every value generated here has it.
    return {"options": options, "conditions": draw(st.lists(filter_condition(), min_size=1, max_size=3)),
            "combinator": draw(st.sampled_from(["and", "or"]))}


def _filter_version(version: float, v2_at: float, v3_at: float) -> int:
    return 3 if version >= v3_at else 2 if version >= v2_at else 1


def _ignore_case_and_loose(draw: st.DrawFn, params: dict[str, Any], options: dict[str, Any],
                           version: float, loose_at: float) -> tuple[bool, bool]:
    """Draw Ignore Case and Less Strict Type Validation, written where this version keeps them."""
    _omittable(draw, options, "ignoreCase", st.booleans())
    where = params if version >= loose_at else options
    _omittable(draw, where, "looseTypeValidation", st.booleans())
    return bool(options.get("ignoreCase", False)), bool(where.get("looseTypeValidation", False))


@st.composite
def if_filter_v2(draw: st.DrawFn, version: float) -> dict[str, Any]:
    """Parameters of IF v2.x or Filter v2.x."""
    params: dict[str, Any] = {}
    options: dict[str, Any] = {}
    ignore_case, loose = _ignore_case_and_loose(draw, params, options, version, 2.1)
    params["conditions"] = draw(filter_value(_filter_version(version, 2.2, 2.3), ignore_case, loose))
    if options or draw(st.booleans()):
        params["options"] = options
    return params


# -- conditions of the v1 model (IF v1, Filter v1) --------------------------------------------

_V1: dict[str, tuple[list[str], st.SearchStrategy[Any]]] = {
    "boolean": (["equal", "notEqual"], st.one_of(st.booleans(), _field_ref())),
    "number": (["smaller", "smallerEqual", "equal", "notEqual", "larger", "largerEqual", "isEmpty", "isNotEmpty"],
               st.one_of(st.integers(-3, 12), st.just(0.5), _field_ref())),
    "string": (["contains", "notContains", "endsWith", "notEndsWith", "equal", "notEqual", "regex", "notRegex",
                "startsWith", "notStartsWith", "isEmpty", "isNotEmpty"],
               st.one_of(st.sampled_from(["a", "A", "abc", "", "10"]), _field_ref())),
    "dateTime": (["after", "before"], st.one_of(st.sampled_from(["2024-01-15", "2023-12-31T12:00:00Z"]), _field_ref())),
}


@st.composite
def v1_conditions(draw: st.DrawFn) -> dict[str, Any]:
    """The ``conditions`` of IF v1 / Filter v1: lists per type, each field omittable."""
    conditions: dict[str, Any] = {}
    for kind in draw(st.lists(st.sampled_from(sorted(_V1)), min_size=1, max_size=2, unique=True)):
        operations, values = _V1[kind]
        entries = []
        for _ in range(draw(st.integers(1, 2))):
            entry: dict[str, Any] = {}
            _omittable(draw, entry, "value1", st.one_of(_field_ref(), _field_ref(), values))
            _omittable(draw, entry, "operation", st.sampled_from(operations))
            right = _REGEX if entry.get("operation") in ("regex", "notRegex") else values
            _omittable(draw, entry, "value2", right)
            entries.append(entry)
        conditions[kind] = entries
    return conditions


@st.composite
def if_v1(draw: st.DrawFn, version: float) -> dict[str, Any]:
    params = {"conditions": draw(v1_conditions())}
    _omittable(draw, params, "combineOperation", st.sampled_from(["all", "any"]))
    return params


@st.composite
def filter_v1(draw: st.DrawFn, version: float) -> dict[str, Any]:
    params = {"conditions": draw(v1_conditions())}
    _omittable(draw, params, "combineConditions", st.sampled_from(["AND", "OR"]))
    return params


# -- Set (Edit Fields) v3.x -------------------------------------------------------------------

_NAMES = st.sampled_from(["a", "b", "new", "x.y", "a.z"])
_SET_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "string": st.one_of(st.sampled_from(["", "hello", "10", "null"]), _field_ref(),
                        st.sampled_from(["=x{{ $json.a }}y"])),
    "number": st.one_of(st.integers(-3, 12), st.sampled_from(["7", "2.5", "abc", ""]), _field_ref()),
    "boolean": st.one_of(st.booleans(), st.sampled_from(["true", "false", "yes", ""]), _field_ref()),
    "array": st.one_of(st.sampled_from(["[1, 2]", "[]", "a,b", ""]), _field_ref()),
    "object": st.one_of(st.sampled_from(['{"k": 1}', "{}", "[1]", ""]), _field_ref()),
}


# Edit Fields v3.0–3.2 keeps each type's value in its own parameter, of that parameter's type:
# a number (or an expression) for numberValue, "true"/"false" for booleanValue. n8n refuses to
# run a workflow whose parameter has the wrong type ("The workflow has issues"), an arrayValue
# that is not a JSON array included; arrayValue has no default, so it is always written.
_FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "string": _SET_VALUES["string"],
    "number": st.one_of(st.integers(-3, 12), st.just(2.5), _field_ref()),
    "boolean": st.one_of(st.sampled_from(["true", "false"]), _field_ref()),
    "array": st.one_of(st.sampled_from(["[1, 2]", "[]", "[\"a\", null]"]), _field_ref()),  # required, a JSON array
    "object": _SET_VALUES["object"],
}


@st.composite
def set_v3(draw: st.DrawFn, version: float) -> dict[str, Any]:
    """Edit Fields in manual mode: v3.0–3.2 ``fields.values``, v3.3+ ``assignments``."""
    params: dict[str, Any] = {}
    _omittable(draw, params, "mode", st.just("manual"))
    count = draw(st.integers(0, 3))
    if version < 3.3:
        values = []
        for _ in range(count):
            kind = draw(st.sampled_from(sorted(_SET_VALUES)))
            entry: dict[str, Any] = {"name": draw(_NAMES)}
            if kind != "string" or draw(st.booleans()):
                entry["type"] = f"{kind}Value"
            if kind == "array":
                entry["arrayValue"] = draw(_FIELD_VALUES[kind])
            else:
                _omittable(draw, entry, f"{kind}Value", _FIELD_VALUES[kind])
            values.append(entry)
        params["fields"] = {"values": values}
        _omittable(draw, params, "include", st.sampled_from(["all", "none"]))
    else:
        assignments = []
        for index in range(count):
            kind = draw(st.sampled_from(sorted(_SET_VALUES)))
            assignments.append({"id": f"s{index}", "name": draw(_NAMES), "value": draw(_SET_VALUES[kind]),
                                "type": kind})
        params["assignments"] = {"assignments": assignments}
        _omittable(draw, params, "includeOtherFields", st.booleans())
        if params.get("includeOtherFields"):
            _omittable(draw, params, "include", st.just("all"))
    options: dict[str, Any] = {}
    _omittable(draw, options, "dotNotation", st.booleans())
    _omittable(draw, options, "ignoreConversionErrors", st.booleans())
    _omittable(draw, params, "options", st.just(options))
    return params


# -- Switch v3.x ------------------------------------------------------------------------------

@st.composite
def switch_v3(draw: st.DrawFn, version: float) -> dict[str, Any]:
    """Switch v3: rules (filter-model conditions per output) or an output-index expression."""
    params: dict[str, Any] = {}
    if draw(st.integers(0, 5)) == 0:
        params["mode"] = "expression"
        _omittable(draw, params, "numberOutputs", st.integers(1, 4))
        params["output"] = draw(st.sampled_from(["={{ 0 }}", "={{ 1 }}", "={{ $json.a ? 1 : 0 }}"]))
        return params
    _omittable(draw, params, "mode", st.just("rules"))
    options: dict[str, Any] = {}
    ignore_case, loose = _ignore_case_and_loose(draw, params, options, version, 3.1)
    rules = []
    for index in range(draw(st.integers(1, 3))):
        rule: dict[str, Any] = {"conditions": draw(filter_value(_filter_version(version, 3.2, 3.4), ignore_case, loose))}
        if draw(st.booleans()):
            rule["renameOutput"] = True
            rule["outputKey"] = f"out{index}"
        rules.append(rule)
    params["rules"] = {"values": rules}
    _omittable(draw, options, "fallbackOutput", st.sampled_from(["none", "extra", 0]))
    if options.get("fallbackOutput") == "extra":
        _omittable(draw, options, "renameFallbackOutput", st.just("Other"))
    _omittable(draw, options, "allMatchingOutputs", st.booleans())
    if options or draw(st.booleans()):
        params["options"] = options
    return params


# -- Merge v2.x, v3.x -------------------------------------------------------------------------

_FIELD_PAIRS = st.lists(st.sampled_from([{"field1": "a", "field2": "a"}, {"field1": "b", "field2": "a"}]),
                        min_size=1, max_size=1)


@st.composite
def merge_v2(draw: st.DrawFn, version: float) -> dict[str, Any]:
    params: dict[str, Any] = {}
    mode = draw(st.sampled_from([None, "append", "chooseBranch", "combine", "combine"]))
    if mode is not None:
        params["mode"] = mode
    if mode == "chooseBranch":
        _omittable(draw, params, "output", st.sampled_from(["input1", "input2", "empty"]))
    elif mode == "combine":
        combination = draw(st.sampled_from([None, "mergeByFields", "mergeByPosition", "multiplex"]))
        if combination is not None:
            params["combinationMode"] = combination
        if combination in (None, "mergeByFields"):
            params["mergeByFields"] = {"values": draw(_FIELD_PAIRS)}
            _omittable(draw, params, "joinMode", st.sampled_from(["keepMatches", "keepNonMatches", "keepEverything",
                                                                  "enrichInput1", "enrichInput2"]))
            _omittable(draw, params, "outputDataFrom", st.sampled_from(["both", "input1", "input2"]))
    return params


@st.composite
def merge_v3(draw: st.DrawFn, version: float) -> dict[str, Any]:
    params: dict[str, Any] = {}
    mode = draw(st.sampled_from([None, "append", "chooseBranch", "combine", "combine"]))
    if mode is not None:
        params["mode"] = mode
    if mode in (None, "append", "chooseBranch"):
        _omittable(draw, params, "numberInputs", st.integers(2, 3))
    if mode == "chooseBranch":
        _omittable(draw, params, "output", st.sampled_from(["specifiedInput", "empty"]))
        _omittable(draw, params, "useDataOfInput", st.integers(1, params.get("numberInputs", 2)))
    elif mode == "combine":
        combine_by = draw(st.sampled_from([None, "combineByFields", "combineByPosition", "combineAll"]))
        if combine_by is not None:
            params["combineBy"] = combine_by
        if combine_by in (None, "combineByFields"):
            if draw(st.booleans()):
                params["advanced"] = True
                params["mergeByFields"] = {"values": draw(_FIELD_PAIRS)}
            else:
                params["fieldsToMatchString"] = draw(st.sampled_from(["a", "a, b"]))
            _omittable(draw, params, "joinMode", st.sampled_from(["keepMatches", "keepNonMatches", "keepEverything",
                                                                  "enrichInput1", "enrichInput2"]))
            _omittable(draw, params, "outputDataFrom", st.sampled_from(["both", "input1", "input2"]))
    return params


def noop(draw_version: float) -> st.SearchStrategy[dict[str, Any]]:
    return st.just({})


# -- the table of what is generated -----------------------------------------------------------

ParamStrategy = Callable[[float], st.SearchStrategy[dict[str, Any]]]
# (node type, typeVersions n8n 1.123 ships, parameter strategy, number of inputs of the node)
NODES: list[tuple[str, tuple[float, ...], ParamStrategy, str]] = [
    ("n8n-nodes-base.if", (1,), if_v1, "one"),
    ("n8n-nodes-base.if", (2, 2.1, 2.2, 2.3), if_filter_v2, "one"),
    ("n8n-nodes-base.filter", (1,), filter_v1, "one"),
    ("n8n-nodes-base.filter", (2, 2.1, 2.2, 2.3), if_filter_v2, "one"),
    ("n8n-nodes-base.set", (3, 3.1, 3.2, 3.3, 3.4), set_v3, "one"),
    ("n8n-nodes-base.switch", (3, 3.1, 3.2, 3.3, 3.4), switch_v3, "one"),
    ("n8n-nodes-base.merge", (2, 2.1), merge_v2, "merge"),
    ("n8n-nodes-base.merge", (3, 3.1, 3.2), merge_v3, "merge"),
    ("n8n-nodes-base.noOp", (1,), noop, "one"),
]


def examples() -> int:
    """Return how many cases each (type, version) gets (``CUTOVER_ORACLE_EXAMPLES``, default 30)."""
    return int(os.environ.get("CUTOVER_ORACLE_EXAMPLES") or 30)


@st.composite
def _case_data(draw: st.DrawFn, strategy: ParamStrategy, version: float, inputs: str) -> tuple[Any, Any]:
    params = draw(strategy(version))
    if inputs == "one":
        return params, [draw(ITEMS)]
    count = int(params.get("numberInputs", 2))
    return params, [draw(KEYED_ITEMS) for _ in range(count)]


def _collect(strategy: st.SearchStrategy[Any], count: int, key: str) -> list[Any]:
    found: list[Any] = []

    @seed(zlib.crc32(key.encode()))
    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw_one(value: Any) -> None:
        found.append(value)

    draw_one()
    unique: dict[str, Any] = {}
    for value in found:
        unique.setdefault(json.dumps(value, sort_keys=True), value)
    return list(unique.values())


PINNED = Path(__file__).with_name("cases.json")


def pinned() -> list[Case]:
    """Return the cases the committed conformance table measured (``cases.json``), or generate them.

    The hand-written cases (``targeted.cases``) are code, not drawn: any of them not yet in
    ``cases.json`` is appended, so a new one runs before the file is written again.
    """
    if not PINNED.exists():
        return generate()
    from tests.oracle.loops import SPLIT_IN_BATCHES, split_in_batches_cases

    found = [Case(c["id"], c["node_type"], float(c["version"]), c["parameters"], c["inputs"], c.get("settings") or {})
             for c in json.loads(PINNED.read_text(encoding="utf-8")) if c["node_type"] != SPLIT_IN_BATCHES]
    known = {case.id for case in found}
    # hand-written cases are code, and SplitInBatches' are enumerated: neither is drawn, nothing to pin
    return found + [case for case in targeted.cases() if case.id not in known] + split_in_batches_cases()


def write_pinned(cases: list[Case]) -> None:
    """Write ``cases`` as the pinned set (``cases.json``)."""
    from tests.oracle.loops import SPLIT_IN_BATCHES

    rows = [{"id": c.id, "node_type": c.node_type, "version": c.version, "parameters": c.parameters,
             "inputs": c.inputs, **({"settings": c.settings} if c.settings else {})} for c in cases
            if c.node_type != SPLIT_IN_BATCHES]  # the loop cases are enumerated (tests.oracle.loops)
    PINNED.write_text(json.dumps(rows, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def generate(count: int | None = None) -> list[Case]:
    """Return every case, for every (type, version), in a fixed order."""
    count = examples() if count is None else count
    cases = []
    for node_type, versions, strategy, inputs in NODES:
        for version in versions:
            short = f"{node_type.rsplit('.', 1)[-1]} v{version:g}"
            drawn = _collect(_case_data(strategy, version, inputs), count, short)
            for index, (params, items) in enumerate(drawn):
                cases.append(Case(f"{short} #{index + 1}", node_type, float(version), params, items))
    from tests.oracle.loops import split_in_batches_cases

    return cases + targeted.cases() + split_in_batches_cases()
