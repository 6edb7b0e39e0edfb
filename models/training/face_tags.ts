// Tags files with the PRODUCT's face finder (src/analysis/face-finder.ts, the shipped cascade, the manifest's
// parameters or those given), in portraits.py's cache format (path -> [faces, largest face / shorter side]), so that
// the portrait thresholds are calibrated on what the product itself will see (semantic/ship_v11.py --portraits).
//   npx tsx models/training/face_tags.ts OUT.json [--from .cache/portraits.json] [--short-side 320] [--min-face 0.12]
//   [--search -25,25,90,270 [--search-neighbors 8]]
// Paths are relative to models/training (as in the runs' score files); a file the product cannot decode gets [null, why].
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeImageBuffer } from '../../src/analysis/decode-image.js';
import { loadFaceFinder } from '../../src/analysis/face-finder.js';
import { sniff } from '../../src/api/media-kinds.js';

const HERE = new URL('.', import.meta.url).pathname;
const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const out = args[0];
const manifest = JSON.parse(await readFile(join(HERE, '../veracity-detector/manifest.json'), 'utf8'));
const shipped = manifest.portraits?.finder ?? {};
const search = opt('--search', (shipped.search ?? []).join(','));
const params = {
  shortSide: Number(opt('--short-side', String(shipped.shortSide ?? 320))),
  scaleFactor: Number(opt('--scale-factor', String(shipped.scaleFactor ?? 1.1))),
  minNeighbors: Number(opt('--min-neighbors', String(shipped.minNeighbors ?? 5))),
  minFace: Number(opt('--min-face', String(shipped.minFace ?? 0.12))),
  // the product's turned looks (manifest portraits.finder.search, or --search -25,25,90,270), so the tags match it
  ...(search ? { search: search.split(',').map(Number), searchBelow: manifest.portraits?.minFace ?? 0.15 } : {}),
};
// turned looks' neighbours (manifest portraits.finder.searchNeighbors, or --search-neighbors N)
const searchNeighbors = opt('--search-neighbors', shipped.search ? String(shipped.searchNeighbors ?? '') : '');
if (search && searchNeighbors) Object.assign(params, { searchNeighbors: Number(searchNeighbors) });
const from = opt('--from', join(HERE, '.cache/portraits.json'));
const paths = Object.keys(JSON.parse(await readFile(from, 'utf8')));
const finder = await loadFaceFinder(await readFile(join(HERE, '../veracity-detector/haarcascade_frontalface_alt2.xml')), params);
const tags: Record<string, [number | null, number | string]> = {};
let ms = 0;
let n = 0;
for (const p of paths) {
  try {
    const bytes = await readFile(p.startsWith('/') ? p : join(HERE, p));
    const sniffed = sniff(bytes.subarray(0, 64));
    if (!sniffed || sniffed.kind !== 'images') {
      tags[p] = [null, 'not a picture the product reads'];
      continue;
    }
    const img = await decodeImageBuffer(bytes, sniffed.mediaType);
    const t0 = performance.now();
    const r = await finder.find(img);
    ms += performance.now() - t0;
    n++;
    tags[p] = [r.faces, r.largest];
  } catch (err) {
    tags[p] = [null, String((err as Error).message).slice(0, 80)];
  }
}
await writeFile(out, JSON.stringify({ params, msPerFile: ms / Math.max(1, n), tags }));
console.log(JSON.stringify({ params, files: paths.length, found: n, msPerFile: Math.round(ms / Math.max(1, n)) }));
