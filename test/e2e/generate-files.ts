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
  const content = Buffer.from(`q ${width} 0 0 ${height} 0 0 cm /Im0 Do Q\nBT /F1 12 Tf 10 10 Td (${title}) Tj ET\n`, 'latin1');
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /XObject << /Im0 4 0 R >> /Font << /F1 6 0 R >> >> /Contents 5 0 R >>`),
    Buffer.concat([
      Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n`),
      jpeg,
      Buffer.from('\nendstream'),
    ]),
    Buffer.concat([Buffer.from(`<< /Length ${content.length} >>\nstream\n`), content, Buffer.from('endstream')]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
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
