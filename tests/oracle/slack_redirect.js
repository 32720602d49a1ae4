// Preloaded into the oracle's n8n for the Slack cases (NODE_OPTIONS=--require): n8n's Slack node calls
// https://slack.com/api/<method> (a URL fixed in the node, no credential carries a base URL), so every
// https.request/https.get to slack.com goes to the loopback stand-in CUTOVER_ORACLE_SLACK
// ("http://127.0.0.1:<port>") as plain HTTP instead, method, path, query, headers and body unchanged.
// Nothing else is touched.
'use strict';
const standin = process.env.CUTOVER_ORACLE_SLACK;
if (standin) {
  const http = require('http');
  const https = require('https');
  const target = new URL(standin);
  const original = https.request;
  const moved = (args) => {
    let url = null;
    let rest = args;
    if (typeof rest[0] === 'string' || rest[0] instanceof URL) {
      url = new URL(String(rest[0]));
      rest = rest.slice(1);
    }
    const options = rest[0] && typeof rest[0] === 'object' ? rest[0] : {};
    const callback = rest.find((a) => typeof a === 'function');
    const host = options.hostname || (options.host ? String(options.host).replace(/:\d+$/, '') : url && url.hostname);
    if (host !== 'slack.com') return null;
    const path = options.path || (url ? url.pathname + url.search : '/');
    return http.request({ method: options.method || 'GET', headers: options.headers || {}, path,
      hostname: target.hostname, port: target.port, agent: false }, callback);
  };
  https.request = function request(...args) { return moved(args) || original.apply(https, args); };
  https.get = function get(...args) { const req = https.request(...args); req.end(); return req; };
}
