// A phone HEIC's container with other coded pictures in it: the strongest HEIC capture forger we can build here. The
// file keeps everything the phone wrote (brands, the tile grid, the Exif item with its maker note, the thumbnail
// reference, the colour profile, auxiliary images) and only the tiles' coded data and their decoder configuration
// (hvcC) are replaced by an encoder's own (libheif's x265, as ImageMagick, GIMP and most converters use). libheif 1.15
// cannot write a tile grid itself; newer versions can, and Apple's own tools write a phone's layout outright.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { associations, boxes, type Box } from '../../src/analysis/image-headers.js';

interface Extent {
  offset: number;
  length: number;
}
interface ItemLocation {
  id: number;
  method: number;
  base: number;
  extents: Extent[];
}

const box = (type: string, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
};
const children = (buf: Buffer, b: Box, skip = 0) => [...boxes(buf, b.start + skip, b.end)];
/** A box with its header (every box this helper copies has the 8-byte header: only an mdat can need more). */
const whole = (buf: Buffer, b: Box) => {
  if (buf.readUInt32BE(b.start - 8) !== b.end - b.start + 8) throw new Error(`box ${b.type}: not an 8-byte header`);
  return buf.subarray(b.start - 8, b.end);
};

function readIloc(buf: Buffer, iloc: Box): ItemLocation[] {
  const v = buf[iloc.start];
  let off = iloc.start + 4;
  const offsetSize = buf[off] >> 4;
  const lengthSize = buf[off] & 15;
  const baseSize = buf[off + 1] >> 4;
  const indexSize = v >= 1 ? buf[off + 1] & 15 : 0;
  off += 2;
  const count = v < 2 ? buf.readUInt16BE(off) : buf.readUInt32BE(off);
  off += v < 2 ? 2 : 4;
  const n = (size: number) => {
    const val = size === 0 ? 0 : size === 8 ? Number(buf.readBigUInt64BE(off)) : buf.readUIntBE(off, size);
    off += size;
    return val;
  };
  const out: ItemLocation[] = [];
  for (let i = 0; i < count; i++) {
    const id = v < 2 ? buf.readUInt16BE(off) : buf.readUInt32BE(off);
    off += v < 2 ? 2 : 4;
    const method = v >= 1 ? buf.readUInt16BE(off) & 15 : 0;
    if (v >= 1) off += 2;
    off += 2;
    const base = n(baseSize);
    const extents: Extent[] = [];
    const ne = buf.readUInt16BE(off);
    off += 2;
    for (let e = 0; e < ne; e++) {
      n(indexSize);
      extents.push({ offset: n(offsetSize), length: n(lengthSize) });
    }
    out.push({ id, method, base, extents });
  }
  return out;
}

/** The parts of a HEIF file this helper reads and rewrites. */
function survey(buf: Buffer) {
  const top = [...boxes(buf, 0, buf.length)];
  const ftyp = top.find((b) => b.type === 'ftyp')!;
  const meta = top.find((b) => b.type === 'meta')!;
  const inMeta = children(buf, meta, 4);
  const iloc = inMeta.find((b) => b.type === 'iloc')!;
  const iprp = inMeta.find((b) => b.type === 'iprp')!;
  const pitm = inMeta.find((b) => b.type === 'pitm')!;
  const iref = inMeta.find((b) => b.type === 'iref');
  const inIprp = children(buf, iprp);
  const ipco = inIprp.find((b) => b.type === 'ipco')!;
  const ipma = inIprp.find((b) => b.type === 'ipma')!;
  const primary = buf[pitm.start] === 0 ? buf.readUInt16BE(pitm.start + 4) : buf.readUInt32BE(pitm.start + 4);
  const tiles: number[] = [];
  if (iref) {
    const w = buf[iref.start] === 0 ? 2 : 4;
    for (const ref of children(buf, iref, 4)) {
      const from = w === 2 ? buf.readUInt16BE(ref.start) : buf.readUInt32BE(ref.start);
      if (ref.type !== 'dimg' || from !== primary) continue;
      const count = buf.readUInt16BE(ref.start + w);
      for (let i = 0; i < count; i++) tiles.push(w === 2 ? buf.readUInt16BE(ref.start + w + 2 + i * w) : buf.readUInt32BE(ref.start + w + 2 + i * w));
    }
  }
  const props = children(buf, ipco);
  return { ftyp, meta, inMeta, iloc, iprp, ipco, ipma, primary, tiles, props, locations: readIloc(buf, iloc) };
}

/** The data of an item stored in the file (construction method 0). */
function itemData(buf: Buffer, loc: ItemLocation): Buffer {
  return Buffer.concat(loc.extents.map((e) => buf.subarray(loc.base + e.offset, loc.base + e.offset + (e.length || buf.length))));
}

/**
 * `container` with the coded data of the items in `data` replaced, and the property at 1-based index `hvcCIndex` of
 * its ipco replaced by `hvcC` (a whole box). Items stored elsewhere (idat) keep their place; everything else is copied.
 */
export function transplant(container: Buffer, data: Map<number, Buffer>, hvcCIndex: number, hvcC: Buffer): Buffer {
  const s = survey(container);
  const stored = s.locations.map((l) => ({ ...l, data: l.method === 0 ? (data.get(l.id) ?? itemData(container, l)) : null }));
  const props = s.props.map((p, i) => (i + 1 === hvcCIndex ? hvcC : whole(container, p)));
  const ipco = box('ipco', ...props);
  const iprp = box('iprp', ...children(container, s.iprp).map((b) => (b.type === 'ipco' ? ipco : whole(container, b))));
  // iloc version 1: 4-byte offsets and lengths, no base offset, one extent per stored item.
  const ilocFor = (mdatData: number) => {
    const parts: Buffer[] = [Buffer.from([1, 0, 0, 0, 0x44, 0x00]), Buffer.alloc(2)];
    parts[1].writeUInt16BE(stored.length);
    let at = mdatData;
    for (const l of stored) {
      const extents = l.data ? [{ offset: at, length: l.data.length }] : l.extents.map((e) => ({ offset: l.base + e.offset, length: e.length }));
      if (l.data) at += l.data.length;
      const head = Buffer.alloc(8);
      head.writeUInt16BE(l.id, 0);
      head.writeUInt16BE(l.method, 2);
      head.writeUInt16BE(0, 4);
      head.writeUInt16BE(extents.length, 6);
      parts.push(head);
      for (const e of extents) {
        const x = Buffer.alloc(8);
        x.writeUInt32BE(e.offset, 0);
        x.writeUInt32BE(e.length, 4);
        parts.push(x);
      }
    }
    return box('iloc', ...parts);
  };
  const metaFor = (iloc: Buffer) =>
    box('meta', container.subarray(s.meta.start, s.meta.start + 4), ...s.inMeta.map((b) => (b.type === 'iloc' ? iloc : b.type === 'iprp' ? iprp : whole(container, b))));
  const ftyp = whole(container, s.ftyp);
  const metaLength = metaFor(ilocFor(0)).length;
  const mdatData = ftyp.length + metaLength + 8;
  const meta = metaFor(ilocFor(mdatData));
  const mdat = box('mdat', ...stored.flatMap((l) => (l.data ? [l.data] : [])));
  return Buffer.concat([ftyp, meta, mdat]);
}

/** The tile grid of the primary item: tile ids in order, their shared hvcC property's index, the tile and grid size. */
export function gridOf(container: Buffer) {
  const s = survey(container);
  const tileProps = associations(container, s.ipma, s.tiles[0]) ?? [];
  const hvcCIndex = tileProps.find((i) => s.props[i - 1]?.type === 'hvcC')!;
  const ispe = tileProps.map((i) => s.props[i - 1]).find((p) => p?.type === 'ispe')!;
  const tile = { width: container.readUInt32BE(ispe.start + 4), height: container.readUInt32BE(ispe.start + 8) };
  const gridLoc = s.locations.find((l) => l.id === s.primary)!;
  let grid: Buffer;
  if (gridLoc.method === 1) {
    const idat = s.inMeta.find((b) => b.type === 'idat')!;
    const e = gridLoc.extents[0];
    grid = container.subarray(idat.start + gridLoc.base + e.offset, idat.start + gridLoc.base + e.offset + e.length);
  } else grid = itemData(container, gridLoc);
  const rows = grid[2] + 1;
  const columns = grid[3] + 1;
  const big = grid[1] & 1;
  const output = { width: big ? grid.readUInt32BE(4) : grid.readUInt16BE(4), height: big ? grid.readUInt32BE(8) : grid.readUInt16BE(6) };
  return { tiles: s.tiles, hvcCIndex, tile, rows, columns, output };
}

/** One picture coded by libheif's x265 (`heif-enc`): its hvcC box and its coded data. */
export function encodeWithLibheif(png: string, quality = 90, preset?: string): { hvcC: Buffer; data: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'heic-transplant-'));
  try {
    const out = join(dir, 'tile.heic');
    execFileSync('heif-enc', ['-q', String(quality), ...(preset ? ['-p', `preset=${preset}`] : []), '-o', out, png], { stdio: 'ignore' });
    const buf = readFileSync(out);
    const s = survey(buf);
    const hvcC = s.props.find((p) => p.type === 'hvcC')!;
    return { hvcC: whole(buf, hvcC), data: itemData(buf, s.locations.find((l) => l.id === s.primary)!) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The phone's file with `picture` in place of what it showed: the picture is fitted to the grid's output size, cut
 * into the phone's tiles, each coded by libheif's x265, and put in the phone's container. `tilesToCode` bounds the
 * work: beyond it the first tiles' codes are repeated (the capture check reads no pixels; a decoder sees a pattern);
 * `preset` is x265's (libheif's default when absent).
 */
export async function forgeIntoPhoneContainer(container: Buffer, picture: Buffer | string, tmp: string, tilesToCode = Infinity, preset?: string): Promise<Buffer> {
  const g = gridOf(container);
  const full = await sharp(picture).removeAlpha().resize(g.columns * g.tile.width, g.rows * g.tile.height, { fit: 'cover' }).png().toBuffer();
  const coded: { hvcC: Buffer; data: Buffer }[] = [];
  const data = new Map<number, Buffer>();
  for (const [i, id] of g.tiles.entries()) {
    if (coded.length < tilesToCode) {
      const png = join(tmp, `tile-${i}.png`);
      const left = (i % g.columns) * g.tile.width;
      const top = Math.floor(i / g.columns) * g.tile.height;
      await sharp(full).extract({ left, top, width: g.tile.width, height: g.tile.height }).png().toFile(png);
      coded.push(encodeWithLibheif(png, 90, preset));
    }
    data.set(id, coded[i % coded.length].data);
  }
  return transplant(container, data, g.hvcCIndex, coded[0].hvcC);
}
