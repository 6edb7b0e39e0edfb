// Issue 22, items 7 and 8, in the window against the real core and model. PDFs: one encrypted with permissions only
// gets a verdict and a heatmap; one that needs a password is not assessed, in no verdict's colour; a PDF with no
// picture offers no heatmap; the bar above the cards counts what the chips count. The viewer on a large photo: the
// side panel gives the card's reason, the score and the pixel size; zoomed in, every tile of the part shown is
// scored by the core (nothing hatched is left there), and a second look scores nothing.
import type { Page } from '@playwright/test';
import { photoPdf, textPdf } from '../unit/analysis/fixtures.js';
import { expect, test } from './core-fixture.js';
import { makeImage } from './generate-files.js';

const cards = (page: Page) => page.getByTestId('verdict-card');
// A large photo and four PDFs through the real model, on a machine that may be busy.
test.describe.configure({ timeout: 600_000 });

/** A colour of the window's palette (a CSS custom property) as the browser computes it, e.g. "rgb(185, 28, 28)". */
async function paletteColour(page: Page, name: string): Promise<string> {
  return page.evaluate((prop) => {
    const probe = document.createElement('span');
    probe.style.color = `var(${prop})`;
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  }, name);
}

test('PDFs: permissions-only encryption is assessed, a password-locked PDF is not assessed and not red, a PDF without pictures offers no heatmap; the bar counts what the chips count', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'verdicts need the detector model');
  await page.getByLabel(/Case name for loose files/).fill('PDF case');
  // AES-128 here (pdf.js derives AES-256 keys in JavaScript: slow for a cold probe worker on a busy machine); the
  // API test (test/api/encrypted-pdfs.test.ts) sends AES-256.
  await page.getByTestId('file-input').setInputFiles([
    { name: 'estimate-permissions.pdf', mimeType: 'application/pdf', buffer: await photoPdf({ ownerPassword: 'owner', pdfVersion: '1.7', permissions: { printing: 'highResolution', copying: false } }) },
    { name: 'estimate-locked.pdf', mimeType: 'application/pdf', buffer: await photoPdf({ userPassword: 'secret', ownerPassword: 'owner', pdfVersion: '1.7' }) },
    { name: 'letter-text-only.pdf', mimeType: 'application/pdf', buffer: textPdf() },
    { name: 'quay.jpg', mimeType: 'image/jpeg', buffer: await makeImage(81, 'jpeg') },
  ]);

  // The locked PDF is refused by the core (422): its card says why, in words, with no verdict's colour.
  const locked = page.locator('[data-testid="pending-card"][data-file-name="estimate-locked.pdf"]');
  await expect(locked).toHaveAttribute('data-stage', 'not_sent', { timeout: 120_000 });
  await expect(locked).toContainText('protected by a password');
  const border = await locked.evaluate((el) => getComputedStyle(el).borderTopColor);
  expect(border).not.toBe(await paletteColour(page, '--ai'));
  expect(border).not.toBe(await paletteColour(page, '--unsure'));
  expect(border).toBe(await paletteColour(page, '--none'));
  expect(await locked.locator('[data-testid="file-stage"]').evaluate((el) => getComputedStyle(el).color)).not.toBe(await paletteColour(page, '--ai'));

  await expect(cards(page)).toHaveCount(3);
  await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 240_000 });

  // Encrypted with permissions only: analysed like any other PDF, its picture scored, the encryption said.
  const permissions = page.locator('[data-testid="verdict-card"][data-file-name="estimate-permissions.pdf"]');
  await expect(permissions).toHaveAttribute('data-status', 'completed');
  await expect(permissions).not.toHaveAttribute('data-ai-score', '');
  await expect(permissions).toContainText('encrypted with permissions only');
  await expect(permissions.getByTestId('open-viewer')).toHaveText('View full size with heatmap');

  // No picture in it, so no heatmap is offered; the photo has one.
  const textOnly = page.locator('[data-testid="verdict-card"][data-file-name="letter-text-only.pdf"]');
  await expect(textOnly).toHaveAttribute('data-status', 'completed');
  await expect(textOnly).toHaveAttribute('data-ai-score', '');
  await expect(textOnly.getByTestId('open-viewer')).toHaveText('View full size');
  await expect(textOnly.getByTestId('open-viewer')).toHaveAttribute('aria-label', 'View letter-text-only.pdf full size');
  await expect(textOnly.getByLabel('Show heatmap of tile scores')).toHaveCount(0);
  await expect(page.locator('[data-file-name="quay.jpg"]').getByTestId('open-viewer')).toHaveText('View full size with heatmap');
  await textOnly.getByTestId('open-viewer').click();
  const viewer = page.getByRole('dialog');
  await expect(viewer).toContainText('The detector scored no picture in this file, so there is no heatmap.');
  await expect(viewer.getByLabel('Show heatmap of tile scores')).toHaveCount(0);
  await page.keyboard.press('Escape');

  // The bar counts the same four files as the chips, the one not assessed included.
  const triage = page.getByTestId('triage');
  await expect(triage.getByTestId('filter-all')).toContainText('4');
  await expect(triage.getByTestId('filter-not_assessed')).toHaveAttribute('data-count', '1');
  await expect(page.getByRole('status').filter({ hasText: 'files finished' })).toContainText('4 of 4 files finished, 1 not assessed');
  let sum = 0;
  for (const state of ['ai_generated', 'inconclusive', 'authentic', 'not_assessed'] as const) sum += Number(await triage.getByTestId(`filter-${state}`).getAttribute('data-count'));
  expect(sum).toBe(4);
});

test('viewer on a large photo: reason, score and pixel size beside it; zoomed in, every tile of the part shown gets scored, once', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'the heatmap needs the detector model');
  // 2400 x 1600: 24 x 15 = 360 tiles; the analysis scores 32, for the file's score and the heatmap (64 for the heatmap before 1.6.2).
  const W = 2400;
  const H = 1600;
  await page.getByLabel(/Case name for loose files/).fill('Large photo case');
  await page.getByTestId('file-input').setInputFiles([{ name: 'roof-12mp.jpg', mimeType: 'image/jpeg', buffer: await makeImage(91, 'jpeg', W, H) }]);
  const card = page.locator('[data-testid="verdict-card"][data-file-name="roof-12mp.jpg"]');
  await expect(card).toHaveAttribute('data-status', 'completed', { timeout: 240_000 });
  const cardScore = Number(await card.getAttribute('data-ai-score'));
  const cardTitle = (await card.locator('.verdict-title').textContent()) ?? '';
  const cardDescription = (await card.locator('.verdict-description').textContent()) ?? '';

  await card.getByTestId('open-viewer').click();
  const viewer = page.getByRole('dialog');
  await expect(viewer.getByTestId('viewer-image')).toBeVisible();
  await expect(viewer.getByTestId('viewer-dimensions')).toHaveText(`${W} × ${H} pixels`);
  await expect(viewer.getByTestId('viewer-score')).toHaveText(`AI detector score ${Math.round(cardScore * 100)} %`);
  const reason = viewer.getByTestId('viewer-reason');
  await expect(reason).toContainText(cardTitle);
  await expect(reason).toContainText(cardDescription);

  // Fitted, the whole photo is too many tiles for one request: the window says to zoom in; gaps are hatched.
  await expect(viewer.getByTestId('region-status')).toHaveAttribute('data-state', 'zoom_in');
  const stage = viewer.getByTestId('viewer-stage');
  const hatchedOnStage = async (): Promise<number> => {
    const box = (await stage.boundingBox())!;
    return viewer.getByTestId('unscored').evaluateAll(
      (els, b) =>
        els.filter((el) => {
          const r = el.getBoundingClientRect();
          // More than a pixel of overlap with the stage (sub-pixel edges of neighbouring cells do not count).
          return Math.min(r.right, b.x + b.width) - Math.max(r.left, b.x) > 1 && Math.min(r.bottom, b.y + b.height) - Math.max(r.top, b.y) > 1;
        }).length,
      box,
    );
  };
  const cellsBefore = await viewer.getByTestId('heat-tile').count();

  // One file pixel per screen pixel, centred: the part shown holds about a hundred tiles, most never scored.
  await viewer.getByRole('button', { name: /Native resolution/ }).click();
  await expect(viewer.getByTestId('zoom-level')).toHaveText('100 %');
  const status = viewer.getByTestId('region-status');
  await expect(status).toHaveAttribute('data-state', 'scored', { timeout: 120_000 });
  await expect(status).toContainText('scored just now');
  expect(await hatchedOnStage()).toBe(0);
  expect(await viewer.getByTestId('heat-tile').count()).toBeGreaterThan(cellsBefore);
  await expect(viewer.getByTestId('viewer-image')).toBeVisible();

  // A second look at the same part: everything is known, nothing is scored again.
  await viewer.getByRole('button', { name: /Fit to the window/ }).click();
  await expect(status).toHaveAttribute('data-state', 'zoom_in');
  await viewer.getByRole('button', { name: /Native resolution/ }).click();
  await expect(status).toHaveAttribute('data-state', 'scored');
  await expect(status).not.toContainText('just now');
  expect(await hatchedOnStage()).toBe(0);
});
