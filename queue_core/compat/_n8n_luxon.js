// cutover's subset of Luxon's DateTime and Duration for n8n Code nodes (written here, not copied).
//
// Real Code nodes use a few pieces of Luxon: DateTime.now/fromISO/fromFormat/fromJSDate/
// fromMillis/fromSeconds, toISO/toISODate/toFormat/toMillis/toJSDate, plus/minus/startOf/endOf,
// setZone/toUTC, diff and the field getters. Time zones come from V8's Intl (ICU). Any other
// DateTime property throws an Error naming it, so a node using one fails loudly, never silently.
// Defines globalThis.__cutoverLuxon = {DateTime, Duration, Interval, setDefaultZone, setClock}.
(function (global) {
  'use strict';
  const RealDate = global.__cutoverRealDate || Date;
  const UNITS = ['year', 'month', 'day', 'hour', 'minute', 'second', 'millisecond'];
  const MS = { week: 604800000, day: 86400000, hour: 3600000, minute: 60000, second: 1000, millisecond: 1 };
  const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
    'October', 'November', 'December'];
  const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
  let defaultZone = 'UTC';
  let clock = () => RealDate.now();
  const formatters = new Map();

  function unsupported(owner, name) {
    throw new Error(`${owner}.${String(name)} is not in cutover's Luxon subset (see the README's Code nodes section)`);
  }
  function guarded(target, owner) {
    return new Proxy(target, {
      get(obj, key, receiver) {
        if (typeof key === 'symbol' || key in obj || key === 'then' || key === 'toJSON') return Reflect.get(obj, key, receiver);
        return unsupported(owner, key);
      },
    });
  }
  function fixedOffset(zone) {
    if (/^utc$|^z$|^gmt$/i.test(zone)) return 0;
    const m = /^(?:utc|gmt)([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(zone);
    return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] || 0)) : null;
  }
  function normalZone(zone) {
    if (zone === undefined || zone === null || zone === 'local' || zone === 'system' || zone === 'default') return defaultZone;
    if (typeof zone === 'object' && zone.name) return zone.name;
    if (fixedOffset(String(zone)) !== null) return String(zone).toUpperCase() === 'Z' ? 'UTC' : String(zone);
    try { new Intl.DateTimeFormat('en-US', { timeZone: String(zone) }); } catch (e) { return null; }
    return String(zone);
  }
  function offsetAt(ts, zone) {  // minutes east of UTC
    const fixed = fixedOffset(zone);
    if (fixed !== null) return fixed;
    let f = formatters.get(zone);
    if (!f) {
      f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric',
        day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short' });
      formatters.set(zone, f);
    }
    const p = {};
    for (const part of f.formatToParts(new RealDate(ts))) p[part.type] = part.value;
    const year = p.era === 'BC' ? 1 - Number(p.year) : Number(p.year);
    const asUTC = RealDate.UTC(year, Number(p.month) - 1, Number(p.day), Number(p.hour) % 24, Number(p.minute), Number(p.second));
    return Math.round((asUTC - (ts - (((ts % 1000) + 1000) % 1000))) / 60000);
  }
  function fieldsOf(ts, zone) {
    const d = new RealDate(ts + offsetAt(ts, zone) * 60000);
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(),
      minute: d.getUTCMinutes(), second: d.getUTCSeconds(), millisecond: d.getUTCMilliseconds() };
  }
  function tsOf(f, zone) {  // wall-clock fields in zone -> epoch ms
    const local = RealDate.UTC(f.year, f.month - 1, f.day, f.hour || 0, f.minute || 0, f.second || 0, f.millisecond || 0);
    let guess = local - offsetAt(local, zone) * 60000;
    guess = local - offsetAt(guess, zone) * 60000;
    return guess;
  }
  function pad(n, width) { const s = String(Math.abs(Math.trunc(n))).padStart(width, '0'); return n < 0 ? `-${s}` : s; }
  function offsetText(minutes, colon) {
    const sign = minutes < 0 ? '-' : '+';
    const a = Math.abs(minutes);
    return `${sign}${pad(Math.floor(a / 60), 2)}${colon ? ':' : ''}${pad(a % 60, 2)}`;
  }
  function singular(unit) {
    const u = String(unit).replace(/s$/, '');
    if (!UNITS.includes(u) && u !== 'week' && u !== 'quarter') throw new Error(`Invalid unit ${unit}`);
    return u;
  }

  class DateTime {
    constructor(ts, zone, reason) {
      this.ts = ts; this._zone = zone; this.invalidReason = reason || null;
      this.isValid = !reason && Number.isFinite(ts);
      this._f = this.isValid ? fieldsOf(ts, zone) : null;
      return guarded(this, 'DateTime');
    }
    static now() { return new DateTime(clock(), defaultZone); }
    static local(...a) { return DateTime._fromParts(a, defaultZone); }
    static utc(...a) { return DateTime._fromParts(a, 'UTC'); }
    static _fromParts(a, zone) {
      if (!a.length) return new DateTime(clock(), zone);
      const [year, month = 1, day = 1, hour = 0, minute = 0, second = 0, millisecond = 0] = a;
      return new DateTime(tsOf({ year, month, day, hour, minute, second, millisecond }, zone), zone);
    }
    static invalid(reason) { return new DateTime(NaN, defaultZone, reason || 'invalid'); }
    static isDateTime(o) { return o instanceof DateTime; }
    static _zoned(ts, opts) {
      const zone = normalZone(opts && opts.zone);
      return zone === null ? DateTime.invalid('unsupported zone') : new DateTime(ts, zone);
    }
    static fromMillis(ms, opts) { return DateTime._zoned(Number(ms), opts); }
    static fromSeconds(s, opts) { return DateTime._zoned(Number(s) * 1000, opts); }
    static fromJSDate(d, opts) { return DateTime._zoned(d instanceof RealDate ? d.getTime() : NaN, opts); }
    static fromObject(o, opts) {
      const zone = normalZone(opts && opts.zone);
      const now = fieldsOf(clock(), zone);
      const f = o.year === undefined && o.month === undefined && o.day === undefined
        ? { year: now.year, month: now.month, day: now.day } : { year: o.year ?? now.year, month: o.month ?? 1, day: o.day ?? 1 };
      return new DateTime(tsOf({ ...f, hour: o.hour || 0, minute: o.minute || 0, second: o.second || 0,
        millisecond: o.millisecond || 0 }, zone), zone);
    }
    static fromISO(text, opts) {
      const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(String(text));
      if (!m) return DateTime.invalid('unparsable');
      const f = { year: +m[1], month: +(m[2] || 1), day: +(m[3] || 1), hour: +(m[4] || 0), minute: +(m[5] || 0),
        second: +(m[6] || 0), millisecond: m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0 };
      return DateTime._resolved(f, m[8], opts);
    }
    static fromSQL(text, opts) { return DateTime.fromISO(String(text).replace(' ', 'T'), opts); }
    static _resolved(f, offset, opts) {
      if (f.month < 1 || f.month > 12 || f.day < 1 || f.day > 31 || f.hour > 23 || f.minute > 59 || f.second > 59) {
        return DateTime.invalid('unit out of range');
      }
      const target = normalZone(opts && opts.zone);
      if (target === null) return DateTime.invalid('unsupported zone');
      if (!offset) return new DateTime(tsOf(f, target), target);
      const zone = offset.toUpperCase() === 'Z' ? 'UTC' : `UTC${offset.length === 5 ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset}`;
      const ts = tsOf(f, zone);
      return new DateTime(ts, opts && opts.setZone ? zone : target);
    }
    static fromFormat(text, format, opts) {
      const tokens = { yyyy: '(\\d{4})', yy: '(\\d{2})', MM: '(\\d{2})', M: '(\\d{1,2})', LL: '(\\d{2})', L: '(\\d{1,2})',
        dd: '(\\d{2})', d: '(\\d{1,2})', HH: '(\\d{2})', H: '(\\d{1,2})', hh: '(\\d{2})', h: '(\\d{1,2})', mm: '(\\d{2})',
        m: '(\\d{1,2})', ss: '(\\d{2})', s: '(\\d{1,2})', SSS: '(\\d{3})', a: '(AM|PM)', MMMM: `(${MONTHS.join('|')})`,
        MMM: `(${MONTHS.map((x) => x.slice(0, 3)).join('|')})`, ZZ: '([+-]\\d{2}:\\d{2}|Z)', Z: '([+-]\\d{1,2}|Z)' };
      const order = [];
      let pattern = '';
      const re = /'([^']*)'|(yyyy|yy|MMMM|MMM|MM|M|LL|L|dd|d|HH|H|hh|h|mm|m|ss|s|SSS|a|ZZ|Z)|([A-Za-z])|([^A-Za-z']+)/g;
      for (const [, quoted, token, letter, other] of String(format).matchAll(re)) {
        if (token) { order.push(token); pattern += tokens[token]; }
        else if (letter) return unsupported('DateTime.fromFormat token', letter);
        else pattern += (quoted ?? other).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }
      const m = new RegExp(`^${pattern}$`, 'i').exec(String(text));
      if (!m) return DateTime.invalid(`the input "${text}" can't be parsed as format ${format}`);
      const f = { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0 };
      let pm = null; let offset;
      order.forEach((token, i) => {
        const v = m[i + 1];
        if (token === 'yyyy') f.year = +v; else if (token === 'yy') f.year = 2000 + +v;
        else if (/^[ML]{1,2}$/.test(token)) f.month = +v;
        else if (token === 'MMMM' || token === 'MMM') f.month = MONTHS.findIndex((x) => x.toLowerCase().startsWith(v.toLowerCase())) + 1;
        else if (token[0] === 'd') f.day = +v; else if (token[0] === 'H' || token[0] === 'h') f.hour = +v;
        else if (token[0] === 'm') f.minute = +v; else if (token[0] === 's') f.second = +v;
        else if (token === 'SSS') f.millisecond = +v; else if (token === 'a') pm = v.toUpperCase() === 'PM';
        else offset = v.length === 3 ? `${v}:00` : v;
      });
      if (pm !== null) f.hour = (f.hour % 12) + (pm ? 12 : 0);
      return DateTime._resolved(f, offset, opts);
    }

    get zoneName() { return this._zone; }
    get zone() { return { name: this._zone, type: fixedOffset(this._zone) === null ? 'iana' : 'fixed' }; }
    get offset() { return this.isValid ? offsetAt(this.ts, this._zone) : NaN; }
    get year() { return this._get('year'); }
    get month() { return this._get('month'); }
    get day() { return this._get('day'); }
    get hour() { return this._get('hour'); }
    get minute() { return this._get('minute'); }
    get second() { return this._get('second'); }
    get millisecond() { return this._get('millisecond'); }
    get quarter() { return this.isValid ? Math.ceil(this._f.month / 3) : NaN; }
    get weekday() { return this.isValid ? ((new RealDate(RealDate.UTC(this._f.year, this._f.month - 1, this._f.day)).getUTCDay() + 6) % 7) + 1 : NaN; }
    get weekdayLong() { return this.isValid ? DAYS[this.weekday - 1] : null; }
    get weekdayShort() { return this.isValid ? DAYS[this.weekday - 1].slice(0, 3) : null; }
    get monthLong() { return this.isValid ? MONTHS[this._f.month - 1] : null; }
    get monthShort() { return this.isValid ? MONTHS[this._f.month - 1].slice(0, 3) : null; }
    get daysInMonth() { return this.isValid ? new RealDate(RealDate.UTC(this._f.year, this._f.month, 0)).getUTCDate() : NaN; }
    get ordinal() { return this.isValid ? Math.round((RealDate.UTC(this._f.year, this._f.month - 1, this._f.day) - RealDate.UTC(this._f.year, 0, 1)) / MS.day) + 1 : NaN; }
    _get(unit) { return this.isValid ? this._f[unit] : NaN; }
    _with(ts, zone) { return new DateTime(ts, zone ?? this._zone, this.invalidReason); }

    toMillis() { return this.isValid ? this.ts : NaN; }
    valueOf() { return this.toMillis(); }
    toSeconds() { return this.toMillis() / 1000; }
    toUnixInteger() { return Math.floor(this.toSeconds()); }
    toJSDate() { return new RealDate(this.toMillis()); }
    toISODate() { return this.isValid ? `${pad(this._f.year, 4)}-${pad(this._f.month, 2)}-${pad(this._f.day, 2)}` : null; }
    toISOTime(opts) {
      if (!this.isValid) return null;
      const f = this._f;
      let out = `${pad(f.hour, 2)}:${pad(f.minute, 2)}`;
      if (!(opts && opts.suppressSeconds && !f.second && !f.millisecond)) out += `:${pad(f.second, 2)}`;
      if (!(opts && opts.suppressMilliseconds && !f.millisecond) && !(opts && opts.suppressSeconds && !f.second && !f.millisecond)) out += `.${pad(f.millisecond, 3)}`;
      if (!(opts && opts.includeOffset === false)) out += this.offset === 0 && this._zone === 'UTC' ? 'Z' : offsetText(this.offset, true);
      return out;
    }
    toISO(opts) { return this.isValid ? `${this.toISODate()}T${this.toISOTime(opts)}` : null; }
    toSQLDate() { return this.toISODate(); }
    toSQL() { return this.isValid ? `${this.toISODate()} ${this.toFormat('HH:mm:ss.SSS ZZ')}` : null; }
    toRFC2822() { return this.isValid ? this.toFormat('EEE, dd LLL yyyy HH:mm:ss ZZZ') : null; }
    toHTTP() { return this.isValid ? this.toUTC().toFormat("EEE, dd LLL yyyy HH:mm:ss 'GMT'") : null; }
    toJSON() { return this.toISO(); }
    toString() { return this.isValid ? this.toISO() : 'Invalid DateTime'; }
    toObject() { return this.isValid ? { ...this._f } : {}; }
    toLocaleString() { return this.isValid ? this.toJSDate().toLocaleString('en-US', { timeZone: fixedOffset(this._zone) === null ? this._zone : 'UTC' }) : 'Invalid DateTime'; }
    toFormat(format) {
      if (!this.isValid) return 'Invalid DateTime';
      const f = this._f;
      const h12 = f.hour % 12 || 12;
      const values = { yyyy: pad(f.year, 4), yy: pad(f.year % 100, 2), y: String(f.year), MMMM: this.monthLong, MMM: this.monthShort,
        LLLL: this.monthLong, LLL: this.monthShort, MM: pad(f.month, 2), LL: pad(f.month, 2), M: String(f.month), L: String(f.month),
        dd: pad(f.day, 2), d: String(f.day), HH: pad(f.hour, 2), H: String(f.hour), hh: pad(h12, 2), h: String(h12),
        mm: pad(f.minute, 2), m: String(f.minute), ss: pad(f.second, 2), s: String(f.second), SSS: pad(f.millisecond, 3),
        a: f.hour < 12 ? 'AM' : 'PM', EEEE: this.weekdayLong, EEE: this.weekdayShort, cccc: this.weekdayLong,
        ccc: this.weekdayShort, E: String(this.weekday), c: String(this.weekday), ZZ: offsetText(this.offset, true),
        ZZZ: offsetText(this.offset, false), Z: this.offset % 60 ? offsetText(this.offset, true) : `${this.offset < 0 ? '-' : '+'}${Math.abs(this.offset / 60)}`,
        z: this._zone, q: String(this.quarter), o: String(this.ordinal), ooo: pad(this.ordinal, 3), X: String(this.toUnixInteger()), x: String(this.ts) };
      const re = /'([^']*)'|(yyyy|yy|y|MMMM|MMM|MM|M|LLLL|LLL|LL|L|dd|d|HH|H|hh|h|mm|m|ss|s|SSS|a|EEEE|EEE|E|cccc|ccc|c|ZZZ|ZZ|Z|z|q|ooo|o|X|x)|([A-Za-z])|([^A-Za-z']+)/g;
      let out = '';
      for (const [, quoted, token, letter, other] of String(format).matchAll(re)) {
        if (token) out += values[token];
        else if (letter) unsupported('DateTime.toFormat token', letter);
        else out += quoted ?? other;
      }
      return out;
    }

    setZone(zone, opts) {
      const name = normalZone(zone);
      if (name === null) return DateTime.invalid('unsupported zone');
      if (opts && opts.keepLocalTime && this.isValid) return this._with(tsOf(this._f, name), name);
      return this._with(this.ts, name);
    }
    toUTC() { return this.setZone('UTC'); }
    toLocal() { return this.setZone(defaultZone); }
    set(values) {
      if (!this.isValid) return this;
      return this._with(tsOf({ ...this._f, ...values }, this._zone));
    }
    plus(duration) { return this._shift(Duration._values(duration), 1); }
    minus(duration) { return this._shift(Duration._values(duration), -1); }
    _shift(v, sign) {
      if (!this.isValid) return this;
      const f = { ...this._f };
      const months = sign * ((v.years || 0) * 12 + (v.quarters || 0) * 3 + (v.months || 0));
      if (months) {
        const total = f.year * 12 + (f.month - 1) + months;
        f.year = Math.floor(total / 12); f.month = (total % 12 + 12) % 12 + 1;
        f.day = Math.min(f.day, new RealDate(RealDate.UTC(f.year, f.month, 0)).getUTCDate());
      }
      let ts = tsOf(f, this._zone);
      const days = sign * ((v.weeks || 0) * 7 + (v.days || 0));
      if (days) {
        const moved = new RealDate(RealDate.UTC(f.year, f.month - 1, f.day + days));
        ts = tsOf({ ...f, year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() }, this._zone);
      }
      ts += sign * ((v.hours || 0) * MS.hour + (v.minutes || 0) * MS.minute + (v.seconds || 0) * MS.second + (v.milliseconds || 0));
      return this._with(ts);
    }
    startOf(unit) {
      if (!this.isValid) return this;
      const u = singular(unit);
      const f = { ...this._f };
      if (u === 'week') {
        const back = this.weekday - 1;
        return this.minus({ days: back }).startOf('day');
      }
      if (u === 'quarter') { f.month = (this.quarter - 1) * 3 + 1; }
      const keep = u === 'quarter' ? 'month' : u;
      const index = UNITS.indexOf(keep);
      UNITS.forEach((name, i) => { if (i > index) f[name] = name === 'month' || name === 'day' ? 1 : 0; });
      return this._with(tsOf(f, this._zone));
    }
    endOf(unit) {
      if (!this.isValid) return this;
      const u = singular(unit);
      return this.startOf(u).plus({ [`${u === 'millisecond' ? 'millisecond' : u}s`]: 1 }).minus({ milliseconds: 1 });
    }
    hasSame(other, unit) { return this.isValid && other.isValid && this.startOf(unit).ts === other.setZone(this._zone).startOf(unit).ts; }
    equals(other) { return other instanceof DateTime && this.ts === other.ts && this._zone === other._zone; }
    diff(other, units) {
      const list = units === undefined ? ['milliseconds'] : [].concat(units);
      let rest = this.toMillis() - other.toMillis();
      const out = {};
      for (const name of list) {
        const u = singular(name);
        if (u === 'year' || u === 'month' || u === 'quarter') {
          const per = u === 'year' ? 12 : u === 'quarter' ? 3 : 1;
          const from = other.plus(Duration._values(out));
          let months = (this.year - from.year) * 12 + (this.month - from.month);
          if (months > 0 && from.plus({ months }).ts > this.ts) months -= 1;
          if (months < 0 && from.plus({ months }).ts < this.ts) months += 1;
          const whole = Math.trunc(months / per);
          const start = from.plus({ months: whole * per }).ts;
          const last = name === list[list.length - 1];
          const span = from.plus({ months: (whole + Math.sign(this.ts - start || 1)) * per }).ts - start;
          out[`${u}s`] = last && span ? whole + (this.ts - start) / Math.abs(span) : whole;
          rest = this.ts - start;
          continue;
        }
        const size = MS[u];
        const last = name === list[list.length - 1];
        out[`${u}s`] = last ? rest / size : Math.trunc(rest / size);
        rest -= out[`${u}s`] * size;
      }
      return Duration.fromObject(out);
    }
    diffNow(units) { return this.diff(DateTime.now(), units); }
    toRelative() { return unsupported('DateTime', 'toRelative'); }
  }

  class Duration {
    constructor(values) { this.values = values; this.isValid = true; return guarded(this, 'Duration'); }
    static fromObject(values) { return new Duration({ ...values }); }
    static fromMillis(ms) { return new Duration({ milliseconds: ms }); }
    static _values(d) {
      const raw = d instanceof Duration ? d.values : typeof d === 'number' ? { milliseconds: d } : d || {};
      const out = {};
      for (const [k, v] of Object.entries(raw)) out[k.endsWith('s') ? k : `${k}s`] = v;
      return out;
    }
    get years() { return this.values.years || 0; }
    get months() { return this.values.months || 0; }
    get weeks() { return this.values.weeks || 0; }
    get days() { return this.values.days || 0; }
    get hours() { return this.values.hours || 0; }
    get minutes() { return this.values.minutes || 0; }
    get seconds() { return this.values.seconds || 0; }
    get milliseconds() { return this.values.milliseconds || 0; }
    toMillis() {
      const v = Duration._values(this);
      return (v.years || 0) * 31536000000 + (v.months || 0) * 2592000000 + (v.weeks || 0) * MS.week +
        (v.days || 0) * MS.day + (v.hours || 0) * MS.hour + (v.minutes || 0) * MS.minute + (v.seconds || 0) * MS.second + (v.milliseconds || 0);
    }
    as(unit) { const u = singular(unit); return this.toMillis() / (u === 'year' ? 31536000000 : u === 'month' ? 2592000000 : MS[u]); }
    toObject() { return { ...this.values }; }
    toJSON() { return this.toISO(); }
    toISO() { return `PT${this.toMillis() / 1000}S`; }
  }

  const Interval = guarded({}, 'Interval');
  global.__cutoverLuxon = {
    DateTime: guarded(DateTime, 'DateTime'), Duration: guarded(Duration, 'Duration'), Interval,
    setDefaultZone(zone) { defaultZone = normalZone(zone) || 'UTC'; },
    setClock(fn) { clock = fn; },
    isDateTime(o) { return o instanceof DateTime; },
  };
}(globalThis));
