// n8n's expression extension methods (`'a@b.c'.extractEmail()`, `$now.minus(1, 'days')`,
// `$json.toJsonString()`, `[1,2].sum()`, …): cutover's, written from n8n's expression docs.
//
// Loaded once into the expressions' own isolate (never the Code node's), after _n8n_luxon.js: the
// methods are added, non-enumerable, to String, Number, Boolean, Array, Object, Date and Luxon's
// DateTime prototypes. A method JavaScript already has is kept, except where n8n's extension takes
// other arguments (DateTime plus/minus with a number and a unit). A call of a method neither has
// throws "… is not a function": __cutoverExpr fails the node naming it when n8n has that extension.
(function (global) {
  'use strict';
  const { DateTime } = global.__cutoverLuxon;
  const RealDate = Date;
  const DT = Object.getPrototypeOf(DateTime.now());
  // n8n fails the node on its own expression errors (an extension's), never on JavaScript's
  // (a TypeError makes the part undefined): this class tells the two apart (see _n8n_expr.js).
  class ExpressionError extends Error {}
  global.__cutoverExpressionError = ExpressionError;
  const fail = (text) => { throw new ExpressionError(text); };
  function define(proto, table, { replace = false } = {}) {
    for (const [name, fn] of Object.entries(table)) {
      if (!replace && Object.prototype.hasOwnProperty.call(proto, name)) continue;
      Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
    }
  }
  const isPlain = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const EMAIL = /[\w.!#$%&'*+/=?^`{|}~-]+@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?/i;
  const URL_RE = /https?:\/\/(?:www\.)?[-a-zA-Z0-9@:%._+~#=]{1,256}\.[a-zA-Z0-9()]{1,6}\b[-a-zA-Z0-9()@:%_+.~#?&/=]*/;
  const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/i;
  // a URL, an address or a bare domain, whole: the host (a port, path, query and fragment may follow)
  const HOST = /^(?:(?:https?|ftp):\/\/)?(?:mailto:)?(?:\/\/)?((?:www\.)?(?:(?:[-\w]+\.)+(?:[a-z]{2,}|xn--[a-z0-9]+)|localhost|(?:\d{1,3}\.){3}\d{1,3}))(?::\d+)?(?:\/[^\s?]*)?(?:\?[^\s#]*)?(?:#\S*)?$/i;

  function plural(unit) { const u = String(unit); return u.endsWith('s') ? u : `${u}s`; }
  function duration(...args) {  // one argument: Luxon's own (a number is milliseconds); else (amount, unit)
    if (args.length === 1) return typeof args[0] === 'number' ? { milliseconds: args[0] } : args[0];
    const [amount = 0, unit = 'minutes'] = args;
    return { [plural(unit)]: amount };
  }
  function toDateTime(value, format) {  // n8n's reading of a date given as text, a JS Date or a DateTime
    if (DateTime.isDateTime(value)) return value;
    if (value instanceof RealDate) return DateTime.fromJSDate(value);
    if (typeof value === 'number') return DateTime.fromMillis(value);
    const text = String(value);
    if (format) return DateTime.fromFormat(text, format);
    const trimmed = text.trim();
    for (const read of [DateTime.fromISO, DateTime.fromSQL]) {  // an offset in the text is kept as the zone
      const parsed = read(trimmed, { setZone: true });
      if (parsed.isValid) return parsed;
    }
    const parsed = RealDate.parse(trimmed);
    return Number.isNaN(parsed) ? fail('Value is not a valid date') : DateTime.fromMillis(parsed);
  }
  const { plus: lxPlus, minus: lxMinus } = { plus: DT.plus, minus: DT.minus };
  const dateTimeExt = {
    plus(...args) { return lxPlus.call(this, duration(...args)); },
    minus(...args) { return lxMinus.call(this, duration(...args)); },
    format(fmt) { return this.toFormat(fmt); },
    toDateTime() { return this; },
    beginningOf(unit = 'week') { return this.startOf(unit); },
    endOfMonth() { return this.endOf('month'); },
    extract(unit = 'week') {
      if (unit === 'week' || unit === 'weekNumber') return Math.ceil(this.ordinal / 7);
      return this[String(unit).replace(/s$/, '')];
    },
    isBetween(a, b) { const x = this.toMillis(); const l = toDateTime(a).toMillis(); const h = toDateTime(b).toMillis(); return (x > l && x < h) || (x > h && x < l); },
    isWeekend() { return this.weekday > 5; },
    isInLast(amount = 0, unit = 'minutes') { const n = DateTime.now(); return this.toMillis() >= n.minus(duration(amount, unit)).toMillis() && this.toMillis() <= n.toMillis(); },
    diffTo(other, unit = 'days') { return this.diff(toDateTime(other), unit).as(unit); },
    diffToNow(unit = 'days') { return DateTime.now().diff(this, unit).as(unit); },
  };
  define(DT, dateTimeExt, { replace: true });
  define(RealDate.prototype, {
    toDateTime() { return DateTime.fromJSDate(this); },
    format(fmt) { return DateTime.fromJSDate(this).toFormat(fmt); },
    plus(...args) { return DateTime.fromJSDate(this).plus(duration(...args)).toJSDate(); },
    minus(...args) { return DateTime.fromJSDate(this).minus(duration(...args)).toJSDate(); },
    isWeekend() { return DateTime.fromJSDate(this).weekday > 5; },
  });

  const CURRENCY = /[$€£¥₹₽₩₪₫₴₺₦₱฿¢]/gu;  // currency signs are dropped before a number is read
  function toNumberText(value) {
    const n = Number(value.replace(CURRENCY, ''));
    return Number.isNaN(n) ? fail('cannot convert to number') : n;
  }
  define(String.prototype, {
    isEmpty() { return String(this) === ''; },
    isNotEmpty() { return String(this) !== ''; },
    toJsonString() { return JSON.stringify(String(this)); },
    parseJson() { try { return JSON.parse(String(this)); } catch (e) { return fail(`parseJson(): the text is not JSON (${e.message})`); } },
    toDateTime(format) { return toDateTime(String(this), format); },
    toDate() { return toDateTime(String(this)).toJSDate(); },
    toNumber() { return toNumberText(String(this)); },
    toFloat() {
      const t = String(this);
      if (t.includes(',')) fail('cannot convert to float, expected . as decimal separator');
      const n = Number.parseFloat(t.replace(CURRENCY, ''));
      return Number.isNaN(n) ? fail('cannot convert to float') : n;
    },
    toInt(radix) { const n = Number.parseInt(String(this).replace(CURRENCY, ''), radix); return Number.isNaN(n) ? fail('cannot convert to integer') : n; },
    toBoolean() { const t = String(this).toLowerCase(); return t.length > 0 && !['false', 'no', '0'].includes(t); },
    extractEmail() { const m = EMAIL.exec(String(this)); return m ? m[0] : undefined; },
    extractUrl() { const m = URL_RE.exec(String(this)); return m ? m[0] : undefined; },
    extractDomain() {
      const t = String(this);
      if (String.prototype.isEmail.call(t)) return EMAIL.exec(t)[0].split('@')[1];
      const m = HOST.exec(t);
      return m ? m[1] : undefined;
    },
    isEmail() { const t = String(this); const m = EMAIL.exec(t); return !!m && m[0] === t && !t.includes(' '); },
    isUrl() { const m = URL_RE.exec(String(this)); return !!m && m[0] === String(this); },
    isDomain() { return DOMAIN.test(String(this)); },
    isNumeric() { const t = String(this); return !t.includes(' ') && !Number.isNaN(Number(t)) && !Number.isNaN(Number.parseFloat(t)); },
    urlEncode(entire = false) { return entire ? encodeURI(String(this)) : encodeURIComponent(String(this)); },
    urlDecode(entire = false) { return entire ? decodeURI(String(this)) : decodeURIComponent(String(this)); },
    removeTags() { return String(this).replace(/<[^>]*>?/gm, ''); },
    quote(mark = '"') { return `${mark}${String(this).split('\\').join('\\\\').split(mark).join(`\\${mark}`)}${mark}`; },
    toSnakeCase() {
      return String(this).toLocaleLowerCase().replace(/[ -]/g, '_').replace(/[\u2000-\u206F\u2E00-\u2E7F\\'!"#$%&()*+,./:;<=>?@[\]^`{|}~]/g, '');
    },
    toSentenceCase() {  // lower case, each sentence's first letter upper case
      let upper = true;
      return Array.from(String(this).toLocaleLowerCase(), (c) => {
        if (upper && /\p{L}/u.test(c)) { upper = false; return c.toLocaleUpperCase(); }
        if (/[.?!]/.test(c)) upper = true;
        return c;
      }).join('');
    },
  });
  define(Number.prototype, {
    round(places = 0) { return +Number(this).toFixed(places); },
    floor() { return Math.floor(Number(this)); },
    ceil() { return Math.ceil(Number(this)); },
    abs() { return Math.abs(Number(this)); },
    isEven() { return Number.isInteger(Number(this)) ? Number(this) % 2 === 0 : fail('isEven() is only for whole numbers'); },
    isOdd() { return Number.isInteger(Number(this)) ? Math.abs(Number(this) % 2) === 1 : fail('isOdd() is only for whole numbers'); },
    isInteger() { return Number.isInteger(Number(this)); },
    toInt() { return +Number(this).toFixed(0); },
    toFloat() { return Number(this); },
    toNumber() { return Number(this); },
    toBoolean() { return Number(this) !== 0; },
    format(locales = 'en-US', options = {}) { return new Intl.NumberFormat(locales, options).format(Number(this)); },
    toDateTime(kind = 'ms') {
      const n = Number(this);
      if (kind === 's') return DateTime.fromSeconds(n);
      if (kind === 'us') return DateTime.fromMillis(n / 1000);
      if (kind === 'excel') return DateTime.fromMillis((n - 25569) * 86400000, { zone: 'UTC' });
      return DateTime.fromMillis(n);
    },
  });
  define(Boolean.prototype, { toNumber() { return this.valueOf() ? 1 : 0; }, toInt() { return this.valueOf() ? 1 : 0; } });
  const numbers = (arr, name) => (arr.every((v) => typeof v === 'number') ? arr : fail(`${name}(): all array elements must be numbers`));
  define(Array.prototype, {
    first() { return this[0]; },
    last() { return this[this.length - 1]; },
    isEmpty() { return this.length === 0; },
    isNotEmpty() { return this.length > 0; },
    sum() { return numbers(this, 'sum').reduce((a, b) => a + b, 0); },
    average() { return this.length ? this.sum() / this.length : (numbers(this, 'average'), 0); },
    max() { return Math.max(...numbers(this, 'max')); },
    min() { return Math.min(...numbers(this, 'min')); },
    compact() {
      return this.filter((v) => !(v && typeof v === 'object' && !Object.keys(v).length) && v !== null && v !== undefined && v !== 'nil' && v !== '')
        .map((v) => (v !== null && typeof v === 'object' ? Object.prototype.compact.call(v) : v));
    },
    chunk(size) {
      if (typeof size !== 'number' || size === 0) fail('chunk(): expected non-zero numeric arg, e.g. .chunk(5)');
      const out = []; for (let i = 0; i < this.length; i += size) out.push(this.slice(i, i + size)); return out;
    },
    pluck(...fields) {
      if (!fields.length) return this.slice();
      const out = [];
      for (const v of this) {
        if (!isPlain(v)) continue;
        const kept = Object.keys(v).flatMap((k) => fields.filter((f) => f === k).map(() => v[k]));
        if (kept.length) out.push(kept.length === 1 ? kept[0] : kept);
      }
      return out;
    },
    unique(...fields) {
      const out = [];
      for (const v of this) {
        const key = fields.length && isPlain(v) ? fields.map((f) => v[f]) : v;
        if (!out.some((o) => same(fields.length && isPlain(o) ? fields.map((f) => o[f]) : o, key))) out.push(v);
      }
      return out;
    },
    removeDuplicates(...fields) { return this.unique(...fields); },
    union(other) { return [...this, ...other].unique(); },
    difference(other) { return this.filter((v) => !other.some((o) => same(o, v))); },
    intersection(other) { return this.filter((v) => other.some((o) => same(o, v))).unique(); },
    append(...values) { return [...this, ...values]; },
    smartJoin(keyField, valueField) { return Object.fromEntries(this.filter(isPlain).map((v) => [v[keyField], v[valueField]])); },
    renameKeys(...pairs) {
      return this.map((v) => {
        if (!isPlain(v)) return v;
        const out = { ...v };
        for (let i = 0; i + 1 < pairs.length; i += 2) {
          if (pairs[i] in out) { out[pairs[i + 1]] = out[pairs[i]]; delete out[pairs[i]]; }
        }
        return out;
      });
    },
    toJsonString() { return JSON.stringify(this); },
  });
  define(Object.prototype, {
    isEmpty() { return Object.keys(this).length === 0; },
    isNotEmpty() { return Object.keys(this).length > 0; },
    hasField(name) { return name in this; },
    removeField(name) { if (!(name in this)) return this; const out = { ...this }; delete out[name]; return out; },
    removeFieldsContaining(text) { return Object.fromEntries(Object.entries(this).filter(([, v]) => !(typeof v === 'string' && v.includes(text)))); },
    keepFieldsContaining(text) { return Object.fromEntries(Object.entries(this).filter(([, v]) => typeof v === 'string' && v.includes(text))); },
    compact() {
      const out = {};
      for (const [k, v] of Object.entries(this)) {
        if (v === null || v === undefined || v === 'nil' || v === '') continue;
        if (typeof v === 'object') { if (Object.keys(v).length) out[k] = Object.prototype.compact.call(v); } else out[k] = v;
      }
      return out;
    },
    toJsonString() { return JSON.stringify(this); },
    keys() { return Object.keys(this); },
    values() { return Object.values(this); },
    urlEncode() { return Object.entries(this).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&'); },
  });
}(globalThis));
