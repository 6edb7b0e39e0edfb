// How often the FFHQ framing check (src/analysis/face-framing.ts) fires, with the shipped face finder and its manifest
// parameters, per source: on StyleGAN faces it was not set on (Data 2.3's measuring sources), on real photos of every
// kind (Data v1-2.3's real sources, ../shared/datasets' real photos and modern/'s, the camera and phone originals of
// issue 11's corpus) and on other AI images. Its bounds were set on the training role's faces (BaseMax__FakeFaces,
// dinablachman__realorfake__real), whose face positions are summarised here too. Run by hand:
//   nice -n 10 npx tsx test/eval/face-framing.ts [--per-source 40] [--mirrors /work/.mirror]
// Writes test/eval/results/face-framing.json.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeImageBuffer } from '../../src/analysis/decode-image.js';
import { loadFaceFinder, type FaceReading } from '../../src/analysis/face-finder.js';
import { FFHQ_FRAMING, ffhqFramed } from '../../src/analysis/face-framing.js';
import { ModelManifest } from '../../src/analysis/model-manifest.js';
import { SNIFF_BYTES, sniff } from '../../src/api/media-kinds.js';
import { arg, DATASETS, FORBIDDEN_AI_DIRS, loadCorpus, REPO } from './capture-sets.js';

const PER_SOURCE = Number(arg('--per-source', '40'));
const MIRRORS = arg('--mirrors', '/work/.mirror');
const DATA = join(REPO, 'models', 'training', '.data', 'images');
/** The training role's faces: the bounds were set on where the finder puts these (never a measuring source). */
const SETTING = new Set(['ai/BaseMax__FakeFaces', 'real/dinablachman__realorfake__real']);
/** StyleGAN faces never used to set anything: what the check is for. */
const GAN_HELD_OUT = new Set(['ai/ZhuoxuanZhangHarry__AgeGAN-FaceEvolution', 'ai/dinablachman__realorfake__fake']);

interface Item {
  group: string;
  source: string;
  read: () => Buffer;
  name: string;
}

const evenly = <T>(xs: T[], n: number) => (n && xs.length > n ? xs.filter((_, i) => i % Math.ceil(xs.length / n) === 0) : xs);

function folderItems(root: string, group: (label: string, source: string) => string, prefix: string, all = false): Item[] {
  const out: Item[] = [];
  for (const label of ['ai', 'real']) {
    for (const source of readdirSync(join(root, label)).sort()) {
      if (label === 'ai' && FORBIDDEN_AI_DIRS.has(source)) continue;
      const key = `${label}/${source}`;
      const dir = join(root, label, source);
      const names = readdirSync(dir).filter((f) => /\.(png|jpe?g|heic|heif)$/i.test(f)).sort();
      for (const f of all || SETTING.has(key) || GAN_HELD_OUT.has(key) ? names : evenly(names, PER_SOURCE)) {
        out.push({ group: group(label, key), source: `${prefix}${key}`, name: f, read: () => readFileSync(join(dir, f)) });
      }
    }
  }
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const sd = (xs: number[]) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));
const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

async function main() {
  const manifest = ModelManifest.parse(JSON.parse(readFileSync(join(REPO, 'models', 'veracity-detector', 'manifest.json'), 'utf8')));
  const spec = manifest.portraits!.finder;
  const finder = await loadFaceFinder(readFileSync(join(REPO, 'models', 'veracity-detector', spec.file)), spec);
  const items: Item[] = [
    ...folderItems(DATA, (label, key) => (SETTING.has(key) ? 'setting' : GAN_HELD_OUT.has(key) ? 'gan_held_out' : label === 'ai' ? 'other_ai' : 'real'), 'data/'),
    ...folderItems(join(DATASETS, 'train'), (label) => (label === 'ai' ? 'other_ai' : 'real'), 'shared-train/'),
    ...folderItems(join(DATASETS, 'modern'), (label) => (label === 'ai' ? 'other_ai' : 'real'), 'modern/', true),
  ];
  const corpus = await loadCorpus(MIRRORS);
  for (const f of corpus.all) {
    items.push({ group: 'camera_originals', source: `originals/${f.repo}`, name: f.path, read: () => corpus.bufOf(f) });
  }
  const rows: Array<{ group: string; source: string; name: string; width: number; height: number; faces: FaceReading; framed: boolean }> = [];
  let skipped = 0;
  for (const it of items) {
    const buf = it.read();
    const media = sniff(buf.subarray(0, SNIFF_BYTES))?.mediaType;
    if (!media || !/^image\/(jpeg|png|heic)$/.test(media)) {
      skipped++;
      continue;
    }
    try {
      const img = await decodeImageBuffer(buf, media as 'image/jpeg');
      const faces = await finder.find(img);
      rows.push({ group: it.group, source: it.source, name: it.name, width: img.width, height: img.height, faces, framed: ffhqFramed(img.width, img.height, faces) });
    } catch {
      skipped++;
    }
    if (rows.length % 250 === 0) process.stderr.write(`${rows.length} / ${items.length}\n`);
  }
  const bySource: Record<string, { group: string; n: number; withFace: number; framed: number; framedFiles: string[] }> = {};
  for (const r of rows) {
    const s = (bySource[r.source] ??= { group: r.group, n: 0, withFace: 0, framed: 0, framedFiles: [] });
    s.n++;
    if (r.faces.faces) s.withFace++;
    if (r.framed) {
      s.framed++;
      if (r.group !== 'setting' && r.group !== 'gan_held_out') s.framedFiles.push(r.name);
    }
  }
  const groups: Record<string, { n: number; withFace: number; framed: number; share: number }> = {};
  for (const r of rows) {
    const g = (groups[r.group] ??= { n: 0, withFace: 0, framed: 0, share: 0 });
    g.n++;
    if (r.faces.faces) g.withFace++;
    if (r.framed) g.framed++;
  }
  for (const g of Object.values(groups)) g.share = r4(g.framed / g.n);
  const setting = rows.filter((r) => r.group === 'setting' && r.faces.centre);
  const positions = Object.fromEntries(
    [...SETTING].map((src) => {
      const rs = setting.filter((r) => r.source === `data/${src}`);
      const xs = rs.map((r) => r.faces.centre![0]);
      const ys = rs.map((r) => r.faces.centre![1]);
      const ss = rs.map((r) => r.faces.largest);
      return [src, { n: rs.length, x: [r4(mean(xs)), r4(sd(xs))], y: [r4(mean(ys)), r4(sd(ys))], side: [r4(mean(ss)), r4(sd(ss))] }];
    }),
  );
  const out = { rule: FFHQ_FRAMING, finder: spec, perSource: PER_SOURCE, skipped, groups, settingPositions: positions, bySource };
  writeFileSync(join(REPO, 'test', 'eval', 'results', 'face-framing.json'), `${JSON.stringify(out, null, 1)}\n`);
  console.log(JSON.stringify({ groups, settingPositions: positions }, null, 1));
  finder.close();
}

await main();
