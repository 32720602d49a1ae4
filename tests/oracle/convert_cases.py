"""Convert to File cases (Convert to CSV, to JSON, to Text File): drawn parameters and items, both sides' files compared.

``convert_cases()`` draws each version's parameters as an export holds them (any parameter may be
left out: n8n's default then applies; the file name is text or an expression), over the items of
``cases.ITEMS`` (every JSON type, nulls, missing fields, lists and objects). They run through
``conformance.measure``; ``test_convert_conformance`` compares each item's json and its binary
entry (type, extension, name, size and the bytes, base64) with what the real n8n made.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.oracle.cases import FIELDS, ITEMS, _collect, _omittable
from tests.oracle.workflow import Case

NODE = "n8n-nodes-base.convertToFile"
VERSIONS = (1, 1.1)
_NAMES = st.sampled_from(["out.json", "report", "a/b.txt", "={{ $json.a }}", "=f-{{ $json.b }}.json", ""])


def convert_params(version: float) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def draw(draw: st.DrawFn) -> dict[str, Any]:
        operation = draw(st.sampled_from(["toJson", "toText", "csv"]))
        params: dict[str, Any] = {"operation": operation}
        options: dict[str, Any] = {}
        if operation == "csv":
            _omittable(draw, options, "fileName", st.sampled_from(["out.csv", "report", "={{ $json.a }}"]))
            _omittable(draw, options, "delimiter", st.sampled_from([";", "\t", ", "]))
            _omittable(draw, options, "headerRow", st.booleans())
            _omittable(draw, params, "binaryPropertyName", st.sampled_from(["data", "file"]))
            return {**params, **({"options": options} if options else {})}
        _omittable(draw, options, "fileName", _NAMES)
        _omittable(draw, options, "addBOM", st.booleans())
        _omittable(draw, options, "encoding", st.just("utf8"))
        if operation == "toJson":
            _omittable(draw, params, "mode", st.sampled_from(["once", "each"]))
            _omittable(draw, options, "format", st.booleans())
        else:
            _omittable(draw, params, "sourceProperty", st.sampled_from([*FIELDS, "a.x"]))
        _omittable(draw, params, "binaryPropertyName", st.sampled_from(["data", "file"]))
        if options:
            params["options"] = options
        return params
    return draw()


def convert_cases(count: int = 30) -> list[Case]:
    """Return the drawn Convert to File cases, per version, in a fixed order."""
    cases = []
    for version in VERSIONS:
        short = f"convertToFile v{version:g}"
        drawn = _collect(st.tuples(convert_params(version), ITEMS), count, short)
        cases += [Case(f"{short} #{i + 1}", NODE, float(version), params, [items])
                  for i, (params, items) in enumerate(drawn)]
    return cases
