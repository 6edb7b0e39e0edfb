// The PDF form of a C2PA manifest store, located by the document's structure rather than by searching its bytes: the
// embedded file stream that the catalog's /AF array names as its C2PA associated file (C2PA specification, "Embedding
// manifests into PDFs"; c2pa-rs pdf.rs reads it the same way), its filters decoded within the store's size bound, and
// where its stored bytes lie in the file (a data hash excludes ranges of the file as stored, never of a decoded copy).
// The same object reader finds the document's image XObjects for the PDF pixel route (imageStreamsOf).
import { inflateSync } from 'node:zlib';
import { standardDecryptor, type StreamDecryptor } from './pdf-decrypt.js';
import { xrefChain } from './pdf-structure.js';

export interface PdfStore {
  /** The decoded manifest store (JUMBF). */
  jumbf: Uint8Array;
  /** The stream's bytes as stored in the file, between `stream` and `endstream`. */
  stored: { start: number; length: number };
}

export type PdfStoreReading = { kind: 'store'; store: PdfStore } | { kind: 'unreadable'; reason: string } | null;

/** A store that is in the document but cannot be read; its message is the reason given to the user's specialist. */
class Unreadable extends Error {}

class Name {
  constructor(readonly value: string) {}
}
class Ref {
  constructor(readonly num: number) {}
}
class Keyword {
  constructor(readonly word: string) {}
}
type Dict = Map<string, PdfValue>;
type PdfValue = number | boolean | null | string | Name | Ref | Keyword | Dict | PdfValue[];

/** The subtypes a store's embedded file carries: the specification's media type, and c2pa-rs's earlier one. */
const C2PA_SUBTYPES = new Set(['application/c2pa', 'application/x-c2pa-manifest-store']);
const WHITE = new Set([0, 9, 10, 12, 13, 32]);
const DELIMITERS = new Set([...'()<>[]{}/%'].map((c) => c.charCodeAt(0)));
const isRegular = (c: number | undefined) => c !== undefined && !WHITE.has(c) && !DELIMITERS.has(c);
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
/** Dictionaries and arrays nested deeper than this are refused (a stack cannot be exhausted by a crafted file). */
const MAX_DEPTH = 32;
/** References followed in a row at most (a cycle of references resolves to nothing). */
const MAX_HOPS = 8;

/** A reader of PDF objects (ISO 32000 7.3) from `pos`: enough to walk a catalog to an embedded file. */
class Parser {
  constructor(
    private readonly buf: Buffer,
    public pos: number,
  ) {}

  skip(): void {
    const b = this.buf;
    while (this.pos < b.length) {
      if (WHITE.has(b[this.pos])) this.pos++;
      else if (b[this.pos] === 0x25 /* % */) while (this.pos < b.length && b[this.pos] !== 10 && b[this.pos] !== 13) this.pos++;
      else break;
    }
  }

  private regular(): string {
    const from = this.pos;
    while (isRegular(this.buf[this.pos])) this.pos++;
    return this.buf.toString('latin1', from, this.pos);
  }

  private integer(): number | null {
    const from = this.pos;
    while (isDigit(this.buf[this.pos])) this.pos++;
    return this.pos > from ? Number(this.buf.toString('latin1', from, this.pos)) : null;
  }

  value(depth = 0): PdfValue {
    if (depth > MAX_DEPTH) throw new Unreadable('PDF objects nested too deep');
    this.skip();
    const b = this.buf;
    const c = b[this.pos];
    if (c === undefined) throw new Unreadable('the PDF ends inside an object');
    if (c === 0x3c /* < */ && b[this.pos + 1] === 0x3c) return this.dict(depth);
    if (c === 0x3c) {
      const end = b.indexOf(0x3e, this.pos);
      if (end < 0) throw new Unreadable('an unterminated hex string');
      const hex = b.toString('latin1', this.pos + 1, end).replace(/[^0-9a-fA-F]/g, '');
      this.pos = end + 1;
      return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex').toString('latin1');
    }
    if (c === 0x5b /* [ */) {
      this.pos++;
      const items: PdfValue[] = [];
      for (this.skip(); b[this.pos] !== 0x5d; this.skip()) {
        if (this.pos >= b.length) throw new Unreadable('an unterminated array');
        items.push(this.value(depth + 1));
      }
      this.pos++;
      return items;
    }
    if (c === 0x28 /* ( */) return this.literal();
    if (c === 0x2f /* / */) {
      this.pos++;
      return new Name(this.regular().replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
    }
    if (isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e) return this.number();
    const word = this.regular();
    if (!word) throw new Unreadable(`an unexpected "${String.fromCharCode(c)}" in a PDF object`);
    return word === 'true' ? true : word === 'false' ? false : word === 'null' ? null : new Keyword(word);
  }

  private dict(depth: number): Dict {
    this.pos += 2;
    const dict: Dict = new Map();
    for (this.skip(); !(this.buf[this.pos] === 0x3e && this.buf[this.pos + 1] === 0x3e); this.skip()) {
      const key = this.value(depth + 1);
      if (!(key instanceof Name)) throw new Unreadable('a PDF dictionary key that is not a name');
      dict.set(key.value, this.value(depth + 1));
    }
    this.pos += 2;
    return dict;
  }

  /** A literal string (balanced parentheses, backslash escapes: ISO 32000 7.3.4.2), its bytes as latin1 text. */
  private literal(): string {
    let open = 0;
    const out: number[] = [];
    const ESCAPES: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12 };
    for (const b = this.buf; this.pos < b.length; this.pos++) {
      const c = b[this.pos];
      if (c === 0x5c /* \ */) {
        const n = b[++this.pos];
        if (n >= 0x30 && n <= 0x37) {
          let v = 0;
          for (let k = 0; k < 3 && b[this.pos] >= 0x30 && b[this.pos] <= 0x37; k++) v = v * 8 + b[this.pos++] - 0x30;
          this.pos--;
          out.push(v & 0xff);
        } else if (n === 13 || n === 10) {
          if (n === 13 && b[this.pos + 1] === 10) this.pos++;
        } else if (n !== undefined) out.push(ESCAPES[n] ?? n);
        continue;
      }
      if (c === 0x28) open++;
      else if (c === 0x29 && --open === 0) {
        this.pos++;
        return Buffer.from(out.slice(1)).toString('latin1');
      }
      out.push(c);
    }
    throw new Unreadable('an unterminated string');
  }

  /** A number, or an indirect reference `N G R`. */
  private number(): number | Ref {
    const text = this.regular();
    const n = Number(text);
    if (!Number.isFinite(n)) throw new Unreadable(`a malformed number "${text.slice(0, 20)}"`);
    if (!/^\d+$/.test(text)) return n;
    const after = this.pos;
    this.skip();
    if (this.integer() !== null) {
      this.skip();
      if (this.buf[this.pos] === 0x52 /* R */ && !isRegular(this.buf[this.pos + 1])) {
        this.pos++;
        return new Ref(n);
      }
    }
    this.pos = after;
    return n;
  }
}

/**
 * The document's objects, each at its last definition in the file (an incremental update appends the objects it
 * changes, so the last definition is the newest revision's), found by their `N G obj` headers rather than through
 * cross-reference tables, which are often wrong in edited files; objects compressed in object streams are looked up
 * in those (decoded within the same bound) when the file has any.
 */
class PdfObjects {
  /** Object number -> offset just past its `obj` keyword, for the last definition in the file. */
  private readonly offsets = new Map<number, number>();
  /**
   * Every `N G obj` header's offset, ascending, older definitions of a number included: what bounds an object's text.
   * (A header inside a stream's data, written there to pass for a newer definition, must not hide the real object.)
   */
  private readonly headers: number[] = [];
  /** The object number and generation of the definition at each header's offset (what a stream's key is made from). */
  private readonly identities = new Map<number, { num: number; gen: number }>();
  private compressed: Map<number, { container: number; data: Buffer; at: number }> | undefined;
  private readonly hasObjectStreams: boolean;

  constructor(
    readonly buf: Buffer,
    private readonly limit: number,
  ) {
    for (let at = buf.indexOf('obj'); at >= 0; at = buf.indexOf('obj', at + 3)) {
      if (isRegular(buf[at + 3])) continue;
      let i = at - 1;
      const gap = () => {
        const from = i;
        while (i >= 0 && WHITE.has(buf[i])) i--;
        return i < from;
      };
      const digits = () => {
        const end = i;
        while (i >= 0 && isDigit(buf[i])) i--;
        return end > i ? Number(buf.toString('latin1', i + 1, end + 1)) : null;
      };
      if (!gap()) continue;
      const gen = digits();
      if (gen === null || !gap()) continue;
      const num = digits();
      if (num === null || isRegular(buf[i])) continue;
      this.offsets.set(num, at + 3);
      this.headers.push(at + 3);
      this.identities.set(at + 3, { num, gen });
    }
    this.hasObjectStreams = buf.includes('/ObjStm');
  }

  /** The object whose definition contains file offset `pos` (the last to start before it). */
  private containing(pos: number): number | undefined {
    const s = this.headers;
    let lo = 0;
    let hi = s.length - 1;
    let found: number | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid] <= pos) {
        found = s[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** The top-level object defined at `offset` (just past its `obj`). */
  private at(offset: number): PdfValue {
    return new Parser(this.buf, offset).value();
  }

  /** Object `num` as its newest definition has it; null when the document does not define it. */
  get(num: number): PdfValue {
    const top = this.offsets.get(num);
    const inStream = this.hasObjectStreams ? this.objectStreams().get(num) : undefined;
    if (inStream && (top === undefined || inStream.container > top)) return new Parser(inStream.data, inStream.at).value();
    return top === undefined ? null : this.at(top);
  }

  /** `v`, with references followed. */
  deref(v: PdfValue | undefined): PdfValue {
    let value = v ?? null;
    for (let hops = 0; value instanceof Ref; hops++) value = hops < MAX_HOPS ? this.get(value.num) : null;
    return value;
  }

  /** The stream object `num`: its dictionary and where its stored bytes are (streams are never in object streams). */
  stream(num: number): { dict: Dict; start: number; length: number } | null {
    const offset = this.offsets.get(num);
    return offset === undefined ? null : this.streamAt(offset);
  }

  private streamAt(offset: number): { dict: Dict; start: number; length: number } | null {
    return this.streamFrom(new Parser(this.buf, offset));
  }

  /** The stream whose dictionary `p` is at: the dictionary, then where the data after `stream` lies. */
  private streamFrom(p: Parser): { dict: Dict; start: number; length: number } | null {
    const b = this.buf;
    const dict = p.value();
    p.skip();
    if (!(dict instanceof Map) || b.toString('latin1', p.pos, p.pos + 6) !== 'stream') return null;
    let start = p.pos + 6;
    if (b[start] === 13) start++;
    if (b[start] === 10) start++;
    const declared = this.deref(dict.get('Length'));
    if (typeof declared === 'number' && Number.isSafeInteger(declared) && declared >= 0 && start + declared <= b.length) {
      const after = new Parser(b, start + declared);
      after.skip();
      if (b.toString('latin1', after.pos, after.pos + 9) === 'endstream') return { dict, start, length: declared };
    }
    // A /Length that does not lead to `endstream` (wrong, or missing): the data runs to `endstream`, less its EOL.
    const end = b.indexOf('endstream', start);
    if (end < 0) throw new Unreadable('a stream without endstream');
    let stop = end;
    if (b[stop - 1] === 10) stop--;
    if (b[stop - 1] === 13) stop--;
    return { dict, start, length: Math.max(0, stop - start) };
  }

  /** The data of stream `s`, its filters decoded in order, each within the limit. */
  decode(s: { dict: Dict; start: number; length: number }): Buffer {
    let data = this.buf.subarray(s.start, s.start + s.length);
    const filters = this.deref(s.dict.get('Filter'));
    const parms = this.deref(s.dict.get('DecodeParms'));
    const list = filters === null ? [] : Array.isArray(filters) ? filters.map((f) => this.deref(f)) : [filters];
    list.forEach((filter, i) => {
      const name = filter instanceof Name ? filter.value : String(filter);
      if (name !== 'FlateDecode' && name !== 'Fl') throw new Unreadable(`the manifest store's stream is encoded with /${name}, a filter this reader does not decode`);
      data = inflateBounded(data, this.limit);
      const p = this.deref(Array.isArray(parms) ? parms[i] : parms);
      if (p instanceof Map) data = unpredict(data, p, (v) => this.deref(v));
    });
    return data;
  }

  /**
   * Every object held in an object stream, the containers read oldest first (so a newer container's definition of an
   * object replaces an older one's), all of them decoded within the limit together.
   */
  private objectStreams(): Map<number, { container: number; data: Buffer; at: number }> {
    if (this.compressed) return this.compressed;
    const found = new Map<number, { container: number; data: Buffer; at: number }>();
    this.compressed = found;
    const containers = new Set<number>();
    for (let at = this.buf.indexOf('/ObjStm'); at >= 0; at = this.buf.indexOf('/ObjStm', at + 7)) {
      const c = this.containing(at);
      if (c !== undefined) containers.add(c);
    }
    let budget = this.limit;
    for (const container of [...containers].sort((a, b) => a - b)) {
      try {
        const s = this.streamAt(container);
        if (!s || !(s.dict.get('Type') instanceof Name) || (s.dict.get('Type') as Name).value !== 'ObjStm') continue;
        const data = this.decode(s);
        budget -= data.length;
        if (budget < 0) break;
        const n = this.deref(s.dict.get('N'));
        const first = this.deref(s.dict.get('First'));
        if (typeof n !== 'number' || typeof first !== 'number') continue;
        const header = new Parser(data, 0);
        for (let i = 0; i < n && header.pos < first; i++) {
          const num = header.value();
          const off = header.value();
          if (typeof num === 'number' && typeof off === 'number') found.set(num, { container, data, at: first + off });
        }
      } catch {
        // An object stream that cannot be read holds nothing this reader can use.
      }
    }
    return found;
  }

  /** The newest trailer (classic, or a cross-reference stream's dictionary) that names the catalog. */
  trailer(): Dict | null {
    for (const off of xrefChain(this.buf)) {
      try {
        let dict: PdfValue;
        if (this.buf.toString('latin1', off, off + 4) === 'xref') {
          const t = this.buf.indexOf('trailer', off);
          dict = t < 0 ? null : new Parser(this.buf, t + 7).value();
        } else {
          const obj = this.buf.indexOf('obj', off);
          dict = obj < 0 ? null : this.at(obj + 3);
        }
        if (dict instanceof Map && dict.get('Root') instanceof Ref) return dict;
      } catch {
        // The next section back may still name it.
      }
    }
    // No usable startxref (a damaged tail): the last classic trailer in the file, if it names the catalog.
    const t = this.buf.lastIndexOf('trailer');
    try {
      const dict = t < 0 ? null : new Parser(this.buf, t + 7).value();
      return dict instanceof Map && dict.get('Root') instanceof Ref ? dict : null;
    } catch {
      return null;
    }
  }

  /**
   * The offsets of the top-level objects whose text holds the name `needle` as a whole token (`/Image`, not `/ImageC`),
   * at most `max` of them.
   */
  objectsHolding(needle: string, max: number): number[] {
    const found: number[] = [];
    const seen = new Set<number>();
    for (let at = this.buf.indexOf(needle); at >= 0 && found.length < max; at = this.buf.indexOf(needle, at + needle.length)) {
      if (isRegular(this.buf[at + needle.length])) continue;
      const c = this.containing(at);
      if (c !== undefined && !seen.has(c)) {
        seen.add(c);
        found.push(c);
      }
    }
    return found;
  }

  /**
   * The stream object defined at `offset`, its dictionary read no further than the next object's header: a crafted
   * file of unterminated objects then costs one pass over the file, not one pass per object.
   */
  boundedStreamAt(offset: number): { dict: Dict; start: number; length: number } | null {
    const s = this.headers;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    const end = lo < s.length ? s[lo] : this.buf.length;
    return this.streamFrom(new Parser(this.buf.subarray(0, end), offset));
  }

  /** The number and generation of the object whose definition starts at `offset`. */
  identityAt(offset: number): { num: number; gen: number } | undefined {
    return this.identities.get(offset);
  }

  /** The newest top-level stream object whose dictionary says it is a C2PA embedded file. */
  lastC2paStream(): number | null {
    // The subtype is a name, so its slash is written #2F: the objects holding that spelling are the candidates.
    const candidates = new Set<number>();
    for (const spelling of ['#2Fc2pa', '#2fc2pa', '#2Fx-c2pa', '#2fx-c2pa']) {
      for (let at = this.buf.indexOf(spelling); at >= 0; at = this.buf.indexOf(spelling, at + spelling.length)) {
        const c = this.containing(at);
        if (c !== undefined) candidates.add(c);
      }
    }
    for (const offset of [...candidates].sort((a, b) => b - a)) {
      try {
        const subtype = this.streamAt(offset)?.dict.get('Subtype');
        if (!(subtype instanceof Name) || !C2PA_SUBTYPES.has(subtype.value)) continue;
        const num = [...this.offsets].find(([, o]) => o === offset)?.[0];
        if (num !== undefined) return num;
      } catch {
        // Not a stream this reader can delimit.
      }
    }
    return null;
  }
}

/** `data` inflated, refused past `limit` bytes: a decompression bomb stops at the limit rather than filling memory. */
function inflateBounded(data: Uint8Array, limit: number): Buffer {
  try {
    return inflateSync(data, { maxOutputLength: limit });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new Unreadable(`the manifest store is larger than ${limit / (1024 * 1024)} MiB`);
    throw new Unreadable(`the manifest store's stream does not inflate (${(err as Error).message})`);
  }
}

/** The PNG predictors (ISO 32000 7.4.4.4, /Predictor 10 to 15) undone; the TIFF predictor is refused. */
function unpredict(data: Buffer, parms: Dict, deref: (v: PdfValue | undefined) => PdfValue): Buffer {
  const param = (key: string, fallback: number) => {
    const v = deref(parms.get(key));
    return typeof v === 'number' && Number.isSafeInteger(v) ? v : fallback;
  };
  const predictor = param('Predictor', 1);
  if (predictor === 1) return data;
  if (predictor < 10) throw new Unreadable(`the manifest store's stream uses predictor ${predictor}, which this reader does not decode`);
  const colors = param('Colors', 1);
  const bits = param('BitsPerComponent', 8);
  const columns = param('Columns', 1);
  if (colors < 1 || colors > 32 || ![1, 2, 4, 8, 16].includes(bits) || columns < 1 || columns > 1 << 24) throw new Unreadable("the manifest store's stream has malformed /DecodeParms");
  const bpp = Math.max(1, Math.ceil((colors * bits) / 8));
  const rowLength = Math.ceil((colors * bits * columns) / 8);
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = Buffer.alloc(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLength + 1)];
    const src = r * (rowLength + 1) + 1;
    const row = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const left = i >= bpp ? out[row + i - bpp] : 0;
      const up = r > 0 ? out[row - rowLength + i] : 0;
      const upLeft = r > 0 && i >= bpp ? out[row - rowLength + i - bpp] : 0;
      let add: number;
      if (type === 0) add = 0;
      else if (type === 1) add = left;
      else if (type === 2) add = up;
      else if (type === 3) add = (left + up) >> 1;
      else if (type === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        add = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      } else throw new Unreadable(`the manifest store's stream has an unknown PNG predictor row type ${type}`);
      out[row + i] = (data[src + i] + add) & 0xff;
    }
  }
  return out;
}

/**
 * The embedded file the newest catalog names as its C2PA associated file (/AF, /AFRelationship /C2PA_Manifest, /EF
 * /F), as c2pa-rs finds it; undefined when the catalog names none.
 */
function storeByCatalog(doc: PdfObjects, trailer: Dict): number | 'missing' | undefined {
  // A catalog this reader cannot walk names no store it can find: the newest C2PA stream is looked for instead.
  const walk = (v: PdfValue | undefined): PdfValue => {
    try {
      return doc.deref(v);
    } catch {
      return null;
    }
  };
  const catalog = walk(trailer.get('Root'));
  const af = catalog instanceof Map ? walk(catalog.get('AF')) : null;
  for (const entry of Array.isArray(af) ? af : []) {
    const spec = walk(entry);
    const rel = spec instanceof Map ? spec.get('AFRelationship') : undefined;
    if (!(spec instanceof Map) || !(rel instanceof Name) || rel.value !== 'C2PA_Manifest') continue;
    const ef = walk(spec.get('EF'));
    const file = ef instanceof Map ? (ef.get('F') ?? ef.get('UF')) : undefined;
    return file instanceof Ref ? file.num : 'missing';
  }
  return undefined;
}

/**
 * The C2PA manifest store of the PDF `buf`: the embedded file its newest catalog names as the C2PA associated file,
 * or else the newest embedded file stream whose subtype is the C2PA media type (a store not listed in /AF), decoded
 * (FlateDecode, PNG predictors) within `limit` bytes. null: the document carries none; `unreadable`: it carries one
 * that cannot be read (a corrupt or oversized stream, a filter this reader does not decode, an encrypted document).
 */
export function readPdfC2paStore(buf: Buffer, limit: number): PdfStoreReading {
  try {
    const doc = new PdfObjects(buf, limit);
    const trailer = doc.trailer();
    const named = trailer ? storeByCatalog(doc, trailer) : undefined;
    const num = typeof named === 'number' ? named : doc.lastC2paStream();
    if (num === null && named === 'missing') throw new Unreadable('the catalog names a C2PA manifest store whose embedded file is missing');
    if (num === null) return null;
    const s = doc.stream(num);
    if (!s) throw new Unreadable('the manifest store is not a stream object');
    if (trailer?.has('Encrypt')) throw new Unreadable("the document is encrypted: its manifest store's stream is ciphertext");
    if (s.length > limit) throw new Unreadable(`the manifest store is larger than ${limit / (1024 * 1024)} MiB`);
    return { kind: 'store', store: { jumbf: doc.decode(s), stored: { start: s.start, length: s.length } } };
  } catch (err) {
    if (err instanceof Unreadable) return { kind: 'unreadable', reason: err.message };
    throw err;
  }
}

/** An image XObject's stream as the document stores it (ISO 32000 8.9.5): its size and how its samples are coded. */
export interface PdfImageStream {
  width: number;
  height: number;
  /** Its filters in order, abbreviations written out (`DCT` -> `DCTDecode`). */
  filters: string[];
  bitsPerComponent: number | null;
  /** `DeviceRGB`, `DeviceGray`, or the family of another colour space (`ICCBased`, `Indexed`, `DeviceCMYK`...). */
  colourSpace: string | null;
  /** A /Decode array other than the identity (the samples remapped) or an /ImageMask (a stencil, not a picture). */
  remapped: boolean;
  /** The stream's bytes as stored (for a DCTDecode stream alone: a whole JPEG file). */
  stored: Buffer;
}

const FILTER_NAMES: Record<string, string> = { Fl: 'FlateDecode', LZW: 'LZWDecode', RL: 'RunLengthDecode', DCT: 'DCTDecode', AHx: 'ASCIIHexDecode', A85: 'ASCII85Decode', CCF: 'CCITTFaxDecode' };
const COLOUR_NAMES: Record<string, string> = { RGB: 'DeviceRGB', G: 'DeviceGray', CMYK: 'DeviceCMYK', I: 'Indexed' };
/** Objects whose text names `/Image` read at most: a document's pictures, with room for masks and thumbnails. */
export const MAX_IMAGE_OBJECTS = 256;

/**
 * The image XObjects of the PDF `buf` (streams are never in object streams, so their dictionaries are in the file's
 * own bytes): the objects whose text names `/Image`, at most MAX_IMAGE_OBJECTS, each read no further than the next
 * object's header, less the images that serve another as its soft mask or mask (they are not pictures drawn on the
 * page). An object this reader cannot parse is left out. Reads structure only: no stream is decoded here.
 */
export function imageStreamsOf(buf: Buffer): PdfImageStream[] {
  const doc = new PdfObjects(buf, 8 * 1024 * 1024);
  const name = (v: PdfValue) => (v instanceof Name ? v.value : null);
  const found: Array<PdfImageStream & { num: number | undefined }> = [];
  // An encrypted document's streams are ciphertext: decrypted with the standard security handler's key for an empty
  // user password (a document that opens without one: permissions only), or else left out.
  const trailer = doc.trailer();
  const encrypt = trailer ? doc.deref(trailer.get('Encrypt') ?? null) : null;
  let decrypt: StreamDecryptor | null = null;
  if (encrypt instanceof Map) {
    decrypt = standardDecryptor(
      (key) => {
        const v = doc.deref(encrypt.get(key) ?? null);
        return v instanceof Name ? v.value : v instanceof Map ? v : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string' ? v : null;
      },
      (() => {
        const id = trailer?.get('ID');
        const first = Array.isArray(id) ? doc.deref(id[0] ?? null) : null;
        return typeof first === 'string' ? Buffer.from(first, 'latin1') : Buffer.alloc(0);
      })(),
      (v) => (v instanceof Name ? v.value : null),
    );
    if (!decrypt) return [];
  }
  const masks = new Set<number>();
  for (const offset of doc.objectsHolding('/Image', MAX_IMAGE_OBJECTS)) {
    try {
      const s = doc.boundedStreamAt(offset);
      if (!s || name(s.dict.get('Subtype') ?? null) !== 'Image') continue;
      for (const key of ['SMask', 'Mask']) {
        const ref = s.dict.get(key);
        if (ref instanceof Ref) masks.add(ref.num);
      }
      const width = s.dict.get('Width');
      const height = s.dict.get('Height');
      if (typeof width !== 'number' || typeof height !== 'number') continue;
      const f = s.dict.get('Filter') ?? null;
      const filters = (f === null ? [] : Array.isArray(f) ? f : [f]).map((x) => name(x) ?? '?').map((x) => FILTER_NAMES[x] ?? x);
      const bits = s.dict.get('BitsPerComponent');
      const cs = s.dict.get('ColorSpace') ?? null;
      const family = Array.isArray(cs) ? name(cs[0] ?? null) : cs instanceof Ref ? 'indirect' : name(cs);
      const decode = s.dict.get('Decode');
      const identityDecode = Array.isArray(decode) && decode.length > 0 && decode.every((v, i) => v === i % 2);
      const identity = doc.identityAt(offset);
      const raw = buf.subarray(s.start, s.start + s.length);
      const stored = decrypt ? (identity ? decrypt(identity.num, identity.gen, raw) : null) : raw;
      if (!stored) continue;
      found.push({
        num: identity?.num,
        width,
        height,
        filters,
        bitsPerComponent: typeof bits === 'number' ? bits : null,
        colourSpace: family ? (COLOUR_NAMES[family] ?? family) : null,
        remapped: (decode !== undefined && !identityDecode) || s.dict.get('ImageMask') === true || s.dict.get('IM') === true,
        stored,
      });
    } catch (err) {
      if (!(err instanceof Unreadable)) throw err;
    }
  }
  return found.filter((x) => x.num === undefined || !masks.has(x.num)).map(({ num: _num, ...image }) => image);
}
