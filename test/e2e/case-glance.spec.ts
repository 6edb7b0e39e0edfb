// Issue 22, items 4 and 6, against the real core and model: a case at a glance (one row per file, every verdict on
// screen without scrolling once the case has run, the choice of view remembered; a name search that narrows cards
// and rows; a sentence said of several files said once) and a detector score that reads the same on the card, the
// row and the heatmap's legend, in the bands of the shipped model's calibrated thresholds.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { ARTIFACTS, expect, test } from './core-fixture.js';
import { makeImage } from './generate-files.js';

const cards = (page: Page) => page.getByTestId('verdict-card');
const rows = (page: Page) => page.getByTestId('case-row');
const MODEL = JSON.parse(fs.readFileSync(path.resolve('models/veracity-detector/manifest.json'), 'utf8')) as {
  version: string;
  thresholds: { highAuthentic: number; highAi: number };
  /** 1.1: the artefact model's own thresholds, which band the heatmap's tiles (the file score is fused). */
  tileThresholds?: { highAuthentic: number; highAi: number };
};
const pct = (v: number) => `${Math.round(v * 1000) / 10}`.replace('.', '\\.');

// Eight analyses on a shared two-core machine can take minutes: the layout is under test here, not the speed.
test.describe.configure({ timeout: 600_000 });

async function finished(page: Page, count: number): Promise<void> {
  await expect(cards(page)).toHaveCount(count);
  await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 480_000 });
  // Every file assessed (an analysis stopped by the core's per-file time limit would be "not assessed").
  await expect(page.locator('[data-testid="verdict-card"][data-status="completed"]')).toHaveCount(count);
}

/** Eight 320x240 photos-like images of one case, dropped at once. */
async function dropEight(page: Page, caseName: string): Promise<string[]> {
  const names = ['quay', 'crane', 'dock', 'warehouse', 'forklift', 'container', 'gate', 'pier'].map((n, i) => `${String(i + 1).padStart(2, '0')}-${n}.jpg`);
  await page.getByLabel(/Case name for loose files/).fill(caseName);
  await page.getByTestId('file-input').setInputFiles(await Promise.all(names.map(async (name, i) => ({ name, mimeType: 'image/jpeg', buffer: await makeImage(120 + i, 'jpeg') }))));
  await finished(page, names.length);
  return names;
}

test('rows: once the case has run, every file\'s verdict is on screen without scrolling, with its size in pixels; the view is remembered', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'verdicts need the detector model');
  const names = await dropEight(page, 'Glance case');
  // The intake has folded to one bar: the verdicts come first.
  await expect(page.getByTestId('intake')).toHaveAttribute('data-folded', 'true');
  await expect(page.getByLabel(/Case name for loose files/)).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Choose files…' })).toBeVisible();
  // Each card says the picture's size as analysed.
  for (const card of await cards(page).all()) await expect(card.getByTestId('pixel-size')).toContainText('320 × 240 px');

  await page.getByTestId('view-rows').click();
  await expect(cards(page)).toHaveCount(0);
  await expect(rows(page)).toHaveCount(names.length);
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const name of names) {
    const row = page.locator(`[data-testid="case-row"][data-file-name="${name}"]`);
    await expect(row.getByTestId('row-verdict')).toHaveText(/^(AI-generated|Authentic|Inconclusive)$/);
    await expect(row.getByTestId('row-verdict'), `${name}'s verdict without scrolling`).toBeInViewport();
    await expect(row.getByTestId('row-pixels')).toHaveText('320 × 240 px');
    await expect(row.getByTestId('row-review')).toHaveText('Not reviewed');
  }
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await page.screenshot({ path: path.join(ARTIFACTS, 'case-rows.png') });

  // The intake opens again on demand, with the case name field.
  await page.getByTestId('intake-toggle').click();
  await expect(page.getByLabel(/Case name for loose files/)).toBeVisible();

  // Remembered: a reload reopens the case in rows.
  await page.reload();
  await expect(rows(page)).toHaveCount(names.length);
  await expect(page.getByTestId('view-rows')).toHaveAttribute('aria-pressed', 'true');
  await page.getByTestId('view-cards').click();
  await expect(cards(page)).toHaveCount(names.length);
});

/**
 * The triage chips count `n` files: All says n, the verdict chips and the review chips each add up to n; the line
 * above them names the search (`search`), or no search at all (null).
 */
async function expectCounts(page: Page, n: number, search: string | null): Promise<void> {
  const triage = page.getByTestId('triage');
  await expect(triage.getByTestId('filter-all')).toHaveText(`All ${n}`);
  const sum = (selector: string) => triage.locator(selector).evaluateAll((els) => els.reduce((total, e) => total + Number(e.getAttribute('data-count')), 0));
  expect(await sum('.counts button[data-count]:not(.count-review)')).toBe(n);
  expect(await sum('.counts button.count-review[data-count]')).toBe(n);
  if (search) await expect(triage.getByTestId('counts-basis')).toContainText(search);
  else await expect(triage.getByTestId('counts-basis')).not.toContainText('whose name holds');
}

test('a name search narrows the cards, the rows and the counts by verdict of the case', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'verdicts need the detector model');
  const names = await dropEight(page, 'Search case');
  const search = page.getByTestId('name-search');
  await search.fill('CRANE');
  await expect(cards(page)).toHaveCount(1);
  await expect(cards(page).first()).toHaveAttribute('data-file-name', '02-crane.jpg');
  // The line under the chips counts what the search leaves, as the chips do, not the whole case.
  await expect(page.getByTestId('shown-count')).toContainText('Showing 1 of the 1 file whose name holds “CRANE”.');
  // The chips count what the search shows, and the line above them says of how many files of the case.
  await expectCounts(page, 1, 'among the 1 of 8 files whose name holds “CRANE”');
  await page.getByTestId('view-rows').click();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toHaveAttribute('data-file-name', '02-crane.jpg');
  await search.fill('o');
  const withO = names.filter((n) => n.includes('o'));
  await expect(rows(page)).toHaveCount(withO.length);
  expect(await rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-file-name')))).toEqual(withO);
  await expectCounts(page, withO.length, `among the ${withO.length} of 8 files whose name holds “o”`);
  await page.getByTestId('filter-not_reviewed').click();
  await expect(page.getByTestId('shown-count')).toContainText(`Showing ${withO.length} of the ${withO.length} files whose name holds “o”: Not reviewed.`);
  await page.getByTestId('filter-all').click();
  await search.fill('nothing-like-this');
  await expect(rows(page)).toHaveCount(0);
  await expectCounts(page, 0, 'among the 0 of 8 files whose name holds “nothing-like-this”');
  await page.getByTestId('shown-count').getByRole('button', { name: 'Show all' }).click();
  await expect(rows(page)).toHaveCount(names.length);
  await expect(search).toHaveValue('');
  await expectCounts(page, names.length, null);
});

test('a sentence said of several files is said once, as a case note each card points to', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'verdicts need the detector model');
  await dropEight(page, 'Notes case');
  const notes = page.getByTestId('case-note');
  await expect(notes.first()).toBeVisible();
  const first = notes.first();
  const n = await first.getAttribute('data-note');
  const sentence = (await first.evaluate((li) => li.firstChild?.textContent ?? '')).trim();
  expect(sentence.length).toBeGreaterThan(40);
  const files = Number((await first.locator('.hint').textContent())!.match(/\((\d+) files\)/)![1]);
  expect(files).toBeGreaterThanOrEqual(2);
  // Said once on the screen: in the note, on no card; the cards that said it point to the note, its text on hover.
  const visibleWith = await page.evaluate((text) => {
    const all = [...document.querySelectorAll('body *')].filter((el) => [...el.childNodes].some((c) => c.nodeType === Node.TEXT_NODE && c.textContent?.includes(text)));
    return all.filter((el) => (el as HTMLElement).offsetParent !== null).length;
  }, sentence);
  expect(visibleWith).toBe(1);
  const refs = page.locator(`[data-testid="verdict-card"] [data-testid="note-ref"][data-note="${n}"]`);
  await expect(refs).toHaveCount(files);
  await expect(refs.first()).toHaveAttribute('title', sentence);
  await expect(refs.first()).toHaveText(`(case note ${n})`);
});

const DATASET_AI = path.resolve('../shared/datasets/modern/ai/comfyui_examples/2_pass_txt2img__latent_upscale_different_prompt_model.png');

test('a detector score reads the same on its card, its row and the heatmap legend, in the bands of the model\'s calibration', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'scores need the detector model');
  const fixture = (name: string) => fs.readFileSync(path.resolve('test/fixtures', name));
  // Noise (authentic, high), a capture original and shapes (whatever band the shipped model puts them in: the card,
  // the row and the legend must agree on it), and a generated image from the shared datasets where they are present
  // (AI-generated, high).
  const files = [
    { name: 'noise.png', mimeType: 'image/png', buffer: fixture('model/noise-192.png') },
    { name: 'kodak.jpg', mimeType: 'image/jpeg', buffer: fixture('capture/kodak-dc280-896x592.jpg') },
    { name: 'shapes.png', mimeType: 'image/png', buffer: fixture('model/shapes-320x256.png') },
  ];
  if (fs.existsSync(DATASET_AI)) files.push({ name: 'generated.png', mimeType: 'image/png', buffer: fs.readFileSync(DATASET_AI) });
  await page.getByLabel(/Case name for loose files/).fill('Bands case');
  await page.getByTestId('file-input').setInputFiles(files);
  await finished(page, files.length);

  const t = MODEL.thresholds;
  const expectedBand = (score: number) => (score <= t.highAuthentic ? 'authentic_high' : score >= t.highAi ? 'ai_high' : 'inconclusive');
  const seen = new Map<string, { band: string; words: string; color: string }>();
  for (const f of files) {
    const card = page.locator(`[data-testid="verdict-card"][data-file-name="${f.name}"]`);
    const score = Number(await card.getAttribute('data-ai-score'));
    const detector = card.locator('[data-testid="dimension"][data-key="ai_detection"]');
    const band = expectedBand(score);
    await expect(detector, `${f.name} at ${score}`).toHaveAttribute('data-band', band);
    const words = (await detector.getByTestId('dimension-finding').textContent())!.split(' · detector score')[0];
    const color = await detector.locator('.band-swatch').evaluate((el) => getComputedStyle(el).backgroundColor);
    seen.set(f.name, { band, words, color });
    // The heatmap legend of this file (the tiles' bands): the card's band has the same words and colour there.
    await card.getByLabel('Show heatmap of tile scores').check();
    const entry = card.locator(`[data-testid="legend-band"][data-band="${band}"]`);
    await expect(entry).toBeVisible();
    await expect(entry).toContainText(words);
    expect(await entry.locator('.swatch').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(color);
    await expect(card.getByTestId('score-legend')).toContainText(`model veracity-detector@${MODEL.version}`);
  }
  // The heatmap's bands are the tiles' thresholds (1.1.0 and 1.2.0: the artefact model's own, 41.1 % and 87.7 %), with their ranges.
  const tt = MODEL.tileThresholds ?? t;
  const legend = page.locator('[data-file-name="noise.png"] [data-testid="legend-band"]');
  await expect(legend).toHaveText([
    new RegExp(`0–${pct(tt.highAuthentic)} %: Points to authentic · high confidence$`),
    new RegExp(`${pct(tt.highAuthentic)}–${pct(tt.highAi)} %: Points neither way \\(tiles left clear\\)$`),
    new RegExp(`${pct(tt.highAi)}–100 %: Points to AI-generated · high confidence$`),
  ]);
  expect(seen.get('noise.png')!.words).toBe('Points to authentic · high confidence');
  if (seen.has('generated.png')) expect(seen.get('generated.png')!.words).toBe('Points to AI-generated · high confidence');
  // One band, one set of words: a score of 50 % and one of 58-71 % read alike under the shipped thresholds.
  for (const score of [0.5, 0.58, 0.65, 0.71]) expect(expectedBand(score), String(score)).toBe('inconclusive');
  expect(new Set([...seen.values()].map((s) => s.color)).size).toBe(new Set([...seen.values()].map((s) => s.band)).size);

  // The rows say the same words in the same colours.
  await page.getByTestId('view-rows').click();
  for (const [name, s] of seen) {
    const row = page.locator(`[data-testid="case-row"][data-file-name="${name}"]`);
    await expect(row).toHaveAttribute('data-band', s.band);
    await expect(row.getByTestId('row-score')).toContainText(s.words);
    expect(await row.locator('.band-swatch').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(s.color);
  }
  await page.getByTestId('view-cards').click();
});
