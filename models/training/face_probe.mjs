// Probe for the next step of issue 21 (a face-aware decision; models/training/semantic/README.md "Portraits"): does
// OpenCV's Haar cascade, run in Node through @techstark/opencv-js (WASM, Apache-2.0; NOT a dependency of the product
// yet), find the same faces as portraits.py (Python cv2 4.6, Debian) on the tagged evaluation files? Same cascade
// (Debian's opencv-data haarcascade_frontalface_alt2.xml), same parameters, a sixth of the tagged files.
//   mkdir -p /tmp/ocvjs && (cd /tmp/ocvjs && npm init -y && npm install @techstark/opencv-js@4.12.0-release.1)
//   OPENCV_JS=/tmp/ocvjs/node_modules/@techstark/opencv-js/dist/opencv.js node models/training/face_probe.mjs
// Measured 2026-11-27: 302 of 308 files in the same class (portrait 62 of 65, people 28, none 212), 234 ms a file with
// sharp's decode, one thread.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
const require = createRequire('/work/main/package.json');
const sharp = require('sharp');
const cvMod = require(process.env.OPENCV_JS);
await new Promise((res) => { const t = setInterval(() => { if (cvMod.Mat && cvMod.CascadeClassifier) { clearInterval(t); res(); } }, 50); });
const cv = cvMod;
cv.FS_createDataFile('/', 'f.xml', fs.readFileSync('/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml'), true, false, false);
const cc = new cv.CascadeClassifier(); cc.load('f.xml');
const tags = JSON.parse(fs.readFileSync('models/training/.cache/portraits.json', 'utf8'));
const keys = Object.keys(tags).filter((k) => tags[k][0] !== null).filter((_, i) => i % 6 === 0);
let agree = 0, n = 0; const t0 = Date.now(); const kind = (f) => (f >= 0.15 ? 'portrait' : f >= 0.05 ? 'people' : 'none');
const conf = {};
for (const k of keys) { try {
  const file = path.resolve('models/training', k);
  let meta; try { meta = await sharp(file, { failOn: 'none' }).metadata(); } catch { continue; }
  const w0 = meta.width, h0 = meta.height; const s = Math.min(1, 800 / Math.max(w0, h0));
  const w = Math.max(1, Math.round(w0 * s)), h = Math.max(1, Math.round(h0 * s));
  const { data } = await sharp(file, { failOn: 'none' }).flatten({ background: '#ffffff' }).grayscale().resize(w, h, { kernel: 'linear', fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  const mat = cv.matFromArray(h, w, cv.CV_8UC1, Array.from(data));
  const faces = new cv.RectVector(); const short = Math.min(w, h); const m = Math.max(12, Math.floor(short * 0.04));
  cc.detectMultiScale(mat, faces, 1.1, 5, 0, new cv.Size(m, m), new cv.Size(0, 0));
  let best = 0; for (let i = 0; i < faces.size(); i++) { const r = faces.get(i); best = Math.max(best, Math.min(r.width, r.height) / short); }
  mat.delete(); faces.delete();
  const a = kind(best), b = kind(tags[k][1]); conf[`${b}->${a}`] = (conf[`${b}->${a}`] ?? 0) + 1; n++; if (a === b) agree++;
} catch { continue; } }
console.log(JSON.stringify({ n, agree, ms_per_file: (Date.now() - t0) / n, conf }));
