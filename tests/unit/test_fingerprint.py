"""Request fingerprints are stored with each call: their value must never change between versions.

A job whose call was recorded by an older cutover compares that stored fingerprint with the one
the current code computes; a changed formula would turn every such retry into an
IdempotencyConflictError. The expected values below were computed by the first release's formula.
"""

from __future__ import annotations

import httpx
import pytest

from queue_core.gateway import fingerprint, prepare
from queue_core.provider import parse_providers

GOLDEN = [
    ("POST", "https://api.example.com/v1/charges?b=2&a=1", {"b": 1, "a": [1, {"z": "ü"}]},
     "sha256:bb42e43c0dcd20d5a4eac8f7ca2112858ea6886f45de426b7d42fe9f23c3d343"),
    ("GET", "https://api.example.com/v1/customers/cus_1", None,
     "sha256:60e9380219b9e2007b462163dae758edf2d011143ed6d81b99b9f49d83d93e5c"),
]


@pytest.mark.parametrize(("method", "url", "body", "expected"), GOLDEN)
def test_fingerprints_keep_their_values(method, url, body, expected):
    assert fingerprint(method, url, body) == expected


@pytest.mark.parametrize(("method", "url", "body", "expected"), GOLDEN)
def test_a_prepared_request_carries_the_same_fingerprint(method, url, body, expected):
    config = parse_providers({"api": {"base_url": "https://api.example.com"}})["api"]
    req = prepare(config, method, url, json=body, params=None, headers=None, key="k")
    assert req.fingerprint == expected


def test_query_order_and_body_key_order_do_not_matter_but_values_do():
    a = fingerprint("POST", "https://h.example/p?b=2&a=1", {"x": 1, "y": 2})
    assert a == fingerprint("post", str(httpx.URL("https://h.example/p?a=1&b=2")), {"y": 2, "x": 1})
    assert a != fingerprint("POST", "https://h.example/p?a=1&b=3", {"x": 1, "y": 2})
    assert a != fingerprint("POST", "https://h.example/p?a=1&b=2", {"x": 1, "y": 3})


def test_a_stored_call_s_json_form_is_what_a_json_round_trip_of_asdict_gives():
    import dataclasses
    import json

    from queue_core.gateway import StoredCall

    stored = StoredCall("sha256:x", "k" * 64, "POST", "https://h.example/p", 201, "ok", "created", "201 Created",
                        (("content-type", "application/json"), ("x-id", "1")), '{"id": 1}')
    assert stored.as_json() == json.loads(json.dumps(dataclasses.asdict(stored)))
    assert StoredCall.coerce(stored.as_json()) == stored
