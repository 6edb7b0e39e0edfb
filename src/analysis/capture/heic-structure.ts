// The ISO-BMFF structure of a HEIF file as a phone writes it: brands, item types, item references and the
// primary item's properties. heic-decode (libheif) decodes pixels but exposes none of this, so a small box walker.
import { associations, boxes as isoBoxes, HeaderError, type Box } from '../image-headers.js';
import { readHevcConfig, type HevcConfig } from './hevc-config.js';

export interface HeicStructure {
  majorBrand: string;
  brands: string[];
  /** Item type of the primary item ('grid' for tiled phone images, 'hvc1' for a single coded image). */
  primaryType: string | null;
  /** Number of items of each type, e.g. { hvc1: 49, grid: 1, Exif: 1, mime: 1 }. */
  itemTypes: Record<string, number>;
  /** Item reference types present (thmb, dimg, cdsc, auxl). */
  refTypes: string[];
  /** Property box types associated with the primary item, in order. */
  primaryProperties: string[];
  /** A thumbnail item references the primary item. */
  hasThumbnail: boolean;
  hasExif: boolean;
  /** The encoder's choices for the picture the primary item shows (its first tile for a grid), from its hvcC. */
  coding: HevcConfig | null;
}

/** The boxes that fit in [from, to), by image-headers' walker; a phone's file is read as far as it is well formed. */
function* boxes(buf: Buffer, from: number, to: number): Generator<Box> {
  try {
    for (const b of isoBoxes(buf, from, to)) {
      if (b.end > to) return;
      yield b;
    }
  } catch (err) {
    if (!(err instanceof HeaderError)) throw err;
  }
}

export function readHeicStructure(buf: Buffer): HeicStructure | null {
  try {
    let ftyp: Box | null = null;
    let meta: Box | null = null;
    for (const b of boxes(buf, 0, buf.length)) {
      if (b.type === 'ftyp' && !ftyp) ftyp = b;
      if (b.type === 'meta' && !meta) meta = b;
    }
    if (!ftyp || !meta) return null;
    const majorBrand = buf.toString('latin1', ftyp.start, ftyp.start + 4);
    const brands: string[] = [];
    for (let p = ftyp.start + 8; p + 4 <= ftyp.end; p += 4) brands.push(buf.toString('latin1', p, p + 4));
    let primary = -1;
    const types = new Map<number, string>();
    const refTypes = new Set<string>();
    let thumbOfPrimary = false;
    const thumbFrom: number[][] = [];
    const derivedFrom: number[][] = [];
    let ipco: Box | null = null;
    let ipma: Box | null = null;
    for (const b of boxes(buf, meta.start + 4, meta.end)) {
      if (b.type === 'pitm') primary = buf[b.start] === 0 ? buf.readUInt16BE(b.start + 4) : buf.readUInt32BE(b.start + 4);
      else if (b.type === 'iinf') {
        const v = buf[b.start];
        for (const infe of boxes(buf, b.start + 4 + (v === 0 ? 2 : 4), b.end)) {
          if (infe.type !== 'infe') continue;
          const iv = buf[infe.start];
          if (iv < 2) continue;
          const id = iv === 2 ? buf.readUInt16BE(infe.start + 4) : buf.readUInt32BE(infe.start + 4);
          const at = infe.start + 4 + (iv === 2 ? 2 : 4) + 2;
          types.set(id, buf.toString('latin1', at, at + 4));
        }
      } else if (b.type === 'iref') {
        const v = buf[b.start];
        for (const ref of boxes(buf, b.start + 4, b.end)) {
          refTypes.add(ref.type);
          const w = v === 0 ? 2 : 4;
          let p = ref.start;
          const from = w === 2 ? buf.readUInt16BE(p) : buf.readUInt32BE(p);
          p += w;
          const n = buf.readUInt16BE(p);
          p += 2;
          const to: number[] = [];
          for (let i = 0; i < n && p + w <= ref.end; i++, p += w) to.push(w === 2 ? buf.readUInt16BE(p) : buf.readUInt32BE(p));
          if (ref.type === 'thmb') thumbFrom.push([from, ...to]);
          if (ref.type === 'dimg') derivedFrom.push([from, ...to]);
        }
      } else if (b.type === 'iprp') {
        for (const sub of boxes(buf, b.start, b.end)) {
          if (sub.type === 'ipco') ipco = sub;
          if (sub.type === 'ipma') ipma = sub;
        }
      }
    }
    for (const [, ...to] of thumbFrom) if (to.includes(primary)) thumbOfPrimary = true;
    const propBoxes: Box[] = ipco ? [...boxes(buf, ipco.start, ipco.end)] : [];
    const props = propBoxes.map((b) => b.type);
    const primaryProperties = ipma && primary >= 0 ? (associations(buf, ipma, primary) ?? []).map((i) => props[i - 1] ?? '?') : [];
    // The coded picture the primary shows: itself, or the first tile a grid is derived from.
    const coded = types.get(primary) === 'grid' ? derivedFrom.find(([from]) => from === primary)?.[1] : primary;
    const codedHvcC = ipma && coded !== undefined ? (associations(buf, ipma, coded) ?? []).map((i) => propBoxes[i - 1]).find((b) => b?.type === 'hvcC') : undefined;
    const itemTypes: Record<string, number> = {};
    for (const t of types.values()) itemTypes[t] = (itemTypes[t] ?? 0) + 1;
    return {
      majorBrand,
      brands,
      primaryType: types.get(primary) ?? null,
      itemTypes,
      refTypes: [...refTypes].sort(),
      primaryProperties,
      hasThumbnail: thumbOfPrimary,
      hasExif: (itemTypes['Exif'] ?? 0) > 0,
      coding: codedHvcC ? readHevcConfig(buf.subarray(codedHvcC.start, codedHvcC.end)) : null,
    };
  } catch {
    return null;
  }
}

