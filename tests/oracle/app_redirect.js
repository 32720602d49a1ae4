// Preloaded into the oracle's n8n for the app-node cases (NODE_OPTIONS=--require, see app_oracle.py):
// every outbound HTTP(S) request to a host that is not loopback goes to the loopback stand-in
// (app_server.py) named by CUTOVER_ORACLE_STANDIN ("http://127.0.0.1:<port>") instead, as plain HTTP,
// with its method, path, query, headers and body unchanged and one header added, x-oracle-origin
// ("https://api.example.com"), saying where it was going. It covers node's http.request/http.get and
// https.request/https.get (axios, follow-redirects and n8n's request helpers go through them) and the
// global fetch. A request to 127.0.0.1, localhost or ::1 (Postgres is not HTTP; n8n's own task
// runner broker is loopback) is left alone. Without CUTOVER_ORACLE_STANDIN nothing is touched.
'use strict';
const standin = process.env.CUTOVER_ORACLE_STANDIN;
if (standin) {
  const http = require('http');
  const https = require('https');
  const target = new URL(standin);
  const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]', '']);
  const originalHttp = http.request;
  const originalHttps = https.request;

  const hostOf = (options, url) => {
    if (options.hostname) return String(options.hostname);
    if (options.host) return String(options.host).replace(/:\d+$/, '');
    return url ? url.hostname : '';
  };

  const redirected = (scheme, args) => {
    let url = null;
    let options = {};
    let callback;
    let rest = args;
    if (typeof rest[0] === 'string' || rest[0] instanceof URL) {
      url = new URL(String(rest[0]));
      rest = rest.slice(1);
    }
    if (rest[0] && typeof rest[0] === 'object') {
      options = rest[0];
      rest = rest.slice(1);
    }
    if (typeof rest[0] === 'function') callback = rest[0];
    const host = hostOf(options, url);
    if (LOOPBACK.has(host)) return null;
    const protocol = options.protocol || (url ? url.protocol : scheme);
    const port = options.port || (url ? url.port : '');
    const path = options.path || (url ? url.pathname + url.search : '/');
    const headers = {};
    for (const [name, value] of Object.entries(options.headers || {})) headers[name] = value;
    headers['x-oracle-origin'] = `${protocol}//${host}${port ? ':' + port : ''}`;
    const moved = {
      method: options.method || 'GET', headers, path, protocol: 'http:', hostname: target.hostname,
      port: target.port, agent: false,
    };
    for (const key of ['auth', 'timeout', 'signal', 'setHost']) if (options[key] !== undefined) moved[key] = options[key];
    return originalHttp.call(http, moved, callback);
  };

  http.request = function request(...args) {
    return redirected('http:', args) || originalHttp.apply(http, args);
  };
  https.request = function request(...args) {
    return redirected('https:', args) || originalHttps.apply(https, args);
  };
  http.get = function get(...args) {
    const req = http.request(...args);
    req.end();
    return req;
  };
  https.get = function get(...args) {
    const req = https.request(...args);
    req.end();
    return req;
  };

  if (typeof globalThis.fetch === 'function') {
    const originalFetch = globalThis.fetch;
    globalThis.fetch = function fetch(input, init) {
      const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const url = new URL(href);
      if (LOOPBACK.has(url.hostname)) return originalFetch.call(this, input, init);
      const moved = `${standin}${url.pathname}${url.search}`;
      const request = new Request(moved, input instanceof Request ? input : init);
      const headers = new Headers(request.headers);
      if (init && init.headers && input instanceof Request) new Headers(init.headers).forEach((v, k) => headers.set(k, v));
      headers.set('x-oracle-origin', url.origin);
      return originalFetch.call(this, new Request(request, { headers }));
    };
  }
}
