// Real files for the e2e suite, made in code: photos-like JPEG/PNG images drawn with sharp, and PDFs that embed a
// JPEG page image (so the PDF pipeline has something to analyse). Nothing from ../shared/datasets is copied.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

/** A deterministic pseudo-random image: smooth colour fields, edges and sensor-like noise. */
export async function makeImage(seed: number, format: 'jpeg' | 'png', width = 320, height = 240): Promise<Buffer> {
  let state = (seed * 2654435761) >>> 0 || 1;
  const rand = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) % 10_000) / 10_000;
  };
  const fx = 2 + rand() * 6;
  const fy = 2 + rand() * 6;
  const phase = rand() * Math.PI * 2;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const v = y / height;
      const base = Math.sin(u * fx + phase) * Math.cos(v * fy - phase);
      const i = (y * width + x) * 3;
      const noise = (rand() - 0.5) * 40;
      raw[i] = clamp(128 + 90 * base + noise + (u > 0.5 ? 30 : 0));
      raw[i + 1] = clamp(110 + 80 * Math.sin(v * 5 + phase) + noise);
      raw[i + 2] = clamp(100 + 100 * (u * v) + noise);
    }
  }
  const image = sharp(raw, { raw: { width, height, channels: 3 } });
  return format === 'jpeg' ? image.jpeg({ quality: 88 }).toBuffer() : image.png().toBuffer();
}

function clamp(v: number): number {
  return Math.max(0, Math.min(255, Math.round(v)));
}

/** A one-page PDF whose page is the given JPEG, drawn full size (DCTDecode image XObject). */
export function pdfWithJpeg(jpeg: Buffer, width: number, height: number, title = 'Veracity e2e'): Buffer {
  return onePagePdf({
    version: '1.4',
    page: { width, height },
    image: jpeg,
    imageDict: `/Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode`,
    content: `q ${width} 0 0 ${height} 0 0 cm /Im0 Do Q\nBT /F1 12 Tf 10 10 Td (${title}) Tj ET\n`,
  });
}

/**
 * A one-page PDF written object by object with its cross-reference table: a page of the given size whose content
 * stream paints the image XObject /Im0 (`imageDict` gives its size and filter) and may write with /F1, Helvetica,
 * a standard font that is not embedded.
 */
function onePagePdf(o: { version: string; page: { width: number; height: number }; image: Buffer; imageDict: string; content: string }): Buffer {
  const content = Buffer.from(o.content, 'latin1');
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${o.page.width} ${o.page.height}] /Resources << /XObject << /Im0 4 0 R >> /Font << /F1 6 0 R >> >> /Contents 5 0 R >>`),
    Buffer.concat([Buffer.from(`<< /Type /XObject /Subtype /Image ${o.imageDict} /Length ${o.image.length} >>\nstream\n`), o.image, Buffer.from('\nendstream')]),
    Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`), content, Buffer.from('endstream')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  const parts: Buffer[] = [Buffer.from(`%PDF-${o.version}\n%\xe2\xe3\xcf\xd3\n`, 'latin1')];
  const offsets: number[] = [];
  let length = parts[0].length;
  objects.forEach((body, i) => {
    offsets.push(length);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

export async function makePdf(seed: number): Promise<Buffer> {
  const jpeg = await makeImage(seed, 'jpeg', 400, 300);
  return pdfWithJpeg(jpeg, 400, 300, `Document ${seed}`);
}

/** Writes files into `dir` and returns their paths. */
export async function writeFiles(dir: string, files: { name: string; data: Buffer | Promise<Buffer> }[]): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const paths: string[] = [];
  for (const file of files) {
    const target = path.join(dir, file.name);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, await file.data);
    paths.push(target);
  }
  return paths;
}

/** A PNG with a tEXt chunk before IEND (e.g. `parameters`, which Stable Diffusion WebUI writes: AI provenance). */
export function pngWithText(png: Buffer, key: string, text: string): Buffer {
  const data = Buffer.concat([Buffer.from(key, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  const iend = png.length - 12; // IEND is the last chunk, 12 bytes
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A one-page PDF with a JPEG 2000 picture (/JPXDecode: the colour space comes from the JP2 itself) drawn at
 * (x, y) with the given size in points, and a line of Helvetica, a standard font that is not embedded.
 * The JP2 is test/fixtures/e2e/photo-192x144.jp2 (see the README beside it: no JPEG 2000 encoder is installed).
 */
export function pdfWithJpx(jp2: Buffer, pixels: { width: number; height: number }, place: { x: number; y: number; width: number; height: number }, page = { width: 400, height: 300 }): Buffer {
  return onePagePdf({
    version: '1.5',
    page,
    image: jp2,
    imageDict: `/Width ${pixels.width} /Height ${pixels.height} /Filter /JPXDecode`,
    content: `q ${place.width} 0 0 ${place.height} ${place.x} ${place.y} cm /Im0 Do Q\nBT /F1 14 Tf 20 20 Td (JPEG 2000 exhibit) Tj ET\n`,
  });
}
