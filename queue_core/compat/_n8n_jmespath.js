// cutover's JMESPath subset for the Code node's $jmespath(data, expression) (written here).
//
// Supported: identifiers and "quoted" identifiers, sub-expressions (a.b), indexes ([0], [-1]),
// list projections ([*]), object projections (*), flatten ([]), filters ([?a == `1`], with
// == != < <= > >=, && || !, literals `json`, 'raw string', numbers) and pipes (a | b).
// Anything else throws an Error naming the expression. Defines globalThis.__cutoverJmespath.
(function (global) {
  'use strict';
  function fail(expression, why) {
    throw new Error(`$jmespath: ${JSON.stringify(expression)} ${why} (cutover supports a JMESPath subset: see the README)`);
  }
  function tokenize(expression) {
    const tokens = [];
    const re = /\s*(?:([A-Za-z_][A-Za-z0-9_]*)|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|`([^`]*)`|(-?\d+)|(\[\?|\[\*\]|\[\]|==|!=|<=|>=|&&|\|\||[.[\]()*|<>!,@]))/y;
    let at = 0;
    while (at < expression.length) {
      if (/^\s*$/.test(expression.slice(at))) break;
      re.lastIndex = at;
      const m = re.exec(expression);
      if (!m) fail(expression, `cannot be read at position ${at}`);
      at = re.lastIndex;
      if (m[1] !== undefined) tokens.push({ t: 'id', v: m[1] });
      else if (m[2] !== undefined) tokens.push({ t: 'id', v: JSON.parse(`"${m[2]}"`) });
      else if (m[3] !== undefined) tokens.push({ t: 'lit', v: m[3] });
      else if (m[4] !== undefined) tokens.push({ t: 'lit', v: JSON.parse(m[4]) });
      else if (m[5] !== undefined) tokens.push({ t: 'num', v: Number(m[5]) });
      else tokens.push({ t: m[6] });
    }
    return tokens;
  }
  function compile(expression) {
    const tokens = tokenize(expression);
    let pos = 0;
    const peek = () => tokens[pos] || { t: 'end' };
    const take = (t) => { const tok = peek(); if (t && tok.t !== t) fail(expression, `expects ${t} at token ${pos}`); pos += 1; return tok; };
    const project = (left, right) => (d) => { const l = left(d); return Array.isArray(l) ? l.map(right).filter((v) => v !== null && v !== undefined) : null; };
    function rhs(bp) {  // what follows a projection, up to a pipe
      let node = (d) => d;
      while (['.', '[', '[?', '[*]', '[]'].includes(peek().t) && bp < 1) node = postfix(node, true);
      return node;
    }
    function postfix(left, inProjection) {
      const tok = take();
      if (tok.t === '.') {
        if (peek().t === '*') { take(); const r = rhs(0); return (d) => { const l = left(d); return l && typeof l === 'object' && !Array.isArray(l) ? Object.values(l).map(r).filter((v) => v != null) : null; }; }
        const name = take('id').v;
        return (d) => { const l = left(d); return l && typeof l === 'object' && !Array.isArray(l) ? (l[name] ?? null) : null; };
      }
      if (tok.t === '[') {
        const n = take('num').v; take(']');
        return (d) => { const l = left(d); return Array.isArray(l) ? (l[n < 0 ? l.length + n : n] ?? null) : null; };
      }
      if (tok.t === '[*]') { const r = rhs(0); return project(left, r); }
      if (tok.t === '[]') {
        const flat = (d) => { const l = left(d); return Array.isArray(l) ? l.flatMap((v) => (Array.isArray(v) ? v : [v])) : null; };
        return project(flat, rhs(0));
      }
      if (tok.t === '[?') {
        const test = expr(0); take(']');
        const kept = (d) => { const l = left(d); return Array.isArray(l) ? l.filter((v) => truthy(test(v))) : null; };
        return project(kept, rhs(0));
      }
      return fail(expression, `uses ${tok.t} where it is not supported`);
    }
    function truthy(v) { return !(v === null || v === undefined || v === false || v === '' || (Array.isArray(v) && !v.length) || (typeof v === 'object' && !Array.isArray(v) && !Object.keys(v).length)); }
    function primary() {
      const tok = take();
      if (tok.t === 'id') { const name = tok.v; return (d) => (d && typeof d === 'object' && !Array.isArray(d) ? (d[name] ?? null) : null); }
      if (tok.t === 'lit' || tok.t === 'num') return () => tok.v;
      if (tok.t === '@') return (d) => d;
      if (tok.t === '!') { const e = primaryWithPostfix(); return (d) => !truthy(e(d)); }
      if (tok.t === '(') { const e = expr(0); take(')'); return e; }
      if (tok.t === '[*]') return project((d) => d, rhs(0));
      if (tok.t === '[]' || tok.t === '[?' || tok.t === '[') { pos -= 1; return postfix((d) => d); }
      if (tok.t === '*') { const r = rhs(0); return (d) => (d && typeof d === 'object' && !Array.isArray(d) ? Object.values(d).map(r).filter((v) => v != null) : null); }
      return fail(expression, `uses ${tok.t} where it is not supported`);
    }
    function primaryWithPostfix() {
      let node = primary();
      while (['.', '[', '[?', '[*]', '[]'].includes(peek().t)) node = postfix(node);
      return node;
    }
    const COMPARE = { '==': 2, '!=': 2, '<': 2, '<=': 2, '>': 2, '>=': 2, '&&': 1, '||': 0, '|': -1 };
    function expr(min) {
      let left = primaryWithPostfix();
      while (peek().t in COMPARE && COMPARE[peek().t] >= min) {
        const op = take().t;
        const right = expr(COMPARE[op] + 1);
        const l = left;
        left = {
          '==': (d) => JSON.stringify(l(d)) === JSON.stringify(right(d)), '!=': (d) => JSON.stringify(l(d)) !== JSON.stringify(right(d)),
          '<': (d) => l(d) < right(d), '<=': (d) => l(d) <= right(d), '>': (d) => l(d) > right(d), '>=': (d) => l(d) >= right(d),
          '&&': (d) => (truthy(l(d)) ? right(d) : l(d)), '||': (d) => (truthy(l(d)) ? l(d) : right(d)), '|': (d) => right(l(d)),
        }[op];
      }
      return left;
    }
    const result = expr(-1);
    if (pos < tokens.length) fail(expression, `has unsupported syntax at token ${pos} (${tokens[pos].t})`);
    return result;
  }
  const cache = new Map();
  global.__cutoverJmespath = function (data, expression) {
    if (typeof expression !== 'string') throw new Error('$jmespath(data, expression): the expression must be a string');
    let fn = cache.get(expression);
    if (!fn) { fn = compile(expression); cache.set(expression, fn); }
    const value = fn(data);
    return value === undefined ? null : value;
  };
}(globalThis));
