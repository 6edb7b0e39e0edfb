// The page-of-text guard (src/analysis/document-guard.ts) measured: how many validation photographs of each class it
// takes for pages (its thresholds allow at most 0.5 %), and how many of Data 2.10's genuine pictures per category.
// Run by hand: the validation list from the training side (semantic/sem_common.eval_files, as JSON rows of set, label,
// source, path) and the restored Data 2.10 folder:
//   npx tsx test/eval/document-guard.ts --val LIST.json [--odd models/training/.data/measureodd]
// Writes test/eval/results/document-guard.json. Data 2.11 (held out from the thresholds' choice), without validation:
//   npx tsx test/eval/document-guard.ts --odd models/training/.data/measureodd211 --label 'Data 2.11' --out odd211
// writes test/eval/results/document-guard-odd211.json.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeImageBuffer } from '../../src/analysis/decode-image.js';
import { DOCUMENT_GUARD, readDocumentGuard } from '../../src/analysis/document-guard.js';
import { SNIFF_BYTES, sniff } from '../../src/api/media-kinds.js';
import { arg, REPO } from './capture-sets.js';

const VAL = arg('--val', '');
const ODD = resolve(REPO, arg('--odd', 'models/training/.data/measureodd'));
const LABEL = arg('--label', 'Data 2.10');
const OUT = arg('--out', '');
if (OUT && !/^[a-z0-9-]+$/.test(OUT)) throw new Error('--out: a short name of lower-case letters, digits and dashes');

async function read(path: string) {
  const bytes = readFileSync(path);
  const media = sniff(bytes.subarray(0, SNIFF_BYTES))?.mediaType;
  if (!media || media === 'application/pdf') return null;
  try {
    return readDocumentGuard(await decodeImageBuffer(bytes, media));
  } catch {
    return null;
  }
}

const groups: Record<string, { n: number; pages: number; files: string[] }> = {};
const features: Array<{ group: string; file: string } & Record<string, number | string>> = [];
const add = (g: string, page: boolean, file: string) => {
  const e = (groups[g] ??= { n: 0, pages: 0, files: [] });
  e.n++;
  if (page) {
    e.pages++;
    e.files.push(file);
  }
};
if (VAL) {
  for (const r of JSON.parse(readFileSync(VAL, 'utf8')) as Array<{ set: string; label: string; source: string; path: string }>) {
    const g = await read(r.path);
    if (g) add(`validation ${r.label}`, g.page, `${r.source} ${r.path.split('/').pop()}`);
    if (g) features.push({ group: `validation ${r.label}`, file: r.path, ...g.features });
  }
}
for (const cat of readdirSync(join(ODD, 'real')).sort()) {
  for (const f of readdirSync(join(ODD, 'real', cat)).sort()) {
    const g = await read(join(ODD, 'real', cat, f));
    if (g) add(`${LABEL} ${cat}`, g.page, f);
    if (g) features.push({ group: `${LABEL} ${cat}`, file: f, ...g.features });
  }
}
const out = { generatedBy: 'test/eval/document-guard.ts', date: new Date().toISOString(), thresholds: DOCUMENT_GUARD, groups, features };
writeFileSync(join(REPO, 'test', 'eval', 'results', OUT ? `document-guard-${OUT}.json` : 'document-guard.json'), JSON.stringify(out, null, 1) + '\n');
for (const [g, e] of Object.entries(groups)) console.log(`${g}: ${e.pages} of ${e.n} taken for pages${e.pages && e.pages <= 8 ? ` (${e.files.join('; ')})` : ''}`);
