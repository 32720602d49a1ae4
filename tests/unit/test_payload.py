"""The payload validator refuses what Postgres cannot store, naming the JSON path and never the value."""

from __future__ import annotations

import pytest

from queue_core import EnqueueError, JobSpec, QueueError
from queue_core.payload import MAX_DEPTH, check, check_job, check_priority, loads
from queue_core.errors import PayloadError

MARK = "ZZ-MARKER-ZZ"


@pytest.mark.parametrize(("text", "field", "problem"), [
    ('{"a": [1, 2, {"b": "%s\\u0000"}]}' % MARK, "$.a[2].b", "nul"),
    ('{"a": "%s\\ud800"}' % MARK, "$.a", "surrogate"),
    ('{"a": "%s\\udfff x"}' % MARK, "$.a", "surrogate"),
    ('{"n": %s, "m": "%s"}' % ("9" * 5000, MARK), "$.n", "integer_too_long"),
    ('{"n": -%s}' % ("1" * 65), "$.n", "integer_too_long"),
    ('{"p": 1e400}', "$.p", "not_finite"),
    ('[NaN]', "$[0]", "not_finite"),
    ('{"x": -Infinity}', "$.x", "not_finite"),
    ("[" * 50_000 + "]" * 50_000, "$", "too_deep"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), None, "too_deep"),
    ('{"%s": 1' % MARK, "$", "not_json"),
    (b"\xff\xfe\xfa", "$", "not_json"),
    ('{"we ird": {"k\\u0000%s": 1}}' % MARK, "$[<key>][<key>]", "nul"),
])
def test_loads_refuses_unstorable_json_naming_the_path_and_never_the_value(text, field, problem):
    with pytest.raises(PayloadError) as caught:
        loads(text)
    assert caught.value.problem == problem
    if field is not None:
        assert caught.value.field == field and str(caught.value).startswith(f"payload field {field}: ")
    assert MARK not in str(caught.value) and "9999" not in str(caught.value)
    assert isinstance(caught.value, EnqueueError) and isinstance(caught.value, QueueError)


@pytest.mark.parametrize("text", ['{"a": "\\ud83d\\ude00"}', '{"n": %s}' % ("9" * 64), "[1.5e300, -0.0, 1e-400]",
                                  "[" * MAX_DEPTH + "]" * MAX_DEPTH, '"plain"', "null", '{"": {"k": [true, false]}}'])
def test_loads_accepts_what_postgres_stores(text):
    import json

    assert loads(text) == json.loads(text)


def test_a_deep_path_is_shortened_to_its_ends():
    with pytest.raises(PayloadError) as caught:
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert caught.value.field.startswith("$[0][0]") and "more)" in caught.value.field and len(caught.value.field) < 80


def test_check_walks_values_built_in_python_of_any_depth_without_recursion():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(PayloadError, match="nested deeper than 256"):
        check(deep)
    with pytest.raises(PayloadError, match=r"\$\.n: is an integer of more than 64 digits"):
        check({"n": 10**64})
    with pytest.raises(PayloadError, match=r"\$\[1\]: is a number that is not finite"):
        check((1.0, float("nan")))
    check({"n": 10**64 - 1, "t": ("a", None, True)})


@pytest.mark.parametrize(("spec", "field"), [
    (JobSpec("a", priority=2**31), "priority"),
    (JobSpec("a", max_attempts=2**31), "max_attempts"),
    (JobSpec("a", max_claims=0), "max_claims"),
    (JobSpec("a", dedupe_key=f"{MARK}\x00"), "dedupe_key"),
    (JobSpec("a\ud800"), "automation"),
    (JobSpec("a", trigger_id=f"{MARK}\ud800"), "trigger_id"),
    (JobSpec("a", {"x": [f"{MARK}\x00"]}), "$.x[0]"),
    (JobSpec("a", trigger_meta={"headers": {"h": f"{MARK}\x00"}}), "$.headers.h"),
])
def test_check_job_names_the_column_or_path_postgres_would_refuse(spec, field):
    with pytest.raises(PayloadError) as caught:
        check_job(spec, index=3)
    assert (caught.value.field, caught.value.index) == (field, 3) and MARK not in str(caught.value)


def test_priority_is_bounded_by_the_integer_column():
    check_priority(0)
    check_priority(2**31 - 1)
    for bad in (-1, 2**31, 99999999999, True, 1.0, 10**5000):
        with pytest.raises(PayloadError, match="must be an integer from 0 to 2147483647"):
            check_priority(bad)
