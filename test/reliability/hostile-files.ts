// Hostile and broken files made in code for the reliability suite: a progressive JPEG with thousands of scans,
// a HEIC whose ispe boxes declare 65535x65535, polyglots, a PDF carrying the CVE-2024-4367 FontMatrix shape and
// an /OpenAction script, and truncations at seeded offsets.
import fs from 'node:fs';
import path from 'node:path';
import { buildPdf, makeJpeg, pdfWithJpeg } from '../unit/analysis/fixtures.js';
import { REPO } from './harness.js';

export const HEIC_FIXTURE = path.join(REPO, 'test', 'fixtures', 'analysis', 'gradient-64x48.heic');

/** Splits a JPEG into [segments before the first SOS, scans (SOS + entropy data each), the rest (EOI)]. */
function jpegScans(jpeg: Buffer): { head: Buffer; scans: Buffer[]; tail: Buffer } {
  let off = 2;
  while (off < jpeg.length && !(jpeg[off] === 0xff && jpeg[off + 1] === 0xda)) off += 2 + jpeg.readUInt16BE(off + 2);
  const head = jpeg.subarray(0, off);
  const scans: Buffer[] = [];
  while (off < jpeg.length && jpeg[off] === 0xff && jpeg[off + 1] === 0xda) {
    let end = off + 2 + jpeg.readUInt16BE(off + 2);
    // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a restart marker.
    while (end < jpeg.length - 1 && !(jpeg[end] === 0xff && jpeg[end + 1] !== 0x00 && !(jpeg[end + 1] >= 0xd0 && jpeg[end + 1] <= 0xd7))) end++;
    scans.push(jpeg.subarray(off, end));
    off = end;
    // Tables (DHT) between scans belong to the following scan.
    while (off < jpeg.length - 1 && jpeg[off] === 0xff && jpeg[off + 1] !== 0xda && jpeg[off + 1] !== 0xd9) {
      const len = jpeg.readUInt16BE(off + 2);
      scans.push(jpeg.subarray(off, off + 2 + len));
      off += 2 + len;
    }
  }
  return { head, scans, tail: jpeg.subarray(off) };
}

/** LJT-01-003 shape: a progressive JPEG whose first (DC) scan is repeated `copies` times. */
export async function progressiveScanBomb(copies = 4000): Promise<Buffer> {
  const prog = await makeJpeg(512, 512, (s) => s.jpeg({ progressive: true, quality: 90 }));
  const { head, scans, tail } = jpegScans(prog);
  const dc = scans[0];
  return Buffer.concat([head, ...Array.from({ length: copies }, () => dc), ...scans, tail]);
}

/** The HEIC fixture with every ispe (image spatial extents) box rewritten to declare width x height. */
export function heicDeclaring(width: number, height: number): Buffer {
  const buf = Buffer.from(fs.readFileSync(HEIC_FIXTURE));
  let n = 0;
  for (let i = buf.indexOf('ispe'); i >= 0; i = buf.indexOf('ispe', i + 4)) {
    buf.writeUInt32BE(width, i + 8);
    buf.writeUInt32BE(height, i + 12);
    n++;
  }
  if (!n) throw new Error('no ispe box in the HEIC fixture');
  return buf;
}

/** A minimal ZIP (one stored entry): appended to a JPEG it makes the classic JPEG+ZIP polyglot. */
export function tinyZip(): Buffer {
  const name = Buffer.from('payload.html');
  const data = Buffer.from('<script>alert(1)</script>');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(10, 4);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(10, 6);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(name.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + name.length, 12);
  end.writeUInt32LE(30 + name.length + data.length, 16);
  return Buffer.concat([local, name, data, central, name, end]);
}

/**
 * CVE-2024-4367 shape: a Type1 font whose FontMatrix smuggles script (it ran in pdf.js <= 4.1.392 when glyphs were
 * compiled with eval), plus an /OpenAction JavaScript action. Both would write `canary` if anything executed them.
 */
export function pdfWithJavaScript(canary: string): Buffer {
  const js = `require('fs').writeFileSync(${JSON.stringify(canary)}, 'pwned')`;
  const escaped = js.replace(/[()\\]/g, (c) => `\\${c}`);
  const content = Buffer.from('BT /F1 24 Tf 50 700 Td (Hello) Tj ET', 'latin1');
  const fontProgram = Buffer.from('%!PS-AdobeFont-1.0: Evil 001\n/FontMatrix [0.001 0 0 0.001 0 0] readonly def\n', 'latin1');
  return buildPdf([
    `<< /Type /Catalog /Pages 2 0 R /OpenAction 7 0 R /Names << /JavaScript << /Names [(x) 7 0 R] >> >> >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream', 'latin1')]),
    `<< /Type /Font /Subtype /Type1 /BaseFont /Evil /FirstChar 32 /LastChar 126 /FontMatrix [1 2 3 4 5 (1\\); ${escaped}; //)] /FontDescriptor 6 0 R >>`,
    Buffer.concat([
      Buffer.from(`<< /Type /FontDescriptor /FontName /Evil /Flags 4 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 1000 /Descent 0 /CapHeight 1000 /StemV 80 /FontFile 8 0 R >>`, 'latin1'),
    ]),
    `<< /Type /Action /S /JavaScript /JS (${escaped}) >>`,
    Buffer.concat([Buffer.from(`<< /Length1 ${fontProgram.length} /Length2 0 /Length3 0 /Length ${fontProgram.length} >>\nstream\n`, 'latin1'), fontProgram, Buffer.from('\nendstream', 'latin1')]),
  ]);
}

export async function photoPdf(): Promise<Buffer> {
  return pdfWithJpeg(await makeJpeg(320, 240), 320, 240);
}

/** `count` distinct offsets in [1, len-1], seeded, always including the first bytes and the last byte. */
export function cutOffsets(len: number, count: number, rnd: () => number): number[] {
  const set = new Set<number>([1, 3, 8, 16, 64, Math.floor(len / 2), len - 1].filter((n) => n > 0 && n < len));
  while (set.size < count) set.add(1 + Math.floor(rnd() * (len - 2)));
  return [...set].sort((a, b) => a - b);
}
