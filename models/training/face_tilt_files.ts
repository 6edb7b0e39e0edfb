// Writes 40 of the real validation portraits (every 4th of the 198 that face-tags.json tags, sorted by path), each re-encoded
// as JPEG q95 upright (OUT/up/N.jpg) and tilted 20 degrees (OUT/t20/N.jpg: the rotated picture's centre at the
// original size), so that the product's verdicts on a tilted camera can be compared with the same files upright:
//   npx tsx models/training/face_tilt_files.ts /tmp/tilt
//   npx veracity assess --json /tmp/tilt/up/*.jpg > up.json; npx veracity assess --json /tmp/tilt/t20/*.jpg > t20.json
import { readFile, mkdir } from 'node:fs/promises';
import { decodeImageBuffer } from '../../src/analysis/decode-image.js';
import { sniff } from '../../src/api/media-kinds.js';
import { rawSharp, tilt } from './tilt.js';
const T = new URL('.', import.meta.url).pathname;
const OUT = process.argv[2] ?? '/tmp/tilt';
const tags = JSON.parse(await readFile(T + 'semantic/results/face-tags.json', 'utf8')).tags;
const ports = Object.keys(tags).filter((p) => p.includes('/real/') && tags[p][0] && tags[p][1] >= 0.15).sort();
const step = Math.floor(ports.length / 40);
await mkdir(`${OUT}/up`, { recursive: true });
await mkdir(`${OUT}/t20`, { recursive: true });
let n = 0;
for (let i = 0; i < ports.length && n < 40; i += step) {
  const bytes = await readFile(T + ports[i]);
  const s = sniff(bytes.subarray(0, 64));
  if (!s || s.kind !== 'images') continue;
  const img = await decodeImageBuffer(bytes, s.mediaType);
  await rawSharp(img).jpeg({ quality: 95 }).toFile(`${OUT}/up/${n}.jpg`);
  await rawSharp(await tilt(img, 20)).jpeg({ quality: 95 }).toFile(`${OUT}/t20/${n}.jpg`);
  n++;
}
console.log(n);
