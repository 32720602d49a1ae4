"""Data-node cases (Limit, Sort, Split Out, Aggregate, Crypto, Remove Duplicates, Set v1/v2): drawn parameters and items, proved like every node.

``data_cases()`` draws each node's parameters as an export holds them (any parameter may be left
out: n8n's default then applies) with a fixed seed per node version, over the items of
``cases.ITEMS`` (every JSON type, nulls, missing fields, lists and objects). They run through
``conformance.measure`` (n8n in one batch, then the scaffold offline): these nodes call nothing.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.oracle.cases import FIELDS, ITEMS, ParamStrategy, _collect, _omittable
from tests.oracle.workflow import Case

_FIELD_LIST = st.lists(st.sampled_from(FIELDS), min_size=1, max_size=2, unique=True).map(", ".join)


def limit_v1(version: float) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def draw(draw: st.DrawFn) -> dict[str, Any]:
        params: dict[str, Any] = {}
        _omittable(draw, params, "maxItems", st.integers(0, 5))
        _omittable(draw, params, "keep", st.sampled_from(["firstItems", "lastItems"]))
        return params
    return draw()


def sort_v1(version: float) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def draw(draw: st.DrawFn) -> dict[str, Any]:
        fields = draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=2, unique=True))
        entries = []
        for field in fields:
            entry: dict[str, Any] = {"fieldName": field}
            _omittable(draw, entry, "order", st.sampled_from(["ascending", "descending"]))
            entries.append(entry)
        return {"sortFieldsUi": {"sortField": entries}}
    return draw()


def split_out_v1(version: float) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def draw(draw: st.DrawFn) -> dict[str, Any]:
        params: dict[str, Any] = {"fieldToSplitOut": draw(st.sampled_from(FIELDS))}
        _omittable(draw, params, "include", st.sampled_from(["noOtherFields", "allOtherFields", "selectedOtherFields"]))
        if params.get("include") == "selectedOtherFields":
            params["fieldsToInclude"] = draw(_FIELD_LIST)
        if draw(st.booleans()):
            params["options"] = {"destinationFieldName": draw(st.sampled_from(["out", "a"]))}
        return params
    return draw()


def aggregate_v1(version: float) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def draw(draw: st.DrawFn) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if draw(st.booleans()):
            params["aggregate"] = "aggregateAllItemData"
            _omittable(draw, params, "destinationFieldName", st.sampled_from(["data", "rows"]))
            _omittable(draw, params, "include", st.sampled_from(["allFields", "specifiedFields", "allFieldsExcept"]))
            if params.get("include") == "specifiedFields":
                params["fieldsToInclude"] = draw(_FIELD_LIST)
            if params.get("include") == "allFieldsExcept":
                params["fieldsToExclude"] = draw(_FIELD_LIST)
            return params
        entries = []
        for field in draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=2, unique=True)):
            entry: dict[str, Any] = {"fieldToAggregate": field}
            if draw(st.booleans()):
                entry.update({"renameField": True, "outputFieldName": f"{field}_all"})
            entries.append(entry)
        params["fieldsToAggregate"] = {"fieldToAggregate": entries}
        options: dict[str, Any] = {}
        _omittable(draw, options, "mergeLists", st.booleans())
        _omittable(draw, options, "keepMissing", st.booleans())
        if options:
            params["options"] = options
        return params
    return draw()


def crypto_v1(version: float) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def draw(draw: st.DrawFn) -> dict[str, Any]:
        params: dict[str, Any] = {}
        _omittable(draw, params, "action", st.sampled_from(["hash", "hmac"]))
        _omittable(draw, params, "type", st.sampled_from(["MD5", "SHA256", "SHA3-256", "SHA384", "SHA512"]))
        # value is required (n8n refuses a workflow without it); a template of a list field is left out:
        # the scaffold's templates write a list as JSON where n8n writes String(list) (expr, a known difference)
        params["value"] = draw(st.sampled_from(["abc", "={{ $json.a }}", "=v{{ 1 + 2 }}", "Grüße"]))
        _omittable(draw, params, "dataPropertyName", st.sampled_from(["data", "a", "h.x"]))
        _omittable(draw, params, "encoding", st.sampled_from(["hex", "base64"]))
        if params.get("action") == "hmac":
            params["secret"] = draw(st.sampled_from(["s3cret", "={{ $json.c }}"]))  # required by n8n
        return params
    return draw()


def remove_duplicates_v1(version: float) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def draw(draw: st.DrawFn) -> dict[str, Any]:
        params: dict[str, Any] = {}
        _omittable(draw, params, "compare", st.sampled_from(["allFields", "allFieldsExcept", "selectedFields"]))
        if params.get("compare") == "allFieldsExcept":
            params["fieldsToExclude"] = draw(_FIELD_LIST)
        if params.get("compare") == "selectedFields":
            params["fieldsToCompare"] = draw(_FIELD_LIST)
        return params
    return draw()


_SET_NAMES = st.sampled_from(["a", "n", "x.y", "b.c.d", "propertyName"])
_SET_VALUES = {
    "string": st.sampled_from(["", "v", "={{ $json.a }}", "=x{{ $json.b }}", "={{ 1 + 2 }}", "Grüße"]),
    "number": st.sampled_from([0, 3, -2.5, "={{ $json.a }}", "={{ 2 * 3 }}"]),
    "boolean": st.sampled_from([True, False, "={{ $json.a }}", "={{ 1 > 0 }}"]),
}


def set_v1(version: float) -> st.SearchStrategy[dict[str, Any]]:
    """Set v1/v2: ``values.{string,number,boolean}`` entries (a value left out is n8n's default), Keep Only Set,
    Dot Notation."""
    @st.composite
    def draw(draw: st.DrawFn) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for kind, strategy in _SET_VALUES.items():
            entries = []
            for _ in range(draw(st.integers(0, 2))):
                entry: dict[str, Any] = {}
                _omittable(draw, entry, "name", _SET_NAMES)
                _omittable(draw, entry, "value", strategy)
                entries.append(entry)
            if entries:
                values[kind] = entries
        params: dict[str, Any] = {"values": values} if values or draw(st.booleans()) else {}
        _omittable(draw, params, "keepOnlySet", st.booleans())
        if draw(st.booleans()):
            params["options"] = {"dotNotation": draw(st.booleans())}
        return params
    return draw()


DATA_NODES: list[tuple[str, tuple[float, ...], ParamStrategy]] = [
    ("n8n-nodes-base.limit", (1,), limit_v1),
    ("n8n-nodes-base.sort", (1,), sort_v1),
    ("n8n-nodes-base.splitOut", (1,), split_out_v1),
    ("n8n-nodes-base.aggregate", (1,), aggregate_v1),
    ("n8n-nodes-base.crypto", (1,), crypto_v1),
    ("n8n-nodes-base.removeDuplicates", (1, 1.1, 2), remove_duplicates_v1),
    ("n8n-nodes-base.set", (1, 2), set_v1),
]


def data_cases(count: int = 30) -> list[Case]:
    """Return the drawn data-node cases, every (type, version), in a fixed order."""
    cases = []
    for node_type, versions, strategy in DATA_NODES:
        for version in versions:
            short = f"{node_type.rsplit('.', 1)[-1]} v{version:g}"
            drawn = _collect(st.tuples(strategy(version), ITEMS), count, short)
            for index, (params, items) in enumerate(drawn):
                cases.append(Case(f"{short} #{index + 1}", node_type, float(version), params, [items]))
    return cases
