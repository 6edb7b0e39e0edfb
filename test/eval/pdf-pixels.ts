// The PDF route: what the REAL pipeline says about a picture put inside a PDF, beside what it says about the picture
// itself. A fraudster can hand in a generated picture as a one-page PDF (a claim form, a "scan", a print to PDF); the
// pixels that decide for the picture must decide for it there too, and a real photo must not be called AI there more
// often than on its own. ../shared/datasets/modern/ (never trained on, never used to choose anything; its GPT-4o/Sora
// folder, a forbidden source's copy, left out), each file:
//   as is     the picture alone / in a PDF as producers embed it: a JPEG's own stream (DCTDecode), a PNG's pixels (Flate)
//   JPEG q90  both classes re-encoded the same way (metadata gone), alone / its stream in a PDF
// Run by hand, ../shared needed:  nice -n 10 npx tsx test/eval/pdf-pixels.ts [--limit N]
// Writes test/eval/results/pdf-pixels.json.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { analyseFile, closeAnalysis } from '../../src/analysis/index.js';
import { getModel } from '../../src/analysis/model-session.js';
import { pdfWithPictures, type PdfPicture } from '../unit/analysis/fixtures.js';
import { arg, DATASETS, FORBIDDEN_AI_DIRS, imageMediaOf, labelledFiles, REPO } from './capture-sets.js';

const LIMIT = Number(arg('--limit', '0'));
const MODELS = join(REPO, 'models');
const MODERN = join(DATASETS, 'modern');

type Variant = 'as is' | 'JPEG q90';
interface Reading {
  verdict: string;
  confidence: string | null;
  score: number | null;
  reading: string | null;
}
interface Row {
  label: 'ai' | 'real';
  source: string;
  file: string;
  variant: Variant;
  alone: Reading;
  pdf: Reading;
}

async function read(path: string, media: 'image/jpeg' | 'image/png' | 'application/pdf'): Promise<Reading> {
  try {
    const r = await analyseFile(path, media, { modelsDir: MODELS });
    const ai = r.verdict.dimensions.find((d) => d.key === 'ai_detection');
    const reading = r.findings.find((f) => f.code.startsWith('pixels.score.') || f.code === 'pixels.no_raster' || f.code === 'pixels.not_photographic' || f.code === 'pixels.document');
    return { verdict: r.verdict.assessment, confidence: r.verdict.confidence, score: ai?.score ?? null, reading: reading?.code ?? null };
  } catch (e) {
    return { verdict: `error:${(e as { code?: string }).code ?? 'error'}`, confidence: null, score: null, reading: null };
  }
}

function summary(rows: Row[]) {
  const out: Record<string, unknown> = {};
  for (const variant of ['as is', 'JPEG q90'] as const) {
    for (const label of ['ai', 'real'] as const) {
      const rs = rows.filter((r) => r.variant === variant && r.label === label);
      const share = (pred: (r: Row) => boolean) => Math.round((rs.filter(pred).length / rs.length) * 10000) / 10000;
      const diffs = rs.filter((r) => r.alone.score !== null && r.pdf.score !== null).map((r) => Math.abs(r.alone.score! - r.pdf.score!)).sort((a, b) => a - b);
      out[`${variant} / ${label}`] = {
        n: rs.length,
        aloneAiGenerated: share((r) => r.alone.verdict === 'ai_generated'),
        pdfAiGenerated: share((r) => r.pdf.verdict === 'ai_generated'),
        aloneAuthentic: share((r) => r.alone.verdict === 'authentic'),
        pdfAuthentic: share((r) => r.pdf.verdict === 'authentic'),
        verdictDiffers: rs.filter((r) => r.alone.verdict !== r.pdf.verdict).length,
        scoreDiff: diffs.length ? { median: diffs[Math.floor(diffs.length / 2)], p95: diffs[Math.floor(diffs.length * 0.95)], max: diffs[diffs.length - 1] } : null,
        errors: rs.filter((r) => r.pdf.verdict.startsWith('error:') || r.alone.verdict.startsWith('error:')).length,
      };
    }
  }
  return out;
}

async function main() {
  const { manifest } = await getModel(MODELS, 1);
  const all = labelledFiles(MODERN, /./, FORBIDDEN_AI_DIRS);
  const files = LIMIT ? all.filter((_, i) => i % Math.ceil(all.length / LIMIT) === 0) : all;
  const tmp = mkdtempSync(join(tmpdir(), 'pdf-pixels-'));
  const rows: Row[] = [];
  const started = Date.now();
  try {
    for (const f of files) {
      const bytes = readFileSync(f.path);
      const media = imageMediaOf(bytes);
      if (media !== 'image/jpeg' && media !== 'image/png') continue;
      const { data: rgb, info } = await sharp(bytes).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
      const q90 = await sharp(bytes).removeAlpha().jpeg({ quality: 90 }).toBuffer();
      const size = { width: info.width, height: info.height };
      const variants: Array<[Variant, Buffer, 'image/jpeg' | 'image/png', PdfPicture]> = [
        ['as is', bytes, media, media === 'image/jpeg' ? { ...size, jpeg: bytes } : { ...size, rgb }],
        ['JPEG q90', q90, 'image/jpeg', { ...size, jpeg: q90 }],
      ];
      for (const [variant, picture, pictureMedia, embedded] of variants) {
        const alonePath = join(tmp, pictureMedia === 'image/jpeg' ? 'alone.jpg' : 'alone.png');
        const pdfPath = join(tmp, 'in.pdf');
        writeFileSync(alonePath, picture);
        writeFileSync(pdfPath, pdfWithPictures([[embedded]]));
        rows.push({ label: f.label, source: f.source, file: f.path.slice(MODERN.length + 1), variant, alone: await read(alonePath, pictureMedia), pdf: await read(pdfPath, 'application/pdf') });
      }
      if (rows.length % 50 === 0) console.log(rows.length, 'pairs', Math.round((Date.now() - started) / 1000), 's');
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await closeAnalysis();
  }
  const out = {
    model: `${manifest.name}@${manifest.version}`,
    measured: new Date().toISOString().slice(0, 10),
    wallSeconds: Math.round((Date.now() - started) / 1000),
    note: "modern/ without gptimage_cases: each picture alone and as the only picture of a one-page PDF (JPEG stream passed through, PNG pixels deflated); 'JPEG q90' re-encodes both classes first",
    summary: summary(rows),
    rows,
  };
  writeFileSync(join(REPO, 'test', 'eval', 'results', 'pdf-pixels.json'), `${JSON.stringify(out, null, 1)}\n`);
  console.log(JSON.stringify(out.summary, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
