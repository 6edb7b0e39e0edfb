// A phone HEIC's container with pictures another encoder coded: the capture check read only the container (brand, tile
// grid, Exif item), so a forger who puts an AI picture, coded by libheif, into an iPhone's own file kept the iPhone's
// `consistent` reading, and with a low pixel score the verdict was `authentic`. The coded pictures carry their
// encoder's choices: x265 (libheif, ImageMagick, GIMP, libvips) turns asymmetric motion partitions on in every preset,
// which no phone or camera original of the catalogue does (test/eval/results/capture-forgery.json).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { readCapture } from '../../../src/analysis/capture/index.js';
import { readHeicStructure } from '../../../src/analysis/capture/heic-structure.js';
import { readHevcConfig } from '../../../src/analysis/capture/hevc-config.js';
import { readHeifHeader } from '../../../src/analysis/image-headers.js';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { encodeWithLibheif, forgeIntoPhoneContainer, gridOf } from '../../support/heic-transplant.js';
import { REPO, tempDir } from './fixtures.js';

const IPHONE = readFileSync(join(REPO, 'test', 'fixtures', 'capture', 'apple-iphone-13-pro-orientation-6.heic'));
const MODELS = join(REPO, 'models');
const tmp = tempDir();
afterAll(async () => {
  tmp.cleanup();
  await closeAnalysis();
});

async function capture(buf: Buffer) {
  const h = readHeifHeader(buf);
  return readCapture({ buf, mediaType: 'image/heic', width: h.width, height: h.height });
}

describe("HEIC pictures coded by software, in a phone's container", () => {
  it("reads the encoder's choice from the coded picture: the iPhone's encoder leaves asymmetric partitions off, x265 turns them on in every preset", async () => {
    expect(readHeicStructure(IPHONE)?.coding).toEqual({ profile: 3, ampEnabled: false });
    const png = join(tmp.dir, 'flat.png');
    await sharp({ create: { width: 256, height: 192, channels: 3, background: { r: 90, g: 120, b: 60 } } }).png().toFile(png);
    for (const preset of ['ultrafast', 'medium', undefined]) {
      const { hvcC } = encodeWithLibheif(png, 60, preset);
      expect(readHevcConfig(hvcC.subarray(8))?.ampEnabled, String(preset)).toBe(true);
    }
    // a configuration cut short reads as nothing, not as a choice
    const { hvcC } = encodeWithLibheif(png);
    expect(readHevcConfig(hvcC.subarray(8, 40))).toBeNull();
  });

  it("an AI picture coded by libheif into the iPhone's own file keeps the phone's layout but reads re-saved, not consistent", async () => {
    const ai = join(REPO, '..', 'shared', 'datasets', 'modern', 'ai', 'gen_flux', 'assets__dev_grid.jpg');
    const forged = await forgeIntoPhoneContainer(IPHONE, ai, tmp.dir, 2, 'ultrafast');
    // everything the phone wrote is still there: brand, a grid of 48 tiles, the Exif item, the thumbnail reference
    const s = readHeicStructure(forged)!;
    expect(s).toMatchObject({ majorBrand: 'heic', primaryType: 'grid', hasExif: true, hasThumbnail: true });
    expect(gridOf(forged).tiles).toHaveLength(48);
    const original = await capture(IPHONE);
    expect(original.status).toBe('consistent');
    const r = await capture(forged);
    expect(r.claimed).toEqual(original.claimed);
    expect(r.findings.map((f) => f.code)).toContain('capture.heic.software_encoder');
    expect(r.findings.map((f) => f.code)).not.toContain('capture.heic.phone_structure');
    expect(r.status).toBe('resaved');
  });

  it("through the whole analysis: the phone's own photo re-coded by libheif into its file is no longer authentic, and the card says why", async () => {
    const a = await analyseFile(tmp.write('original.heic', IPHONE), 'image/heic', { modelsDir: MODELS });
    expect(a.verdict.assessment).toBe('authentic');
    // the photo as decoded (turned upright by its irot), turned back to the stored orientation, coded tile by tile
    const img = await decodeImageBuffer(IPHONE, 'image/heic');
    const png = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } }).rotate(270).png().toBuffer();
    const recoded = await forgeIntoPhoneContainer(IPHONE, png, tmp.dir, Infinity, 'ultrafast');
    execFileSync('heif-info', [tmp.write('recoded-check.heic', recoded)], { stdio: 'ignore' }); // a valid file for libheif
    const b = await analyseFile(tmp.write('recoded.heic', recoded), 'image/heic', { modelsDir: MODELS });
    expect(b.verdict.assessment).toBe('inconclusive');
    expect(b.verdict.display.description).toMatch(/coded by software such as libheif's x265/);
  });
});
