// Issue #11's acceptance figures are about verdicts: how many forged files come out `authentic` from the REAL
// pipeline (analyseFile with the shipped model), and how many unedited originals stay `authentic`. Run by hand,
// mirrors and ../shared needed, one ONNX thread:
//   nice -n 19 npx tsx test/eval/capture-verdicts.ts [--mirrors /work/.mirror] [--edit-every N] [--forged-per-image 1|4] [--cache FILE]
//     [--only originals]   (the held-out originals alone, after a model change: results in capture-verdicts-originals.json;
//                           give a --cache of that model's, since the cache keeps the model's findings by content hash)
// Defaults subsample (the model costs about 1 s per 12 MP photo on one thread): edits of every 5th held-out JPEG
// original, one forged JPEG variant per AI image in turn; --edit-every 1 --forged-per-image 4 measures everything.
// Writes test/eval/results/capture-verdicts.json. Two figures per set:
// - `pipeline`: the verdict analyseFile returned (shipped catalogue; for originals that catalogue includes them, so
//   in-sample);
// - `heldOut`: the same file's other detectors' findings fused again (fusion.ts) with the capture report of a
//   catalogue built without the file's half (capture-forgery.ts's held-out split).
// A lost original is put down to the capture check (no `capture.consistent`) and/or to the pixel detector
// (`ai_detection` likely_ai: fusion refuses `authentic` then). The cache keeps each file's non-capture findings and
// dimensions by content hash, so a change to the capture module is re-measured without running the model again.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dimension } from '../../src/api/schemas.js';
import { analyseFile, closeAnalysis } from '../../src/analysis/index.js';
import { readCapture } from '../../src/analysis/capture/index.js';
import { captureOutput } from '../../src/analysis/detectors/capture.js';
import type { Finding } from '../../src/analysis/finding.js';
import { fuse } from '../../src/analysis/fusion.js';
import { aiImages, arg, DATASETS, donorsOf, editsOf, forgeHeic, forgeJpeg, inputOf, loadCorpus, REPO, type Reader } from './capture-sets.js';

const MIRRORS = arg('--mirrors', '/work/.mirror');
const EDIT_EVERY = Number(arg('--edit-every', '5'));
/** Forged JPEG variants per AI image: 4 (every one) or 1 (one variant per image, in turn). */
const FORGED_PER_IMAGE = Number(arg('--forged-per-image', '1'));
const CACHE = arg('--cache', join(tmpdir(), 'capture-verdicts-cache.json'));
const ONLY_ORIGINALS = arg('--only', 'all') === 'originals';
const MODELS = join(REPO, 'models');

interface Cached {
  dimensions: Dimension[];
  findings: Finding[];
  assessment: string;
}
const cache: Record<string, Cached> = existsSync(CACHE) ? JSON.parse(readFileSync(CACHE, 'utf8')) : {};

interface Row {
  set: string;
  name: string;
  pipeline: string;
  heldOut: string;
  capture: string;
  captureHeldOut: string;
  pixels: string;
  /** What analyseFile returned when the file was analysed (the capture module of that time). */
  analyseFile: string;
}
const rows: Row[] = [];
let analysed = 0;

/** Runs analyseFile (or takes its cached output) and fuses again with the reader's capture report. */
async function measure(set: string, name: string, buf: Buffer, mediaType: 'image/jpeg' | 'image/heic', tmp: string, half: Reader) {
  const key = createHash('sha256').update(buf).digest('hex');
  let c = cache[key];
  if (!c) {
    const p = join(tmp, mediaType === 'image/heic' ? 'x.heic' : 'x.jpg');
    writeFileSync(p, buf);
    const r = await analyseFile(p, mediaType, { modelsDir: MODELS, threads: 1 });
    analysed++;
    if (analysed % 25 === 0) console.log(`${analysed} analysed, ${rows.length} measured, ${Math.round(performance.now() / 1000)} s`);
    c = { dimensions: r.verdict.dimensions ?? [], findings: r.findings, assessment: r.verdict.assessment };
    cache[key] = c;
  }
  const others = { dimensions: c.dimensions.filter((d) => d.key !== 'capture'), findings: c.findings.filter((f) => !f.code.startsWith('capture.')) };
  const input = await inputOf(buf, mediaType);
  const refuse = (report: Awaited<ReturnType<Reader>>) => {
    const out = captureOutput(report);
    return fuse({ dimensions: [...others.dimensions, ...(out.dimension ? [out.dimension] : [])], findings: [...others.findings, ...out.findings] }).assessment;
  };
  // The pipeline's own verdict is re-fused with the current capture module too, so a changed module is measured
  // without the model; with an unchanged module this equals what analyseFile returned (checked below).
  const shipped = await readCapture(input);
  const held = await half(input);
  const ai = c.dimensions.find((d) => d.key === 'ai_detection');
  rows.push({
    set,
    name,
    pipeline: refuse(shipped),
    heldOut: refuse(held),
    capture: shipped.status,
    captureHeldOut: held.status,
    pixels: ai ? `${ai.assessment}/${ai.confidence}` : 'none',
    analyseFile: c.assessment,
  });
}

async function main() {
  const t0 = Date.now();
  const corpus = await loadCorpus(MIRRORS);
  const tmp = mkdtempSync(join(tmpdir(), 'capture-verdicts-'));
  const cachedBefore = Object.keys(cache).length;
  let mismatches = 0;
  try {
    // 1. Held-out originals, every one.
    for (const f of corpus.all.filter(corpus.heldOut)) {
      await measure(`originals.${f.survey.kind}`, `${f.repo}:${f.path}`, corpus.bufOf(f), corpus.typeOf(f) as 'image/jpeg' | 'image/heic', tmp, corpus.readHalf);
    }
    // 2. Edits of every EDIT_EVERY-th held-out JPEG original.
    const heldJpeg = ONLY_ORIGINALS ? [] : corpus.all.filter((f) => corpus.heldOut(f) && f.survey.kind === 'jpeg');
    for (const [i, f] of heldJpeg.entries()) {
      if (i % EDIT_EVERY) continue;
      for (const [k, b] of await editsOf(corpus.bufOf(f), f.survey.width!, f.survey.height!, tmp)) {
        await measure(`edits.${k}`, `${f.path}#${k}`, b, 'image/jpeg', tmp, corpus.readHalf);
      }
    }
    // 3. Forgeries, every variant of every AI image (HEIC for every 4th).
    const { dir, files } = aiImages();
    const donors = await donorsOf(corpus);
    const heicDonors = corpus.all.filter((f) => f.survey.kind === 'heic');
    for (const [i, ai] of (ONLY_ORIGINALS ? [] : files).entries()) {
      const donor = donors[i % donors.length];
      const name = `${ai.slice(dir.length + 1)} <- ${donor.name}`;
      for (const [j, [v, b]] of (await forgeJpeg(ai, donor.buf, tmp)).entries()) {
        if (FORGED_PER_IMAGE === 1 && j !== i % 4) continue;
        await measure(`forged.${v}`, name, b, 'image/jpeg', tmp, corpus.readHalf);
      }
      if (i % 4 === 0 && heicDonors.length) {
        const hd = heicDonors[(i / 4) % heicDonors.length];
        await measure('forged.heic', `${ai.slice(dir.length + 1)} <- ${hd.path}`, await forgeHeic(ai, corpus.bufOf(hd), tmp), 'image/heic', tmp, corpus.readHalf);
      }
      if (i % 10 === 0) writeFileSync(CACHE, JSON.stringify(cache));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    writeFileSync(CACHE, JSON.stringify(cache));
    await closeAnalysis();
  }
  // With the capture module unchanged since the cache was made, re-fusing must give analyseFile's own verdict.
  mismatches = rows.filter((r) => r.pipeline !== r.analyseFile).length;

  const sets = [...new Set(rows.map((r) => r.set))];
  const pct = (n: number, d: number) => (d ? Math.round((1000 * n) / d) / 10 : null);
  const summary = Object.fromEntries(
    sets.map((s) => {
      const rs = rows.filter((r) => r.set === s);
      const count = (f: (r: Row) => boolean) => rs.filter(f).length;
      const pixelsAi = (r: Row) => r.pixels.startsWith('likely_ai');
      return [
        s,
        {
          n: rs.length,
          authenticPct: { pipeline: pct(count((r) => r.pipeline === 'authentic'), rs.length), heldOut: pct(count((r) => r.heldOut === 'authentic'), rs.length) },
          authentic: { pipeline: count((r) => r.pipeline === 'authentic'), heldOut: count((r) => r.heldOut === 'authentic') },
          // Why a file is not authentic (held-out catalogue): the capture check, the pixels, or both.
          notAuthenticHeldOut: {
            captureOnly: count((r) => r.heldOut !== 'authentic' && r.captureHeldOut !== 'consistent' && !pixelsAi(r)),
            pixelsOnly: count((r) => r.heldOut !== 'authentic' && r.captureHeldOut === 'consistent' && pixelsAi(r)),
            both: count((r) => r.heldOut !== 'authentic' && r.captureHeldOut !== 'consistent' && pixelsAi(r)),
            other: count((r) => r.heldOut !== 'authentic' && r.captureHeldOut === 'consistent' && !pixelsAi(r)),
          },
          pixels: Object.fromEntries([...new Set(rs.map((r) => r.pixels))].sort().map((p) => [p, count((r) => r.pixels === p)])),
        },
      ];
    }),
  );
  const result = {
    generatedBy: 'test/eval/capture-verdicts.ts',
    date: new Date().toISOString(),
    commit: execGit(),
    model: `models/veracity-detector ${(JSON.parse(readFileSync(join(MODELS, 'veracity-detector', 'manifest.json'), 'utf8')) as { version: string }).version} (shipped), 1 ONNX thread`,
    sampling: ONLY_ORIGINALS ? 'held-out originals only (--only originals)' : `held-out originals: all; edits: every ${EDIT_EVERY}th held-out JPEG original; forged: every AI image of modern/ai (forbidden sources excluded), ${FORGED_PER_IMAGE === 1 ? 'one of the 4 JPEG variants each, in turn' : '4 JPEG variants each'}, HEIC for every 4th`,
    analysedThisRun: analysed,
    cachedBefore,
    refusedDiffersFromAnalyseFile: mismatches,
    summary,
    seconds: Math.round((Date.now() - t0) / 1000),
    notAuthenticOriginals: rows.filter((r) => r.set.startsWith('originals') && r.heldOut !== 'authentic'),
    authenticNotOriginal: rows.filter((r) => !r.set.startsWith('originals') && (r.heldOut === 'authentic' || r.pipeline === 'authentic')),
  };
  writeFileSync(join(REPO, 'test', 'eval', 'results', ONLY_ORIGINALS ? 'capture-verdicts-originals.json' : 'capture-verdicts.json'), JSON.stringify(result, null, 1) + '\n');
  console.log(JSON.stringify(summary, null, 1));
}

function execGit(): string {
  const head = execFileSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['-C', REPO, 'status', '--porcelain', 'src/analysis'], { encoding: 'utf8' }).trim();
  return dirty ? `${head} + uncommitted src/analysis changes` : head;
}

if (!existsSync(DATASETS)) {
  console.error(`${DATASETS} is absent: this evaluation needs ../shared/datasets.`);
  process.exit(2);
}
await main();
