"""Where a provider's response names the created object: parsing the setting, extracting the value."""

from __future__ import annotations

import httpx
import pytest

from queue_core._external_ref import extract_external_ref, parse_external_ref
from queue_core.errors import ConfigError
from queue_core.provider import parse_provider

FIELD = "tool.cutover.providers.crm.external_ref"


def ref(setting: str, response: httpx.Response) -> str | None:
    return extract_external_ref(parse_external_ref(setting, FIELD), response)


def test_a_json_pointer_reads_members_array_elements_and_escaped_names() -> None:
    body = {"id": "c_1", "data": [{"id": 7}, {"id": 8}], "a/b": {"~x": "esc"}}
    response = httpx.Response(201, json=body)
    assert ref("/id", response) == "c_1"
    assert ref("/data/1/id", response) == "8"
    assert ref("/a~1b/~0x", response) == "esc"


def test_a_missing_or_non_scalar_value_is_no_reference() -> None:
    response = httpx.Response(201, json={"id": None, "ok": True, "obj": {}, "list": [1], "long": "x" * 600})
    for pointer in ("/missing", "/id", "/ok", "/obj", "/list", "/list/5", "/list/01", "/long", "/obj/deeper"):
        assert ref(pointer, response) is None, pointer
    assert ref("/id", httpx.Response(201, text="not json")) is None


def test_a_header_ref_reads_the_named_header_case_insensitively() -> None:
    response = httpx.Response(201, headers={"location": "https://crm.test/c/9"})
    assert ref("header:Location", response) == "https://crm.test/c/9"
    assert ref("header:X-Object-Id", response) is None


@pytest.mark.parametrize(("setting", "message"), [
    ("id", "JSON pointer starting with '/'"),
    ("/a~2b", "JSON pointer"),
    ("header:", "header name"),
    ("header:Bad Name", "header name"),
    ("header:Authorization", "looks like a credential"),
    ("header:X-Session-Token", "looks like a credential"),
    (7, "JSON pointer like '/id'"),
])
def test_a_bad_setting_is_a_config_error_naming_the_field(setting: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_external_ref(setting, FIELD)
    assert caught.value.field == FIELD


def test_the_provider_table_takes_external_ref_and_names_it_when_wrong() -> None:
    config = parse_provider("crm", {"base_url": "https://crm.test", "external_ref": "/id"})
    assert config.external_ref is not None and config.external_ref.pointer == ("id",)
    assert parse_provider("crm", {"base_url": "https://crm.test"}).external_ref is None
    with pytest.raises(ConfigError) as caught:
        parse_provider("crm", {"base_url": "https://crm.test", "external_ref": "id"})
    assert caught.value.field == FIELD
