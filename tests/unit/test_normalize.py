"""Normalisation: coercion profiles, timestamps, generated ids, URLs and alignment."""

from __future__ import annotations

from harness.manifest import Coercion
from harness.shadow.normalize import (
    GENERATED, Rules, align, branches, canonical_timestamp, equivalent, loosely_equal, reduce_legacy, reduce_new,
    relative_url, unflatten,
)
from harness.recording import LegacyTrace, Platform, TraceStatus


def test_n8n_profile_reads_string_booleans_as_booleans() -> None:
    assert loosely_equal("true", True, Coercion.N8N)
    assert loosely_equal("false", False, Coercion.N8N)
    assert not loosely_equal("false", True, Coercion.N8N)


def test_loose_numbers_compare_by_value_but_two_strings_never_loosen() -> None:
    assert loosely_equal("130.73", 130.73, Coercion.ZAPIER)
    assert loosely_equal("42", 42, Coercion.N8N)
    assert not equivalent("52.4", "52.40", Coercion.ZAPIER)
    assert not loosely_equal("52.4", 52.41, Coercion.ZAPIER)


def test_strict_profile_coerces_nothing() -> None:
    assert not loosely_equal("true", True, Coercion.STRICT)
    assert not equivalent({"opened": "true"}, {"opened": True}, Coercion.STRICT)


def test_empty_string_equals_null_only_for_zapier_and_make() -> None:
    assert loosely_equal("", None, Coercion.ZAPIER)
    assert loosely_equal(None, "", Coercion.MAKE)
    assert not loosely_equal("", None, Coercion.N8N)


def test_a_number_against_a_boolean_stays_a_type_change() -> None:
    assert not loosely_equal(1, True, Coercion.N8N)


def test_zapier_flattened_keys_are_unflattened() -> None:
    assert unflatten({"customer__email": "x", "customer__plan__name": "pro", "id": 1}) == {
        "customer": {"email": "x", "plan": {"name": "pro"}}, "id": 1}
    assert unflatten({"__meta": 1}) == {"__meta": 1}


def test_unflatten_keeps_a_conflicting_key_flat_instead_of_losing_a_value() -> None:
    # "a" holds a value: "a__b" cannot nest under it, whichever order the keys come in
    assert unflatten({"a": 1, "a__b": 2}) == {"a": 1, "a__b": 2}
    assert unflatten({"a__b": 2, "a": 1}) == {"a": 1, "a__b": 2}
    # a deeper key under a leaf, and a flat key naming a leaf the object already has
    assert unflatten({"x__y": 1, "x__y__z": 2}) == {"x": {"y": 1}, "x__y__z": 2}
    assert unflatten({"a": {"b": 1}, "a__b": 2}) == {"a": {"b": 1}, "a__b": 2}
    # inside lists too
    assert unflatten([{"c__d": 1, "c": 0}]) == [{"c": 0, "c__d": 1}]


def test_timestamps_in_any_offset_and_precision_become_one_form() -> None:
    assert canonical_timestamp("2024-06-01T10:00:00Z") == canonical_timestamp("2024-06-01T12:00:00.000+02:00")
    assert canonical_timestamp("not a time") is None
    assert canonical_timestamp("2024-06-01") is None


def test_urls_lose_the_provider_base_and_sort_their_query() -> None:
    assert relative_url("https://api.github.com/repos/a/b?z=1&a=2", "https://api.github.com") == "/repos/a/b?a=2&z=1"
    assert relative_url("/v2/find?domain=x", None) == "/v2/find?domain=x"
    assert relative_url(None, "https://x") is None


def _legacy(**kw: object) -> LegacyTrace:
    return LegacyTrace(trigger_id="t1", status=TraceStatus.SUCCEEDED, platform=Platform.N8N, **kw)  # type: ignore[arg-type]


def test_generated_ids_are_masked_on_both_sides() -> None:
    rules = Rules(Coercion.STRICT)
    legacy = reduce_legacy(_legacy(calls=[{"step": "s", "provider": "p", "method": "POST", "url": "/x",
                                           "body": {"request_id": "abc", "n": 1}}]), rules)
    new = reduce_new({"status": "succeeded", "calls": [{"step": "s", "provider": "p", "method": "POST", "url": "/x",
                                                        "body": {"request_id": "zzz", "n": 1}}]}, rules)
    assert legacy["calls"]["s"]["body"]["request_id"] == GENERATED
    assert equivalent(legacy, new, Coercion.STRICT)


def test_null_legacy_call_fields_are_unknown_and_dropped_from_both_sides() -> None:
    rules = Rules(Coercion.MAKE, {"clearbit": "https://company.clearbit.com"})
    legacy = reduce_legacy(_legacy(calls=[{"step": "enrich", "provider": "clearbit", "method": None, "url": None,
                                           "body": None}]), rules)
    new = reduce_new({"status": "succeeded", "calls": [
        {"step": "enrich", "provider": "clearbit", "method": "GET",
         "url": "https://company.clearbit.com/v2/find?domain=x", "body": None, "headers": {"a": "b"}}]}, rules)
    left, right = align(legacy, new)
    assert left["calls"] == right["calls"] == {"enrich": {"provider": "clearbit"}}


def test_outputs_are_compared_only_for_steps_both_sides_report() -> None:
    legacy = reduce_legacy(_legacy(outputs={"add-labels": [{"id": 1}], "score": 3}), Rules())
    new = reduce_new({"status": "succeeded", "outputs": {"score": 3}}, Rules())
    left, right = align(legacy, new)
    assert left["outputs"] == right["outputs"] == {"score": 3}


def test_repeated_steps_are_keyed_by_occurrence() -> None:
    new = reduce_new({"status": "succeeded", "calls": [{"step": "s", "url": "/1"}, {"step": "s", "url": "/2"}]}, Rules())
    assert list(new["calls"]) == ["s", "s#2"]


def test_branches_read_loose_legacy_values_and_filtered_runs() -> None:
    legacy = reduce_legacy(_legacy(decisions={"opened": "true", "route": "bug"}), Rules(Coercion.N8N))
    assert branches(legacy, Coercion.N8N) == ["opened=true", "route=bug"]
    filtered = reduce_new({"status": "filtered", "decisions": {}}, Rules())
    assert branches(filtered, Coercion.STRICT) == ["status=filtered"]


def test_a_decision_that_took_several_outputs_counts_for_each_of_them_once() -> None:
    legacy = reduce_legacy(_legacy(decisions={"size-router": ["enterprise", "no domain", "enterprise"]}), Rules(Coercion.MAKE))
    assert branches(legacy, Coercion.MAKE) == ["size-router=enterprise", "size-router=no domain"]
    nested = reduce_new({"status": "succeeded", "decisions": {"shape": [{"a": 1}], "rows": {"a": 1}}}, Rules())
    assert branches(nested, Coercion.STRICT) == []


def test_a_legacy_call_without_a_provider_is_read_relative_to_the_provider_whose_base_url_it_is_under() -> None:
    rules = Rules(base_urls={"github": "https://api.github.com", "gh-uploads": "https://api.github.com/uploads"})
    legacy = LegacyTrace(trigger_id="t", platform=Platform.N8N, status=TraceStatus.SUCCEEDED, calls=[
        {"step": "search", "provider": None, "method": "get",
         "url": "https://api.github.com/search/issues?q=bug&sort=created&order=desc"},
        {"step": "upload", "provider": None, "method": "POST", "url": "https://api.github.com/uploads/x"},
        {"step": "other", "provider": None, "method": "GET", "url": "https://example.com/a?b=1"}])
    new = {"status": "succeeded", "calls": [
        {"step": "search", "provider": "github", "method": "GET",
         "url": "https://api.github.com/search/issues?order=desc&q=bug&sort=created"},
        {"step": "upload", "provider": "gh-uploads", "method": "POST", "url": "https://api.github.com/uploads/x"},
        {"step": "other", "provider": None, "method": "GET", "url": "https://example.com/a?b=1"}]}
    left, right = reduce_legacy(legacy, rules)["calls"], reduce_new(new, rules)["calls"]
    assert {k: v["url"] for k, v in left.items()} == {k: v["url"] for k, v in right.items()} == {
        "search": "/search/issues?order=desc&q=bug&sort=created", "upload": "/x", "other": "https://example.com/a?b=1"}
