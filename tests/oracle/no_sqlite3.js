// Preloaded into the oracle's n8n for the AI cases (NODE_OPTIONS=--require): the AI Agent node
// requires sqlite3 when it loads, and the oracle's install builds no native module
// (--ignore-scripts). n8n runs on Postgres here, so nothing calls it: an empty module stands in.
'use strict';
const Module = require('module');
const resolve = Module._resolveFilename;
const stub = __filename + '#sqlite3';
Module._resolveFilename = function (request, ...rest) {
  return request === 'sqlite3' ? stub : resolve.call(this, request, ...rest);
};
require.cache[stub] = { id: stub, filename: stub, loaded: true, exports: {} };
