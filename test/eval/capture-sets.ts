// The sets issue #11's figures are measured on, built once for both evaluations (capture-forgery.ts: capture status;
// capture-verdicts.ts: verdicts of the real pipeline): camera and phone originals from the mirrors split into a
// catalogue half and a held-out half, crops/resizes/re-saves of held-out originals with their EXIF kept, and AI
// images from ../shared/datasets/modern/ai carrying a real photo's copied tags.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { createCaptureReader, readCapture, type Catalogue, type CaptureInput, type CaptureReport } from '../../src/analysis/capture/index.js';
import { readJpegStructure } from '../../src/analysis/capture/jpeg-structure.js';
import { standardIjg, usedTables } from '../../src/analysis/capture/quant-tables.js';
import { readHeifHeader } from '../../src/analysis/image-headers.js';
import { SNIFF_BYTES, sniff } from '../../src/api/media-kinds.js';
import { analyseFile, type FileAnalysis } from '../../src/analysis/index.js';
import { buildCatalogue, isOriginal, readBlob, splitHalves, walkCorpora, type CorpusFile } from '../tools/build-quant-tables.js';
import { forgeIntoPhoneContainer, gridOf } from '../support/heic-transplant.js';

export const REPO = resolve(import.meta.dirname, '..', '..');
export const DATASETS = resolve(REPO, '..', 'shared', 'datasets');
// awesome-gpt4o-images is a forbidden source for this project: its folder is never read.
export const FORBIDDEN_AI_DIRS = new Set(['gptimage_cases']);

/** The pixel checks that take a reading out of the score's hands, whatever the model. */
export const PIXEL_CHECKS = ['pixels.thermal', 'pixels.line_art', 'pixels.document', 'pixels.not_photographic'];
/** The pixel checks among a result's findings, named without their `pixels.` prefix. */
export const pixelChecksOf = (findings: ReadonlyArray<{ code: string }>) => findings.filter((x) => PIXEL_CHECKS.includes(x.code)).map((x) => x.code.slice('pixels.'.length));

export type ImageMedia = 'image/png' | 'image/jpeg' | 'image/heic' | 'image/heif';
/** The file's kind from its first bytes, as the product decides it (never from the name: some sources' JPEGs are
 *  named .png); null for what the product does not analyse as an image here (e.g. WebP), which is then left out. */
export function imageMediaOf(bytes: Buffer): ImageMedia | null {
  const m = sniff(bytes.subarray(0, SNIFF_BYTES))?.mediaType;
  return m === 'image/png' || m === 'image/jpeg' || m === 'image/heic' || m === 'image/heif' ? m : null;
}

/** analyseFile's result for one file, or the code of the error it refuses the file with (a result too: the API answers
 *  such a file with that error). */
export async function analyseOrError(path: string, media: ImageMedia, modelsDir: string): Promise<{ result: FileAnalysis } | { error: string; message: string }> {
  try {
    return { result: await analyseFile(path, media, { modelsDir }) };
  } catch (e) {
    return { error: (e as { code?: string }).code ?? 'error', message: (e as Error).message };
  }
}

export interface LabelledFile {
  label: 'ai' | 'real';
  source: string;
  path: string;
}
/** The pictures of a folder laid out as <ai|real>/<source>/<files> (modern/'s layout), sources matching `sources`,
 *  AI sources in `skipAi` left out; a class folder may be missing. */
export function labelledFiles(root: string, sources: RegExp = /./, skipAi: ReadonlySet<string> = new Set()): LabelledFile[] {
  const out: LabelledFile[] = [];
  for (const label of ['ai', 'real'] as const) {
    if (!existsSync(join(root, label))) continue;
    for (const source of readdirSync(join(root, label)).sort()) {
      if (!sources.test(source) || (label === 'ai' && skipAi.has(source))) continue;
      for (const f of readdirSync(join(root, label, source)).sort()) {
        if (/\.(png|jpe?g|heic|heif)$/i.test(f)) out.push({ label, source, path: join(root, label, source, f) });
      }
    }
  }
  return out;
}

export type Reader = (i: CaptureInput) => Promise<CaptureReport>;

export const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};

export async function inputOf(buf: Buffer, mediaType: CaptureInput['mediaType']): Promise<CaptureInput> {
  if (mediaType === 'image/heic') {
    const h = readHeifHeader(buf);
    return { buf, mediaType, width: h.width, height: h.height };
  }
  const m = await sharp(buf, { failOn: 'none' }).metadata();
  return { buf, mediaType, width: m.width ?? 0, height: m.height ?? 0 };
}

export function exiftool(args: string[]) {
  execFileSync('exiftool', ['-q', '-q', '-m', '-overwrite_original', ...args], { stdio: 'ignore' });
}

export interface Corpus {
  all: CorpusFile[];
  halves: Map<string, 'build' | 'holdout'>;
  halfCatalogue: Catalogue;
  /** readCapture bound to the catalogue built from the other half. */
  readHalf: Reader;
  bufOf: (f: CorpusFile) => Buffer;
  typeOf: (f: CorpusFile) => CaptureInput['mediaType'];
  heldOut: (f: CorpusFile) => boolean;
}

export async function loadCorpus(mirrors: string): Promise<Corpus> {
  const all: CorpusFile[] = [];
  for await (const f of walkCorpora(mirrors)) if (isOriginal(f)) all.push(f);
  const halves = splitHalves(all);
  const halfCatalogue = buildCatalogue(all.filter((f) => halves.get(f.blob) === 'build'), 'build half') as unknown as Catalogue;
  return {
    all,
    halves,
    halfCatalogue,
    readHalf: createCaptureReader(halfCatalogue),
    bufOf: (f) => readBlob(mirrors, f.repo, f.blob),
    typeOf: (f) => (f.survey.kind === 'heic' ? 'image/heic' : 'image/jpeg'),
    heldOut: (f) => halves.get(f.blob) === 'holdout',
  };
}

export type EditKind = 'crop' | 'resize' | 'resave' | 'resaveSameQuality';
export const EDIT_KINDS: EditKind[] = ['crop', 'resize', 'resave', 'resaveSameQuality'];

/**
 * Edits of one original, EXIF kept. crop/resize/resave: sharp at quality 92 with keepMetadata (which rewrites the
 * EXIF size). resaveSameQuality, the hardest case for a table check: decoded and re-encoded at the original's own
 * IJG quality (libjpeg's table estimate for other tables), with its chroma subsampling, standard Huffman tables, no
 * JFIF segment, then every tag copied back with exiftool (maker note and the camera's own thumbnail included).
 */
export async function editsOf(buf: Buffer, w: number, h: number, tmp: string): Promise<[EditKind, Buffer][]> {
  const out: [EditKind, Buffer][] = [
    ['crop', await sharp(buf).extract({ left: Math.floor(w / 4), top: Math.floor(h / 4), width: Math.floor(w / 2), height: Math.floor(h / 2) }).keepMetadata().jpeg({ quality: 92 }).toBuffer()],
    ['resize', await sharp(buf).resize(Math.round(w / 2)).keepMetadata().jpeg({ quality: 92 }).toBuffer()],
    ['resave', await sharp(buf).keepMetadata().jpeg({ quality: 92 }).toBuffer()],
  ];
  const s = readJpegStructure(buf);
  const tables = usedTables(s);
  const quality = (tables.length && standardIjg(tables)?.quality) || estimateIjgQuality(tables[0] ?? []);
  const c = s.frame?.components ?? [];
  const subsampled = c.length === 3 && c[0].sampling !== c[1].sampling;
  const orig = join(tmp, 'edit-orig.jpg');
  const p = join(tmp, 'edit-same.jpg');
  writeFileSync(orig, buf);
  writeFileSync(p, await sharp(buf).jpeg({ quality, chromaSubsampling: subsampled ? '4:2:0' : '4:4:4', optimiseCoding: false }).toBuffer());
  exiftool(['-all=', p]);
  exiftool(['-TagsFromFile', orig, '-all:all', '-ThumbnailImage', p]);
  exiftool(['-JFIF:all=', p]);
  out.push(['resaveSameQuality', readFileSync(p)]);
  return out;
}

/** libjpeg's quality whose luma table is closest (sum of absolute differences) to this one. */
export function estimateIjgQuality(luma: number[]): number {
  if (luma.length !== 64) return 90;
  const base = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99];
  let best = 90;
  let bestD = Infinity;
  for (let q = 1; q <= 100; q++) {
    const scale = q < 50 ? Math.floor(5000 / q) : 200 - q * 2;
    let d = 0;
    for (let i = 0; i < 64; i++) d += Math.abs(Math.max(1, Math.min(255, Math.floor((base[i] * scale + 50) / 100))) - luma[i]);
    if (d < bestD) [best, bestD] = [q, d];
  }
  return best;
}

export function aiImages(): { dir: string; files: string[] } {
  const aiDir = join(DATASETS, 'modern', 'ai');
  const files: string[] = [];
  for (const d of readdirSync(aiDir).sort()) {
    if (FORBIDDEN_AI_DIRS.has(d)) continue;
    for (const f of readdirSync(join(aiDir, d)).sort()) if (/\.(png|jpe?g)$/i.test(f)) files.push(join(aiDir, d, f));
  }
  return { dir: aiDir, files };
}

/** Donors: the exif_samples photos with a Make, then camera and phone originals round-robin over makers. */
export async function donorsOf(corpus: Corpus): Promise<{ name: string; buf: Buffer }[]> {
  const exifSamplesDir = join(DATASETS, 'train', 'real', 'exif_samples');
  const donors: { name: string; buf: Buffer }[] = [];
  for (const f of readdirSync(exifSamplesDir).sort()) {
    if (!/\.jpe?g$/i.test(f)) continue;
    const buf = readFileSync(join(exifSamplesDir, f));
    const r = await readCapture(await inputOf(buf, 'image/jpeg'));
    if (r.claimed?.make) donors.push({ name: `exif_samples/${f}`, buf });
  }
  const byMaker = new Map<string, CorpusFile[]>();
  for (const f of corpus.all.filter((x) => x.survey.kind === 'jpeg')) byMaker.set(f.survey.make!, [...(byMaker.get(f.survey.make!) ?? []), f]);
  for (let i = 0; donors.length < 52 + 60 && i < 20; i++) {
    for (const [, list] of [...byMaker].sort()) if (list[i]) donors.push({ name: `${list[i].repo}:${list[i].path}`, buf: corpus.bufOf(list[i]) });
  }
  return donors;
}

export type ForgedVariant = 'ownSizeWithThumb' | 'ownSizeNoThumb' | 'donorSizeWithThumb' | 'donorSizeNoThumb' | 'heic';
export const FORGED_VARIANTS: ForgedVariant[] = ['ownSizeWithThumb', 'ownSizeNoThumb', 'donorSizeWithThumb', 'donorSizeNoThumb', 'heic'];

/** The four JPEG forgeries of one AI image: at its own size and resized to the donor's, with and without the donor's thumbnail. */
export async function forgeJpeg(ai: string, donor: Buffer, tmp: string): Promise<[ForgedVariant, Buffer][]> {
  const donorPath = join(tmp, 'donor.jpg');
  writeFileSync(donorPath, donor);
  const dm = await sharp(donor, { failOn: 'none' }).metadata();
  const own = await sharp(ai).removeAlpha().jpeg({ quality: 90 }).toBuffer();
  const sized = await sharp(ai).removeAlpha().resize(dm.width, dm.height, { fit: 'cover' }).jpeg({ quality: 90 }).toBuffer();
  const out: [ForgedVariant, Buffer][] = [];
  for (const [kind, body] of [['ownSize', own], ['donorSize', sized]] as const) {
    const p = join(tmp, `f-${kind}.jpg`);
    writeFileSync(p, body);
    exiftool(['-TagsFromFile', donorPath, '-all:all', p]);
    out.push([`${kind}WithThumb`, readFileSync(p)]);
    exiftool(['-ThumbnailImage=', p]);
    out.push([`${kind}NoThumb`, readFileSync(p)]);
  }
  return out;
}

/**
 * The informed forger (the thirty-second session's audit): the AI picture with the donor's own tables, size, tags and a
 * thumbnail made again; then the same with the JFIF header stripped from file and thumbnail. Needs /usr/bin/python3
 * with PIL (python3-pil), as the training scripts do.
 */
export function forgeJpegDonorTables(ai: string, donor: Buffer, tmp: string): [InformedVariant, Buffer][] {
  const donorPath = join(tmp, 'donor-tables.jpg');
  writeFileSync(donorPath, donor);
  const out: [InformedVariant, Buffer][] = [];
  for (const [variant, extra] of [['donorTables', []], ['donorTablesNoJfif', ['--strip-jfif']]] as const) {
    const p = join(tmp, `f-${variant}.jpg`);
    execFileSync('/usr/bin/python3', [join(REPO, 'test', 'eval', 'forge-donor-tables.py'), ai, donorPath, p, ...extra], { stdio: 'ignore' });
    out.push([variant, readFileSync(p)]);
  }
  return out;
}
export type InformedVariant = 'donorTables' | 'donorTablesNoJfif';

/**
 * The strongest HEIC forgery built here: the AI image coded by libheif's x265 into a phone HEIC's own container (its
 * grid, Exif item, thumbnail reference and profile kept; test/support/heic-transplant.ts). `tilesToCode` bounds the
 * work (the capture check reads no pixels); null when the donor's primary is not a tile grid.
 */
export async function forgeHeicInPhoneContainer(ai: string, donor: Buffer, tmp: string, tilesToCode = Infinity): Promise<Buffer | null> {
  try {
    gridOf(donor);
  } catch {
    return null;
  }
  return forgeIntoPhoneContainer(donor, ai, tmp, tilesToCode);
}

/** A HEIC forgery: the AI image encoded by libheif with a phone HEIC's tags copied in. */
export async function forgeHeic(ai: string, donor: Buffer, tmp: string): Promise<Buffer> {
  const hdPath = join(tmp, 'donor.heic');
  writeFileSync(hdPath, donor);
  const png = join(tmp, 'ai.png');
  await sharp(ai).removeAlpha().png().toFile(png);
  const out = join(tmp, 'f.heic');
  execFileSync('heif-enc', ['-q', '90', '-o', out, png], { stdio: 'ignore' });
  exiftool(['-TagsFromFile', hdPath, '-all:all', out]);
  return readFileSync(out);
}
