// Write the parameter descriptions of n8n's nodes (names, types, defaults, options, when each is
// shown) for every version of the node types named on the command line, as JSON on stdout.
//
//   node extract.js N8N_NODE_MODULES TYPE...   (TYPE: the short type, e.g. if, httpRequest)
//
// N8N_NODES_PACKAGE names the package to read (default n8n-nodes-base; @n8n/n8n-nodes-langchain
// for the AI nodes, written to langchain.json).
//
// These are public facts of n8n's node definitions (which parameters exist, their defaults and
// options); the translator reads them so that an export, which leaves out every parameter equal
// to its default, is read as n8n reads it. Run by harness/platforms/n8n/descriptions/__init__.py's
// `refresh`, against the n8n the oracle suite installs; the output is committed as nodes.json.
'use strict';
const path = require('path');

const [root, ...wanted] = process.argv.slice(2);
// The oracle's install skips native builds (--ignore-scripts): a node that loads sqlite3 at require
// time (the AI Agent, through its memory helpers) gets an empty stand-in; no description needs it.
const Module = require('module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'sqlite3' ? __filename + '#sqlite3' : resolve.call(this, request, ...rest);
};
require.cache[__filename + '#sqlite3'] = { id: 'sqlite3', loaded: true, exports: {} };
const base = path.join(root, process.env.N8N_NODES_PACKAGE || 'n8n-nodes-base');
const pkg = require(path.join(base, 'package.json'));

function trim(prop) {
  const out = { name: prop.name, type: prop.type };
  if ('default' in prop) out.default = prop.default;
  if (prop.displayOptions) out.displayOptions = prop.displayOptions;
  if (prop.typeOptions && prop.typeOptions.multipleValues) out.multipleValues = true;
  if (Array.isArray(prop.options)) {
    if (prop.type === 'options' || prop.type === 'multiOptions') {
      out.options = prop.options.map((o) => o.value);
    } else if (prop.type === 'fixedCollection') {
      out.options = prop.options.map((o) => ({ name: o.name, values: (o.values || []).map(trim) }));
    } else {
      out.options = prop.options.map(trim); // collection: its optional parameters
    }
  }
  return out;
}

function versionsOf(instance) {
  if (instance.nodeVersions) {
    return Object.entries(instance.nodeVersions).map(([v, node]) => [v, node.description]);
  }
  const d = instance.description;
  const versions = Array.isArray(d.version) ? d.version : [d.version];
  return versions.map((v) => [String(v), d]);
}

const result = {};
for (const file of pkg.n8n.nodes) {
  let mod;
  try { mod = require(path.join(base, file)); } catch (e) { continue; } // a native module not built here
  for (const cls of Object.values(mod)) {
    if (typeof cls !== 'function') continue;
    let instance;
    try { instance = new cls(); } catch (e) { continue; }
    const desc = instance.description || (instance.baseDescription);
    const name = desc && desc.name;
    if (!name || (wanted.length && !wanted.includes(name))) continue;
    const versions = {};
    for (const [v, d] of versionsOf(instance)) {
      versions[v] = { properties: (d.properties || []).map(trim) };
    }
    result[name] = versions;
  }
}
process.stdout.write(JSON.stringify(result, null, 1) + '\n');
