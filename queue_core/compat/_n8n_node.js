// cutover's subset of Node.js's Buffer and crypto for n8n Code nodes (written here from Node's
// documentation and the hash standards: RFC 1321 for MD5, FIPS 180-4 for SHA-1/-256/-384/-512,
// RFC 2104 for HMAC; no library code copied).
//
// Real Code nodes use: Buffer.from(text | bytes, 'utf8' | 'base64' | 'hex' | …), .toString(enc),
// .length, Buffer.byteLength, Buffer.concat, Buffer.alloc; require('crypto').createHash(alg) and
// createHmac(alg, key) with update(data[, enc]) and digest([enc]); timingSafeEqual, randomUUID,
// randomBytes. Anything else of Buffer or crypto is absent (a node using it fails with V8's
// TypeError, naming the property). Defines globalThis.__cutoverNode = {Buffer, crypto, seed}:
// seed(hex) gives randomBytes/randomUUID the run's entropy (os.urandom, passed by Python).
(function (global) {
  'use strict';

  // -- text and encodings -------------------------------------------------------------------
  function utf8Encode(text) {
    const out = [];
    for (let i = 0; i < text.length; i += 1) {
      let c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i += 1; }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;  // a lone surrogate: U+FFFD, as Node writes it
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return out;
  }
  function utf8Decode(bytes) {  // WHATWG decoding: each maximal invalid subpart becomes U+FFFD
    let out = '';
    let i = 0;
    while (i < bytes.length) {
      const b = bytes[i];
      let need = 0; let cp = 0; let lower = 0x80; let upper = 0xbf;
      if (b < 0x80) { out += String.fromCharCode(b); i += 1; continue; }
      if (b >= 0xc2 && b <= 0xdf) { need = 1; cp = b & 31; } else if (b >= 0xe0 && b <= 0xef) {
        need = 2; cp = b & 15; if (b === 0xe0) lower = 0xa0; if (b === 0xed) upper = 0x9f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3; cp = b & 7; if (b === 0xf0) lower = 0x90; if (b === 0xf4) upper = 0x8f;
      } else { out += '\ufffd'; i += 1; continue; }
      let j = 1;
      for (; j <= need; j += 1) {
        const n = bytes[i + j];
        if (n === undefined || n < lower || n > upper) break;
        cp = (cp << 6) | (n & 63); lower = 0x80; upper = 0xbf;
      }
      if (j <= need) { out += '\ufffd'; i += j; continue; }
      out += String.fromCodePoint(cp);
      i += need + 1;
    }
    return out;
  }
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const B64_VALUE = new Map([...B64].map((ch, i) => [ch, i]).concat([['-', 62], ['_', 63]]));
  function base64Encode(bytes, url) {
    let out = '';
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      const left = bytes.length - i;
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (left > 1 ? B64[(n >> 6) & 63] : '=') + (left > 2 ? B64[n & 63] : '=');
    }
    return url ? out.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : out;
  }
  function base64Decode(text) {  // as Node: both alphabets, other characters skipped, stops at '='
    const out = [];
    let bits = 0; let count = 0;
    for (const ch of text) {
      if (ch === '=') break;
      const v = B64_VALUE.get(ch);
      if (v === undefined) continue;
      bits = (bits << 6) | v; count += 6;
      if (count >= 8) { count -= 8; out.push((bits >> count) & 255); }
    }
    return out;
  }
  function hexDecode(text) {  // as Node: pairs up to the first that is not hex
    const out = [];
    for (let i = 0; i + 1 < text.length; i += 2) {
      const pair = text.slice(i, i + 2);
      if (!/^[0-9a-fA-F]{2}$/.test(pair)) break;
      out.push(parseInt(pair, 16));
    }
    return out;
  }
  const hexEncode = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  function encodingOf(name) {
    const enc = String(name === undefined || name === null ? 'utf8' : name).toLowerCase();
    const known = { utf8: 'utf8', 'utf-8': 'utf8', hex: 'hex', base64: 'base64', base64url: 'base64url',
      latin1: 'latin1', binary: 'latin1', ascii: 'ascii' };
    if (!(enc in known)) throw new TypeError(`Unknown encoding: ${name}`);
    return known[enc];
  }
  function encode(text, encoding) {
    switch (encodingOf(encoding)) {
      case 'utf8': return utf8Encode(text);
      case 'hex': return hexDecode(text);
      case 'base64': case 'base64url': return base64Decode(text);
      default: return Array.from({ length: text.length }, (_, i) => text.charCodeAt(i) & 255);  // per UTF-16 unit, as Node
    }
  }
  function decode(bytes, encoding) {
    switch (encodingOf(encoding)) {
      case 'utf8': return utf8Decode(bytes);
      case 'hex': return hexEncode(bytes);
      case 'base64': return base64Encode(bytes, false);
      case 'base64url': return base64Encode(bytes, true);
      case 'ascii': return Array.from(bytes, (b) => String.fromCharCode(b & 127)).join('');
      default: return Array.from(bytes, (b) => String.fromCharCode(b)).join('');
    }
  }

  // -- Buffer ---------------------------------------------------------------------------------
  class Buffer extends Uint8Array {
    static from(value, encodingOrOffset, length) {
      if (typeof value === 'string') return fromBytes(encode(value, encodingOrOffset));
      if (value instanceof ArrayBuffer) return new Buffer(value, encodingOrOffset || 0, length);
      if (value && typeof value === 'object' && value.type === 'Buffer' && Array.isArray(value.data)) return fromBytes(value.data);
      if (value && typeof value === 'object' && typeof value.length === 'number') {
        const out = new Buffer(value.length);
        for (let i = 0; i < value.length; i += 1) out[i] = value[i];
        return out;
      }
      throw new TypeError('The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object.');
    }
    static of(...bytes) { return fromBytes(bytes); }
    static alloc(size, fill, encoding) {
      const out = new Buffer(size);
      if (fill !== undefined && fill !== 0) {
        const pattern = typeof fill === 'string' ? encode(fill, encoding) : (typeof fill === 'number' ? [fill & 255] : Array.from(fill));
        for (let i = 0; pattern.length && i < size; i += 1) out[i] = pattern[i % pattern.length];
      }
      return out;
    }
    static byteLength(value, encoding) {
      if (typeof value === 'string') return encode(value, encoding).length;
      return value.byteLength;
    }
    static concat(list, totalLength) {
      const total = totalLength === undefined ? list.reduce((n, b) => n + b.length, 0) : totalLength;
      const out = new Buffer(total);
      let at = 0;
      for (const b of list) {
        if (at >= total) break;
        out.set(b.length + at > total ? b.subarray(0, total - at) : b, at);
        at += b.length;
      }
      return out;
    }
    static isBuffer(value) { return value instanceof Buffer; }
    static compare(a, b) { return Buffer.prototype.compare.call(a, b); }
    static isEncoding(name) { try { encodingOf(name); return typeof name === 'string'; } catch (e) { return false; } }
    toString(encoding, start, end) { return decode(this.subarray(start || 0, end === undefined ? this.length : end), encoding); }
    toJSON() { return { type: 'Buffer', data: Array.from(this) }; }
    equals(other) { return this.length === other.length && this.every((b, i) => b === other[i]); }
    compare(other) {
      for (let i = 0; i < Math.min(this.length, other.length); i += 1) if (this[i] !== other[i]) return this[i] < other[i] ? -1 : 1;
      return Math.sign(this.length - other.length);
    }
    slice(start, end) { return this.subarray(start, end); }  // Node's slice shares memory, as subarray
  }
  function fromBytes(bytes) { const out = new Buffer(bytes.length); out.set(bytes); return out; }
  const bytesOf = (data, encoding) => (typeof data === 'string' ? encode(data, encoding) : Array.from(data));

  // -- hashes ------------------------------------------------------------------------------------
  const rotl = (x, n) => (x << n) | (x >>> (32 - n));
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  function pad(bytes, littleEndian, block, lengthBytes) {
    const bits = bytes.length * 8;
    const out = bytes.slice();
    out.push(0x80);
    while (out.length % block !== block - lengthBytes) out.push(0);
    const len = [];
    for (let i = 0; i < lengthBytes; i += 1) len.push(i < 8 ? Math.floor(bits / 2 ** (8 * i)) & 255 : 0);
    return out.concat(littleEndian ? len : len.reverse());
  }
  const MD5_S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
  const MD5_K = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) | 0);
  function md5(bytes) {
    const m = pad(bytes, true, 64, 8);
    let h = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476];
    for (let o = 0; o < m.length; o += 64) {
      const w = Array.from({ length: 16 }, (_, i) => m[o + 4 * i] | (m[o + 4 * i + 1] << 8) | (m[o + 4 * i + 2] << 16) | (m[o + 4 * i + 3] << 24));
      let [a, b, c, d] = h;
      for (let i = 0; i < 64; i += 1) {
        let f; let g;
        if (i < 16) { f = (b & c) | (~b & d); g = i; } else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) % 16; } else if (i < 48) { f = b ^ c ^ d; g = (3 * i + 5) % 16; } else { f = c ^ (b | ~d); g = (7 * i) % 16; }
        const t = d; d = c; c = b;
        b = (b + rotl((a + f + MD5_K[i] + w[g]) | 0, MD5_S[(i >> 4) * 4 + (i % 4)])) | 0;
        a = t;
      }
      h = [(h[0] + a) | 0, (h[1] + b) | 0, (h[2] + c) | 0, (h[3] + d) | 0];
    }
    return h.flatMap((x) => [x & 255, (x >>> 8) & 255, (x >>> 16) & 255, (x >>> 24) & 255]);
  }
  const words = (m, o, n) => Array.from({ length: n }, (_, i) => (m[o + 4 * i] << 24) | (m[o + 4 * i + 1] << 16) | (m[o + 4 * i + 2] << 8) | m[o + 4 * i + 3]);
  const bigEndian = (h) => h.flatMap((x) => [(x >>> 24) & 255, (x >>> 16) & 255, (x >>> 8) & 255, x & 255]);
  function sha1(bytes) {
    const m = pad(bytes, false, 64, 8);
    let h = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476, 0xc3d2e1f0 | 0];
    for (let o = 0; o < m.length; o += 64) {
      const w = words(m, o, 16);
      for (let i = 16; i < 80; i += 1) w.push(rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1));
      let [a, b, c, d, e] = h;
      for (let i = 0; i < 80; i += 1) {
        const [f, k] = i < 20 ? [(b & c) | (~b & d), 0x5a827999] : i < 40 ? [b ^ c ^ d, 0x6ed9eba1] : i < 60 ? [(b & c) | (b & d) | (c & d), 0x8f1bbcdc | 0] : [b ^ c ^ d, 0xca62c1d6 | 0];
        const t = (rotl(a, 5) + f + e + k + w[i]) | 0;
        e = d; d = c; c = rotl(b, 30); b = a; a = t;
      }
      h = h.map((x, i) => (x + [a, b, c, d, e][i]) | 0);
    }
    return bigEndian(h);
  }
  const primes = (n) => { const out = []; for (let p = 2; out.length < n; p += 1) if (out.every((q) => p % q)) out.push(p); return out; };
  const PRIMES = primes(80);
  // FIPS 180-4's constants: the first bits of the fractional parts of the primes' square and cube roots.
  const frac32 = (x) => Math.floor((x - Math.floor(x)) * 2 ** 32) | 0;
  const SHA256_K = PRIMES.slice(0, 64).map((p) => frac32(Math.cbrt(p)));
  const SHA256_H = PRIMES.slice(0, 8).map((p) => frac32(Math.sqrt(p)));
  function sha256(bytes) {
    const m = pad(bytes, false, 64, 8);
    let h = SHA256_H.slice();
    for (let o = 0; o < m.length; o += 64) {
      const w = words(m, o, 16);
      for (let i = 16; i < 64; i += 1) {
        const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w.push((w[i - 16] + s0 + w[i - 7] + s1) | 0);
      }
      let [a, b, c, d, e, f, g, hh] = h;
      for (let i = 0; i < 64; i += 1) {
        const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + SHA256_K[i] + w[i]) | 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h = h.map((x, i) => (x + [a, b, c, d, e, f, g, hh][i]) | 0);
    }
    return bigEndian(h);
  }
  // SHA-512's 64-bit constants need more precision than a double: integer roots in BigInt.
  function iroot(n, k) {  // floor(n ** (1/k)) for a BigInt n
    let x = BigInt(Math.ceil(Number(n) ** (1 / k) * 1.000001)) + 1n;  // above the root: Newton descends
    for (;;) { const y = ((BigInt(k) - 1n) * x + n / x ** (BigInt(k) - 1n)) / BigInt(k); if (y >= x) break; x = y; }
    while (x ** BigInt(k) > n) x -= 1n;
    return x;
  }
  const MASK = (1n << 64n) - 1n;
  const frac64 = (p, k) => iroot(BigInt(p) << (64n * BigInt(k)), k) & MASK;
  const SHA512_K = PRIMES.map((p) => frac64(p, 3));
  const SHA512_H = PRIMES.slice(0, 8).map((p) => frac64(p, 2));
  const SHA384_H = PRIMES.slice(8, 16).map((p) => frac64(p, 2));
  // 64-bit words as [high, low] 32-bit halves (BigInt arithmetic is several times slower).
  const halves = (x) => [Number(x >> 32n), Number(x & 0xffffffffn)];
  const K512 = SHA512_K.map(halves);
  const hiR = (h, l, n) => (n < 32 ? (h >>> n) | (l << (32 - n)) : (l >>> (n - 32)) | (h << (64 - n))) >>> 0;
  const loR = (h, l, n) => (n < 32 ? (l >>> n) | (h << (32 - n)) : (h >>> (n - 32)) | (l << (64 - n))) >>> 0;
  function add64(...terms) {  // terms: [high, low] pairs; the sum mod 2**64
    let hi = 0; let lo = 0;
    for (const [h, l] of terms) { hi += h >>> 0; lo += l >>> 0; }
    return [(hi + Math.floor(lo / 4294967296)) >>> 0, lo >>> 0];
  }
  const rot = ([h, l], a, b, c) => [hiR(h, l, a) ^ hiR(h, l, b) ^ hiR(h, l, c), loR(h, l, a) ^ loR(h, l, b) ^ loR(h, l, c)];
  const sigma = ([h, l], a, b, shift) => [hiR(h, l, a) ^ hiR(h, l, b) ^ (h >>> shift),
    loR(h, l, a) ^ loR(h, l, b) ^ ((l >>> shift) | (h << (32 - shift)))];
  function sha512(bytes, init, outWords) {
    const m = pad(bytes, false, 128, 16);
    let h = init.map(halves);
    for (let o = 0; o < m.length; o += 128) {
      const ws = words(m, o, 32);
      const w = Array.from({ length: 16 }, (_, i) => [ws[2 * i] >>> 0, ws[2 * i + 1] >>> 0]);
      for (let i = 16; i < 80; i += 1) w.push(add64(w[i - 16], sigma(w[i - 15], 1, 8, 7), w[i - 7], sigma(w[i - 2], 19, 61, 6)));
      let [a, b, c, d, e, f, g, hh] = h;
      for (let i = 0; i < 80; i += 1) {
        const ch = [(e[0] & f[0]) ^ (~e[0] & g[0]), (e[1] & f[1]) ^ (~e[1] & g[1])];
        const t1 = add64(hh, rot(e, 14, 18, 41), ch, K512[i], w[i]);
        const maj = [(a[0] & b[0]) ^ (a[0] & c[0]) ^ (b[0] & c[0]), (a[1] & b[1]) ^ (a[1] & c[1]) ^ (b[1] & c[1])];
        const t2 = add64(rot(a, 28, 34, 39), maj);
        hh = g; g = f; f = e; e = add64(d, t1); d = c; c = b; b = a; a = add64(t1, t2);
      }
      h = h.map((x, i) => add64(x, [a, b, c, d, e, f, g, hh][i]));
    }
    return bigEndian(h.slice(0, outWords).flat());
  }
  const HASHES = {
    md5: [md5, 64], sha1: [sha1, 64], sha256: [sha256, 64],
    sha384: [(b) => sha512(b, SHA384_H, 6), 128], sha512: [(b) => sha512(b, SHA512_H, 8), 128],
  };
  function hashOf(algorithm) {
    const name = String(algorithm).toLowerCase().replace(/^rsa-/, '').replace(/^sha-/, 'sha');
    if (!(name in HASHES)) throw new Error(`Digest method not supported: cutover's crypto has ${Object.keys(HASHES).join(', ')}`);
    return HASHES[name];
  }
  function digestAs(bytes, encoding) {
    return encoding === undefined || encoding === 'buffer' ? fromBytes(bytes) : decode(bytes, encoding);
  }
  class Hash {
    constructor(algorithm) { [this._fn] = hashOf(algorithm); this._data = []; this._done = false; }
    update(data, encoding) {
      if (this._done) throw new Error('Digest already called');
      for (const b of bytesOf(data, encoding)) this._data.push(b);
      return this;
    }
    digest(encoding) {
      if (this._done) throw new Error('Digest already called');
      this._done = true;
      return digestAs(this._fn(this._data), encoding);
    }
  }
  class Hmac extends Hash {
    constructor(algorithm, key) {
      super(algorithm);
      const [fn, block] = hashOf(algorithm);
      let k = bytesOf(key);
      if (k.length > block) k = fn(k);
      while (k.length < block) k.push(0);
      this._outer = k.map((b) => b ^ 0x5c);
      this._data = k.map((b) => b ^ 0x36);
    }
    digest(encoding) {
      if (this._done) throw new Error('Digest already called');
      this._done = true;
      return digestAs(this._fn(this._outer.concat(this._fn(this._data))), encoding);
    }
  }

  // randomBytes/randomUUID: SHA-256 over (the run's seed, a counter): the seed is 32 bytes of the
  // operating system's randomness, fresh per run.
  let seed = null; let seedHex = null; let counter = 0;
  function randomBytes(size, callback) {
    if (seed === null && seedHex !== null) seed = hexDecode(seedHex);
    if (seed === null) throw new Error("crypto.randomBytes: cutover's sandbox was given no entropy for this run");
    const out = [];
    while (out.length < size) { counter += 1; out.push(...sha256(seed.concat(utf8Encode(String(counter))))); }
    const bytes = fromBytes(out.slice(0, size));
    if (typeof callback === 'function') { callback(null, bytes); return undefined; }
    return bytes;
  }
  function randomUUID() {
    const b = randomBytes(16);
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    const h = hexEncode(b);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  function timingSafeEqual(a, b) {
    if (a.length !== b.length) throw new RangeError('Input buffers must have the same byte length');
    let diff = 0;
    for (let i = 0; i < a.length; i += 1) diff |= a[i] ^ b[i];
    return diff === 0;
  }
  const crypto = Object.freeze({
    createHash: (algorithm) => new Hash(algorithm),
    createHmac: (algorithm, key) => new Hmac(algorithm, key),
    getHashes: () => Object.keys(HASHES),
    randomBytes, randomUUID, timingSafeEqual,
  });
  global.__cutoverNode = {
    Buffer, crypto,
    seed(hex) { seedHex = hex || null; seed = null; counter = 0; },  // decoded on first use
  };
}(globalThis));
