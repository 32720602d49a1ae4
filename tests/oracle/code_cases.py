"""The Code node conformance cases: JavaScript real Code nodes write, run in n8n and in the scaffold.

Unlike the parameter cases (``cases.py``, drawn with Hypothesis), a Code node's parameter is a
program, so these are written out: each source below runs on each of a few fixed inputs, in the
mode it names. They cover both modes, ``$input.all()/first()/last()/item``, ``$json``, the legacy
``items``, ``$('Node')`` and ``$node["Node"]`` (the node feeding the input is ``Input 1``),
returns of item arrays, bare objects and non-wrapped values, the returns n8n refuses and code
that throws, ``$jmespath`` and Luxon's ``DateTime``, Node's ``crypto`` and ``Buffer``, the
workflow's static data within one execution, Python Code nodes (Pyodide's model), and the legacy
Function and Function Item nodes. Nothing here reads a clock, so both sides compute the same values.
"""

from __future__ import annotations

from typing import Any

from tests.oracle.workflow import Case

ALL, EACH = "runOnceForAllItems", "runOnceForEachItem"
INPUTS: list[list[dict[str, Any]]] = [
    [{"a": 1, "b": "x"}, {"a": 0, "b": "y", "c": [1, 2]}, {}],
    [{"a": 5, "nested": {"k": "v"}}],
]
CODE: list[tuple[str, str]] = [
    (ALL, "return $input.all().map(i => ({json: {...i.json, n: 1}}));"),
    (ALL, "return $input.first().json;"),
    (ALL, "return $input.last();"),
    (ALL, "return [{a: 1}, {a: 2}];"),
    (ALL, "return {json: {x: 1}};"),
    (ALL, "return $input.all().filter(i => i.json.a);"),
    (ALL, "const out = [];\nfor (const item of items) {\n  out.push({json: {keys: Object.keys(item.json).length}});\n}\nreturn out;"),
    (ALL, "for (const item of $input.all()) {\n  item.json.seen = true;\n}\nreturn $input.all();"),
    (ALL, "return $('Input 1').all().map((i, n) => ({json: {n, from: i.json}}));"),
    (ALL, "return [{json: {first: $('Input 1').first().json, last: $('Input 1').last().json}}];"),
    (ALL, "return [{json: {j: $json}}];"),
    (ALL, "const total = $input.all().reduce((s, i) => s + (i.json.a || 0), 0);\nreturn [{json: {total, count: $input.all().length}}];"),
    (ALL, "return [{json: {r: $jmespath({a: [{b: 1}, {b: 2}]}, 'a[*].b'), s: $jmespath($input.first().json, 'a')}}];"),
    (ALL, "const d = DateTime.fromISO('2024-03-10T12:00:00Z', {zone: 'UTC'});\n"
          "return [{json: {next: d.plus({days: 1}).toISODate(), f: DateTime.fromFormat('05/01/2024', 'dd/MM/yyyy').toFormat('yyyy LLL dd'),"
          " m: d.startOf('month').toISO(), diff: d.diff(DateTime.fromISO('2024-01-01T00:00:00Z'), 'days').days}}];"),
    (ALL, "console.log('logged', $input.all().length);\nreturn [{json: {ok: true}}];"),
    (ALL, "return 5;"),
    (ALL, "return [{json: 1}];"),
    (ALL, "return [{json: {}, extra: 1}];"),
    (ALL, "throw new Error('stopped on purpose');"),
    (ALL, "const x = 1;"),
    (ALL, "return null;"),
    (ALL, "return $input.first().json.missing.deeper;"),
    (EACH, "$json.added = true;\nreturn $json;"),
    (EACH, "return {json: {i: $input.item.json, index: $itemIndex}};"),
    (EACH, "return {json: {paired: $('Input 1').item.json}};"),
    (EACH, "return {json: {legacy: $node['Input 1'].json}};"),
    (EACH, "if (!$json.a) return;\nreturn {json: {a: $json.a}};"),
    (EACH, "return [$json];"),
    (EACH, "return 'text';"),
    (EACH, "return {json: {b: $json.b ?? null, upper: ($json.b || '').toUpperCase()}};"),
    (EACH, "return null;"),
    (ALL, "return [1, 'two'];"),
    (ALL, "return $input.all().map(i => i.json);"),
    (EACH, "return {json: {n: $('Input 1').all().length, first: $input.first().json}};"),
    (EACH, "return {json: {n: $('Input 1').all().length, f: $('Input 1').first().json}};"),
    (ALL, "return [{json: {i: $input.item.json}}];"),
    (ALL, "return [{json: {i: $('Input 1').item.json}}];"),
    (ALL, "return [{json: {legacy: $node['Input 1'].json}}];"),
    # Node's crypto and Buffer (allowed as NODE_FUNCTION_ALLOW_BUILTIN=crypto allows them, set by measure()).
    (ALL, "const c = require('crypto');\nconst t = JSON.stringify($input.all().map(i => i.json));\n"
          "return [{json: {md5: c.createHash('md5').update(t).digest('hex'), sha1: c.createHash('sha1').update(t).digest('base64'),"
          " sha256: c.createHash('sha256').update(t, 'utf8').digest('hex'), sha512: c.createHash('sha512').update(t).digest('base64'),"
          " mac: c.createHmac('sha256', 'sëcret').update(t).digest('hex'), mac1: c.createHmac('sha1', Buffer.from('6b6579', 'hex')).update(t).digest('base64')}}];"),
    (EACH, "const crypto = require('crypto');\nconst sig = 'v0=' + crypto.createHmac('sha256', 'k').update(`v0:1:${JSON.stringify($json)}`).digest('hex');\n"
           "return {json: {sig, ok: crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(sig)), len: Buffer.byteLength(sig)}};"),
    (ALL, "const c = require('crypto');\nconst id = c.randomUUID();\n"
          "return [{json: {uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id), bytes: c.randomBytes(12).length}}];"),
    (EACH, "const s = JSON.stringify($json) + ' ü 🙂';\nconst b64 = Buffer.from(s).toString('base64');\n"
           "return {json: {b64, back: Buffer.from(b64, 'base64').toString('utf8') === s, hex: Buffer.from(s, 'utf8').toString('hex'),"
           " n: Buffer.byteLength(s), cat: Buffer.concat([Buffer.from('a'), Buffer.from(b64, 'base64')]).length,"
           " url: Buffer.from(s).toString('base64url'), latin: Buffer.from('c3a9', 'hex').toString('latin1')}};"),
    # The workflow's static data within one execution (one node: 'global' and its own 'node' part).
    (ALL, "const g = $getWorkflowStaticData('global');\ng.count = (g.count || 0) + $input.all().length;\n"
          "const mine = $getWorkflowStaticData('node');\nmine.last = $input.last().json;\n"
          "return [{json: {g, mine, same: g === $getWorkflowStaticData('global')}}];"),
    (EACH, "const g = $getWorkflowStaticData('global');\ng.seen = (g.seen || []).concat([$itemIndex]);\n"
           "return {json: {seen: g.seen}};"),
    (ALL, "$getWorkflowStaticData('workflow');\nreturn [];"),
]
# Python Code nodes (language python: n8n runs them in Pyodide, offline from its own stdlib).
PYTHON: list[tuple[str, str]] = [
    (ALL, "return [{'json': {**item.json, 'n': 1}} for item in _input.all()]"),
    (ALL, "out = []\nfor item in _input.all():\n  out.append({'json': {'keys': len(item.json)}})\nreturn out"),
    (ALL, "for item in _input.all():\n  item.json.seen = True\nreturn _input.all()"),
    (ALL, "return {'x': 1}"),
    (ALL, "return [{'json': {'first': _input.first().json.to_py(), 'n': len(items)}}]"),
    (ALL, "return [{'json': {'a': None, 'b': 1, 'l': [None, 2]}}]"),
    (ALL, "import json\nreturn [{'json': {'s': json.dumps(_input.last().json.to_py(), sort_keys=True)}}]"),
    (ALL, "return [{'json': {'r': [i.json.get('a') for i in _input.all()], 'j': _json.to_py()}}]"),
    (ALL, "return [{'json': {'other': _('Input 1').first().json.to_py()}}]"),
    (ALL, "return 5"),
    (ALL, "raise ValueError('stopped on purpose')"),
    (EACH, "return {'a': _json.get('a'), 'i': _itemIndex}"),
    (EACH, "item.json.added = True\nreturn item"),
    (EACH, "return {'json': {'paired': _('Input 1').item.json.to_py()}}"),
    (EACH, "return None"),
    (EACH, "return [_json]"),
]
FUNCTION = [
    "return items.map(i => ({json: {...i.json, f: true}}));",
    "return items.length;",
    "return [{a: 1}];",
    "items.push({json: {added: 1}});\nreturn items;",
]
FUNCTION_ITEM = [
    "item.x = 1;\nreturn item;",
    "return {keys: Object.keys(item)};",
]


def cases() -> list[Case]:
    """Return every Code node case, in a fixed order (ids ``code v2 #<n>`` and so on)."""
    out: list[Case] = []
    for mode, source in CODE:
        for items in INPUTS:
            out.append(_case("n8n-nodes-base.code", 2, {"mode": mode, "jsCode": source} if mode == EACH
                             else {"jsCode": source}, items, len(out)))
    for mode, source in PYTHON:
        for items in INPUTS:
            params = {"language": "python", "pythonCode": source, **({"mode": mode} if mode == EACH else {})}
            out.append(_case("n8n-nodes-base.code", 2, params, items, len(out)))
    for source in FUNCTION:
        for items in INPUTS:
            out.append(_case("n8n-nodes-base.function", 1, {"functionCode": source}, items, len(out)))
    for source in FUNCTION_ITEM:
        for items in INPUTS:
            out.append(_case("n8n-nodes-base.functionItem", 1, {"functionCode": source}, items, len(out)))
    return out


def _case(node_type: str, version: float, parameters: dict[str, Any], items: list[dict[str, Any]], n: int) -> Case:
    return Case(f"{node_type.rsplit('.', 1)[-1]} v{version:g} #{n + 1}", node_type, float(version), parameters, [items])
