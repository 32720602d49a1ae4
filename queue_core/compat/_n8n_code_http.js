// A Code node's HTTP helpers (this.helpers.httpRequest, this.helpers.request, …) over Python's ctx.call.
//
// cutover's, written from n8n 1.123's request helpers (n8n-core's request-helper-functions: httpRequest,
// proxyRequestToAxios, parseRequestObject) and what its Code node showed on a loopback server. A call
// returns a pending Promise and queues a plain request; Python takes the queue, makes each call through
// the gateway and hands the answers back (settle), and the run goes on. Loaded after _n8n_node.js, before
// _n8n_code.js; defines globalThis.__cutoverHttp = {helpers(state, nodeType), settle(state, answers), State}.
(function (global) {
  'use strict';
  const { Buffer } = global.__cutoverNode;
  const NO_BODY = ['GET', 'HEAD', 'OPTIONS'];
  const ABSOLUTE = /^([a-z][a-z\d+\-.]*:)?\/\//i;

  function isEmpty(value) {  // lodash's isEmpty, as removeEmptyBody uses it
    if (value === null || value === undefined) return true;
    if (typeof value === 'string' || Array.isArray(value) || value instanceof Uint8Array) return value.length === 0;
    if (typeof value === 'object') return Object.keys(value).length === 0;
    return true;
  }
  const headerKey = (headers, name) => Object.keys(headers).find((k) => k.toLowerCase() === name);
  function joinURL(base, url) {  // axios's buildFullPath
    if (base === undefined || url === undefined || ABSOLUTE.test(String(url))) return String(url);
    return `${String(base).replace(/\/?\/$/, '')}/${String(url).replace(/^\/+/, '')}`;
  }
  function pairs(params, format) {  // a query or form as [name, text] pairs (axios's and qs's brackets)
    const out = [];
    const scalar = (v) => (v instanceof Date ? v.toISOString() : String(v));
    const visit = (prefix, value) => {
      if (value === undefined || value === null) return;
      if (Array.isArray(value)) {
        value.forEach((v, i) => visit(format === 'repeat' ? prefix : format === 'brackets' ? `${prefix}[]` : `${prefix}[${i}]`, v));
      } else if (typeof value === 'object' && !(value instanceof Date)) {
        for (const [k, v] of Object.entries(value)) visit(`${prefix}[${k}]`, v);
      } else out.push([prefix, scalar(value)]);
    };
    for (const [k, v] of Object.entries(params || {})) visit(k, v);
    return out;
  }
  function refuse(what) {
    throw new Error(`${what} is not sent by cutover's gateway (it sends JSON and form bodies): write this call in Python`);
  }
  const basic = (user, password) => `Basic ${Buffer.from(`${user || ''}:${password || ''}`, 'utf8').toString('base64')}`;
  function jsonBody(body) {  // axios sends a string that is JSON as it is, any other string JSON-encoded
    if (typeof body !== 'string') return { kind: 'json', value: body };
    try { return { kind: 'json', value: JSON.parse(body) }; } catch (e) { return { kind: 'json', value: body }; }
  }
  function formBody(body) {  // a form of names and scalar values (nested or repeated fields are refused)
    if (typeof body === 'string') {
      if (!body.includes('=')) refuse('a text body');
      return { kind: 'form', pairs: [...new URLSearchParams(body)] };
    }
    const values = Object.values(body || {});
    if (values.some((v) => v !== null && typeof v === 'object' && !(v instanceof Date))) refuse('a form with nested or list fields');
    return { kind: 'form', pairs: pairs(body) };
  }

  // helpers.httpRequest(options): n8n's IHttpRequestOptions
  function httpRequestOf(options) {
    const o = { ...(options || {}) };
    const method = String(o.method || 'GET').toUpperCase();
    if (NO_BODY.includes(method) && isEmpty(o.body)) delete o.body;
    const headers = { ...(o.headers || {}) };
    let body = null;
    if (o.body !== undefined && method !== 'GET' && (typeof o.body === 'string' || !isEmpty(o.body))) {
      if (o.body instanceof Uint8Array || (typeof FormData !== 'undefined' && o.body instanceof FormData)) refuse('a binary or multipart body');
      const type = headers[headerKey(headers, 'content-type')];
      if (type === 'application/x-www-form-urlencoded' || (type === undefined && typeof o.body === 'string')) body = formBody(o.body);
      else if (type === undefined || /json/i.test(type)) body = jsonBody(o.body);
      else refuse(`a ${type} body`);
      if (type === undefined) headers['Content-Type'] = body.kind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
    }
    if (o.json && !headerKey(headers, 'accept')) headers.Accept = 'application/json';
    if (!headerKey(headers, 'accept')) headers.Accept = 'application/json, text/plain, */*';
    if (o.auth) headers.Authorization = basic(o.auth.username, o.auth.password);  // axios's auth: Basic, over any header
    if (o.arrayFormat !== undefined && !['indices', 'brackets', 'repeat'].includes(o.arrayFormat)) refuse(`arrayFormat '${o.arrayFormat}'`);
    if (!headerKey(headers, 'user-agent')) headers['User-Agent'] = 'n8n';
    if (o.encoding !== undefined && !['arraybuffer', 'text', 'json'].includes(o.encoding)) refuse(`encoding '${o.encoding}'`);
    return {
      helper: 'httpRequest', method, url: joinURL(o.baseURL, o.url), query: pairs(o.qs, o.arrayFormat), headers, body,
      binary: o.encoding === 'arraybuffer', follow: o.disableFollowRedirect !== true,
      shape: { encoding: o.encoding, full: !!o.returnFullResponse, simple: !o.ignoreHttpStatusErrors },
    };
  }

  // helpers.request(uri | options[, options]): the legacy request-promise options, as n8n maps them onto axios
  function requestOf(uriOrObject, more) {
    const o = typeof uriOrObject === 'string' ? { uri: uriOrObject, ...(more || {}) } : { ...(uriOrObject || {}) };
    const method = String(o.method || 'GET').toUpperCase();
    if (NO_BODY.includes(method) && isEmpty(o.body)) delete o.body;
    if (o.formData !== undefined || o.useStream) refuse(o.useStream ? 'a streamed answer' : 'a multipart form (formData)');
    const headers = { ...(o.headers || {}) };
    const type = headers[headerKey(headers, 'content-type')];
    let body = null;
    if (type === 'application/x-www-form-urlencoded') {
      body = formBody(typeof o.body === 'string' ? o.body : Object.assign(o.body || {}, o.form || {}));
    } else if (o.form !== undefined && o.body === undefined) {
      if (type !== undefined) delete headers[headerKey(headers, 'content-type')];
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = formBody(o.form);
    } else if (o.body !== undefined && o.body !== '') {
      if (o.body instanceof Uint8Array) refuse('a binary body');
      if (type !== undefined && !/json/i.test(type)) refuse(`a ${type} body`);
      body = jsonBody(o.body);
      if (o.json !== false && type === undefined) headers['content-type'] = 'application/json';
    }
    if (o.json === true && !headerKey(headers, 'accept')) headers.Accept = 'application/json';
    if (!headerKey(headers, 'accept')) headers.accept = '*/*';
    if (o.auth && o.auth.bearer !== undefined) headers.Authorization = `Bearer ${o.auth.bearer}`;
    else if (o.auth) headers.Authorization = basic(o.auth.user || o.auth.username, o.auth.password || o.auth.pass);
    const format = o.useQuerystring === true || (o.qsStringifyOptions || {}).arrayFormat === 'repeat' ? 'repeat'
      : (o.qsStringifyOptions || {}).arrayFormat === 'brackets' ? 'brackets' : undefined;
    const follow = (o.followRedirect !== false && NO_BODY.slice(0, 2).includes(method)) || !!o.followAllRedirects;
    return {
      helper: 'request', method, url: joinURL(o.baseURL, o.url !== undefined ? o.url : o.uri), query: pairs(o.qs, format),
      headers, body, binary: o.encoding === null, follow,
      shape: { json: o.json === true, full: !!o.resolveWithFullResponse, simple: o.simple !== false, buffer: o.encoding === null },
    };
  }

  function headersOf(list) {  // Node's IncomingMessage headers: lower-case names, set-cookie an array
    const out = {};
    for (const [name, value] of list) {
      const k = name.toLowerCase();
      if (k === 'set-cookie') (out[k] = out[k] || []).push(value);
      else out[k] = k in out ? `${out[k]}, ${value}` : value;
    }
    return out;
  }
  function parsed(text) {  // axios's transformResponse: a JSON text becomes its value, silently
    if (!text) return text;
    try { return JSON.parse(text); } catch (e) { return text; }
  }
  function axiosError(message, answer, extra) {
    const e = new Error(message);
    const props = { stack: `AxiosError: ${message}\n    at Code`, message, name: 'AxiosError', isAxiosError: true,
      code: answer.status >= 400 && answer.status < 500 ? 'ERR_BAD_REQUEST' : 'ERR_BAD_RESPONSE', status: answer.status,
      ...extra, cause: undefined };
    for (const [k, v] of Object.entries(props)) Object.defineProperty(e, k, { value: v, writable: true, configurable: true });
    return e;
  }
  function bodyOf(request, answer) {
    if (request.binary) return answer.base64 === '' ? Buffer.alloc(0) : Buffer.from(answer.base64, 'base64');
    const { shape } = request;
    if (request.helper === 'httpRequest') return shape.encoding === 'text' ? answer.text : parsed(answer.text);
    return shape.json ? parsed(answer.text) : answer.text;
  }
  function outcome(request, answer) {  // [ok, value]
    const ok = answer.status >= 200 && answer.status < 300;
    const data = bodyOf(request, answer);
    const { shape } = request;
    if (!ok && shape.simple) {
      if (request.helper === 'httpRequest') return [false, axiosError(`Request failed with status code ${answer.status}`, answer, {})];
      const shown = Buffer.isBuffer(data) ? data.toString('utf8') : data;
      return [false, axiosError(`${answer.status} - ${JSON.stringify(shown)}`, answer, { statusCode: answer.status })];
    }
    const body = request.helper === 'request' && data === '' ? undefined : data;
    if (!shape.full) return [true, body];
    const full = { body, headers: headersOf(answer.headers), statusCode: answer.status, statusMessage: answer.reason };
    if (request.helper === 'request') {  // n8n adds the Node request object, which no item can hold (circular)
      const socket = {};
      full.request = { socket };
      socket._httpMessage = full.request;
    }
    return [true, full];
  }

  class State {
    constructor() { this.next = 0; this.queue = []; this.waiting = new Map(); this.calls = new WeakMap(); }
    ask(request) {
      const id = this.next; this.next += 1;
      return new Promise((resolve, reject) => { this.waiting.set(id, { request, resolve, reject }); this.queue.push({ id, ...request }); });
    }
  }
  function helpers(state, nodeType) {
    const noCredentials = () => {
      const e = new Error(`Node type "${nodeType}" does not have any credentials defined`);
      Object.defineProperty(e, 'name', { value: 'NodeApiError', writable: true, configurable: true });
      return Promise.reject(e);
    };
    // A request the gateway cannot send as n8n sent it stops the node (Python raises), never reaching a catch.
    const guarded = (build) => (...args) => {
      let request;
      try { request = build(...args); } catch (e) { request = { refused: e.message }; }
      return state.ask(request);
    };
    return {
      httpRequest: guarded(httpRequestOf), request: guarded(requestOf),
      httpRequestWithAuthentication: noCredentials, requestWithAuthentication: noCredentials,
    };
  }
  function settle(state, answers) {
    for (const answer of answers) {
      const entry = state.waiting.get(answer.id);
      if (!entry) continue;
      state.waiting.delete(answer.id);
      const [ok, value] = outcome(entry.request, answer);
      if (ok) entry.resolve(value);
      else { state.calls.set(value, answer.id); entry.reject(value); }
    }
  }
  global.__cutoverHttp = { helpers, settle, State };
}(globalThis));
