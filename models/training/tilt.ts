// A picture turned as a tilted camera would take it: rotated clockwise by `angle` degrees, then the rotated picture's
// centre cut at the original size (black where the turn leaves no pixels); `whole` keeps all of the rotated canvas
// (90 and 270: a picture whose orientation tag was stripped). Shared by face_tilt.ts and face_tilt_files.ts.
import { createRequire } from 'node:module';
import type { RgbImage } from '../../src/analysis/decode-image.js';
const require = createRequire(new URL('../../package.json', import.meta.url));
const sharp = require('sharp');

export const rawSharp = (img: RgbImage) => sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });

export async function tilt(img: RgbImage, angle: number, whole = false): Promise<RgbImage> {
  const { data, info } = await rawSharp(img).rotate(angle, { background: '#000' }).raw().toBuffer({ resolveWithObject: true });
  if (whole) return { width: info.width, height: info.height, data };
  const left = Math.floor((info.width - img.width) / 2), top = Math.floor((info.height - img.height) / 2);
  const c = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .extract({ left, top, width: img.width, height: img.height }).raw().toBuffer({ resolveWithObject: true });
  return { width: c.info.width, height: c.info.height, data: c.data };
}
