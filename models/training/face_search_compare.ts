// Compares two face finders' readings where it matters to the product: whether a picture is a portrait (largest face
// >= the manifest's portraits.minFace), and for a portrait the face share, the turned look's angle and the centre.
// Used to show that a change to the finder's turned looks leaves the portrait tags the thresholds were calibrated on
// as they were (MODEL_CARD, "Speed").
//   npx tsx models/training/face_search_compare.ts OLD_FINDER.ts OUT.json SHARD/SHARDS LIST.json|DIR...
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeImageBuffer } from '../../src/analysis/decode-image.js';
import { faceFinderParams } from '../../src/analysis/model-session.js';
import { loadFaceFinder } from '../../src/analysis/face-finder.js';
import { sniff } from '../../src/api/media-kinds.js';

const HERE = new URL('.', import.meta.url).pathname;
const [oldPath, out, shardSpec, ...sources] = process.argv.slice(2);
const [shard, shards] = shardSpec.split('/').map(Number);
const manifest = JSON.parse(await readFile(join(HERE, '../veracity-detector/manifest.json'), 'utf8'));
const portraitMin: number = manifest.portraits.minFace;
const params = faceFinderParams(manifest.portraits.finder, portraitMin);
const xml = await readFile(join(HERE, '../veracity-detector', manifest.portraits.finder.file));
const oldMod = await import(oldPath);
const before = await oldMod.loadFaceFinder(xml, params);
const after = await loadFaceFinder(xml, params);

async function walk(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const e of await readdir(dir)) {
    const p = join(dir, e);
    if ((await stat(p)).isDirectory()) found.push(...(await walk(p)));
    else found.push(p);
  }
  return found;
}
const paths: string[] = [];
for (const s of sources) {
  if (s.endsWith('.json')) paths.push(...Object.keys(JSON.parse(await readFile(s, 'utf8')).tags).map((p) => (p.startsWith('/') ? p : join(HERE, p))));
  else paths.push(...(await walk(s)));
}
const unique = [...new Set(paths)].sort().filter((_, i) => i % shards === shard);
type R = { faces: number; largest: number; centre: [number, number] | null; angle?: number };
const view = (r: R) => (r.largest >= portraitMin ? { portrait: true, largest: r.largest, angle: r.angle ?? 0, centre: r.centre } : { portrait: false });
let n = 0;
let portraits = 0;
let msBefore = 0;
let msAfter = 0;
const differ: Array<{ path: string; before: unknown; after: unknown }> = [];
for (const p of unique) {
  let img;
  try {
    const bytes = await readFile(p);
    const sniffed = sniff(bytes.subarray(0, 64));
    if (!sniffed || sniffed.kind !== 'images') continue;
    img = await decodeImageBuffer(bytes, sniffed.mediaType);
  } catch {
    continue;
  }
  let t = performance.now();
  const a = view(await before.find(img));
  msBefore += performance.now() - t;
  t = performance.now();
  const b = view(await after.find(img));
  msAfter += performance.now() - t;
  n++;
  if (a.portrait) portraits++;
  if (JSON.stringify(a) !== JSON.stringify(b)) differ.push({ path: p, before: a, after: b });
}
const result = { shard, shards, files: n, portraits, differ: differ.length, msPerFileBefore: msBefore / n, msPerFileAfter: msAfter / n, differences: differ };
await writeFile(out, JSON.stringify(result, null, 1));
console.log(JSON.stringify({ ...result, differences: undefined }));
process.exit(0);
