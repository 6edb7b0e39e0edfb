// A bounded CBOR (RFC 8949) reader for the claim and assertion boxes of C2PA manifests: enough to read their maps,
// arrays and strings, with depth, length and item-count caps so a hostile manifest cannot exhaust memory or stack.

export type CborValue = number | bigint | string | boolean | null | undefined | Uint8Array | CborValue[] | { [k: string]: CborValue };

const MAX_DEPTH = 32;
const MAX_ITEMS = 100_000;

export function decodeCbor(buf: Uint8Array): CborValue {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let off = 0;
  let items = 0;
  const need = (n: number) => {
    if (off + n > buf.length) throw new Error('CBOR truncated');
  };
  const readLength = (info: number): number => {
    if (info < 24) return info;
    if (info === 24) {
      need(1);
      return buf[off++];
    }
    if (info === 25) {
      need(2);
      const v = dv.getUint16(off);
      off += 2;
      return v;
    }
    if (info === 26) {
      need(4);
      const v = dv.getUint32(off);
      off += 4;
      return v;
    }
    if (info === 27) {
      need(8);
      const v = dv.getBigUint64(off);
      off += 8;
      if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('CBOR length too large');
      return Number(v);
    }
    throw new Error('CBOR indefinite or reserved length');
  };
  const item = (depth: number): CborValue => {
    if (depth > MAX_DEPTH) throw new Error('CBOR nested too deeply');
    if (++items > MAX_ITEMS) throw new Error('CBOR has too many items');
    need(1);
    const head = buf[off++];
    const major = head >> 5;
    const info = head & 31;
    switch (major) {
      case 0:
        return readLength(info);
      case 1:
        return -1 - readLength(info);
      case 2: {
        const n = readLength(info);
        need(n);
        const v = buf.subarray(off, off + n);
        off += n;
        return v;
      }
      case 3: {
        const n = readLength(info);
        need(n);
        const v = Buffer.from(buf.buffer, buf.byteOffset + off, n).toString('utf8');
        off += n;
        return v;
      }
      case 4: {
        const n = readLength(info);
        if (n > buf.length - off) throw new Error('CBOR array longer than its data');
        const arr: CborValue[] = [];
        for (let i = 0; i < n; i++) arr.push(item(depth + 1));
        return arr;
      }
      case 5: {
        const n = readLength(info);
        if (n > buf.length - off) throw new Error('CBOR map longer than its data');
        const map: { [k: string]: CborValue } = Object.create(null);
        for (let i = 0; i < n; i++) {
          const k = item(depth + 1);
          map[String(k)] = item(depth + 1);
        }
        return map;
      }
      case 6:
        readLength(info); // tag number: the tagged value is returned as is
        return item(depth + 1);
      default: {
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22) return null;
        if (info === 23) return undefined;
        if (info === 25) {
          need(2);
          off += 2;
          return 0; // half floats do not occur in the fields read here
        }
        if (info === 26) {
          need(4);
          const v = dv.getFloat32(off);
          off += 4;
          return v;
        }
        if (info === 27) {
          need(8);
          const v = dv.getFloat64(off);
          off += 8;
          return v;
        }
        if (info < 20) return info;
        throw new Error('CBOR unsupported simple value');
      }
    }
  };
  return item(0);
}

/** Encodes the few shapes COSE's Sig_structure needs: arrays, text strings and byte strings. */
export function encodeCbor(value: string | Uint8Array | Array<string | Uint8Array>): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'string') {
    const s = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, s.length), s]);
  }
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map((v) => encodeCbor(v))]);
  return Buffer.concat([head(2, value.length), value]);
}
