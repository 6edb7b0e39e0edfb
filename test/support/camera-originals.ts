// Camera and phone originals in every EXIF orientation, for the tests that prove the capture check never calls an
// unedited original manipulated (issue 22). A camera never turns its pixels: it stores the picture and its EXIF
// thumbnail in the sensor's orientation and writes one Orientation tag (1-8) that says how to show both, so an
// original in orientation N is the same bytes with that one tag changed, which exiftool does here. Two sources:
// real originals of several makers (test/fixtures/capture, CC0) and pictures this module makes, with a thumbnail of
// the stored pixels written in by exiftool as a camera writes it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';

export const CAPTURE_FIXTURES = resolve(import.meta.dirname, '..', 'fixtures', 'capture');

/** The eight EXIF orientations; 5-8 show the stored picture turned a quarter (width and height swap on screen). */
export const ORIENTATIONS = [1, 2, 3, 4, 5, 6, 7, 8] as const;
export const swapsSides = (o: number) => o >= 5;

/** Unedited originals in the fixtures (see its README), with their maker and what the capture check makes of them. */
export const REAL_ORIGINALS: { file: string; maker: string; mediaType: 'image/jpeg' | 'image/heic' }[] = [
  { file: 'canon-powershot-s50-640x480.jpg', maker: 'Canon', mediaType: 'image/jpeg' },
  { file: 'canon-eos-5d-mark-iii-720x480-orientation-6.jpg', maker: 'Canon', mediaType: 'image/jpeg' },
  { file: 'canon-powershot-sx150-is-640x480-orientation-6.jpg', maker: 'Canon', mediaType: 'image/jpeg' },
  { file: 'hp-photosmart-433-640x480.jpg', maker: 'HP', mediaType: 'image/jpeg' },
  { file: 'kodak-dc280-896x592.jpg', maker: 'Kodak', mediaType: 'image/jpeg' },
  { file: 'nikon-coolpix-s3100-640x480.jpg', maker: 'Nikon', mediaType: 'image/jpeg' },
  { file: 'sony-fd200-640x480.jpg', maker: 'Sony', mediaType: 'image/jpeg' },
  { file: 'epson-photopc-3100z-640x480.jpg', maker: 'Epson', mediaType: 'image/jpeg' },
  { file: 'google-pixel-5-4032x3024-orientation-6.jpg', maker: 'Google', mediaType: 'image/jpeg' },
  { file: 'samsung-galaxy-z-fold6-4000x3000.jpg', maker: 'Samsung', mediaType: 'image/jpeg' },
  { file: 'apple-iphone-13-pro-orientation-6.heic', maker: 'Apple', mediaType: 'image/heic' },
];

export const readFixture = (file: string): Buffer => readFileSync(join(CAPTURE_FIXTURES, file));

/** exiftool with the options every call here takes; given as -common_args, so they also apply to each command of an
 * `-@ argfile` holding several commands separated by -execute. */
export function exiftool(...args: string[]): void {
  execFileSync('exiftool', [...args, '-common_args', '-q', '-q', '-m', '-overwrite_original'], { stdio: 'ignore' });
}

/** A scratch folder for exiftool's files; call cleanup() when done. */
export function scratch(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'veracity-originals-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The original with its Orientation tag set to `o` and nothing else changed (exiftool -n -Orientation=o). For HEIC,
 * a phone also stores the turn as the primary item's `irot` box, which decoders follow: the quarter turns (1, 3, 6,
 * 8) are written there too (exiftool -Rotation), so the picture is shown turned as a phone shows it.
 * The first call for an original writes all eight orientations in one exiftool process (its -execute argfile: one
 * Perl start instead of eight, about 0.4 s each on CI's machine) and keeps them; later calls are copies of those.
 */
export function withOrientation(original: Buffer, o: number, dir: string, ext: 'jpg' | 'heic' = 'jpg'): Buffer {
  const key = `${createHash('sha1').update(original).digest('hex')}.${ext}`;
  let all = orientedCopies.get(key);
  if (!all) {
    const irot: Record<number, number> = { 1: 0, 3: 180, 6: 90, 8: 270 };
    const stem = join(dir, `o-${Math.random().toString(36).slice(2)}`);
    const lines: string[] = [];
    for (const x of ORIENTATIONS) {
      writeFileSync(`${stem}-${x}.${ext}`, original);
      lines.push('-n', `-EXIF:Orientation=${x}`);
      if (ext === 'heic' && irot[x] !== undefined) lines.push(`-Rotation=${irot[x]}`);
      lines.push(`${stem}-${x}.${ext}`, '-execute');
    }
    writeFileSync(`${stem}.args`, lines.join('\n') + '\n');
    exiftool('-@', `${stem}.args`);
    all = new Map(ORIENTATIONS.map((x) => [x, readFileSync(`${stem}-${x}.${ext}`)] as [number, Buffer]));
    for (const x of ORIENTATIONS) rmSync(`${stem}-${x}.${ext}`);
    rmSync(`${stem}.args`);
    orientedCopies.set(key, all);
  }
  const out = all.get(o);
  if (!out) throw new Error(`no EXIF orientation ${o}`);
  return Buffer.from(out);
}
const orientedCopies = new Map<string, Map<number, Buffer>>();

/** The picture an original in orientation `o` shows, as sharp's rotate() turns it. Sizes as stored -> as shown. */
export const shownSize = (w: number, h: number, o: number) => (swapsSides(o) ? { width: h, height: w } : { width: w, height: h });

/** Makers and models this module writes into the pictures it makes (cameras and phones). */
export const MADE_MAKERS: { make: string; model: string }[] = [
  { make: 'Apple', model: 'iPhone 14 Pro' },
  { make: 'samsung', model: 'SM-S911B' },
  { make: 'Google', model: 'Pixel 7' },
  { make: 'Canon', model: 'Canon EOS R6' },
  { make: 'NIKON CORPORATION', model: 'NIKON Z 6' },
  { make: 'SONY', model: 'ILCE-7M3' },
];

/**
 * A picture with a camera's tags and an EXIF thumbnail of its stored pixels, both stored in the sensor's orientation
 * (landscape), shown in orientation `o`: what a phone held upright writes for o = 6. Its compression is libjpeg's (a
 * program wrote the pixels), so the capture check may call it re-saved, never manipulated. `thumbnail` overrides the
 * thumbnail: `other` is a thumbnail of another picture, `cropped` one of the left half, `shown` one of the picture as
 * displayed (a program that writes the thumbnail turned), `letterboxed` a 160x120 one with black bars (Nikon, Canon), `squeezed` a 160x120 one of the whole picture squeezed.
 */
export async function madeOriginal(
  dir: string,
  opts: {
    make: string;
    model: string;
    orientation: number;
    width?: number;
    height?: number;
    thumbnail?: 'stored' | 'other' | 'cropped' | 'shown' | 'letterboxed' | 'squeezed';
    /** The picture's own top and bottom edges nearly black (a night sky, a dark floor): trimming bars cannot find them. */
    darkEdges?: boolean;
  },
): Promise<Buffer> {
  // A camera writes the same bytes in every orientation but for the one tag, so the picture is made once (in
  // orientation 1) and turned by withOrientation; a thumbnail written as shown differs by orientation and is made anew.
  if (opts.thumbnail !== 'shown') {
    const key = JSON.stringify({ ...opts, orientation: 0 });
    let upright = madeUpright.get(key);
    if (!upright) madeUpright.set(key, (upright = await makeOriginal(dir, { ...opts, orientation: 1 })));
    return withOrientation(upright, opts.orientation, dir);
  }
  return makeOriginal(dir, opts);
}
const madeUpright = new Map<string, Buffer>();

async function makeOriginal(dir: string, opts: Parameters<typeof madeOriginal>[1]): Promise<Buffer> {
  const width = opts.width ?? 1024;
  const height = opts.height ?? 768;
  const pixels = await scene(width, height, 1);
  if (opts.darkEdges) {
    const band = Math.round(height * 0.08);
    for (let y = 0; y < height; y++) if (y < band || y >= height - band) pixels.fill(10, y * width * 3, (y + 1) * width * 3);
  }
  const photo = await sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
  let thumbSource = sharp(pixels, { raw: { width, height, channels: 3 } });
  if (opts.thumbnail === 'other') thumbSource = sharp(await scene(width, height, 2), { raw: { width, height, channels: 3 } });
  if (opts.thumbnail === 'cropped') thumbSource = thumbSource.extract({ left: 0, top: 0, width: Math.round(width / 2), height });
  if (opts.thumbnail === 'shown') thumbSource = sharp(await sharp(pixels, { raw: { width, height, channels: 3 } }).withMetadata({ orientation: opts.orientation }).jpeg().toBuffer()).rotate();
  // Cameras write a fixed 160x120 thumbnail; a picture of another shape is letterboxed into it with black bars.
  const thumb =
    opts.thumbnail === 'letterboxed'
      ? await thumbSource.resize(160, 120, { fit: 'contain', background: '#000000' }).jpeg({ quality: 80 }).toBuffer()
      : opts.thumbnail === 'squeezed'
        ? await thumbSource.resize(160, 120, { fit: 'fill' }).jpeg({ quality: 80 }).toBuffer()
        : await thumbSource.resize(160, 160, { fit: 'inside' }).jpeg({ quality: 80 }).toBuffer();
  const id = Math.random().toString(36).slice(2);
  const photoPath = join(dir, `made-${id}.jpg`);
  const thumbPath = join(dir, `thumb-${id}.jpg`);
  writeFileSync(photoPath, photo);
  writeFileSync(thumbPath, thumb);
  exiftool(
    `-Make=${opts.make}`,
    `-Model=${opts.model}`,
    '-n',
    `-Orientation=${opts.orientation}`,
    `-ExifImageWidth=${width}`,
    `-ExifImageHeight=${height}`,
    '-DateTimeOriginal=2026:11:20 10:15:30',
    '-CreateDate=2026:11:20 10:15:30',
    '-ModifyDate=2026:11:20 10:15:30',
    `-ThumbnailImage<=${thumbPath}`,
    photoPath,
  );
  const out = readFileSync(photoPath);
  rmSync(photoPath);
  rmSync(thumbPath);
  return out;
}

/**
 * A deterministic photo-like scene with nothing symmetric about it (a bright disc off centre, a dark bar near one
 * edge, gradients and noise), so that the picture and its turned or mirrored versions are told apart. `variant` 2 is
 * another scene.
 */
async function scene(width: number, height: number, variant: 1 | 2): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  let seed = variant === 1 ? 777 : 4242;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5) * 20;
  const [cx, cy, r] = variant === 1 ? [0.28 * width, 0.3 * height, 0.16 * height] : [0.7 * width, 0.72 * height, 0.22 * height];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const inDisc = (x - cx) ** 2 + (y - cy) ** 2 < r * r;
      const bar = variant === 1 ? x > 0.82 * width && y > 0.55 * height : y < 0.12 * height;
      const base = variant === 1 ? (x / width) * 140 + (y / height) * 60 : 200 - (y / height) * 150 + 30 * Math.sin(x / 41);
      const v = inDisc ? 235 : bar ? 25 : base;
      data[i] = clamp(v + rnd());
      data[i + 1] = clamp(v * 0.9 + 10 + rnd());
      data[i + 2] = clamp(v * 0.8 + 20 + rnd());
    }
  }
  return data;
}
const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
