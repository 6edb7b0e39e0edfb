// Builds the analysis tests' files in code (images, generator chunks, XMP, C2PA stores, PDFs, bombs, truncations)
// so the core checks never depend on ../shared/datasets.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';
import sharp, { type Sharp } from 'sharp';

export const REPO = resolve(import.meta.dirname, '..', '..', '..');
export const DATASETS = resolve(REPO, '..', 'shared', 'datasets');
export const HAS_DATASETS = existsSync(join(DATASETS, 'pdfs', 'MANIFEST.tsv'));
export const MODELS_DIR = join(REPO, 'models');
export const HAS_MODEL = existsSync(join(MODELS_DIR, 'veracity-detector', 'manifest.json'));

export function tempDir(): { dir: string; write: (name: string, data: Buffer | string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'veracity-analysis-'));
  return {
    dir,
    write: (name, data) => {
      const p = join(dir, name);
      writeFileSync(p, data);
      return p;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A photo-like test image: smooth gradients plus sensor-like noise, deterministic. */
export async function photoRgb(width: number, height: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5) * 24;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = clamp(128 + 80 * Math.sin(x / 37) + rnd());
      data[i + 1] = clamp(100 + 60 * Math.cos(y / 23) + rnd());
      data[i + 2] = clamp(((x + y) / (width + height)) * 255 + rnd());
    }
  }
  return data;
}
const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

/**
 * A one-page PDF holding a photo, as a scanner or an insurer's form would: made with pdfkit. `options` reach pdfkit
 * as they are: `ownerPassword` alone encrypts it with an empty user password (permissions only), `userPassword` with
 * one that must be typed to open it.
 */
export async function photoPdf(options: PDFKit.PDFDocumentOptions = {}): Promise<Buffer> {
  const jpeg = await sharp(await photoRgb(480, 360), { raw: { width: 480, height: 360, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
  const doc = new PDFDocument({ size: 'A4', ...options });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolvePdf) => doc.on('end', () => resolvePdf(Buffer.concat(chunks))));
  doc.fontSize(16).text('Repair estimate, claim CLM-2041', 72, 72);
  doc.image(jpeg, 72, 110, { width: 400 });
  doc.end();
  return done;
}

export async function makeJpeg(width: number, height: number, edit?: (s: Sharp) => Sharp): Promise<Buffer> {
  let s = sharp(await photoRgb(width, height), { raw: { width, height, channels: 3 } });
  if (edit) s = edit(s);
  return s.jpeg({ quality: 90 }).toBuffer();
}

export async function makePng(width: number, height: number): Promise<Buffer> {
  return sharp(await photoRgb(width, height), { raw: { width, height, channels: 3 } }).png().toBuffer();
}

// ---------------------------------------------------------------- PNG chunks

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export const tEXt = (key: string, text: string) => pngChunk('tEXt', Buffer.concat([Buffer.from(key, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]));
export const zTXt = (key: string, raw: Buffer) =>
  pngChunk('zTXt', Buffer.concat([Buffer.from(key, 'latin1'), Buffer.from([0, 0]), deflateSync(raw)]));
export const iTXt = (key: string, text: string) =>
  pngChunk('iTXt', Buffer.concat([Buffer.from(key, 'latin1'), Buffer.from([0, 0, 0, 0, 0]), Buffer.from(text, 'utf8')]));

/** Inserts chunks right after IHDR (offset 33). */
export function withPngChunks(png: Buffer, chunks: Buffer[]): Buffer {
  return Buffer.concat([png.subarray(0, 33), ...chunks, png.subarray(33)]);
}

/** A PNG declaring width x height with a tiny, valid-looking IDAT: refused from the header. */
export function pngBomb(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([sig, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(Buffer.alloc(64 * 1024))), pngChunk('IEND', Buffer.alloc(0))]);
}

// ---------------------------------------------------------------- JPEG segments

export function jpegSegment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head[0] = 0xff;
  head[1] = marker;
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** Inserts segments right after SOI. */
export function withJpegSegments(jpeg: Buffer, segments: Buffer[]): Buffer {
  return Buffer.concat([jpeg.subarray(0, 2), ...segments, jpeg.subarray(2)]);
}

/** Rewrites the frame size in a real JPEG's SOF: a file declaring a huge image with little data. */
export function jpegWithDeclaredSize(jpeg: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(jpeg);
  let off = 2;
  while (off < out.length) {
    const marker = out[off + 1];
    const len = out.readUInt16BE(off + 2);
    if (marker >= 0xc0 && marker <= 0xc2) {
      out.writeUInt16BE(height, off + 5);
      out.writeUInt16BE(width, off + 7);
      return out;
    }
    off += 2 + len;
  }
  throw new Error('no SOF');
}

export function xmpPacket(inner: string): string {
  return (
    '<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' +
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    `<rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" ${inner}/>` +
    '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
  );
}

export const jpegXmpSegment = (xmp: string) =>
  jpegSegment(0xe1, Buffer.concat([Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1'), Buffer.from(xmp, 'utf8')]));

// ---------------------------------------------------------------- C2PA (signed fixtures: test/support/c2pa-signing.ts)

/** JPEG APP11 segment(s) carrying a JUMBF box (JPEG XT: CI 'JP', En, Z, then the box). */
export function jpegApp11(jumbf: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write('JP', 0, 'latin1');
  head.writeUInt16BE(1, 2);
  head.writeUInt32BE(1, 4);
  return jpegSegment(0xeb, Buffer.concat([head, jumbf]));
}

// ---------------------------------------------------------------- PDFs

/** Writes a PDF from numbered object bodies with a correct classic xref table. */
export function buildPdf(objects: Array<string | Buffer>, trailerExtra = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let off = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(off);
    const b = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n')]);
    parts.push(b);
    off += b.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra}>>\nstartxref\n${off}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** Appends an incremental update replacing/adding objects, chained to the previous xref by /Prev. */
export function appendUpdate(pdf: Buffer, updates: Record<number, string>, size: number, trailerExtra = ''): Buffer {
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(pdf.toString('latin1'))![1]);
  const parts: Buffer[] = [pdf];
  let off = pdf.length;
  const entries: string[] = [];
  for (const [num, body] of Object.entries(updates)) {
    const b = Buffer.from(`${num} 0 obj\n${body}\nendobj\n`, 'latin1');
    entries.push(`${num} 1\n${String(off).padStart(10, '0')} 00000 n \n`);
    parts.push(b);
    off += b.length;
  }
  parts.push(Buffer.from(`xref\n${entries.join('')}trailer\n<< /Size ${size} /Root 1 0 R /Prev ${prev} ${trailerExtra}>>\nstartxref\n${off}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

export const pdfStream = (dict: string, data: Buffer) => Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);

/** A one-page PDF whose page is a JPEG photo (DCTDecode image XObject) drawn over the page, plus a line of text. */
export function pdfWithJpeg(jpeg: Buffer, width: number, height: number, info = '/Producer (Veracity test) /Creator (fixtures.ts)'): Buffer {
  const content = Buffer.from(`q 500 0 0 ${Math.round((500 * height) / width)} 50 200 cm /Im1 Do Q BT /F1 12 Tf 50 100 Td (A photo) Tj ET`, 'latin1');
  return buildPdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /XObject << /Im1 4 0 R >> /Font << /F1 6 0 R >> >> /Contents 5 0 R >>',
      pdfStream(`/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode`, jpeg),
      pdfStream('', content),
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      `<< ${info} /CreationDate (D:20240101120000Z) /ModDate (D:20240101120000Z) >>`,
    ],
    '/Info 7 0 R',
  );
}

/** A picture for pdfWithPictures: a JPEG stream passed through (DCTDecode), or 8-bit RGB pixels deflated (FlateDecode). */
export type PdfPicture = { width: number; height: number } & ({ jpeg: Buffer; deflated?: boolean } | { rgb: Buffer });

/**
 * A PDF of one page per entry of `pages`, each page drawing its pictures one under the other (as a report or a claim
 * form lays out photos) above a line of text: JPEGs passed through as DCTDecode streams (what most producers do with a
 * JPEG), raw pixels as FlateDecode (what they do with a PNG).
 */
export function pdfWithPictures(pages: PdfPicture[][], info = '/Producer (Veracity test) /Creator (fixtures.ts)'): Buffer {
  const objects: Array<string | Buffer> = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>', `<< ${info} >>`];
  const kids: string[] = [];
  for (const pictures of pages) {
    const names: string[] = [];
    const draw: string[] = [];
    const slot = 700 / Math.max(1, pictures.length);
    pictures.forEach((p, i) => {
      // a JPEG stream compressed once more (`deflated`): /Filter [/FlateDecode /DCTDecode], as some producers write it
      const data = 'jpeg' in p ? (p.deflated ? deflateSync(p.jpeg) : p.jpeg) : deflateSync(p.rgb);
      const filter = 'jpeg' in p ? (p.deflated ? '[/FlateDecode /DCTDecode]' : '/DCTDecode') : '/FlateDecode';
      objects.push(pdfStream(`/Type /XObject /Subtype /Image /Width ${p.width} /Height ${p.height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter ${filter}`, data));
      names.push(`/Im${i + 1} ${objects.length} 0 R`);
      const scale = Math.min(500 / p.width, (slot - 10) / p.height);
      draw.push(`q ${(p.width * scale).toFixed(2)} 0 0 ${(p.height * scale).toFixed(2)} 50 ${(760 - (i + 1) * slot).toFixed(2)} cm /Im${i + 1} Do Q`);
    });
    objects.push(pdfStream('', Buffer.from(`${draw.join(' ')} BT /F1 12 Tf 50 30 Td (Photos) Tj ET`, 'latin1')));
    const contents = objects.length;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /XObject << ${names.join(' ')} >> /Font << /F1 3 0 R >> >> /Contents ${contents} 0 R >>`);
    kids.push(`${objects.length} 0 R`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`;
  return buildPdf(objects, '/Info 4 0 R');
}

/** A text-only one-page PDF. */
export function textPdf(extraCatalog = '', extraObjects: string[] = []): Buffer {
  return buildPdf([
    `<< /Type /Catalog /Pages 2 0 R ${extraCatalog} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    pdfStream('', Buffer.from('BT /F1 12 Tf 50 700 Td (Hello) Tj ET', 'latin1')),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...extraObjects,
  ]);
}

/** The PNG with its IDAT's zlib stream garbled and every checksum recomputed: headers whole, pixels undecodable. */
export function pngWithCorruptIdat(png: Buffer): Buffer {
  const idat = png.indexOf('IDAT');
  const len = png.readUInt32BE(idat - 4);
  const data = Buffer.from(png.subarray(idat + 4, idat + 4 + len));
  for (let i = 10; i < Math.min(40, data.length); i++) data[i] ^= 0x5a;
  return Buffer.concat([png.subarray(0, idat - 4), pngChunk('IDAT', data), png.subarray(idat + 8 + len)]);
}
