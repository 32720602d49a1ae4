"""HTTP Request query parameters given as a JSON expression (``specifyQuery: json``) against the real n8n.

Fixed cases (not drawn, so ``http_cases``' drawn cases and their cached outcomes stay as they
were): a template holding text, numbers, a boolean and null; a whole ``{{ JSON.stringify(…) }}``
expression; text that is not JSON (n8n fails the node). Both sides call the loopback server's
``/echo`` route, which answers with the query it read.
"""

from __future__ import annotations

from tests.oracle import http_cases, http_server
from tests.oracle.conftest import require_oracle
from tests.oracle.workflow import UNDER_TEST, Case


def _case(version: float, label: str, json_query: str, base: str) -> Case:
    params = {"url": base + "/echo", "sendQuery": True, "specifyQuery": "json", "jsonQuery": json_query, "options": {}}
    return Case(f"httpRequest v{version:g} json query {label}", http_cases.NODE, version, params,
                [[{"a": "x y", "n": 25}, {"a": "é&=", "n": 2.5}]], {})


def test_query_parameters_given_as_a_json_expression_are_sent_as_n8n_sends_them() -> None:
    require_oracle()
    with http_server.serving() as base:
        cases = [
            _case(4.2, "template", '={\n  "fields": "id,caption",\n  "limit": "25",\n  "a": "{{ $json.a }}",\n'
                                   '  "n": {{ $json.n }},\n  "t": true,\n  "z": null\n}', base),
            _case(4.1, "stringify", "={{ JSON.stringify({q: $json.a, page: $json.n}) }}", base),
            _case(4.2, "not JSON", "={ fields: {{ $json.n }} }", base),
        ]
        results = http_cases.measure(cases, base)
    assert all(got.translated for _, _, got, _ in results), [case.id for case, _, got, _ in results if not got.translated]
    differing = [f"{case.id}: {found}" for case, _, _, found in results if found]
    assert not differing, "\n".join(differing)
    answered = [expected.nodes.get(UNDER_TEST) for case, expected, _, _ in results if "not JSON" not in case.id]
    assert all(answered) and [expected.error_node for case, expected, _, _ in results if "not JSON" in case.id] == [UNDER_TEST]
