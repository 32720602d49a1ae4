"""Convert to File's runtime: JSON.stringify's text and the binary entry n8n's createBinaryFromJson makes."""

from __future__ import annotations

import base64

import pytest

from queue_core.compat._n8n_convert import binary_from_json, stringify, to_json_file, to_text_file
from queue_core.errors import NodeFailed


def test_stringify_writes_numbers_keys_and_indentation_as_javascript_does() -> None:
    assert stringify({"b": 2.0, "1": 1e-7, "a": [0.00001, 1e21, {}], "0": None}) == \
        '{"0":null,"1":1e-7,"b":2,"a":[0.00001,1e+21,{}]}'
    assert stringify({"a": [1, "é"]}, 2) == '{\n  "a": [\n    1,\n    "é"\n  ]\n}'


def test_a_json_file_once_is_every_item_and_each_is_one_file_per_item_named_file_json_by_default() -> None:
    once = to_json_file([{"json": {"a": 1}}, {"json": {}}], mode="once", output="data", options=[{}])
    assert once[0]["json"] == {} and base64.b64decode(once[0]["binary"]["data"]["data"]) == b'[{"a":1},{}]'
    assert once[0]["binary"]["data"]["fileName"] == "file.json"
    each = to_json_file([{"json": {"a": 1}}, {"json": {}}], mode="each", output="f",
                        options=[{"fileName": "x?y=1", "addBOM": True}, {}])
    assert [e["binary"]["f"].get("fileName") for e in each] == ["x", "file.json"]
    assert base64.b64decode(each[0]["binary"]["f"]["data"]) == b'\xef\xbb\xbf{"a":1}'


def test_a_text_file_of_a_falsy_number_is_empty_an_object_makes_json_and_a_missing_source_fails() -> None:
    assert binary_from_json({"n": 0}, mime_type="text/plain", source="n")["fileSize"] == "0 B"
    made = to_text_file([{"json": {"a": {"x": 1}}}], output="data", source="a", options=[{}])[0]["binary"]["data"]
    assert made["mimeType"] == "application/json" and made["fileName"] == "file.txt"
    with pytest.raises(NodeFailed, match='The value in "b.c" is not set'):
        binary_from_json({"b": {}}, mime_type="text/plain", source="b.c")
    with pytest.raises(NodeFailed, match="path"):
        binary_from_json({}, mime_type="application/json", file_name=3)


def test_a_csv_file_flattens_the_items_and_writes_numbers_as_sheetjs_general_format() -> None:
    from queue_core.compat._n8n_csv import csv_text, general, to_csv_file

    items = [{"json": {"a": 1, "b": "x,y", "c": {"y": 0.5, "x": None}}},
             {"json": {"b": [True, False, 10], "a": 'he said "hi"\nok', "d": None}},
             {"json": {"a": 0.1 + 0.2, "c": 1 / 3, "e": 1e21, "f": -2.5, "g": ""}}]
    assert csv_text(items) == ('a,b,c.y,c.x,b.0,b.1,b.2,d,c,e,f,g\n1,"x,y",0.5,,,,,,,,,\n'
                               '"he said ""hi""\nok",,,,TRUE,FALSE,10,,,,,\n0.3,,,,,,,,0.333333333,1E+21,-2.5,')
    assert [general(v) for v in (123456789012345.0, 0.000123456789, 99999.99999999)] == ["1.23457E+14", "0.000123457", "100000"]
    made = to_csv_file([], output="data", options={})[0]["binary"]["data"]
    assert (made["fileName"], made["mimeType"], base64.b64decode(made["data"])) == ("File.csv", "text/csv", b"\xef\xbb\xbf")
