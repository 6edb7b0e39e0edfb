// Issue #21's "decision flips under JPEG q70 and 50 % resize", measured through the REAL pipeline (analyseFile with the
// shipped model, its face check, pixel guards and fusion): each file as is, then its pixels (EXIF orientation applied,
// alpha dropped, metadata gone) saved as JPEG q70, and brought to half its width and height (sharp's cubic resize)
// saved as lossless PNG. A flip is a file whose pixel decision changes between its copy and the file as is; the pixel decision is the
// ai_detection dimension's "likely AI, high confidence" (the score at or above its threshold group's highAi, no pixel
// check taking the reading out of the score's hands): what lets the pixels call a file ai_generated.
// Run by hand (the files must be on this machine):
//   nice -n 10 npx tsx test/eval/pixel-flips.ts --list test/eval/flips-val-raw.tsv --out val-raw-v160
//   nice -n 10 npx tsx test/eval/pixel-flips.ts --out modern-v160          (../shared/datasets/modern/, never chosen on;
//   its gptimage_cases folder, from a source this project may not evaluate on, is left out)
// The list is label<TAB>source<TAB>path (relative to models/training, as the training scripts write it). Writes
// test/eval/results/pixel-flips-<out>.json: per variant and class the shares called, the flips against the file as is,
// the verdicts that changed, and every row.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import sharp from 'sharp';
import { closeAnalysis } from '../../src/analysis/index.js';
import { getModel } from '../../src/analysis/model-session.js';
import { analyseOrError, arg, DATASETS, FORBIDDEN_AI_DIRS, imageMediaOf, type ImageMedia, labelledFiles, type LabelledFile, pixelChecksOf, REPO } from './capture-sets.js';

const MODELS = join(REPO, 'models');
const LIST = arg('--list', '');
const OUT = arg('--out', '');
const LIMIT = Number(arg('--limit', '0'));
if (!/^[a-z0-9-]+$/.test(OUT)) throw new Error('--out: a short name of lower-case letters, digits and dashes');

const VARIANTS = ['as is', 'JPEG q70', 'half size'] as const;
type Variant = (typeof VARIANTS)[number];
type Media = ImageMedia;
interface Row {
  label: 'ai' | 'real';
  source: string;
  file: string;
  variant: Variant;
  verdict: string;
  score: number | null;
  /** the pixel decision: ai_detection likely_ai with high confidence */
  pixelsAi: boolean;
  portrait: boolean;
  checks: string[];
}

function files(): LabelledFile[] {
  let out: LabelledFile[] = [];
  if (LIST) {
    const base = join(REPO, 'models', 'training');
    for (const line of readFileSync(resolve(REPO, LIST), 'utf8').split('\n')) {
      if (!line.trim() || line.startsWith('#')) continue;
      const [label, source, path] = line.split('\t');
      if (label !== 'ai' && label !== 'real') throw new Error(`${LIST}: a row whose label is ${label}`);
      out.push({ label, source, path: resolve(base, path) });
    }
  } else {
    out = labelledFiles(join(DATASETS, 'modern'), /./, FORBIDDEN_AI_DIRS); // a forbidden source's folder is never read
  }
  if (LIMIT) out = out.filter((_, i) => i % Math.ceil(out.length / LIMIT) === 0);
  const missing = out.filter((f) => !existsSync(f.path));
  if (missing.length) throw new Error(`${missing.length} files missing, e.g. ${missing[0].path} (restore the data first)`);
  return out;
}

/** The file's copies: its pixels as the product decodes them (orientation applied), re-saved; the half-size copy is
 *  sharp's resize of the file (which shrinks a JPEG while decoding it, then resizes cubic). null where sharp here
 *  cannot decode it. */
async function copies(bytes: Buffer, dir: string): Promise<Array<[Variant, string, Media]> | null> {
  try {
    const pixels = sharp(bytes).rotate().removeAlpha();
    // the upright size from the header (orientations 5-8 swap the sides), not from a decode of its own
    const meta = await sharp(bytes).metadata();
    const [width, height] = (meta.orientation ?? 1) >= 5 ? [meta.height!, meta.width!] : [meta.width!, meta.height!];
    const q70 = join(dir, 'q70.jpg');
    const half = join(dir, 'half.png');
    writeFileSync(q70, await pixels.clone().jpeg({ quality: 70 }).toBuffer());
    writeFileSync(half, await pixels.clone().resize(Math.max(1, Math.floor(width / 2)), Math.max(1, Math.floor(height / 2)), { fit: 'fill', kernel: 'cubic' }).png().toBuffer());
    return [['JPEG q70', q70, 'image/jpeg'], ['half size', half, 'image/png']];
  } catch {
    return null;
  }
}

function summary(rows: Row[]) {
  const key = (r: Row) => `${r.label}\t${r.source}\t${r.file}`;
  const asIs = new Map(rows.filter((r) => r.variant === 'as is').map((r) => [key(r), r]));
  const share = (n: number, d: number) => (d ? Math.round((n / d) * 10000) / 10000 : null);
  const out: Record<string, unknown> = {};
  for (const variant of VARIANTS) {
    const v = rows.filter((r) => r.variant === variant && !r.verdict.startsWith('error:'));
    const byClass: Record<string, unknown> = {};
    for (const label of ['ai', 'real', 'all'] as const) {
      const rs = v.filter((r) => label === 'all' || r.label === label);
      const paired = rs.flatMap((r) => {
        const b = asIs.get(key(r));
        return b && !b.verdict.startsWith('error:') ? [[b, r] as const] : [];
      });
      const dz = paired.filter(([b, r]) => b.score !== null && r.score !== null).map(([b, r]) => Math.abs(r.score! - b.score!)).sort((a, b) => a - b);
      byClass[label] = {
        n: rs.length,
        pixelsAi: share(rs.filter((r) => r.pixelsAi).length, rs.length),
        aiGenerated: share(rs.filter((r) => r.verdict === 'ai_generated').length, rs.length),
        authentic: share(rs.filter((r) => r.verdict === 'authentic').length, rs.length),
        ...(variant === 'as is'
          ? {}
          : {
              paired: paired.length,
              pixelFlips: share(paired.filter(([b, r]) => b.pixelsAi !== r.pixelsAi).length, paired.length),
              pixelFlipsToAi: paired.filter(([b, r]) => !b.pixelsAi && r.pixelsAi).length,
              pixelFlipsFromAi: paired.filter(([b, r]) => b.pixelsAi && !r.pixelsAi).length,
              verdictChanged: share(paired.filter(([b, r]) => b.verdict !== r.verdict).length, paired.length),
              groupChanged: paired.filter(([b, r]) => b.portrait !== r.portrait).length,
              scoreChangeMedian: dz.length ? Math.round(dz[Math.floor(dz.length / 2)] * 10000) / 10000 : null,
              scoreChangeP90: dz.length ? Math.round(dz[Math.floor(dz.length * 0.9)] * 10000) / 10000 : null,
            }),
      };
    }
    out[variant] = byClass;
  }
  return out;
}

async function main() {
  const { manifest } = await getModel(MODELS, 1);
  const tmp = mkdtempSync(join(tmpdir(), 'pixel-flips-'));
  const rows: Row[] = [];
  const skipped: string[] = [];
  const list = files();
  const started = Date.now();
  try {
    for (const f of list) {
      const name = relative(REPO, f.path);
      const bytes = readFileSync(f.path);
      const media = imageMediaOf(bytes);
      const made = media && (await copies(bytes, tmp));
      if (!media || !made) {
        skipped.push(name); // not a kind the product accepts, or not decodable here (the copies need sharp's decoder)
        continue;
      }
      for (const [variant, path, m] of [['as is', f.path, media] as [Variant, string, Media], ...made]) {
        const a = await analyseOrError(path, m, MODELS);
        if ('error' in a) {
          rows.push({ label: f.label, source: f.source, file: name, variant, verdict: `error:${a.error}`, score: null, pixelsAi: false, portrait: false, checks: [] });
          continue;
        }
        const r = a.result;
        const ai = r.verdict.dimensions.find((d) => d.key === 'ai_detection');
        rows.push({
          label: f.label,
          source: f.source,
          file: name,
          variant,
          verdict: r.verdict.assessment,
          score: ai?.score ?? null,
          pixelsAi: ai?.assessment === 'likely_ai' && ai.confidence === 'high',
          portrait: r.findings.some((x) => x.code === 'pixels.portrait'),
          checks: pixelChecksOf(r.findings),
        });
      }
      if ((rows.length / 3) % 50 === 0) console.log(rows.length / 3, 'of', list.length, 'files', Math.round((Date.now() - started) / 1000), 's');
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await closeAnalysis();
  }
  const out = {
    model: `${manifest.name}@${manifest.version}`,
    networks: { model: manifest.sha256, semantic: manifest.semantic?.sha256 ?? null, semantic2: manifest.semantic2?.sha256 ?? null, fusionBias: manifest.fusion?.bias ?? null },
    measured: new Date().toISOString().slice(0, 10),
    wallSeconds: Math.round((Date.now() - started) / 1000),
    set: LIST || 'modern/',
    note:
      'flips: the share of files whose pixel decision (ai_detection likely_ai/high: the score at or above its group\'s highAi, no pixel check taking the reading) ' +
      'differs between the copy and the file as is; the copies are the decoded pixels (orientation applied, metadata gone) as JPEG q70 and at half size as PNG (sharp\'s cubic resize, which shrinks a JPEG while decoding it first)',
    skipped,
    summary: summary(rows),
    rows,
  };
  writeFileSync(join(REPO, 'test', 'eval', 'results', `pixel-flips-${OUT}.json`), `${JSON.stringify(out, null, 1)}\n`);
  console.log(JSON.stringify({ model: out.model, wallSeconds: out.wallSeconds, skipped: skipped.length, summary: out.summary }, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
