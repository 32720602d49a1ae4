// Preloaded into the oracle's n8n for the AI cases (NODE_OPTIONS=--require), beside redirect_fetch.js: an
// app node used as an agent's tool (gmailTool) calls a fixed URL (https://www.googleapis.com/gmail/...)
// through n8n-core's axios, not fetch, so each axios module loaded gets a request interceptor sending
// the hosts named in CUTOVER_ORACLE_REDIRECT ("https://www.googleapis.com=http://127.0.0.1:<port>",
// comma-separated) to the loopback stand-in instead, path and query unchanged. Nothing else is touched.
'use strict';
const Module = require('module');
const pairs = (process.env.CUTOVER_ORACLE_REDIRECT || '').split(',').filter(Boolean).map((p) => p.split('='));
const patched = new WeakSet();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const loaded = load.apply(this, arguments);
  const axios = request === 'axios' && loaded ? (loaded.default || loaded) : null;
  if (pairs.length && axios && axios.interceptors && !patched.has(axios)) {
    patched.add(axios);
    axios.interceptors.request.use((config) => {
      const url = String(config.url || '');
      const pair = pairs.find(([from]) => url.startsWith(from));
      if (pair) config.url = pair[1] + url.slice(pair[0].length);
      return config;
    });
  }
  return loaded;
};
