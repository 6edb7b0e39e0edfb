// Measures the capture-consistency module (src/analysis/capture) against issue #11's acceptance figures: forged
// files (AI images carrying a real photo's copied tags) must never be `consistent`, unedited camera and phone
// originals should be (>= 90 %), crops and re-saves should not be. Run by hand, mirrors and ../shared needed:
//   npx tsx test/eval/capture-forgery.ts [--mirrors /work/.mirror] [--limit-ai N]
// Writes test/eval/results/capture-forgery.json. The originals are measured twice: with the shipped catalogue
// (built from every original, so in-sample) and with a catalogue built from one half of each maker's files,
// on the other half (held out).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { createCaptureReader, readCapture, type Catalogue, type CaptureInput, type CaptureReport } from '../../src/analysis/capture/index.js';
import { readHeifHeader } from '../../src/analysis/image-headers.js';
import { buildCatalogue, isOriginal, readBlob, splitHalves, walkCorpora, type CorpusFile } from '../tools/build-quant-tables.js';

const REPO = resolve(import.meta.dirname, '..', '..');
const DATASETS = resolve(REPO, '..', 'shared', 'datasets');
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const MIRRORS = arg('--mirrors', '/work/.mirror');
const LIMIT_AI = Number(arg('--limit-ai', '1000'));
// awesome-gpt4o-images is a forbidden source for this project: its folder is never read.
const FORBIDDEN_AI_DIRS = new Set(['gptimage_cases']);

type Reader = (i: CaptureInput) => Promise<CaptureReport>;

async function inputOf(buf: Buffer, mediaType: CaptureInput['mediaType']): Promise<CaptureInput> {
  if (mediaType === 'image/heic') {
    const h = readHeifHeader(buf);
    return { buf, mediaType, width: h.width, height: h.height };
  }
  const m = await sharp(buf, { failOn: 'none' }).metadata();
  return { buf, mediaType, width: m.width ?? 0, height: m.height ?? 0 };
}

interface Tally {
  n: number;
  status: Record<string, number>;
  codes: Record<string, number>;
  examples: { name: string; status: string; codes: string[] }[];
}
const tally = (): Tally => ({ n: 0, status: {}, codes: {}, examples: [] });
function record(t: Tally, name: string, r: CaptureReport) {
  t.n++;
  t.status[r.status] = (t.status[r.status] ?? 0) + 1;
  const codes = r.findings.map((f) => `${f.code}${f.weight > 0 ? '+' : f.weight < 0 ? '-' : ''}`);
  for (const c of new Set(codes)) t.codes[c] = (t.codes[c] ?? 0) + 1;
  if (t.examples.length < 400) t.examples.push({ name, status: r.status, codes });
}
const share = (t: Tally, s: string) => (t.n ? Math.round((1000 * (t.status[s] ?? 0)) / t.n) / 10 : null);

function exiftool(args: string[]) {
  execFileSync('exiftool', ['-q', '-q', '-m', '-overwrite_original', ...args], { stdio: 'ignore' });
}

async function main() {
  const t0 = Date.now();
  const all: CorpusFile[] = [];
  for await (const f of walkCorpora(MIRRORS)) if (isOriginal(f)) all.push(f);
  const halves = splitHalves(all);
  const halfCatalogue = buildCatalogue(all.filter((f) => halves.get(f.blob) === 'build'), 'build half') as unknown as Catalogue;
  const readHalf: Reader = createCaptureReader(halfCatalogue);
  const bufOf = (f: CorpusFile) => readBlob(MIRRORS, f.repo, f.blob);
  const typeOf = (f: CorpusFile): CaptureInput['mediaType'] => (f.survey.kind === 'heic' ? 'image/heic' : 'image/jpeg');

  // 1. Originals: all with the shipped catalogue (in-sample); the held-out half with the half catalogue.
  const originalsAll = { jpeg: tally(), heic: tally() };
  const originalsHeldOut = { jpeg: tally(), heic: tally() };
  const thumbSims: number[] = [];
  for (const f of all) {
    const input = await inputOf(bufOf(f), typeOf(f));
    const name = `${f.repo}:${f.path}`;
    const r = await readCapture(input);
    record(originalsAll[f.survey.kind], name, r);
    for (const x of r.findings) if (typeof x.facts.similarity === 'number') thumbSims.push(x.facts.similarity);
    if (halves.get(f.blob) === 'holdout') record(originalsHeldOut[f.survey.kind], name, await readHalf(input));
  }

  // 2. Crops, resizes and re-saves of held-out JPEG originals, EXIF kept (sharp keepMetadata rewrites the EXIF size).
  const edits = { crop: tally(), resize: tally(), resave: tally() };
  const heldJpeg = all.filter((f) => halves.get(f.blob) === 'holdout' && f.survey.kind === 'jpeg');
  for (const f of heldJpeg) {
    const buf = bufOf(f);
    const w = f.survey.width!;
    const h = f.survey.height!;
    const variants: [keyof typeof edits, Buffer][] = [
      ['crop', await sharp(buf).extract({ left: Math.floor(w / 4), top: Math.floor(h / 4), width: Math.floor(w / 2), height: Math.floor(h / 2) }).keepMetadata().jpeg({ quality: 92 }).toBuffer()],
      ['resize', await sharp(buf).resize(Math.round(w / 2)).keepMetadata().jpeg({ quality: 92 }).toBuffer()],
      ['resave', await sharp(buf).keepMetadata().jpeg({ quality: 92 }).toBuffer()],
    ];
    for (const [k, b] of variants) {
      const input = await inputOf(b, 'image/jpeg');
      record(edits[k], `${f.path}#${k}`, await readCapture(input));
    }
  }

  // 3. Forgeries: AI images (modern/ai, forbidden sources excluded) with a real photo's full tag set copied in.
  const aiDir = join(DATASETS, 'modern', 'ai');
  const aiFiles: string[] = [];
  for (const d of readdirSync(aiDir).sort()) {
    if (FORBIDDEN_AI_DIRS.has(d)) continue;
    for (const f of readdirSync(join(aiDir, d)).sort()) if (/\.(png|jpe?g)$/i.test(f)) aiFiles.push(join(aiDir, d, f));
  }
  const exifSamplesDir = join(DATASETS, 'train', 'real', 'exif_samples');
  const donors: { name: string; buf: Buffer }[] = [];
  for (const f of readdirSync(exifSamplesDir).sort()) {
    if (!/\.jpe?g$/i.test(f)) continue;
    const buf = readFileSync(join(exifSamplesDir, f));
    const r = await readCapture(await inputOf(buf, 'image/jpeg'));
    if (r.claimed?.make) donors.push({ name: `exif_samples/${f}`, buf });
  }
  // Camera and phone originals as donors, round-robin over makers so every maker donates.
  const byMaker = new Map<string, CorpusFile[]>();
  for (const f of all.filter((x) => x.survey.kind === 'jpeg')) byMaker.set(f.survey.make!, [...(byMaker.get(f.survey.make!) ?? []), f]);
  for (let i = 0; donors.length < 52 + 60 && i < 20; i++) {
    for (const [, list] of [...byMaker].sort()) if (list[i]) donors.push({ name: `${list[i].repo}:${list[i].path}`, buf: bufOf(list[i]) });
  }
  const heicDonors = all.filter((f) => f.survey.kind === 'heic');
  const tmp = mkdtempSync(join(tmpdir(), 'capture-forgery-'));
  const forged = { ownSizeWithThumb: tally(), ownSizeNoThumb: tally(), donorSizeWithThumb: tally(), donorSizeNoThumb: tally(), heic: tally() };
  const forgedHalf = { ownSizeWithThumb: tally(), ownSizeNoThumb: tally(), donorSizeWithThumb: tally(), donorSizeNoThumb: tally(), heic: tally() };
  const forgedSims: number[] = [];
  try {
    for (const [i, ai] of aiFiles.slice(0, LIMIT_AI).entries()) {
      const donor = donors[i % donors.length];
      const donorPath = join(tmp, 'donor.jpg');
      writeFileSync(donorPath, donor.buf);
      const dm = await sharp(donor.buf, { failOn: 'none' }).metadata();
      const own = await sharp(ai).removeAlpha().jpeg({ quality: 90 }).toBuffer();
      const sized = await sharp(ai).removeAlpha().resize(dm.width, dm.height, { fit: 'cover' }).jpeg({ quality: 90 }).toBuffer();
      for (const [kind, body] of [['ownSize', own], ['donorSize', sized]] as const) {
        const p = join(tmp, `f-${kind}.jpg`);
        writeFileSync(p, body);
        exiftool(['-TagsFromFile', donorPath, '-all:all', p]);
        const withThumb = readFileSync(p);
        exiftool(['-ThumbnailImage=', p]);
        const noThumb = readFileSync(p);
        for (const [variant, b] of [[`${kind}WithThumb`, withThumb], [`${kind}NoThumb`, noThumb]] as const) {
          const input = await inputOf(b, 'image/jpeg');
          const name = `${ai.slice(aiDir.length + 1)} <- ${donor.name}`;
          const r = await readCapture(input);
          record(forged[variant as keyof typeof forged], name, r);
          record(forgedHalf[variant as keyof typeof forged], name, await readHalf(input));
          for (const x of r.findings) if (typeof x.facts.similarity === 'number') forgedSims.push(x.facts.similarity);
        }
      }
      // HEIC forgeries: the AI image encoded by libheif with a phone HEIC's tags copied in (every 4th image).
      if (i % 4 === 0 && heicDonors.length) {
        const hd = heicDonors[(i / 4) % heicDonors.length];
        const hdPath = join(tmp, 'donor.heic');
        writeFileSync(hdPath, bufOf(hd));
        const png = join(tmp, 'ai.png');
        await sharp(ai).removeAlpha().png().toFile(png);
        const out = join(tmp, 'f.heic');
        execFileSync('heif-enc', ['-q', '90', '-o', out, png], { stdio: 'ignore' });
        exiftool(['-TagsFromFile', hdPath, '-all:all', out]);
        const b = readFileSync(out);
        const input = await inputOf(b, 'image/heic');
        const name = `${ai.slice(aiDir.length + 1)} <- ${hd.path}`;
        record(forged.heic, name, await readCapture(input));
        record(forgedHalf.heic, name, await readHalf(input));
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  // 4. Cost: readCapture on 12 MP JPEG originals, median of 5 runs each after one warm-up.
  const twelve = all.filter((f) => f.survey.kind === 'jpeg' && f.survey.width! * f.survey.height! >= 11_500_000 && f.survey.width! * f.survey.height! <= 12_600_000).slice(0, 6);
  const costs: { file: string; ms: number }[] = [];
  for (const f of twelve) {
    const input = await inputOf(bufOf(f), 'image/jpeg');
    await readCapture(input);
    const runs: number[] = [];
    for (let k = 0; k < 5; k++) {
      const s = performance.now();
      await readCapture(input);
      runs.push(performance.now() - s);
    }
    runs.sort((a, b) => a - b);
    costs.push({ file: `${f.repo}:${f.path}`, ms: Math.round(runs[2]) });
  }

  const sum = (o: Record<string, Tally>) => Object.fromEntries(Object.entries(o).map(([k, t]) => [k, { n: t.n, consistentPct: share(t, 'consistent'), status: t.status, codes: t.codes }]));
  const forgedTotal = (o: Record<string, Tally>) => {
    const n = Object.values(o).reduce((a, t) => a + t.n, 0);
    const c = Object.values(o).reduce((a, t) => a + (t.status.consistent ?? 0), 0);
    return { n, consistent: c, notConsistentPct: n ? Math.round((1000 * (n - c)) / n) / 10 : null };
  };
  const result = {
    generatedBy: 'test/eval/capture-forgery.ts',
    date: new Date().toISOString(),
    sources: { mirrors: [...new Set(all.map((f) => f.repo))], aiImages: aiFiles.length, aiImagesUsed: Math.min(aiFiles.length, LIMIT_AI), donors: donors.length, excludedAiSources: [...FORBIDDEN_AI_DIRS] },
    forged: { all: forgedTotal(forged), byVariant: sum(forged) },
    forgedWithHeldOutCatalogue: { all: forgedTotal(forgedHalf), byVariant: sum(forgedHalf) },
    originalsInSample: sum(originalsAll),
    originalsHeldOut: sum(originalsHeldOut),
    editsOfHeldOutOriginals: sum(edits),
    thumbnailSimilarity: { originals: quantiles(thumbSims), forged: quantiles(forgedSims) },
    costMsPer12MpJpeg: costs,
    seconds: Math.round((Date.now() - t0) / 1000),
    examples: {
      originalsHeldOutNotConsistent: [...originalsHeldOut.jpeg.examples, ...originalsHeldOut.heic.examples].filter((e) => e.status !== 'consistent'),
      originalsInSampleNotConsistent: [...originalsAll.jpeg.examples, ...originalsAll.heic.examples].filter((e) => e.status !== 'consistent'),
      forgedConsistent: Object.values(forged).flatMap((t) => t.examples.filter((e) => e.status === 'consistent')),
      forgedHalfConsistent: Object.values(forgedHalf).flatMap((t) => t.examples.filter((e) => e.status === 'consistent')),
      editsConsistent: Object.values(edits).flatMap((t) => t.examples.filter((e) => e.status === 'consistent')),
    },
  };
  const out = join(REPO, 'test', 'eval', 'results', 'capture-forgery.json');
  writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
  console.log(JSON.stringify({ forged: result.forged.all, forgedHalf: result.forgedWithHeldOutCatalogue.all, inSample: sum(originalsAll), heldOut: sum(originalsHeldOut), edits: sum(edits), costs }, (k, v) => (k === 'codes' ? undefined : v), 1));
}

function quantiles(v: number[]) {
  const s = [...v].sort((a, b) => a - b);
  const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : null);
  return { n: s.length, min: s[0] ?? null, p05: q(0.05), p50: q(0.5), p95: q(0.95), max: s[s.length - 1] ?? null };
}

if (!existsSync(DATASETS)) {
  console.error(`${DATASETS} is absent: this evaluation needs ../shared/datasets.`);
  process.exit(2);
}
await main();
