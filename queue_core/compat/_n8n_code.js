// The n8n Code node's data model around a node's own JavaScript (cutover's, written from n8n's docs).
//
// Loaded once per isolate after _n8n_luxon.js and _n8n_node.js (Buffer, crypto). Defines one global, __cutoverCode(payloadJSON),
// which runs a node's source once (all items) or once per item, and returns a JSON string:
// {"items": [...], "logs": [...]} or {"error": {"message", "description", "item"}, "logs": [...]}.
// Each run gets its own function scope; globals a run adds are deleted after it, and globals it
// replaced are put back, so one run never sees another's state.
(function (global) {
  'use strict';
  const RealDate = Date;
  const { DateTime, Duration, Interval, setDefaultZone, setClock } = global.__cutoverLuxon;
  delete global.__cutoverLuxon;
  const { Buffer, crypto, seed: seedRandom } = global.__cutoverNode;  // _n8n_node.js
  delete global.__cutoverNode;
  const HTTP = global.__cutoverHttp;  // _n8n_code_http.js: this.helpers.httpRequest / request over Python's ctx.call
  delete global.__cutoverHttp;
  const BUILTINS = { crypto };  // the Node.js modules the sandbox has (NODE_FUNCTION_ALLOW_BUILTIN)
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

  // No timers: a callback would run after the timed call. mini-racer's are writable, not deletable.
  for (const name of ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'setImmediate']) {
    if (name in global) global[name] = undefined;
  }

  const ITEM_KEYS = new Set(['json', 'binary', 'pairedItem', 'error', 'index']);
  const AsyncFunction = (async function () {}).constructor;
  const NAMES = ['$input', '$json', '$binary', 'items', 'item', '$', '$node', '$items', '$execution', '$workflow',
    '$now', '$today', '$jmespath', 'DateTime', 'Duration', 'Interval', 'require', 'console', '$env', '$itemIndex',
    '$runIndex', '$prevNode', '$getWorkflowStaticData', 'getWorkflowStaticData', 'helpers', 'module', 'exports',
    'Buffer'];  // no $http: n8n's Code node has none (the code meets a ReferenceError, as in n8n)
  const compiled = new Map();
  let drain = () => {};
  try { drain = new Function('%PerformMicrotaskCheckpoint()'); } catch (e) { /* no natives: async code is refused */ }

  class NodeError extends Error {
    constructor(message, description, item) { super(message); this.description = description; this.item = item; }
  }
  const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

  function compile(source, isAsync) {
    const key = `${isAsync ? 'a' : 's'}${source}`;
    let fn = compiled.get(key);
    if (!fn) {
      fn = new (isAsync ? AsyncFunction : Function)(...NAMES, source);
      if (compiled.size > 500) compiled.clear();
      compiled.set(key, fn);
    }
    return fn;
  }

  function refused(name) {
    return () => { throw new NodeError(`${name} is not available in cutover's Code sandbox`, 'the node needs rewriting in Python'); };
  }
  function sandboxRequire(payload) {
    const allowed = payload.builtins || [];
    return (name) => {
      const bare = String(name).replace(/^node:/, '');
      if (bare in BUILTINS && (allowed.includes(bare) || allowed.includes('*'))) return BUILTINS[bare];
      throw new NodeError(`Module '${name}' is disallowed`, bare in BUILTINS ? 'NODE_FUNCTION_ALLOW_BUILTIN does not list it'
        : "cutover's Code sandbox has no other Node.js module (no network, no file system)");
    };
  }
  function staticData(payload) {  // n8n's Workflow.getStaticData: one object per 'global' and per node
    if (!payload.static) return refused('$getWorkflowStaticData');
    return (type) => {
      let key;
      if (type === 'global') key = 'global';
      else if (type === 'node') key = `node:${payload.node}`;
      else throw new NodeError('Unknown context type. Only `global` and `node` are supported.');
      if (!isObject(payload.static[key])) payload.static[key] = {};
      return payload.static[key];
    };
  }
  function makeConsole(logs) {
    const text = (v) => { if (typeof v === 'string') return v; try { return JSON.stringify(v) ?? String(v); } catch (e) { return String(v); } };
    const log = (...args) => { if (logs.length < 200) logs.push(args.map(text).join(' ')); };
    return { log, info: log, warn: log, error: log, debug: log };
  }

  function nodeAccess(payload, mode, index) {
    const outputs = payload.nodes || {};
    const known = new Set(payload.known || []);
    function itemsOf(name, output) {
      if (!known.has(name)) throw new NodeError(`Node '${name}' hasn't been executed (or does not exist)`);
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
        get item() { return pick(name, index); },  // all items: the first item's pair, as n8n gives
        itemMatching: (at) => pick(name, at),
        pairedItem: (at) => pick(name, at === undefined ? index : at),
        isExecuted: name in outputs,
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

  function jmespath(data, expression) { return global.__cutoverJmespath(data, expression); }

  const refusedHelpers = new Proxy({}, { get: (t, k) => refused(`helpers.${String(k)}`) });
  function helpersOf(payload) {  // the HTTP helpers when Python drives the run (payload.http), the rest refused
    if (!payload.http) return refusedHelpers;
    const own = HTTP.helpers(payload.http, payload.nodeType || 'n8n-nodes-base.code');
    return new Proxy(own, { get: (t, k) => (k in t ? t[k] : refused(`helpers.${String(k)}`)) });
  }
  function scope(payload, index, logs) {
    if (!payload.shared) payload.shared = { require: sandboxRequire(payload), static: staticData(payload), helpers: helpersOf(payload) };
    const { require: requireModule, static: workflowStatic, helpers } = payload.shared;
    const mode = payload.kind === 'functionItem' ? 'runOnceForEachItem' : payload.mode;
    const items = payload.items;
    const current = mode === 'runOnceForEachItem' ? items[index] : items[0];
    const access = nodeAccess(payload, mode, index);
    const today = DateTime.now().startOf('day');
    const legacyItem = payload.kind === 'functionItem' ? (current || {}).json : current;
    const forAll = (fn) => (...args) => {
      if (mode === 'runOnceForEachItem' && payload.kind === 'code') throw new NodeError("This is only available in 'Run Once for All Items' mode");
      return fn(...args);
    };
    const $input = { all: forAll(() => items), first: forAll(() => items[0]), last: forAll(() => items[items.length - 1]),
      item: current, params: {}, context: { noItemsLeft: false } };
    const values = {
      $input, $json: (current || {}).json, $binary: (current || {}).binary || {}, items, item: legacyItem,
      $: access.$, $node: access.$node, $items: access.$items, $execution: { id: payload.execution.id, mode: payload.execution.mode,
        resumeUrl: undefined, customData: { set() {}, setAll() {}, get() { return undefined; }, getAll() { return {}; } } },
      $workflow: payload.workflow, $now: DateTime.now(), $today: today, $jmespath: jmespath, DateTime, Duration, Interval,
      require: requireModule, console: makeConsole(logs), $env: payload.env || {}, $itemIndex: index, $runIndex: 0,
      $prevNode: { name: payload.previous, outputIndex: 0, runIndex: 0 },
      $getWorkflowStaticData: workflowStatic, getWorkflowStaticData: workflowStatic,
      helpers, module: { exports: {} }, exports: {}, Buffer,
    };
    Object.setPrototypeOf(values, global);  // `this` is the sandbox, as in n8n's vm: this.helpers, this.$json, this.Date
    return [values, NAMES.map((name) => values[name])];
  }

  function invoke(payload, fn, index, logs) {
    const [self, args] = scope(payload, index, logs);
    return fn.apply(self, args);
  }
  function call(payload, fn, index, logs) {
    let result = invoke(payload, fn, index, logs);
    if (result && typeof result.then === 'function') {
      let settled = false; let value; let failure;
      result.then((v) => { settled = true; value = v; }, (e) => { settled = true; failure = e; });
      drain();
      if (!settled) throw new NodeError('The Code node awaited something that never settled', 'cutover runs no timers or network');
      if (failure !== undefined) throw failure;
      result = value;
    }
    return result;
  }

  function normalizeItems(data) {  // n8n's normalizeItems
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) data = data.json ? [data] : [{ json: data }];
    if (data.every((it) => typeof it === 'object' && it !== null && 'json' in it)) return data;
    if (data.some((it) => typeof it === 'object' && it !== null && 'json' in it)) throw new NodeError('Inconsistent item format');
    if (data.every((it) => typeof it === 'object' && it !== null && 'binary' in it)) {
      return data.map((it) => { const { binary, ...json } = it; return { json, binary }; });
    }
    return data.map((it) => ({ json: it }));
  }
  function validateItem(it, index) {
    if (it.json !== undefined && !isObject(it.json)) {
      throw new NodeError("A 'json' property isn't an object", "In the returned data, every key named 'json' must point to an object.", index);
    }
    if (it.binary !== undefined && !isObject(it.binary)) {
      throw new NodeError("A 'binary' property isn't an object", "In the returned data, every key named 'binary' must point to an object.", index);
    }
  }
  function validateTopLevelKeys(it, index) {
    for (const key of Object.keys(it)) {
      if (!ITEM_KEYS.has(key)) throw new NodeError(`Unknown top-level item key: ${key}`, 'Access the properties of an item under `.json`, e.g. `item.json`', index);
    }
  }
  function keep(it, binaryFrom) {
    const out = { json: it.json };
    const binary = it.binary !== undefined ? it.binary : binaryFrom;
    if (binary !== undefined) out.binary = binary;
    return out;
  }

  function allItems(result) {
    if (result === null) return [];
    if (typeof result !== 'object') {
      throw new NodeError("Code doesn't return items properly", 'Please return an array of objects, one for each item you would like to output.');
    }
    if (Array.isArray(result) && result.some((it) => isObject(it) && Object.keys(it).some((k) => ITEM_KEYS.has(k)))) {
      result.forEach((it, i) => validateTopLevelKeys(it, i));
    }
    const out = normalizeItems(result);
    out.forEach((it, i) => validateItem(it, i));
    return out.map((it) => keep(it));
  }
  function eachItem(result, index) {
    if (result === null) return null;
    if (typeof result !== 'object') {
      throw new NodeError("Code doesn't return an object", `Please return an object representing the output item. ('${result}' was returned instead.)`, index);
    }
    if (Array.isArray(result)) {
      const first = result.length ? `An array of ${typeof result[0]}s was returned.` : 'An empty array was returned.';
      throw new NodeError("Code doesn't return a single object", `${first} If you need to output multiple items, please use the 'Run Once for All Items' mode instead.`, index);
    }
    const [it] = normalizeItems([result]);
    validateItem(it, index);
    validateTopLevelKeys(it, index);
    return keep(it);
  }
  function functionItems(result) {  // the legacy Function node
    if (result === undefined) throw new NodeError('No data got returned. Always return an Array of items!');
    const out = result === null || typeof result !== 'object' ? result : normalizeItems(result);
    if (!Array.isArray(out)) throw new NodeError('Always an Array of items has to be returned!');
    for (const it of out) {
      if (it.json === undefined) throw new NodeError('All returned items have to contain a property named "json"!');
      if (typeof it.json !== 'object') throw new NodeError('The json-property has to be an object!');
    }
    return out.map((it) => keep(it));
  }

  function* steps(payload) {  // yields [fn, item index] for each run of the code, is sent back its result
    const fn = compile(payload.source, payload.async);
    if (payload.kind === 'function') return functionItems(yield [fn, 0]);
    if (payload.kind !== 'functionItem' && payload.mode !== 'runOnceForEachItem') return allItems(yield [fn, 0]);
    const out = [];
    for (let index = 0; index < payload.items.length; index += 1) {
      const result = yield [fn, index];
      if (payload.kind === 'functionItem') {
        if (result === undefined) throw new NodeError('No data got returned. Always an object has to be returned!', undefined, index);
        out.push(keep({ json: result }, payload.items[index].binary));
      } else {
        const it = eachItem(result, index);
        if (it) out.push(it);
      }
    }
    return out;
  }
  function run(payload, logs) {  // within the one call from Python: promises drained, none may stay pending
    const walk = steps(payload);
    let at = walk.next();
    while (!at.done) at = walk.next(call(payload, at.value[0], at.value[1], logs));
    return at.value;
  }
  async function runAsync(payload, logs) {  // across calls from Python: each awaited promise may wait on HTTP answers
    const walk = steps(payload);
    let at = walk.next();
    while (!at.done) at = walk.next(await invoke(payload, at.value[0], at.value[1], logs));
    return at.value;
  }

  const baseline = new Map(Object.getOwnPropertyNames(global).map((k) => [k, Object.getOwnPropertyDescriptor(global, k)]));
  function restoreGlobals() {
    for (const key of Object.getOwnPropertyNames(global)) {
      if (!baseline.has(key)) { try { delete global[key]; } catch (e) { /* non-configurable: left */ } }
    }
    for (const [key, descriptor] of baseline) {
      const now_ = Object.getOwnPropertyDescriptor(global, key);
      if (!now_ || now_.value !== descriptor.value || now_.get !== descriptor.get) {
        try { Object.defineProperty(global, key, descriptor); } catch (e) { /* frozen by the run: left */ }
      }
    }
  }
  function describe(error) {
    if (error instanceof NodeError) return { message: error.message, description: error.description ?? null, item: error.item ?? null };
    if (error instanceof Error) return { message: `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`, description: null, item: null };
    return { message: String(error), description: null, item: null };
  }

  Object.defineProperty(global, '__cutoverRestore', { value() { clockMs = null; seedRandom(null); driven = null; restoreGlobals(); } });
  baseline.set('__cutoverRestore', Object.getOwnPropertyDescriptor(global, '__cutoverRestore'));
  Object.defineProperty(global, '__cutoverCode', {
    value(payloadJSON) {
      const payload = JSON.parse(payloadJSON);
      const logs = [];
      clockMs = payload.now;
      setDefaultZone(payload.zone);
      seedRandom(payload.entropy);
      const kept = (out) => (payload.static ? { ...out, static: payload.static } : out);  // saved even when it fails, as n8n
      try {
        return JSON.stringify(kept({ items: run(payload, logs), logs }));
      } catch (error) {
        return JSON.stringify(kept({ error: describe(error), logs }));
      } finally {
        clockMs = null;
        seedRandom(null);
        restoreGlobals();
      }
    },
  });
  baseline.set('__cutoverCode', Object.getOwnPropertyDescriptor(global, '__cutoverCode'));

  // A run Python drives (its HTTP calls made between calls): start, then resume with answers until it ends.
  // The isolate is the run's own while it lasts (queue_core.compat._n8n_code_http), so its clock, zone and
  // seed stay set between the calls.
  let driven = null;
  function advance() {
    drain();
    const state = driven;
    const kept = (out) => (state.payload.static ? { ...out, static: state.payload.static } : out);
    if (!state.done && state.payload.http.queue.length) return JSON.stringify({ pending: state.payload.http.queue.splice(0) });
    try {
      if (!state.done) throw new NodeError('The Code node awaited something that never settled', 'cutover runs no timers');
      if (state.failed) throw state.error;
      return JSON.stringify(kept({ items: state.value, logs: state.logs }));
    } catch (error) {
      const call = state.payload.http.calls.get(error);
      return JSON.stringify(kept({ error: { ...describe(error), call: call === undefined ? null : call }, logs: state.logs }));
    } finally {
      global.__cutoverRestore();
    }
  }
  const entries = {
    __cutoverStart(payloadJSON) {
      const payload = JSON.parse(payloadJSON);
      payload.http = new HTTP.State();
      clockMs = payload.now;
      setDefaultZone(payload.zone);
      seedRandom(payload.entropy);
      const state = { payload, logs: [], done: false, failed: false };
      driven = state;
      runAsync(payload, state.logs).then((v) => { state.done = true; state.value = v; },
        (e) => { state.done = true; state.failed = true; state.error = e; });
      return advance();
    },
    __cutoverResume(answersJSON) {
      HTTP.settle(driven.payload.http, JSON.parse(answersJSON));
      return advance();
    },
  };
  for (const [name, value] of Object.entries(entries)) {
    Object.defineProperty(global, name, { value });
    baseline.set(name, Object.getOwnPropertyDescriptor(global, name));
  }
}(globalThis));
