// Issue #21's acceptance figures as verdicts: what the REAL pipeline (analyseFile with the shipped model, photo guard
// and fusion) says about ../shared/datasets/modern/ (never trained on, never used to choose anything), as is and with
// both classes re-encoded the same way (JPEG q90, metadata stripped). Run by hand, ../shared needed:
//   nice -n 10 npx tsx test/eval/pixel-verdicts.ts [--limit N]
// or on another folder laid out as <ai|real>/<source>/<files> (e.g. models/training/.data/images, files never trained
// on), some of its sources, written to results/pixel-verdicts-<name>.json:
//   nice -n 10 npx tsx test/eval/pixel-verdicts.ts --dir models/training/.data/images --sources REGEX --out NAME [--limit N]
// --as-is measures the files as they are only (camera originals, whose capture check needs their own bytes).
// Writes test/eval/results/pixel-verdicts.json: per variant and class, the share of files called ai_generated /
// authentic / inconclusive / manipulated, how many the photo guard took for non-photographs, and per source.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { closeAnalysis } from '../../src/analysis/index.js';
import { getModel } from '../../src/analysis/model-session.js';
import { analyseOrError, arg, DATASETS, imageMediaOf, type ImageMedia, labelledFiles, pixelChecksOf, REPO } from './capture-sets.js';

const LIMIT = Number(arg('--limit', '0'));
const MODELS = join(REPO, 'models');
const DIR = arg('--dir', '');
const MODERN = DIR ? resolve(REPO, DIR) : join(DATASETS, 'modern');
const SOURCES = new RegExp(arg('--sources', '.'));
const OUT = arg('--out', '');
const AS_IS_ONLY = process.argv.includes('--as-is');
if (OUT && !/^[a-z0-9-]+$/.test(OUT)) throw new Error('--out: a short name of lower-case letters, digits and dashes');

type Variant = 'as is' | 'JPEG q90';
interface Row {
  label: 'ai' | 'real';
  source: string;
  file: string;
  variant: Variant;
  verdict: string;
  score: number | null;
  guard: boolean;
  /** read against the portrait thresholds (the face check found a portrait-sized face: finding pixels.portrait) */
  portrait: boolean;
  /** framed as StyleGAN's FFHQ faces are (finding pixels.ffhq_framing) */
  framed: boolean;
  /** the pixel checks that took the reading out of the score's hands, whatever the model (thermal, line_art, document,
   *  not_photographic): a reading with none is one the model's score decides */
  checks: string[];
}

function files() {
  const out = labelledFiles(MODERN, SOURCES);
  return LIMIT ? out.filter((_, i) => i % Math.ceil(out.length / LIMIT) === 0) : out;
}

function summary(rows: Row[]) {
  const share = (rs: Row[], pred: (r: Row) => boolean) => (rs.length ? Math.round((rs.filter(pred).length / rs.length) * 10000) / 10000 : null);
  const of = (rs: Row[]) => ({
    n: rs.length,
    ai_generated: share(rs, (r) => r.verdict === 'ai_generated'),
    authentic: share(rs, (r) => r.verdict === 'authentic'),
    inconclusive: share(rs, (r) => r.verdict === 'inconclusive'),
    manipulated: share(rs, (r) => r.verdict === 'manipulated'),
    error: share(rs, (r) => r.verdict.startsWith('error:')),
    notPhotographic: rs.filter((r) => r.guard).length,
    readAsPortrait: rs.filter((r) => r.portrait).length,
    ffhqFramed: rs.filter((r) => r.framed).length,
  });
  const out: Record<string, unknown> = {};
  for (const variant of ['as is', 'JPEG q90'] as const) {
    const v = rows.filter((r) => r.variant === variant);
    const bySource: Record<string, unknown> = {};
    for (const s of [...new Set(v.map((r) => `${r.label}/${r.source}`))].sort()) bySource[s] = of(v.filter((r) => `${r.label}/${r.source}` === s));
    out[variant] = {
      ai: of(v.filter((r) => r.label === 'ai')),
      real: of(v.filter((r) => r.label === 'real')),
      realCalledAi: v.filter((r) => r.label === 'real' && r.verdict === 'ai_generated').map((r) => r.file),
      bySource,
    };
  }
  return out;
}

async function main() {
  const { manifest } = await getModel(MODELS, 1);
  const tmp = mkdtempSync(join(tmpdir(), 'pixel-verdicts-'));
  const rows: Row[] = [];
  const skipped: string[] = [];
  try {
    for (const f of files()) {
      const bytes = readFileSync(f.path);
      const media = imageMediaOf(bytes);
      if (!media) {
        skipped.push(f.path.slice(MODERN.length + 1));
        continue;
      }
      const q90 = join(tmp, 'q90.jpg');
      let reencoded = !AS_IS_ONLY;
      if (reencoded) {
        try {
          writeFileSync(q90, await sharp(bytes).removeAlpha().jpeg({ quality: 90 }).toBuffer());
        } catch {
          reencoded = false; // sharp here cannot decode HEIC: that file is measured as is only
        }
      }
      const variants: Array<readonly [Variant, string, ImageMedia]> = [['as is', f.path, media]];
      if (reencoded) variants.push(['JPEG q90', q90, 'image/jpeg']);
      for (const [variant, path, media] of variants) {
        const a = await analyseOrError(path, media, MODELS);
        if ('error' in a) {
          // a file the product refuses to analyse is a result too: kept, named
          console.log('analysis failed:', f.path, variant, a.error, a.message);
          rows.push({ label: f.label, source: f.source, file: f.path.slice(MODERN.length + 1), variant, verdict: `error:${a.error}`, score: null, guard: false, portrait: false, framed: false, checks: [] });
          continue;
        }
        const r = a.result;
        const ai = r.verdict.dimensions.find((d) => d.key === 'ai_detection');
        rows.push({
          label: f.label,
          source: f.source,
          file: f.path.slice(MODERN.length + 1),
          variant,
          verdict: r.verdict.assessment,
          score: ai?.score ?? null,
          guard: r.findings.some((x) => x.code === 'pixels.not_photographic'),
          portrait: r.findings.some((x) => x.code === 'pixels.portrait'),
          framed: r.findings.some((x) => x.code === 'pixels.ffhq_framing'),
          checks: pixelChecksOf(r.findings),
        });
      }
      if (rows.length % 50 === 0) console.log(rows.length, 'analyses');
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await closeAnalysis();
  }
  const out = {
    model: `${manifest.name}@${manifest.version}`,
    // which networks and fusion scored the rows (candidates share a version number): ship_v11.py --odd-real checks them
    networks: { model: manifest.sha256, semantic: manifest.semantic?.sha256 ?? null, semantic2: manifest.semantic2?.sha256 ?? null, fusionBias: manifest.fusion?.bias ?? null },
    pixelsDecide: manifest.calibration?.pixelsDecide ?? false,
    thresholds: manifest.thresholds,
    measured: new Date().toISOString().slice(0, 10),
    note: DIR
      ? `${DIR} (sources matching ${SOURCES.source}${LIMIT ? `, subsampled to about ${LIMIT} files` : ''}): files as they are, metadata kept, so the capture check takes part; the JPEG q90 variant drops the metadata`
      : 'modern/: 384-px lossless crops without metadata (no capture evidence), so a file at highAi that the photo guard passes is ai_generated when pixelsDecide is on',
    skipped: { note: 'not a kind the product accepts (sniffed from the first bytes)', files: skipped },
    summary: summary(rows),
    rows,
  };
  writeFileSync(join(REPO, 'test', 'eval', 'results', OUT ? `pixel-verdicts-${OUT}.json` : 'pixel-verdicts.json'), `${JSON.stringify(out, null, 1)}\n`);
  console.log(JSON.stringify({ model: out.model, pixelsDecide: out.pixelsDecide, ...Object.fromEntries(Object.entries(out.summary).map(([k, v]) => [k, { ai: (v as { ai: unknown }).ai, real: (v as { real: unknown }).real }])) }, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
