// The thermal check (src/analysis/thermal.ts) measured: how many genuine radiometric JPEGs it reads as thermal
// pictures, and how many forgeries it refuses, where a forgery is one genuine picture's pixels carrying another
// genuine picture's radiometric segments (FLIR: APP1 "FLIR"; DJI: APP3 and APP4). Pairings are drawn from another
// folder of the source repository where the set has several (survey flights shoot one scene many times), with the
// same raw size for DJI (its data must match the picture's size). Run by hand on restored sets:
//   npx tsx test/eval/thermal-agreement.ts DIR [DIR ...]      (e.g. models/training/.data/measureodd/real/thermal)
// Writes test/eval/results/thermal-agreement.json.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decodeImageBuffer } from '../../src/analysis/decode-image.js';
import { jpegSegments } from '../../src/analysis/capture/jpeg-structure.js';
import { DETAIL_AGREEMENT, LOCAL_AGREEMENT, readThermal, THERMAL_AGREEMENT, type ThermalReading } from '../../src/analysis/thermal.js';

const REPO = resolve(import.meta.dirname, '..', '..');
const PAIRS = 5;
const dirs = process.argv.slice(2);
if (!dirs.length) throw new Error('give one or more folders of thermal JPEGs');

interface Item {
  name: string;
  bytes: Buffer;
  reading: ThermalReading | null;
  radiometric: Buffer[];
  group: string;
}

/** The radiometric segments of a JPEG, whole (marker and length included), and the JPEG without them. */
function split(bytes: Buffer): { radiometric: Buffer[]; rest: Buffer } {
  const radiometric: Buffer[] = [];
  const keep: Buffer[] = [bytes.subarray(0, 2)];
  let last = 2;
  for (const { marker, start, end } of jpegSegments(bytes)) {
    const seg = bytes.subarray(start - 4, end);
    const flir = marker === 0xe1 && bytes.toString('latin1', start, start + 5) === 'FLIR\0';
    if (flir || marker === 0xe3 || marker === 0xe4) radiometric.push(seg);
    else keep.push(seg);
    last = end;
  }
  keep.push(bytes.subarray(last));
  return { radiometric, rest: Buffer.concat(keep) };
}

// Which repository folder a restored file came from: the manifests name it (restore_measure24.py names files
// <blob[:10]>__<basename>).
const folderOf = new Map<string, string>();
for (const tsv of ['measure-odd.tsv', 'measure-odd211.tsv']) {
  const lines = readFileSync(join(REPO, 'models', 'training', 'data', tsv), 'utf8').trim().split('\n').slice(1);
  for (const l of lines) {
    const [repo, , path, blob] = l.split('\t');
    folderOf.set(blob.slice(0, 10), `${repo}:${path.split('/').slice(0, -1).join('/')}`);
  }
}

const items: Item[] = [];
for (const d of dirs) {
  for (const name of readdirSync(resolve(REPO, d)).sort()) {
    if (!/\.jpe?g$/i.test(name)) continue;
    const bytes = readFileSync(join(resolve(REPO, d), name));
    const image = await decodeImageBuffer(bytes, 'image/jpeg');
    const reading = await readThermal(bytes, image);
    items.push({ name, bytes, reading, radiometric: split(bytes).radiometric, group: folderOf.get(name.slice(0, 10)) ?? name });
  }
}

const genuine = items.filter((i) => i.reading);
const forged: Array<{ pixels: string; data: string; maker: string; agreement: number; localAgreement: number; detailAgreement: number; consistent: boolean }> = [];
let seed = 1;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
for (const a of genuine) {
  const { rest } = split(a.bytes);
  const image = await decodeImageBuffer(a.bytes, 'image/jpeg');
  const pool = genuine.filter(
    (b) =>
      b !== a &&
      b.reading!.maker === a.reading!.maker &&
      (a.reading!.maker === 'FLIR' || (b.reading!.rawWidth === a.reading!.rawWidth && b.reading!.rawHeight === a.reading!.rawHeight)),
  );
  const other = pool.filter((b) => b.group !== a.group);
  const from = other.length >= PAIRS ? other : pool;
  const picked = new Set<Item>();
  while (picked.size < Math.min(PAIRS, from.length)) picked.add(from[Math.floor(rand() * from.length)]);
  for (const b of picked) {
    const forgery = Buffer.concat([rest.subarray(0, 2), ...b.radiometric, rest.subarray(2)]);
    const r = await readThermal(forgery, image);
    if (r) forged.push({ pixels: a.name, data: b.name, maker: r.maker, agreement: r.agreement, localAgreement: r.localAgreement, detailAgreement: r.detailAgreement, consistent: r.consistent });
  }
}

const byMaker = (rows: Array<{ maker: string; consistent: boolean }>) => {
  const out: Record<string, { n: number; consistent: number }> = {};
  for (const r of rows) {
    const e = (out[r.maker] ??= { n: 0, consistent: 0 });
    e.n++;
    if (r.consistent) e.consistent++;
  }
  return out;
};
const genuineRows = genuine.map((i) => ({ file: i.name, ...i.reading! }));
const out = {
  generatedBy: 'test/eval/thermal-agreement.ts',
  date: new Date().toISOString(),
  dirs,
  thresholds: { agreement: THERMAL_AGREEMENT, localAgreement: LOCAL_AGREEMENT, detailAgreement: DETAIL_AGREEMENT },
  files: items.length,
  withoutRadiometricData: items.filter((i) => !i.reading).map((i) => i.name),
  genuine: byMaker(genuineRows),
  forged: byMaker(forged),
  forgedHighest: {
    agreement: Math.max(...forged.map((f) => f.agreement)),
    localAgreement: Math.max(...forged.map((f) => f.localAgreement)),
    detailAgreement: Object.fromEntries(['FLIR', 'DJI'].map((m) => [m, Math.max(...forged.filter((f) => f.maker === m).map((f) => f.detailAgreement))])),
  },
  genuineDetailBelow: Object.fromEntries(['FLIR', 'DJI'].map((m) => [m, genuine.filter((i) => i.reading!.maker === m && i.reading!.detailAgreement < DETAIL_AGREEMENT).length])),
  genuineRows,
  forgedRows: forged,
};
writeFileSync(join(REPO, 'test', 'eval', 'results', 'thermal-agreement.json'), JSON.stringify(out, null, 1) + '\n');
console.log(JSON.stringify({ files: out.files, without: out.withoutRadiometricData.length, genuine: out.genuine, forged: out.forged, forgedHighest: out.forgedHighest, genuineDetailBelow: out.genuineDetailBelow }));
for (const r of genuineRows.filter((g) => !g.consistent)) console.log('genuine not read:', r.file, r.maker, r.agreement, r.localAgreement, r.detailAgreement);
