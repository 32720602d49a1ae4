"""The Code node runtime: a node's own JavaScript run in V8 with n8n's data model and sandbox."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from queue_core.compat import n8n
from queue_core.compat._n8n_code import referenced_env, referenced_nodes, run_js
from queue_core.errors import NodeFailed

ITEMS = [{"json": {"a": 1, "b": "x"}}, {"json": {"a": 2}}]


def js(source: str, items: list[dict[str, Any]] | None = None, **kwargs: Any) -> list[dict[str, Any]]:
    return run_js(source, ITEMS if items is None else items, node="Code", **kwargs).items


def test_all_items_mode_reads_input_and_returns_mapped_items() -> None:
    assert js("return $input.all().map(i => ({json: {b: i.json.a * 2}}))") == [{"json": {"b": 2}}, {"json": {"b": 4}}]
    assert js("return [$input.first(), $input.last()]") == [ITEMS[0], ITEMS[1]]
    assert js("return items.length ? [{json: {n: items.length}}] : []") == [{"json": {"n": 2}}]


def test_each_item_mode_runs_once_per_item_with_json_and_index() -> None:
    got = js("return {json: {a: $json.a, i: $itemIndex, same: $input.item.json === $json}}", mode="runOnceForEachItem")
    assert got == [{"json": {"a": 1, "i": 0, "same": True}}, {"json": {"a": 2, "i": 1, "same": True}}]


def test_returns_are_normalised_as_n8n_does() -> None:
    assert js("return {x: 1}") == [{"json": {"x": 1}}]  # one object: one item
    assert js("return [{x: 1}, {y: 2}]") == [{"json": {"x": 1}}, {"json": {"y": 2}}]  # not wrapped: wrapped
    assert js("return {json: {x: 1}, binary: {data: {mimeType: 'text/plain'}}}") == [
        {"json": {"x": 1}, "binary": {"data": {"mimeType": "text/plain"}}}]
    assert js("return null") == []
    assert js("return null", mode="runOnceForEachItem") == []  # each item: null drops the item


@pytest.mark.parametrize(("source", "mode", "message"), [
    ("return 5", "runOnceForAllItems", "Code doesn't return items properly"),
    ("const x = 1;", "runOnceForAllItems", "Code doesn't return items properly"),
    ("return [{json: 1}]", "runOnceForAllItems", "A 'json' property isn't an object"),
    ("return [{json: {}, extra: 1}]", "runOnceForAllItems", "Unknown top-level item key: extra"),
    ("return [$json]", "runOnceForEachItem", "Code doesn't return a single object"),
    ("return 'text'", "runOnceForEachItem", "Code doesn't return an object"),
    ("return", "runOnceForEachItem", "('undefined' was returned instead.)"),
    ("return {json: $input.first().json}", "runOnceForEachItem", "only available in 'Run Once for All Items' mode"),
    ("throw new Error('stopped on purpose')", "runOnceForAllItems", "stopped on purpose"),
    ("return missing.value", "runOnceForAllItems", "ReferenceError: missing is not defined"),
])
def test_invalid_returns_and_throws_fail_the_node_with_n8n_s_words(source: str, mode: str, message: str) -> None:
    with pytest.raises(NodeFailed, match="^Code: ") as caught:
        js(source, mode=mode)
    assert message in str(caught.value)


def test_earlier_nodes_are_read_with_dollar_and_dollar_node() -> None:
    outputs = {"Start": [[{"json": {"s": 1}}, {"json": {"s": 2}}]]}
    got = js("return {first: $('Start').first().json, n: $('Start').all().length, old: $node['Start'].json,"
             " legacy: $items('Start').length}", outputs=outputs)
    assert got == [{"json": {"first": {"s": 1}, "n": 2, "old": {"s": 1}, "legacy": 2}}]
    paired = js("return {p: $('Start').item.json.s}", mode="runOnceForEachItem", outputs=outputs)
    assert paired == [{"json": {"p": 1}}, {"json": {"p": 2}}]
    with pytest.raises(NodeFailed, match="Node 'Later' hasn't been executed"):
        js("return $('Later').all()", outputs=outputs)


def test_execution_workflow_and_the_clock_are_the_runs() -> None:
    at = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)
    got = js("return {e: $execution.id, w: $workflow.name, now: $now.toISO(), today: $today.toISO(),"
             " date: new Date().toISOString(), ms: Date.now()}", execution_id="job-1",
             workflow={"id": "7", "name": "Orders", "active": True}, now=at, zone="UTC")
    assert got == [{"json": {"e": "job-1", "w": "Orders", "now": "2024-05-01T12:30:00.000Z",
                             "today": "2024-05-01T00:00:00.000Z", "date": "2024-05-01T12:30:00.000Z",
                             "ms": int(at.timestamp() * 1000)}}]
    assert js("return {d: new Date('2020-01-02T00:00:00Z').toISOString()}", now=at) == [
        {"json": {"d": "2020-01-02T00:00:00.000Z"}}]


def test_luxon_subset_computes_zones_formats_and_arithmetic() -> None:
    got = js("const d = DateTime.fromISO('2024-03-10T01:30:00', {zone: 'America/New_York'});\n"
             "return {dst: d.plus({hours: 1}).toISO(), fmt: DateTime.fromFormat('05/01/2024', 'dd/MM/yyyy').toFormat('yyyy LLL dd'),"
             " taipei: DateTime.fromISO('2024-01-01T00:00:00Z').setZone('Asia/Taipei').toFormat('yyyy-MM-dd HH:mm'),"
             " eom: DateTime.fromISO('2024-01-31', {zone: 'UTC'}).plus({months: 1}).toISODate(),"
             " days: DateTime.fromISO('2024-03-01').diff(DateTime.fromISO('2024-01-01'), 'days').days,"
             " wd: DateTime.fromISO('2024-06-02').weekday, bad: DateTime.fromISO('nope').isValid}", zone="UTC")
    assert got == [{"json": {"dst": "2024-03-10T03:30:00.000-04:00", "fmt": "2024 Jan 05", "taipei": "2024-01-01 08:00",
                             "eom": "2024-02-29", "days": 60, "wd": 7, "bad": False}}]


def test_a_luxon_method_outside_the_subset_fails_naming_it() -> None:
    with pytest.raises(NodeFailed, match=r"DateTime\.toRelativeCalendar is not in cutover's Luxon subset"):
        js("return {r: DateTime.now().toRelativeCalendar()}")


def test_jmespath_subset_and_its_limits() -> None:
    got = js("const d = {a: [{b: 1, c: 'x'}, {b: 2, c: 'y'}], o: {p: {q: 3}}};\n"
             "return {all: $jmespath(d, 'a[*].b'), f: $jmespath(d, \"a[?c=='y'].b | [0]\"), q: $jmespath(d, 'o.p.q'),"
             " none: $jmespath(d, 'zz.b')}")
    assert got == [{"json": {"all": [1, 2], "f": 2, "q": 3, "none": None}}]
    with pytest.raises(NodeFailed, match=r"\$jmespath: .*JMESPath subset"):
        js("return {x: $jmespath({}, 'length(a)')}")


def test_the_sandbox_has_no_modules_network_or_files_and_limits_time_and_memory() -> None:
    with pytest.raises(NodeFailed, match="Module 'fs' is disallowed"):
        js("const fs = require('fs'); return []")
    assert js("return {f: typeof fetch, p: typeof process, x: typeof XMLHttpRequest, t: typeof setTimeout}") == [
        {"json": {"f": "undefined", "p": "undefined", "x": "undefined", "t": "undefined"}}]
    with pytest.raises(NodeFailed, match="time limit"):
        js("stuck = 1; while (true) {}", timeout_ms=100)
    assert js("return {s: typeof stuck}") == [{"json": {"s": "undefined"}}]  # a stopped run's globals undone
    with pytest.raises(NodeFailed, match="memory limit"):
        js("const a = []; while (true) a.push(new Array(1e6).fill(1));", max_memory=64 * 2**20)
    assert js("return {ok: 1}") == [{"json": {"ok": 1}}]  # the engine is made anew after a limit


def test_awaited_code_runs_and_an_endless_await_chain_is_still_timed() -> None:
    assert js("const v = await Promise.resolve(5); return {v}") == [{"json": {"v": 5}}]
    with pytest.raises(NodeFailed, match="time limit"):
        js("await null; while (true) {}", timeout_ms=100)


def test_one_run_never_sees_another_runs_globals() -> None:
    js("leaked = 1; globalThis.other = 2; JSON = null; return []")
    assert js("return {l: typeof leaked, o: typeof other, j: typeof JSON.stringify}") == [
        {"json": {"l": "undefined", "o": "undefined", "j": "function"}}]


def test_console_is_captured_not_printed(capfd: pytest.CaptureFixture[str]) -> None:
    run = run_js("console.log('hello', {a: 1}); console.warn(2); return []", ITEMS, node="Code")
    assert run.logs == ['hello {"a":1}', "2"]
    assert "hello" not in capfd.readouterr().out


def test_legacy_function_and_function_item_nodes() -> None:
    assert js("return items.map(i => ({json: {...i.json, f: 1}}))", kind="function") == [
        {"json": {"a": 1, "b": "x", "f": 1}}, {"json": {"a": 2, "f": 1}}]
    with pytest.raises(NodeFailed, match="Always an Array of items has to be returned!"):
        js("return 3", kind="function")
    assert js("item.z = item.a + 1; return item", kind="functionItem") == [
        {"json": {"a": 1, "b": "x", "z": 2}}, {"json": {"a": 2, "z": 3}}]


def test_referenced_names_are_read_from_the_source() -> None:
    source = "$('A').first(); $node[\"B b\"].json; $items('C'); $env.TOKEN; $env['OTHER_ONE']"
    assert referenced_nodes(source) == {"A", "B b", "C"}
    assert referenced_env(source) == {"TOKEN", "OTHER_ONE"}


class _Ctx:
    job_id = uuid.UUID(int=5)
    automation = "orders"
    mode = "shadow"

    def now(self) -> datetime:
        return datetime(2024, 2, 3, 4, 5, 6, tzinfo=UTC)


def test_the_entry_point_runs_in_a_flow_records_the_output_and_reads_the_jobs_clock() -> None:
    async def scaffolded() -> Any:  # the generated code calls it from inside the automation's coroutine
        flow = n8n.Flow(_Ctx())
        flow.emit("Start", [{"json": {"s": 1}}])
        out = n8n.code(flow, "Code", "return {s: $('Start').first().json.s, now: $now.toISO(), w: $workflow.name,"
                                     " e: $execution.id}", [{"json": {}}], zone="UTC")
        return flow, out

    flow, out = asyncio.run(scaffolded())
    assert out == [{"json": {"s": 1, "now": "2024-02-03T04:05:06.000Z", "w": "orders", "e": str(uuid.UUID(int=5))}}]
    assert flow.outputs["Code"] == [out]


def test_v8_natives_syntax_is_refused_but_a_percent_in_text_or_modulo_is_not() -> None:
    for source in ("%DebugPrint(1); return []", "return %Abort()", "const f = () => %Foo(); return []"):
        with pytest.raises(NodeFailed, match="natives syntax"):
            js(source)
    assert js("return {t: '(%d items)', m: 7 % parseInt('4')}") == [{"json": {"t": "(%d items)", "m": 3}}]
