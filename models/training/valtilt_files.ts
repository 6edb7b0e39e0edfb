// The tilted validation (semantic/README "Set for a later session ... a validation that sees tilted faces"): every
// validation file (val, val21, valpt; both classes) that the shipped upright finder tags as a portrait
// (semantic/results/face-tags.json, largest face >= the manifest's portraits.minFace), turned by +20 and -30 degrees
// as face_tilt.ts turns them (tilt.ts: the turned picture's centre at the original size), written losslessly as PNG
// under .data/valtilt/{p20,m30}/{ai,real}/, with index.json: [label, source, path, original path, degrees], paths
// relative to models/training. Sources are the originals', so a tilted copy is scored by its source's LOSO fit.
// eval_v1.py / sem_common.py read index.json as the sets valtilt_raw (as is) and valtilt_tx (through transforms.py).
//   npx tsx models/training/valtilt_files.ts          (a few minutes, one core)
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { createHash } from 'node:crypto';
import { decodeImageBuffer } from '../../src/analysis/decode-image.js';
import { sniff } from '../../src/api/media-kinds.js';
import { rawSharp, tilt } from './tilt.js';

const T = new URL('.', import.meta.url).pathname;
const OUT = join(T, '.data/valtilt');
const ANGLES: [string, number][] = [['p20', 20], ['m30', -30]];
const man = JSON.parse(await readFile(join(T, '../veracity-detector/manifest.json'), 'utf8'));
const MIN = man.portraits.minFace as number;
const tags: Record<string, [number | null, number | string]> = JSON.parse(
  await readFile(join(T, 'semantic/results/face-tags.json'), 'utf8')).tags;
type Row = { label: string; source: string; path: string };
const originals = new Map<string, Row>();
for (const set of ['val_raw', 'val21_raw', 'valpt_raw']) {
  const rows: Row[] = JSON.parse(await readFile(join(T, `runs/v1-ft-data2/scores-${set}.json`), 'utf8')).rows;
  for (const r of rows) {
    const t = tags[r.path];
    if (t && t[0] && typeof t[1] === 'number' && t[1] >= MIN) originals.set(r.path, r);
  }
}
const index: [string, string, string, string, number][] = [];
for (const [dir, deg] of ANGLES) for (const l of ['ai', 'real']) await mkdir(join(OUT, dir, l), { recursive: true });
for (const r of [...originals.values()].sort((a, b) => a.path.localeCompare(b.path))) {
  const bytes = await readFile(join(T, r.path));
  const s = sniff(bytes.subarray(0, 64));
  if (!s || s.kind !== 'images') continue;
  const img = await decodeImageBuffer(bytes, s.mediaType);
  const id = createHash('sha256').update(r.path).digest('hex').slice(0, 16);
  for (const [dir, deg] of ANGLES) {
    const file = join(OUT, dir, r.label, `${id}.png`);
    await rawSharp(await tilt(img, deg)).png({ compressionLevel: 1 }).toFile(file);
    index.push([r.label, r.source, relative(T, file), r.path, deg]);
  }
}
await writeFile(join(OUT, 'index.json'), JSON.stringify(index));
console.log(JSON.stringify({ originals: originals.size, files: index.length,
  real: index.filter((x) => x[0] === 'real').length, ai: index.filter((x) => x[0] === 'ai').length }));
