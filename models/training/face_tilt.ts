// Measures the product's face finder (src/analysis/face-finder.ts, the shipped cascade and parameters) on tilted and
// rotated real portraits: the validation's real files face-tags.json calls portraits, rotated by each tilt (a tilted
// camera: the rotated picture's centre at the original size; 90 and 270 whole), each found upright as the product
// does today, and found again with a search of rotated copies (SEARCH, degrees) when the upright look finds none; and
// how often that search tags a portrait in about 200 real files the upright finder calls non-portraits. A real
// portrait the finder misses is read against the rest's thresholds (1.5.0: 0.829 against 0.9574).
//   npx tsx models/training/face_tilt.ts [SEARCH [NEIGHBOURS]] > semantic/results/fourteenth-face-tilt-nN.json   (about 10 min, one core)
// (thirteenth-face-tilt.json came from an earlier copy that turned the RGB picture itself; this one uses the product's
// search, src/analysis/face-finder.ts, which turns the finder's 320-px grey copy)
import { readFile } from 'node:fs/promises';
import { decodeImageBuffer, type RgbImage } from '../../src/analysis/decode-image.js';
import { loadFaceFinder } from '../../src/analysis/face-finder.js';
import { sniff } from '../../src/api/media-kinds.js';
import { rawSharp, tilt } from './tilt.js';
const T = new URL('.', import.meta.url).pathname;
const man = JSON.parse(await readFile(T + '../veracity-detector/manifest.json', 'utf8'));
const f = man.portraits.finder;
const MIN = man.portraits.minFace;
const xml = await readFile(T + '../veracity-detector/haarcascade_frontalface_alt2.xml');
const base = { shortSide: f.shortSide, scaleFactor: f.scaleFactor, minNeighbors: f.minNeighbors, minFace: f.minFace };
const finder = await loadFaceFinder(xml, base);
const tags = JSON.parse(await readFile(T + 'semantic/results/face-tags.json', 'utf8')).tags;
const SEARCH = (process.argv[2] ?? '-25,25,90,270').split(',').map(Number);
// the product's own search (face-finder.ts: turned copies when the upright look finds no face of portrait size)
const NEIGHBOURS = process.argv[3] ? { searchNeighbors: Number(process.argv[3]) } : {};
const searching = await loadFaceFinder(xml, { ...base, search: SEARCH, searchBelow: MIN, ...NEIGHBOURS });
async function portrait(img: RgbImage, search: boolean): Promise<boolean> {
  const r = await (search ? searching : finder).find(img);
  return r.faces > 0 && r.largest >= MIN;
}
async function load(p: string): Promise<RgbImage | null> {
  const bytes = await readFile(T + p);
  const s = sniff(bytes.subarray(0, 64));
  if (!s || s.kind !== 'images') return null;
  let img = await decodeImageBuffer(bytes, s.mediaType);
  if (img.width * img.height > 4e6) {
    const k = Math.sqrt(4e6 / (img.width * img.height));
    const { data, info } = await rawSharp(img).resize(Math.round(img.width * k), Math.round(img.height * k)).raw().toBuffer({ resolveWithObject: true });
    img = { width: info.width, height: info.height, data };
  }
  return img;
}
const ports = Object.keys(tags).filter((p) => p.includes('/real/') && tags[p][0] && tags[p][1] >= MIN);
const tilts = [0, 10, -10, 20, -20, 30, -30, 40, -40, 90, 270];
const up: Record<number, number> = {}, se: Record<number, number> = {};
let n = 0;
for (const p of ports) {
  const img = await load(p);
  if (!img) continue;
  n++;
  for (const a of tilts) {
    const t = a ? await tilt(img, a, a % 90 === 0) : img;
    if (await portrait(t, false)) up[a] = (up[a] ?? 0) + 1;
    if (await portrait(t, true)) se[a] = (se[a] ?? 0) + 1;
  }
}
const others = Object.keys(tags).filter((p) => p.includes('/real/') && typeof tags[p][1] === 'number' && !(tags[p][0] && tags[p][1] >= MIN));
const step = Math.max(1, Math.floor(others.length / 200));
let m = 0, fp = 0;
for (let i = 0; i < others.length; i += step) {
  const img = await load(others[i]);
  if (!img) continue;
  m++;
  if (await portrait(img, true)) fp++;
}
console.log(JSON.stringify({ search: SEARCH, ...NEIGHBOURS, portraits: n, upright: up, withSearch: se, nonPortraits: m, taggedBySearch: fp }));
