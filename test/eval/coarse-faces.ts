// How often the face check's coarse look (face-finder.ts coarseGrey, FaceFinder.lookCoarse) puts a picture in the same
// group as the calibrated upright look (greyForFaces), per source, at several sizes of its grey picture. The coarse
// look decides nothing: it gives the portrait note of a picture whose reading cannot depend on its group (a score where
// both groups' thresholds read alike; detectors/ai-detection.ts); wherever the group can matter, the calibrated looks
// are made. What a disagreement costs is a portrait note shown or missing on such a picture, and a face share quoted a
// little differently. A square picture (which may be framed as a GAN face) and one of at most 1 MP always get the
// calibrated look, so the pictures that matter are the others; as the shared training set is nearly all square, each
// square picture is also looked at cut to 4:3 (its middle rows: `crops43`). Run by hand:
//   nice -n 10 npx tsx test/eval/coarse-faces.ts [--sizes 320,240,160]
// Reads every picture of ../shared/datasets/train and test/fixtures; writes test/eval/results/coarse-faces.json.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { decodeImageBuffer } from '../../src/analysis/decode-image.js';
import { coarseGrey, greyToLookAt, loadFaceFinder, MAX_FACE_ASPECT, MAX_GREY_PIXELS } from '../../src/analysis/face-finder.js';
import { readManifest } from '../../src/analysis/model-session.js';
import { squareForFraming } from '../../src/analysis/face-framing.js';
import { arg, DATASETS, imageMediaOf, REPO } from './capture-sets.js';

const SIZES = arg('--sizes', '320,240,160').split(',').map(Number);
const MODELS = join(REPO, 'models');
const MODEL = join(MODELS, 'veracity-detector');

function pictures(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(png|jpe?g|heic|heif)$/i.test(f)) out.push(p);
    }
  };
  walk(root);
  return out;
}

const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

async function main() {
  const manifest = await readManifest(MODELS);
  const p = manifest.portraits!;
  const finder = await loadFaceFinder(readFileSync(join(MODEL, p.finder.file)), p.finder);
  const files = [...pictures(join(DATASETS, 'train')).map((f) => ({ f, source: relative(DATASETS, f).split('/').slice(0, 3).join('/') })), ...pictures(join(REPO, 'test', 'fixtures')).map((f) => ({ f, source: 'test/fixtures' }))];
  type Tally = { pictures: number; calibratedPortraits: number; agree: number; calibratedOnly: string[]; coarseOnly: string[]; shareDiffs: number[] };
  const bySize = new Map<number, Map<string, Tally>>(SIZES.map((s) => [s, new Map()]));
  const cpu = { calibrated: 0, ...Object.fromEntries(SIZES.map((s) => [`coarse${s}`, 0])) } as Record<string, number>;
  let looked = 0;
  let looks = 0;
  for (const { f, source } of files) {
    const bytes = readFileSync(f);
    const media = imageMediaOf(bytes);
    if (!media) continue;
    let img;
    try {
      img = await decodeImageBuffer(bytes, media);
    } catch {
      continue;
    }
    if (Math.max(img.width, img.height) > MAX_FACE_ASPECT * Math.min(img.width, img.height)) continue;
    looked++;
    const views: Array<[string, typeof img]> = [[squareForFraming(img.width, img.height) ? 'square' : 'nonSquare', img]];
    if (views[0][0] === 'square' && img.height >= 8) {
      // the middle rows, 3/4 of the height: a 4:3 picture (rows are contiguous in the buffer, so no copy)
      const h = Math.round(img.height * 0.75);
      const y0 = Math.floor((img.height - h) / 2);
      views.push(['crops43', { width: img.width, height: h, data: img.data.subarray(y0 * img.width * 3, (y0 + h) * img.width * 3) }]);
    }
    for (const [view, pic] of views) await lookAt(view, pic, source, relative(REPO, f) + (view === 'crops43' ? ' (4:3 cut)' : ''));
    if (looked % 200 === 0) console.error(`${looked} pictures`);
  }
  async function lookAt(view: string, img: Awaited<ReturnType<typeof decodeImageBuffer>>, source: string, name: string) {
    looks++;
    let c0 = process.cpuUsage();
    const grey = (await greyToLookAt(img, p.finder.shortSide, MAX_FACE_ASPECT, MAX_GREY_PIXELS))!;
    const cal = await finder.findGrey(grey, undefined, { part: 'upright' });
    cpu.calibrated += cpuMs(process.cpuUsage(c0));
    const calPortrait = cal.largest >= p.minFace;
    for (const size of SIZES) {
      c0 = process.cpuUsage();
      const coarse = await finder.findGrey(coarseGrey(img, size), undefined, { part: 'upright' });
      cpu[`coarse${size}`] += cpuMs(process.cpuUsage(c0));
      const t = bySize.get(size)!;
      const key = `${view}:${source}`;
      const s = t.get(key) ?? { pictures: 0, calibratedPortraits: 0, agree: 0, calibratedOnly: [], coarseOnly: [], shareDiffs: [] };
      t.set(key, s);
      s.pictures++;
      if (calPortrait) s.calibratedPortraits++;
      const coarsePortrait = coarse.largest >= p.minFace;
      if (coarsePortrait === calPortrait) {
        s.agree++;
        if (calPortrait) s.shareDiffs.push(Math.abs(coarse.largest - cal.largest));
      } else (calPortrait ? s.calibratedOnly : s.coarseOnly).push(`${name} (calibrated ${cal.largest}, coarse ${coarse.largest})`);
    }
  }
  const summary = (tallies: Tally[]) => {
    const diffs = tallies.flatMap((t) => t.shareDiffs).sort((a, b) => a - b);
    const n = tallies.reduce((a, t) => a + t.pictures, 0);
    const agree = tallies.reduce((a, t) => a + t.agree, 0);
    return {
      pictures: n,
      calibratedPortraits: tallies.reduce((a, t) => a + t.calibratedPortraits, 0),
      sameGroup: agree,
      sameGroupShare: r4(agree / Math.max(1, n)),
      portraitOnlyByCalibrated: tallies.reduce((a, t) => a + t.calibratedOnly.length, 0),
      portraitOnlyByCoarse: tallies.reduce((a, t) => a + t.coarseOnly.length, 0),
      faceShareAbsDiffMedian: diffs.length ? r4(diffs[Math.floor(diffs.length / 2)]) : null,
      faceShareAbsDiffMax: diffs.length ? r4(diffs[diffs.length - 1]) : null,
    };
  };
  const out = {
    name: 'coarse-faces',
    at: new Date().toISOString(),
    model: `${manifest.name}@${manifest.version}`,
    calibrated: { shortSide: p.finder.shortSide, grey: 'greyForFaces (sharp greyscale, then linear resize)' },
    coarse: 'coarseGrey: mean Rec. 709 luminance in linear light of a 2 x 2 sample per grey pixel; the same cascade and parameters, upright look',
    portraitMinFace: p.minFace,
    picturesLooked: looked,
    looks,
    cpuMsPerPicture: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, Math.round((10 * v) / Math.max(1, looks)) / 10])),
    sizes: Object.fromEntries(
      [...bySize].map(([size, t]) => [
        size,
        {
          all: summary([...t].filter(([k]) => !k.startsWith('crops43:')).map(([, v]) => v)),
          nonSquare: summary([...t].filter(([k]) => k.startsWith('nonSquare:')).map(([, v]) => v)),
          square: summary([...t].filter(([k]) => k.startsWith('square:')).map(([, v]) => v)),
          crops43: summary([...t].filter(([k]) => k.startsWith('crops43:')).map(([, v]) => v)),
          bySource: Object.fromEntries([...t].map(([src, s]) => [src, { ...summary([s]), disagreements: [...s.calibratedOnly, ...s.coarseOnly] }])),
        },
      ]),
    ),
  };
  writeFileSync(join(REPO, 'test', 'eval', 'results', 'coarse-faces.json'), JSON.stringify(out, null, 2) + '\n');
  finder.close();
  console.log(JSON.stringify(Object.fromEntries(Object.entries(out.sizes).map(([k, v]) => [k, { all: v.all, nonSquare: v.nonSquare, crops43: v.crops43 }])), null, 1), out.cpuMsPerPicture);
}

await main();
