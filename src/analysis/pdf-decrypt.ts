// The standard security handler of PDF (ISO 32000-2 7.6.4) for a document that opens without a password (encrypted
// with permissions only: an owner password, an empty user password), enough to read its image streams as stored:
// RC4 and AES-128 (revisions 2-4, algorithms 1 and 2) and AES-256 (revisions 5 and 6, algorithms 2.A and 2.B). pdf.js
// decrypts such documents to draw them; the PDF pixel route needs the JPEG streams themselves (ai-detection.ts).
import { createDecipheriv, createCipheriv, createHash } from 'node:crypto';

/** The stream `data` of object `num` generation `gen` decrypted; null when it cannot be (a malformed AES stream). */
export type StreamDecryptor = (num: number, gen: number, data: Buffer) => Buffer | null;

/** The Encrypt dictionary's entry `key`: a name (as its text), a string (latin1), a number, a boolean or a dictionary. */
type Entry = (key: string) => unknown;

const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

function rc4(key: Buffer, data: Buffer): Buffer {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
    out[n] = data[n] ^ s[(s[i] + s[j]) & 0xff];
  }
  return out;
}

/** AES-CBC with the IV in the stream's first 16 bytes and PKCS#5 padding (7.6.3); null when malformed. */
function aesStream(key: Buffer, data: Buffer): Buffer | null {
  if (data.length < 32 || data.length % 16) return null;
  try {
    const d = createDecipheriv(key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc', key, data.subarray(0, 16));
    return Buffer.concat([d.update(data.subarray(16)), d.final()]);
  } catch {
    return null;
  }
}

/** Algorithm 2.B (revision 6): the hash of a password with a salt (and, for the owner, the U string). */
function hash2B(password: Buffer, salt: Buffer, udata: Buffer): Buffer {
  let k = createHash('sha256').update(Buffer.concat([password, salt, udata])).digest();
  for (let i = 0; ; i++) {
    const k1 = Buffer.concat(Array(64).fill(Buffer.concat([password, k, udata])));
    const c = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32));
    c.setAutoPadding(false);
    const e = Buffer.concat([c.update(k1), c.final()]);
    let sum = 0;
    for (let n = 0; n < 16; n++) sum += e[n];
    k = createHash(['sha256', 'sha384', 'sha512'][sum % 3]).update(e).digest();
    if (i >= 63 && e[e.length - 1] <= i - 31) return k.subarray(0, 32);
  }
}

/**
 * The decryptor of a document's streams for an empty user password, or null when the handler is not the standard
 * one, the revision is unknown, the empty password does not open it, or its crypt filter is one this does not know.
 */
export function standardDecryptor(entry: Entry, id0: Buffer, nameOf: (v: unknown) => string | null): StreamDecryptor | null {
  if (entry('Filter') !== 'Standard') return null;
  const v = Number(entry('V'));
  const r = Number(entry('R'));
  const str = (key: string) => (typeof entry(key) === 'string' ? Buffer.from(entry(key) as string, 'latin1') : null);
  const o = str('O');
  const u = str('U');
  if (!o || !u) return null;
  // The stream crypt filter's method: V 4 and 5 name it (StmF in CF); earlier versions are RC4.
  let method = 'V2';
  if (v >= 4) {
    const stmF = entry('StmF') ?? 'Identity';
    if (stmF === 'Identity') return (_num, _gen, data) => data;
    const cf = entry('CF');
    const filter = cf instanceof Map ? cf.get(stmF) : null;
    method = filter instanceof Map ? (nameOf(filter.get('CFM')) ?? 'None') : 'None';
    if (method === 'None') return (_num, _gen, data) => data;
  }
  if (r === 5 || r === 6) {
    const ue = str('UE');
    if (method !== 'AESV3' || !ue || u.length < 48 || ue.length < 32) return null;
    const empty = Buffer.alloc(0);
    const check = r === 5 ? createHash('sha256').update(Buffer.concat([empty, u.subarray(32, 40)])).digest() : hash2B(empty, u.subarray(32, 40), empty);
    if (!check.equals(u.subarray(0, 32))) return null; // the document needs a user password
    const inter = r === 5 ? createHash('sha256').update(u.subarray(40, 48)).digest() : hash2B(empty, u.subarray(40, 48), empty);
    const d = createDecipheriv('aes-256-cbc', inter, Buffer.alloc(16));
    d.setAutoPadding(false);
    const fileKey = Buffer.concat([d.update(ue.subarray(0, 32)), d.final()]);
    return (_num, _gen, data) => aesStream(fileKey, data);
  }
  if (r < 2 || r > 4 || (method !== 'V2' && method !== 'AESV2')) return null;
  const n = r === 2 ? 5 : Math.max(5, Math.min(16, Math.floor(Number(entry('Length') ?? 40) / 8)));
  const p = Buffer.alloc(4);
  p.writeInt32LE(Number(entry('P')) | 0);
  const parts = [PAD, o.subarray(0, 32), p, id0];
  if (r >= 4 && entry('EncryptMetadata') === false) parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  let key = createHash('md5').update(Buffer.concat(parts)).digest().subarray(0, n);
  if (r >= 3) for (let i = 0; i < 50; i++) key = createHash('md5').update(key).digest().subarray(0, n);
  // Algorithm 6: the empty user password opens the document when U checks out against this key.
  const expected = r === 2 ? rc4(key, PAD) : (() => {
    let x = rc4(key, createHash('md5').update(Buffer.concat([PAD, id0])).digest());
    for (let i = 1; i <= 19; i++) x = rc4(Buffer.from(key.map((b) => b ^ i)), x);
    return x;
  })();
  if (!expected.subarray(0, r === 2 ? 32 : 16).equals(u.subarray(0, r === 2 ? 32 : 16))) return null;
  return (num, gen, data) => {
    const salt = Buffer.from([num & 0xff, (num >> 8) & 0xff, (num >> 16) & 0xff, gen & 0xff, (gen >> 8) & 0xff]);
    const objectKey = createHash('md5')
      .update(Buffer.concat([key, salt, method === 'AESV2' ? Buffer.from('sAlT', 'latin1') : Buffer.alloc(0)]))
      .digest()
      .subarray(0, Math.min(n + 5, 16));
    return method === 'AESV2' ? aesStream(objectKey, data) : rc4(objectKey, data);
  };
}
