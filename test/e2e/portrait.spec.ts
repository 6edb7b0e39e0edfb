// veracity-detector 1.5.0 in the window, against the real core and model: a genuine portrait whose pixel score would be
// an accusation for any other photo is read against the portrait thresholds, and the card says so in words.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { expect, test } from './core-fixture.js';

const PORTRAIT = path.resolve('test/fixtures/portraits/official-portrait-910x1137.jpg');
const MODEL = JSON.parse(fs.readFileSync(path.resolve('models/veracity-detector/manifest.json'), 'utf8')) as {
  thresholds: { highAi: number };
  portraits?: { thresholds: { highAi: number } };
};

test.describe.configure({ timeout: 300_000 });

test('a genuine portrait scored above the other pictures\' bar is not called AI-generated, and its card says it was read as a portrait', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent || !MODEL.portraits, 'needs the detector model with portrait thresholds');
  await page.getByLabel(/Case name for loose files/).fill('Portrait case');
  await page.getByTestId('file-input').setInputFiles([{ name: 'portrait.jpg', mimeType: 'image/jpeg', buffer: fs.readFileSync(PORTRAIT) }]);
  const card = page.locator('[data-testid="verdict-card"][data-file-name="portrait.jpg"]');
  await expect(card).toHaveAttribute('data-status', 'completed', { timeout: 240_000 });
  const score = Number(await card.getAttribute('data-ai-score'));
  // the fixture's point (test/fixtures/portraits/README.md): between the two bars
  expect(score).toBeGreaterThanOrEqual(MODEL.thresholds.highAi);
  expect(score).toBeLessThan(MODEL.portraits!.thresholds.highAi);
  await expect(card.getByTestId('verdict-word')).toHaveText('Inconclusive');
  await expect(card.locator('[data-testid="dimension"][data-key="ai_detection"]')).toHaveAttribute('data-band', 'inconclusive');
  await expect(card).toContainText(/A face spans 30% of the picture's shorter side, so it is read as a portrait/);
  await expect(card).toContainText(`portraits point to AI with high confidence only from ${Math.round(MODEL.portraits!.thresholds.highAi * 100)}%`);
  await expect(card).toContainText('It rarely catches faces made by GANs');
});

test('a portrait cut square with the face where StyleGAN draws faces: the card says it is framed as GAN faces are', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent || !MODEL.portraits, 'needs the detector model with portrait thresholds');
  // the official portrait cut around its face at FFHQ's place and size (the shipped finder puts the face at x 0.545,
  // y 0.214 of the picture, its side 0.303 of the width: a 424-px square from (284, 12) puts it at 0.5 / 0.545 / 0.65)
  const framed = await sharp(fs.readFileSync(PORTRAIT)).extract({ left: 284, top: 12, width: 424, height: 424 }).resize(512, 512).jpeg({ quality: 90 }).toBuffer();
  await page.getByLabel(/Case name for loose files/).fill('Framed case');
  await page.getByTestId('file-input').setInputFiles([{ name: 'framed.jpg', mimeType: 'image/jpeg', buffer: framed }]);
  const card = page.locator('[data-testid="verdict-card"][data-file-name="framed.jpg"]');
  await expect(card).toHaveAttribute('data-status', 'completed', { timeout: 240_000 });
  await expect(card.getByTestId('verdict-word')).not.toHaveText('Authentic');
  await expect(card).toContainText(/The picture is square and its face is centred at \d+% of its side, exactly where StyleGAN's face generators/);
  await expect(card).toContainText('camera metadata alone does not clear it');
});
