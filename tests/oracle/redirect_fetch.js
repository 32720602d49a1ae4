// Preloaded into the oracle's n8n for the AI cases (NODE_OPTIONS=--require): a tool whose URL is
// fixed in LangChain (Wikipedia's https://en.wikipedia.org/w/api.php) has no credential to carry a
// base URL, so its global fetch calls to the hosts named in CUTOVER_ORACLE_REDIRECT
// ("https://en.wikipedia.org=http://127.0.0.1:<port>", comma-separated) go to the loopback
// stand-in instead, path and query unchanged. Nothing else is touched.
'use strict';
const pairs = (process.env.CUTOVER_ORACLE_REDIRECT || '').split(',').filter(Boolean).map((p) => p.split('='));
if (pairs.length && typeof globalThis.fetch === 'function') {
  const original = globalThis.fetch;
  globalThis.fetch = function (input, init) {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const pair = pairs.find(([from]) => url.startsWith(from));
    return original.call(this, pair ? pair[1] + url.slice(pair[0].length) : input, init);
  };
}
