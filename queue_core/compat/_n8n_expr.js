// n8n's expression data model around one `={{ … }}` template (cutover's, written from n8n's docs).
//
// Loaded once per isolate after _n8n_luxon.js and _n8n_jmespath.js (and _n8n_expr_ext.js, which
// adds n8n's extension methods to the built-in prototypes of this isolate only). Defines one
// global, __cutoverExpr(payloadJSON), which renders a template for each of the payload's items and
// returns a JSON array, one entry an item: {"value": …} (no "value" key: undefined), or {"error":
// "…"} for the first item whose expression throws (no entries after it).
// A template that is one `{{ }}` and nothing else gives the expression's value; text around or
// between `{{ }}` parts makes a string, each part rendered as n8n's template engine joins them.
(function (global) {
  'use strict';
  const RealDate = Date;
  const { DateTime, Duration, Interval, setDefaultZone, setClock } = global.__cutoverLuxon;
  delete global.__cutoverLuxon;
  let clockMs = null;
  const now = () => (clockMs === null ? RealDate.now() : clockMs);
  setClock(now);
  function CutoverDate(...args) {  // Date: the run's clock (the trigger's recorded time in shadow)
    if (!new.target) return new RealDate(now()).toString();
    return Reflect.construct(RealDate, args.length ? args : [now()], new.target);
  }
  Object.setPrototypeOf(CutoverDate, RealDate);
  CutoverDate.prototype = RealDate.prototype;
  CutoverDate.now = now;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: CutoverDate, writable: true, configurable: true });
  global.Date = CutoverDate;
  for (const name of ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'setImmediate']) {
    if (name in global) global[name] = undefined;
  }

  const NAMES = ['$json', '$binary', '$input', '$', '$node', '$items', 'items', '$item', '$execution', '$workflow',
    '$now', '$today', '$env', '$vars', '$jmespath', 'DateTime', 'Duration', 'Interval', '$itemIndex', '$runIndex',
    '$prevNode', '$parameter', '$position'];
  const compiled = new Map();

  // The template's parts: literal text, and the JavaScript of each `{{ }}` (a `}}` inside a string
  // or inside braces the expression opened does not end it).
  function split(template) {
    const parts = [];
    let pos = 0;
    for (;;) {
      const open = template.indexOf('{{', pos);
      if (open < 0) break;
      let at = open + 2; let depth = 0; let quote = null; let end = -1;
      for (; at < template.length; at += 1) {
        const c = template[at];
        if (quote) {
          if (c === '\\') at += 1; else if (c === quote) quote = null;
        } else if (c === '"' || c === "'" || c === '`') quote = c;
        else if (c === '{') depth += 1;
        else if (c === '}' && depth > 0) depth -= 1;
        else if (c === '}' && template[at + 1] === '}') { end = at; break; }
      }
      if (end < 0) end = template.indexOf('}}', open + 2);  // what a quote left open would swallow
      if (end < 0) break;
      if (open > pos) parts.push({ text: template.slice(pos, open) });
      parts.push({ code: template.slice(open + 2, end) });
      pos = end + 2;
    }
    if (pos < template.length) parts.push({ text: template.slice(pos) });
    return parts;
  }

  function compile(template) {
    let entry = compiled.get(template);
    if (!entry) {
      const parts = split(template).map((p) => (p.text !== undefined ? p
        : { fn: p.code.trim() ? new Function(...NAMES, `return (${p.code}\n);`) : () => undefined }));
      entry = { parts, whole: parts.length === 1 && parts[0].fn !== undefined };
      if (compiled.size > 2000) compiled.clear();
      compiled.set(template, entry);
    }
    return entry;
  }

  function rendered(v) {  // a part between text: null, undefined, NaN and '' are nothing, 0 and false are text
    if (v === 0 || v === false) return String(v);
    if (!v) return '';
    return String(v);
  }

  const ExpressionFailure = global.__cutoverExpressionError;
  delete global.__cutoverExpressionError;
  // A TypeError reading an extension method of null or undefined: n8n's extend() fails the node
  // ("first can't be used on undefined value"); `length` is a property first, and stays JavaScript's.
  // n8n's extension method names (n8n 1.123, every type's): a call of one is n8n's, not JavaScript's.
  const EXTENSIONS = new Set([
    'hash', 'removeMarkdown', 'removeTags', 'toDate', 'toDateTime', 'toBoolean', 'toDecimalNumber', 'toNumber',
    'toFloat', 'toInt', 'toWholeNumber', 'toSentenceCase', 'toSnakeCase', 'toTitleCase', 'urlDecode', 'urlEncode',
    'quote', 'replaceSpecialChars', 'isDomain', 'isEmail', 'isNumeric', 'isUrl', 'isEmpty', 'isNotEmpty',
    'toJsonString', 'extractEmail', 'extractDomain', 'extractUrl', 'extractUrlPath', 'parseJson', 'base64Encode',
    'base64Decode', 'ceil', 'floor', 'format', 'round', 'abs', 'isInteger', 'isEven', 'isOdd', 'removeDuplicates',
    'unique', 'first', 'last', 'pluck', 'randomItem', 'sum', 'min', 'max', 'average', 'compact', 'smartJoin',
    'chunk', 'renameKeys', 'merge', 'union', 'difference', 'intersection', 'append', 'hasField', 'removeField',
    'removeFieldsContaining', 'keepFieldsContaining', 'keys', 'values', 'beginningOf', 'endOfMonth', 'extract',
    'isBetween', 'isDst', 'isInLast', 'isWeekend', 'minus', 'plus', 'diffTo', 'diffToNow']);
  const NULL_READ = /^Cannot read properties of (undefined|null) \(reading '([^']+)'\)$/;

  // One `{{ }}` part: its value, undefined when JavaScript throws (n8n's template engine swallows
  // those), and n8n's own expression errors thrown on (they fail the node).
  function part(fn, args) {
    try {
      return fn(...args);
    } catch (error) {
      if (error instanceof ExpressionFailure) throw error;
      const read = error instanceof TypeError && NULL_READ.exec(error.message);
      if (read && EXTENSIONS.has(read[2])) throw new ExpressionFailure(`${read[2]} can't be used on ${read[1]} value`);
      const missing = error instanceof TypeError && /\.([\w$]+) is not a function$/.exec(error.message);
      if (missing && EXTENSIONS.has(missing[1])) {  // n8n has it for some type: cutover's set lacks it here
        throw new ExpressionFailure(`.${missing[1]}() is an n8n extension method cutover does not provide for this value`);
      }
      return undefined;
    }
  }

  function nodeAccess(payload, index) {
    const outputs = payload.nodes || {};
    const known = new Set(payload.known || []);
    function itemsOf(name, output) {
      if (!known.has(name)) throw new ExpressionFailure(`Referenced node doesn't exist or hasn't run: '${name}'`);
      return (outputs[name] || [])[output || 0] || [];
    }
    function pick(name, at) {
      const list = itemsOf(name);
      return list[at] !== undefined ? list[at] : (list.length === 1 ? list[0] : undefined);
    }
    const $ = (name) => {
      itemsOf(name);
      return {
        all: (output) => itemsOf(name, output),
        first: (output) => itemsOf(name, output)[0],
        last: (output) => { const l = itemsOf(name, output); return l[l.length - 1]; },
        get item() { return pick(name, index); },
        itemMatching: (at) => pick(name, at),
        pairedItem: (at) => pick(name, at === undefined ? index : at),
        get isExecuted() { return name in outputs; },
        params: {},
      };
    };
    const $node = new Proxy({}, {
      get(target, name) {
        if (typeof name === 'symbol') return undefined;
        const it = pick(name, index) || {};
        return { json: it.json, binary: it.binary, data: it.json, parameter: {}, runIndex: 0, context: {} };
      },
    });
    const $items = (name, output) => (name === undefined ? payload.items : itemsOf(name, output));
    return { $, $node, $items };
  }

  function scope(payload, at) {
    const items = payload.all || payload.items;
    const current = payload.items[at] || { json: {} };
    const index = payload.base + at;
    const access = nodeAccess(payload, index);
    const $input = { all: () => items, first: () => items[0], last: () => items[items.length - 1], item: current,
      params: {}, context: { noItemsLeft: false } };
    const values = {
      $json: current.json, $binary: current.binary || {}, $input, $: access.$, $node: access.$node,
      $items: access.$items, items, $item: (at) => ({ $json: (items[at] || {}).json, $binary: (items[at] || {}).binary }),
      $execution: { id: payload.execution.id, mode: payload.execution.mode, customData: { get() { return undefined; }, getAll() { return {}; } } },
      $workflow: payload.workflow, $now: DateTime.now(), $today: DateTime.now().startOf('day'), $env: payload.env,
      $vars: payload.vars, $jmespath: (data, expression) => global.__cutoverJmespath(data, expression),
      DateTime, Duration, Interval, $itemIndex: index, $runIndex: 0,
      $prevNode: { name: payload.previous, outputIndex: 0, runIndex: 0 }, $parameter: {}, $position: index,
    };
    return NAMES.map((name) => values[name]);
  }

  function evaluate(entry, payload, at) {
    const args = scope(payload, at);
    if (entry.whole) return part(entry.parts[0].fn, args);
    let out = '';
    for (const p of entry.parts) out += p.text !== undefined ? p.text : rendered(part(p.fn, args));
    return out;
  }

  function message(error) {
    if (error instanceof ExpressionFailure) return error.message;
    if (error instanceof Error) return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
    return String(error);
  }

  Object.defineProperty(global, '__cutoverExpr', {
    value(payloadJSON) {
      const payload = JSON.parse(payloadJSON);
      clockMs = payload.now;
      setDefaultZone(payload.zone);
      const out = [];
      try {
        const entry = compile(payload.template);
        for (let at = 0; at < payload.items.length; at += 1) {
          try {
            const value = evaluate(entry, payload, at);
            out.push(typeof value === 'function' ? {} : value === undefined && payload.told ? { undefined: true } : { value });
          } catch (error) {
            out.push({ error: message(error) });
            break;  // n8n stops the node at the first item that fails
          }
        }
        return JSON.stringify(out);
      } catch (error) {
        return JSON.stringify([{ error: message(error) }]);
      } finally {
        clockMs = null;
      }
    },
  });
  Object.defineProperty(global, '__cutoverExprCheck', {  // the template's syntax: null, or why it cannot compile
    value(template) {
      try { compile(template); return null; } catch (error) { return message(error); }
    },
  });
}(globalThis));
