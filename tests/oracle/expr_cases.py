"""The expression conformance cases: ``={{ … }}`` expressions of every kind real workflows write.

A Set (Edit Fields v3.4) node carries them: each group below is one Set node whose fields are
the expressions, run on each of a few fixed inputs, in n8n and in the scaffold. They are of the
kinds the Python translation leaves to V8 (n8n's extension methods, ``new Date``, regular
expression literals, spread, optional chaining and ``??``, ``$env``, ``$('…').item.binary``,
Luxon's ``DateTime``, ``$jmespath``), of the kinds it translates (so both paths meet the same
inputs), templates with text around ``{{ }}``, and expressions that throw. Further cases run
Edit Fields in JSON mode (``mode: raw``) and a Switch whose rule conditions are a bare list.
Nothing here reads the wall clock in a way that changes the value (``$now``'s length, ``$today``'s
time of day), so both sides compute the same values. The fixtures are this project's own.
"""

from __future__ import annotations

from typing import Any

from tests.oracle.workflow import Case

ENV = {"CUTOVER_EXPR_REGION": "eu-west", "CUTOVER_EXPR_LIMIT": "25"}  # set on both sides by the measurement
INPUTS: list[list[dict[str, Any]]] = [
    [{"contact": {"email": "Ana.Lima@example.org", "name": "ana lima"}, "note": "Call back: <b>ana@example.org</b> re order #123-45",
      "created": "2024-03-10T14:30:00.000Z", "amount": "19.955", "tags": ["vip", "eu", "vip"], "score": 7,
      "payload": '{"ids":[3,1,2],"ok":true}', "rows": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 0}, {"sku": "A-1", "qty": 2}],
      "body": {"event": {"type": "message", "user": "U1"}}, "url": "https://shop.example.com/orders/77?ref=mail"},
     {"contact": {"email": "", "name": "Bo"}, "note": "", "created": "2023-12-31", "amount": "7", "tags": [], "score": 0,
      "payload": "[]", "rows": [], "body": {}, "url": "not a url"}],
    [{"contact": {"email": "x@y.io"}, "note": "no address here", "created": "2024-02-29T23:59:59+02:00", "amount": "1e3",
      "tags": ["a"], "score": -2.5, "payload": '{"ids":[]}', "rows": [{"sku": "C", "qty": 5}], "body": {"event": None},
      "url": "http://example.net"}],
]
S, N, B, A, O = "string", "number", "boolean", "array", "object"
GROUPS: list[list[tuple[str, str]]] = [
    [("={{ $json.contact.toJsonString() }}", S), ("={{ $json.tags.toJsonString() }}", S), ("={{ $json.note.toJsonString() }}", S),
     ("={{ $json.payload.parseJson() }}", O)],
    [("={{ $json.note.extractEmail() }}", S), ("={{ $json.url.extractDomain() }}", S), ("={{ $json.note.extractUrl() }}", S),
     ("={{ $json.contact.email.isEmail() }}", B), ("={{ $json.amount.isNumeric() }}", B)],
    [("={{ $json.amount.toNumber() }}", N), ("={{ $json.amount.toNumber().round(2) }}", N), ("={{ $json.score.round() }}", N),
     ("={{ $json.score.toBoolean() }}", B), ("={{ $json.score.abs() }}", N)],
    [("={{ $json.tags.isEmpty() }}", B), ("={{ $json.tags.first() }}", S), ("={{ $json.tags.last() }}", S),
     ("={{ $json.note.isEmpty() }}", B), ("={{ $json.body.isEmpty() }}", B), ("={{ $json.contact.isNotEmpty() }}", B)],
    [("={{ $json.rows.pluck('sku') }}", A), ("={{ $json.tags.unique() }}", A), ("={{ $json.rows.map(r => r.qty).sum() }}", N),
     ("={{ $json.rows.map(r => r.qty).max() }}", N), ("={{ $json.tags.compact().length }}", N), ("={{ $json.tags.chunk(2) }}", A)],
    [("={{ $json.contact.keys() }}", A), ("={{ $json.contact.values() }}", A), ("={{ $json.contact.hasField('name') }}", B),
     ("={{ $json.contact.removeField('email') }}", O), ("={{ $json.contact.merge({ source: 'web' }) }}", O)],
    [("={{ $json.note.removeTags() }}", S), ("={{ $json.contact.name.quote() }}", S), ("={{ $json.note.urlEncode() }}", S),
     ("={{ $json.contact.name.toSnakeCase() }}", S), ("={{ $json.contact.name.toSentenceCase() }}", S)],
    [("={{ $json.created.toDateTime().toISO() }}", S), ("={{ $json.created.toDateTime().minus(1, 'days').toISODate() }}", S),
     ("={{ $json.created.toDateTime().plus(2, 'hours').toFormat('yyyy-MM-dd HH:mm') }}", S),
     ("={{ $json.created.toDateTime().format('dd/MM/yyyy') }}", S),
     ("={{ $json.created.toDateTime().minus({ weeks: 1 }).toMillis() }}", N)],
    [("={{ DateTime.fromISO('2024-05-01T08:00:00Z').plus({ days: 30 }).toISODate() }}", S),
     ("={{ DateTime.fromISO($json.created).setZone('Europe/Berlin').toFormat('HH:mm') }}", S),
     ("={{ $now.toISO().length }}", N), ("={{ $today.hour + $today.minute }}", N), ("={{ $now.isValid }}", B)],
    [("={{ new Date($json.created).getTime() }}", N), ("={{ new Date($json.created).toISOString() }}", S),
     ("={{ Date.parse($json.created) > Date.parse('2024-01-01') }}", B), ("={{ new Date(0).toISOString() }}", S)],
    [("={{ $json.note.replace(/[<>]/g, '') }}", S), ("={{ $json.note.match(/#(\\d+)-(\\d+)/)?.[1] ?? 'none' }}", S),
     ("={{ /^https:/.test($json.url) }}", B), ("={{ $json.contact.name.replace(/\\b\\w/g, c => c.toUpperCase()) }}", S)],
    [("={{ [...new Set([...$json.tags, 'new'])] }}", A), ("={{ { ...$json.contact, seen: true } }}", O),
     ("={{ Math.max(0, ...$json.rows.map(r => r.qty)) }}", N), ("={{ [...$json.tags].reverse().join('|') }}", S)],
    [("={{ $json.body?.event?.type ?? 'none' }}", S), ("={{ $json.rows?.[0]?.sku || '' }}", S),
     ("={{ $json.contact?.phone ?? null }}", S), ("={{ $json.body.event?.user?.toLowerCase() }}", S)],
    [("={{ $env.CUTOVER_EXPR_REGION }}", S), ("={{ 'limit=' + $env.CUTOVER_EXPR_LIMIT }}", S),
     ("={{ $env.CUTOVER_EXPR_ABSENT || 'fallback' }}", S)],
    [("={{ $('Input 1').item.json.contact.email }}", S), ("={{ $('Input 1').first().json.tags.length }}", N),
     ("={{ $('Input 1').all().length }}", N), ("={{ $node['Input 1'].json.score }}", N),
     ("={{ $input.all().map(i => i.json.score).join(',') }}", S), ("={{ $('Input 1').item.binary }}", O),
     ("={{ $input.last().json.amount }}", S), ("={{ $itemIndex }}", N)],
    [("={{ $jmespath($json, 'rows[?qty > `0`].sku') }}", A), ("={{ $jmespath($json.rows, '[0].qty') }}", N),
     ("={{ $json.rows.filter(r => r.qty > 0).map(r => r.sku).join(', ') }}", S), ("={{ $json.tags.includes('vip') }}", B)],
    [("=Hello {{ $json.contact.name.toUpperCase() }}, score {{ $json.score }}!", S), ("=obj: {{ $json.contact }} / {{ $json.tags }}", S),
     ("=n={{ $json.body?.missing }}|z={{ 0 }}|f={{ false }}", S), ("={{ $json.score }} points", S),
     ("=Order {{ $json.note.match(/#([\\d-]+)/)?.[1] }} on {{ $json.created.toDateTime().toISODate() }}", S)],
    [("={{ $json.contact.name.length > 3 ? 'long' : 'short' }}", S), ("={{ ($json.amount * 2).toFixed(1) }}", S),
     ("={{ String($json.score).padStart(4, '0') }}", S), ("={{ encodeURIComponent($json.contact.email) }}", S),
     ("={{ Object.keys($json.body).length }}", N), ("={{ JSON.stringify($json.rows.slice(0, 1)) }}", S)],
    [("={{ $json.note.noSuchExtension() }}", S)],
    [("={{ $json.rows.find(r => r.qty > 100).sku.toLowerCase() }}", S)],
    [("={{ $json.payload.parseJson().ids.sort().join('-') }}", S), ("={{ $json.note.split(' ').first() }}", S)],
    [("={{ $json.nothing.map(x => x) }}", A), ("={{ $json.nothing.filter(x => x).length }}", N),
     ("={{ $json.rows.map(r => r.qty * 2) }}", A), ("={{ $json.contact.name.toUpperCase() + '!' }}", S)],
]
RAW: list[tuple[str, dict[str, Any]]] = [
    ('={\n  "email": "{{ $json.contact.email }}",\n  "score": {{ $json.score }},\n  "contact": {{ $json.contact }},\n  '
     '"tags": {{ $json.tags }},\n  "flag": {{ $json.score > 0 }}\n}', {}),
    ('={ "first": "{{ $json.tags.first() }}", "when": "{{ $json.created.toDateTime().toISODate() }}", '
     '"sku": "{{ $json.rows?.[0]?.sku ?? \'\' }}" }', {"includeOtherFields": True}),
    ('{\n  "static": true,\n  "nested.value": 1\n}', {}),
    ('{\n  "static": true,\n  "nested.value": 1\n}', {"options": {"dotNotation": False}}),
    ('={ "n": {{ $json.score }}, "bad": {{ $json.note }} }', {}),
    ("={{ $json.tags }}", {}),
    ('={{ $json.contact }}', {"includeOtherFields": True}),
]
SWITCH_LIST_RULES = {"rules": {"values": [
    {"conditions": [{"leftValue": "={{ $json.score }}", "rightValue": 0, "operator": {"type": "number", "operation": "gt"}}]},
    {"conditions": [{"leftValue": "={{ $json.note }}", "rightValue": "", "operator": {"type": "string", "operation": "equals"}}]},
]}, "options": {}}


def _set(group: list[tuple[str, str]]) -> dict[str, Any]:
    return {"assignments": {"assignments": [{"id": f"f{n}", "name": f"f{n}", "value": value, "type": kind}
                                            for n, (value, kind) in enumerate(group)]}, "options": {}}


def cases() -> list[Case]:
    """Return every expression case, in a fixed order (ids ``expr set v3.4 #<n>`` and so on)."""
    out: list[Case] = []
    for group in GROUPS:
        for items in INPUTS:
            out.append(Case(f"expr set v3.4 #{len(out) + 1}", "n8n-nodes-base.set", 3.4, _set(group), [items]))
    for json_output, extra in RAW:
        for items in INPUTS:
            params = {"mode": "raw", "jsonOutput": json_output, "options": {}, **extra}
            out.append(Case(f"raw set v3.4 #{len(out) + 1}", "n8n-nodes-base.set", 3.4, params, [items]))
    for items in INPUTS:
        out.append(Case(f"list-rules switch v3.2 #{len(out) + 1}", "n8n-nodes-base.switch", 3.2, SWITCH_LIST_RULES, [items]))
    return out
