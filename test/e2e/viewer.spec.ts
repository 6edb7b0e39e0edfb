// The specialist's triage and evidence viewer against the real core and model: cards in drop order, counts by
// verdict that match the cards, sort and filter; the viewer opened from a card zooms, pans, reads a tile score on
// hover, shows the unscored margin, moves with the arrows, traps focus and gives it back on Esc; a PDF whose picture
// is JPEG 2000 is drawn (pdf.js's decoder and standard fonts served by the app) with the picture's own heatmap.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { ARTIFACTS, expect, test } from './core-fixture.js';
import sharp from 'sharp';
import { issueSigner, makeAuthority, pkiDir, signC2pa, signC2paEdit } from '../support/c2pa-signing.js';
import { makeImage, makePdf, pdfWithJpx, pngWithText } from './generate-files.js';

const SCREENSHOTS = path.resolve('renderer/screenshots');
/** The viewer test's pictures, sized so that the shipped model's tiling leaves a strip unscored on two sides. */
const MODEL = JSON.parse(fs.readFileSync(path.resolve('models/veracity-detector/manifest.json'), 'utf8')) as {
  input: { tileSize: number };
  tiling: { stride: number };
};
const unreached = (n: number) => n - (Math.floor((n - MODEL.input.tileSize) / MODEL.tiling.stride) * MODEL.tiling.stride + MODEL.input.tileSize);
const W = MODEL.input.tileSize * 3 + MODEL.tiling.stride + 32;
const H = MODEL.input.tileSize * 2 + MODEL.tiling.stride + 48;
const STRIP_RIGHT = unreached(W);
const STRIP_BOTTOM = unreached(H);
const cards = (page: Page) => page.getByTestId('verdict-card');
const names = async (page: Page): Promise<string[]> => cards(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-file-name') ?? ''));

async function finished(page: Page, count: number): Promise<void> {
  await expect(cards(page)).toHaveCount(count);
  await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 180_000 });
}

test('cards keep drop order; counts by verdict match the cards; sort and filter change the order and count', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'verdicts need the detector model');
  await page.getByLabel(/Case name for loose files/).fill('Triage case');
  // Dropped as: an image, a PDF, an image with AI provenance, an image; then one more image. The PDF goes to the
  // other application in a request of its own: before the fix its card came after every image of the drop.
  // (A picker's files come in name order, so the names follow the drop order here, all but the last one's.)
  const ai = pngWithText(await makeImage(63, 'png'), 'parameters', 'a harbour at dusk\nSteps: 20, Sampler: Euler a, CFG scale: 7, Seed: 1');
  await page.getByTestId('file-input').setInputFiles([
    { name: 'b-dock.jpg', mimeType: 'image/jpeg', buffer: await makeImage(61, 'jpeg') },
    { name: 'c-statement.pdf', mimeType: 'application/pdf', buffer: await makePdf(62) },
    { name: 'd-generated.png', mimeType: 'image/png', buffer: ai },
    { name: 'e-crane.jpg', mimeType: 'image/jpeg', buffer: await makeImage(64, 'jpeg') },
  ]);
  await expect(cards(page)).toHaveCount(4);
  await page.getByTestId('file-input').setInputFiles([{ name: 'a-late.jpg', mimeType: 'image/jpeg', buffer: await makeImage(65, 'jpeg') }]);
  await page.getByTestId('drop-confirm').getByRole('button', { name: 'Add to “Triage case”' }).click();
  await finished(page, 5);
  const dropOrder = ['b-dock.jpg', 'c-statement.pdf', 'd-generated.png', 'e-crane.jpg', 'a-late.jpg'];
  expect(await names(page)).toEqual(dropOrder);

  // Counts: one per verdict, adding up to the cards, and each equal to the cards its filter shows.
  const triage = page.getByTestId('triage');
  await expect(triage.getByTestId('filter-all')).toContainText('5');
  await expect(page.locator('[data-file-name="d-generated.png"]')).toHaveAttribute('data-verdict', 'ai_generated');
  await expect(triage.getByTestId('filter-ai_generated')).toHaveAttribute('data-count', '1');
  let total = 0;
  for (const state of ['ai_generated', 'inconclusive', 'authentic'] as const) {
    const button = triage.getByTestId(`filter-${state}`);
    const count = Number(await button.getAttribute('data-count'));
    total += count;
    await button.click();
    await expect(cards(page)).toHaveCount(count);
    for (const card of await cards(page).all()) await expect(card).toHaveAttribute('data-verdict', state);
  }
  expect(total).toBe(5);
  await triage.getByTestId('filter-ai_generated').click();
  expect(await names(page)).toEqual(['d-generated.png']);
  await triage.getByTestId('filter-all').click();
  await expect(cards(page)).toHaveCount(5);

  const sortBy = triage.getByLabel('Sort by');
  await sortBy.selectOption('name');
  expect(await names(page)).toEqual(['a-late.jpg', 'b-dock.jpg', 'c-statement.pdf', 'd-generated.png', 'e-crane.jpg']);
  await sortBy.selectOption('verdict');
  expect((await names(page))[0]).toBe('d-generated.png');
  await sortBy.selectOption('ai_score');
  const scores = await cards(page).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-ai-score'))));
  expect(scores).toEqual([...scores].sort((a, b) => b - a));
  await sortBy.selectOption('drop');
  expect(await names(page)).toEqual(dropOrder);

  // One vocabulary: the verdict badge uses the window's words, never the core's older label.
  await expect(page.getByText('No AI detected')).toHaveCount(0);
  await expect(page.locator('[data-file-name="d-generated.png"] [data-testid="verdict-word"]')).toHaveText('AI-generated');
  // Its verdict (medium) is less certain than its provenance check (high): the card says why.
  const why = page.locator('[data-file-name="d-generated.png"] [data-testid="less-certain"]');
  await expect(why.locator('summary')).toContainText(/^Why is the verdict less certain than the .*“Provenance metadata” checks?\?$/);
  await why.locator('summary').click();
  await expect(why).toContainText('the verdict weighs all the checks together');
  // A check that found nothing says so in words, with no bar.
  const provenance = page.locator('[data-file-name="b-dock.jpg"] [data-testid="dimension"][data-key="provenance"]');
  if ((await provenance.count()) > 0 && (await provenance.textContent())?.includes('No evidence either way')) await expect(provenance.getByRole('meter')).toHaveCount(0);
  await page.getByTestId('glossary').locator('summary').click();
  await expect(page.getByTestId('glossary')).toContainText('Capture consistency');
  await page.getByTestId('glossary').locator('summary').click();

  // The case header as a specialist leaves it mid-review, for the README's picture of the case view.
  const header = page.getByTestId('case-header');
  await expect(header.getByTestId('case-name')).toHaveText('Triage case');
  await header.getByTestId('case-status').selectOption('in_review');
  await expect(header.getByTestId('case-saved')).toHaveText('Status saved.');
  await header.getByLabel('Notes').fill('Claim CLM-2291, storm damage at the quay. Five files from the policyholder by e-mail; the PNG says it was generated.');
  await header.getByRole('button', { name: 'Save notes' }).click();
  await expect(header.getByTestId('case-saved')).toHaveText('Notes saved.');

  for (const card of await cards(page).all()) await card.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(page.locator('img[data-testid="thumbnail"]')).toHaveCount(5);
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'assess.png') });
  await page.screenshot({ path: path.join(ARTIFACTS, 'triage-cards.png'), fullPage: true });
});

test('the viewer opens from a card, zooms and pans, shows a tile score on hover and the unscored margin; arrows move, Esc closes', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'the heatmap needs the detector model');
  await page.getByLabel(/Case name for loose files/).fill('Viewer case');
  await page.getByTestId('file-input').setInputFiles([
    { name: 'quay-photo.jpg', mimeType: 'image/jpeg', buffer: await makeImage(71, 'jpeg', W, H) },
    { name: 'warehouse.png', mimeType: 'image/png', buffer: await makeImage(72, 'png', W, H) },
  ]);
  await finished(page, 2);

  const opener = page.locator('[data-file-name="quay-photo.jpg"]').getByTestId('open-viewer');
  await opener.click();
  const viewer = page.getByRole('dialog');
  await expect(viewer).toBeVisible();
  await expect(viewer.getByRole('heading', { name: 'quay-photo.jpg' })).toBeVisible();
  const image = viewer.getByTestId('viewer-image');
  await expect(image).toBeVisible();
  await expect(image).toHaveJSProperty('naturalWidth', W);

  // Zoom: buttons, keys and the wheel change the picture's size on screen.
  const width = async (): Promise<number> => (await image.boundingBox())!.width;
  const fitted = await width();
  // The keys work as soon as the viewer opens (the focus is on the dialog itself).
  await expect(viewer).toBeFocused();
  await page.keyboard.press('+');
  await expect.poll(width).toBeGreaterThan(fitted * 1.2);
  await page.keyboard.press('0');
  await expect.poll(width).toBeCloseTo(fitted, 0);
  await viewer.getByRole('button', { name: 'Zoom in (+)' }).click();
  await expect.poll(width).toBeGreaterThan(fitted * 1.2);
  await page.keyboard.press('-');
  await expect.poll(width).toBeCloseTo(fitted, 0);
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await expect.poll(width).toBeGreaterThan(fitted * 1.5);
  await page.keyboard.press('0');
  await expect.poll(width).toBeCloseTo(fitted, 0);
  const stage = viewer.getByTestId('viewer-stage');
  const box = (await stage.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -400);
  await expect.poll(width).toBeGreaterThan(fitted * 1.3);
  await viewer.getByRole('button', { name: /Native resolution/ }).click();
  await expect.poll(width).toBeCloseTo(W, 0);
  await expect(viewer.getByTestId('zoom-level')).toHaveText('100 %');

  // Pan: a drag moves the picture by the drag.
  const before = (await image.boundingBox())!;
  await page.mouse.move(box.x + 200, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + 280, box.y + 240, { steps: 5 });
  await page.mouse.up();
  const after = (await image.boundingBox())!;
  expect(after.x - before.x).toBeCloseTo(80, 0);
  expect(after.y - before.y).toBeCloseTo(40, 0);

  // Hover: a heatmap tile's score; the unscored strips the model's tiling does not reach (manifest.json) are drawn.
  const tile = viewer.getByTestId('heat-tile').first();
  await expect(tile).toBeAttached();
  const tileBox = (await tile.boundingBox())!;
  await page.mouse.move(tileBox.x + tileBox.width / 2, tileBox.y + tileBox.height / 2);
  // The tile's band under the model's calibrated thresholds, in the words the cards and the legend use.
  await expect(viewer.getByTestId('tile-score')).toHaveText(/^Tile score \d+ % \((points to (ai-generated|authentic) · (high|medium) confidence|points neither way)\)/i);
  await expect(viewer.getByTestId('unscored')).toHaveCount(2);
  await expect(viewer.getByTestId('coverage')).toContainText(`a ${STRIP_RIGHT}-pixel strip at the right and a ${STRIP_BOTTOM}-pixel strip at the bottom`);
  const strip = (await viewer.getByTestId('unscored').first().boundingBox())!;
  await page.mouse.move(strip.x + strip.width / 2, strip.y + strip.height / 2);
  await expect(viewer.getByTestId('tile-score')).toContainText(/not scored/i);
  await viewer.getByLabel(/Heatmap opacity/).fill('40');
  await expect(viewer.getByTestId('viewer-heatmap')).toHaveCSS('opacity', '0.4');

  await viewer.getByRole('button', { name: 'Fit to the window (0)' }).click();
  const middle = (await viewer.getByTestId('heat-tile').nth(8).boundingBox())!;
  await page.mouse.move(middle.x + middle.width / 2, middle.y + middle.height / 2);
  await expect(viewer.getByTestId('tile-score')).toHaveText(/^Tile score/);
  await page.screenshot({ path: path.join(ARTIFACTS, 'viewer-image.png') });
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, 'viewer.png') });

  // Focus stays in the dialog however far Tab goes.
  for (let i = 0; i < 20; i++) {
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
  }
  // Arrows: the next card's file, then back; at the ends nothing moves.
  await viewer.getByRole('button', { name: 'Close the viewer (Esc)' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(viewer.getByRole('heading', { name: 'warehouse.png' })).toBeVisible();
  await expect(viewer.getByTestId('viewer-position')).toContainText('File 2 of 2');
  await page.keyboard.press('ArrowRight');
  await expect(viewer.getByTestId('viewer-position')).toContainText('File 2 of 2');
  await expect(viewer.getByTestId('viewer-image')).toHaveJSProperty('naturalWidth', W);
  // Esc closes; focus goes back to the card of the file last shown.
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.locator('[data-file-name="warehouse.png"]').getByTestId('open-viewer')).toBeFocused();
});

test('a PDF whose picture is JPEG 2000 is drawn in the viewer, with the picture’s own heatmap on it', async ({ appPage: page, core }) => {
  const pdfjsWarnings: string[] = [];
  page.on('console', (m) => {
    if (/OpenJPEG|JpxError|standardFontDataUrl|Unable to load font data|fetchStandardFontData/i.test(m.text())) pdfjsWarnings.push(m.text());
  });
  const jp2 = fs.readFileSync('test/fixtures/e2e/photo-192x144.jp2');
  // The 192 × 144 picture drawn at 288 × 216 pt, 56 pt from the left and 64 pt from the bottom of a 400 × 300 page.
  const pdf = pdfWithJpx(jp2, { width: 192, height: 144 }, { x: 56, y: 64, width: 288, height: 216 });
  await page.getByLabel(/Case name for loose files/).fill('JPX case');
  await page.getByTestId('file-input').setInputFiles([{ name: 'jpx-exhibit.pdf', mimeType: 'application/pdf', buffer: pdf }]);
  await finished(page, 1);
  await cards(page).first().getByTestId('open-viewer').click();
  const viewer = page.getByRole('dialog');
  const pageView = viewer.getByTestId('viewer-page');
  await expect(pageView).toHaveCount(1);
  await expect(pageView.locator('canvas')).toBeAttached();

  // The picture's area of the page is the picture (many colours), not the blank page pdf.js leaves when the
  // JPEG 2000 decoder fails to start.
  const stats = await pageView.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
    const k = canvas.width / 400;
    const context = canvas.getContext('2d')!;
    // PDF y = 64..280 from the bottom is canvas y = (300 - 280)..(300 - 64) from the top.
    const data = context.getImageData(Math.round(80 * k), Math.round(40 * k), Math.round(240 * k), Math.round(170 * k)).data;
    const colours = new Set<number>();
    let nonWhite = 0;
    for (let i = 0; i < data.length; i += 4) {
      colours.add((data[i] >> 3) * 1024 + (data[i + 1] >> 3) * 32 + (data[i + 2] >> 3));
      if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) nonWhite++;
    }
    return { colours: colours.size, nonWhite: nonWhite / (data.length / 4) };
  });
  expect(stats.nonWhite).toBeGreaterThan(0.9);
  expect(stats.colours).toBeGreaterThan(200);

  if (core.modelPresent) {
    // The core scored the embedded picture (pdf_image grid): its heatmap lies over the picture on the page.
    const listed = viewer.getByTestId('pdf-image');
    await expect(listed).toHaveCount(1);
    await expect(listed).toContainText('Page 1, image 1');
    await expect(listed).toHaveAttribute('data-placed', 'true');
    const heat = pageView.getByTestId('viewer-heatmap');
    const heatBox = (await heat.boundingBox())!;
    const pageBox = (await pageView.boundingBox())!;
    const k = pageBox.width / 400;
    expect((heatBox.x - pageBox.x) / k).toBeCloseTo(56, 0);
    expect((heatBox.y - pageBox.y) / k).toBeCloseTo(300 - 64 - 216, 0);
    expect(heatBox.width / k).toBeCloseTo(288, 0);
    const tile = (await pageView.getByTestId('heat-tile').first().boundingBox())!;
    await page.mouse.move(tile.x + tile.width / 2, tile.y + tile.height / 2);
    await expect(viewer.getByTestId('tile-score')).toContainText(/Page 1, image 1: tile score \d+ %/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'viewer-pdf-jpx.png') });
  }
  expect(pdfjsWarnings).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(cards(page).first().getByTestId('open-viewer')).toBeFocused();
});

const HEIC_FIXTURE = 'test/fixtures/analysis/camera-exif-128x96.heic';
test('a HEIC file shows the picture the core decoded, on its card and in the viewer, with its heatmap over it', async ({ appPage: page, core }) => {
  test.skip(!fs.existsSync(HEIC_FIXTURE), `${HEIC_FIXTURE} is absent`);
  await page.getByLabel(/Case name for loose files/).fill('HEIC case');
  await page.getByTestId('file-input').setInputFiles(HEIC_FIXTURE);
  await finished(page, 1);
  const card = cards(page).first();
  // The picture, drawn from the core's preview (Chromium cannot draw HEIC): loaded, 128 × 96, and not a blank area.
  const picture = async (img: import('@playwright/test').Locator) => {
    await expect.poll(() => img.evaluate((e: HTMLImageElement) => (e.complete ? e.naturalWidth : 0))).toBeGreaterThan(0);
    return img.evaluate((e: HTMLImageElement) => {
      const canvas = document.createElement('canvas');
      canvas.width = e.naturalWidth;
      canvas.height = e.naturalHeight;
      const context = canvas.getContext('2d')!;
      context.drawImage(e, 0, 0);
      const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
      const colours = new Set<number>();
      for (let i = 0; i < data.length; i += 4) colours.add((data[i] >> 3) * 1024 + (data[i + 1] >> 3) * 32 + (data[i + 2] >> 3));
      return { width: e.naturalWidth, height: e.naturalHeight, colours: colours.size };
    });
  };
  const thumb = card.getByTestId('thumbnail');
  await expect(thumb).toHaveAttribute('data-preview', 'core');
  const onCard = await picture(thumb);
  expect([onCard.width, onCard.height]).toEqual([128, 96]);
  expect(onCard.colours).toBeGreaterThan(20);
  if (core.modelPresent) {
    await card.getByLabel('Show heatmap of tile scores').check();
    await expect(card.getByTestId('heatmap')).toBeVisible();
    const heat = (await card.getByTestId('heatmap').boundingBox())!;
    const shown = (await thumb.boundingBox())!;
    expect(heat.width).toBeCloseTo(shown.width, 0);
    expect(heat.height).toBeCloseTo(shown.height, 0);
  }

  await card.getByTestId('open-viewer').click();
  const viewer = page.getByRole('dialog');
  const image = viewer.getByTestId('viewer-image');
  await expect(image).toHaveAttribute('data-preview', 'core');
  await expect(image).toBeVisible();
  const inViewer = await picture(image);
  expect([inViewer.width, inViewer.height]).toEqual([128, 96]);
  expect(inViewer.colours).toBeGreaterThan(20);
  await expect(viewer.getByTestId('heic-note')).toContainText('a preview Veracity decoded itself');
  await expect(viewer.getByText(/no preview/i)).toHaveCount(0);
  if (core.modelPresent) {
    // The heatmap lies over the picture, edge to edge, and reads a tile's score on hover.
    const heat = viewer.getByTestId('viewer-heatmap');
    await expect(heat).toBeVisible();
    await expect(viewer.getByTestId('heat-tile').first()).toBeAttached();
    const heatBox = (await heat.boundingBox())!;
    const imageBox = (await image.boundingBox())!;
    for (const k of ['x', 'y', 'width', 'height'] as const) expect(heatBox[k]).toBeCloseTo(imageBox[k], 0);
    const tile = (await viewer.getByTestId('heat-tile').first().boundingBox())!;
    await page.mouse.move(tile.x + tile.width / 2, tile.y + tile.height / 2);
    await expect(viewer.getByTestId('tile-score')).toHaveText(/^Tile score \d+ %/);
  }
  await page.screenshot({ path: path.join(ARTIFACTS, 'viewer-heic.png') });
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

// Issue 24 item 5: an edit that kept its Content Credentials (the test's own CA and signers, signed with the C2PA
// library): the card and the viewer list the chain from the edit back to the capture it was made from.
test('the card and the viewer list the Content Credentials chain: signers, trust, tool, actions and the ingredient', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'verdicts need the detector model');
  const pki = pkiDir();
  try {
    const ca = makeAuthority(pki.dir, 'E2E Test Root');
    const capture = await signC2pa(await makeImage(81, 'jpeg'), issueSigner(ca, 'E2E Camera'), {
      claimGenerator: 'Veracity Test Camera',
      actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture', softwareAgent: 'Test Firmware 1.0' }],
    });
    const edit = await signC2paEdit(await sharp(capture).modulate({ brightness: 1.1 }).jpeg().toBuffer(), capture, 'IMG_0001.jpg', issueSigner(ca, 'E2E Editor'), {
      claimGenerator: 'Veracity Test Editor',
      actions: [{ action: 'c2pa.color_adjustments', softwareAgent: 'Test Editor 2.0' }],
    });
    await page.getByLabel(/Case name for loose files/).fill('Credentials case');
    await page.getByTestId('file-input').setInputFiles([{ name: 'edited-photo.jpg', mimeType: 'image/jpeg', buffer: edit }]);
    await finished(page, 1);

    // On the card: folded until asked for, then both manifests, newest first.
    const card = page.locator('[data-file-name="edited-photo.jpg"]');
    const chain = card.getByTestId('c2pa-chain');
    await expect(chain).toContainText('Content Credentials: 2 manifests');
    await chain.getByText('Content Credentials: 2 manifests').click();
    const manifests = chain.getByTestId('c2pa-manifest');
    await expect(manifests).toHaveCount(2);
    await expect(manifests.nth(0)).toContainText('Manifest 1 of 2: the active manifest');
    await expect(manifests.nth(0)).toContainText('Veracity tests / E2E Editor, issued by Veracity tests / E2E Test Root');
    // This installation has no trust anchors: the signer is named, not established.
    await expect(manifests.nth(0)).toContainText('not established: no trust anchors are configured');
    await expect(manifests.nth(0)).toContainText('Veracity Test Editor');
    await expect(manifests.nth(0)).toContainText('c2pa.opened; c2pa.color_adjustments (by Test Editor 2.0)');
    await expect(manifests.nth(0)).toContainText('IMG_0001.jpg (parentOf): its manifest validated');
    await expect(manifests.nth(1)).toContainText('Manifest 2 of 2: of “IMG_0001.jpg”, an ingredient of manifest 1');
    await expect(manifests.nth(1)).toContainText('Veracity tests / E2E Camera');
    await expect(manifests.nth(1)).toContainText('c2pa.created (digitalCapture, by Test Firmware 1.0)');
    await page.screenshot({ path: path.join(ARTIFACTS, 'c2pa-chain-card.png'), fullPage: true });

    // In the viewer: open from the start, the same chain.
    await card.getByTestId('open-viewer').click();
    const viewer = page.getByRole('dialog');
    const inViewer = viewer.getByTestId('c2pa-manifest');
    await expect(inViewer).toHaveCount(2);
    await expect(inViewer.nth(0)).toBeVisible();
    await expect(inViewer.nth(0)).toContainText('Veracity tests / E2E Editor');
    await expect(inViewer.nth(1)).toContainText('Veracity tests / E2E Camera');
    await page.screenshot({ path: path.join(ARTIFACTS, 'c2pa-chain-viewer.png') });
    await page.keyboard.press('Escape');
  } finally {
    pki.cleanup();
  }
});
