// Real files from ../shared/datasets (read, never copied into the repo): AI-generated and authentic photos of the
// modern validation set and real-world PDFs, dropped as one case folder. Skipped when the datasets are absent.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ARTIFACTS, expect, test } from './core-fixture.js';

const DATASETS = path.resolve('../shared/datasets');
const present = fs.existsSync(path.join(DATASETS, 'modern')) && fs.existsSync(path.join(DATASETS, 'pdfs'));

/** The first image files (JPEG/PNG) of a folder tree, in name order. */
function images(dir: string, count: number): string[] {
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= count) return;
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(jpe?g|png)$/i.test(entry.name)) found.push(full);
    }
  };
  walk(dir);
  return found;
}

test.skip(!present, `../shared/datasets is absent (${DATASETS}); this test needs the modern set and the PDF corpus`);

test('real photos, generated images and real PDFs of one case fill in; an encrypted PDF is refused by name', async ({ appPage: page, core }) => {
  const folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-datasets-')), 'Dataset sample');
  fs.mkdirSync(folder, { recursive: true });
  const generators = ['gen_flux', 'gen_sdxl_stability', 'gen_pixart_sigma'];
  const picks = [
    ...generators.flatMap((g) => images(path.join(DATASETS, 'modern', 'ai', g), 1).map((p) => ({ from: p, to: `ai-${g}${path.extname(p)}` }))),
    ...images(path.join(DATASETS, 'modern', 'real'), 3).map((p, i) => ({ from: p, to: `photo-${i + 1}${path.extname(p)}` })),
    { from: path.join(DATASETS, 'pdfs', 'firefox_logo.pdf'), to: 'firefox_logo.pdf' },
    { from: path.join(DATASETS, 'pdfs', 'alphatrans.pdf'), to: 'alphatrans.pdf' },
    { from: path.join(DATASETS, 'pdfs', 'issue6010_1.pdf'), to: 'password-protected.pdf' },
  ].filter((p) => fs.existsSync(p.from));
  for (const pick of picks) fs.copyFileSync(pick.from, path.join(folder, pick.to));

  await page.getByTestId('folder-input').setInputFiles(folder);
  const refused = page.getByRole('region', { name: /Not sent/ });
  await expect(refused.getByRole('listitem').filter({ hasText: 'password-protected.pdf' })).toContainText('Cannot be analysed');
  const expected = picks.length - 1;
  await expect(page.getByTestId('verdict-card')).toHaveCount(expected);
  await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 200_000 });
  if (core.modelPresent) {
    await expect(page.locator('[data-testid="verdict-card"][data-status="completed"]')).toHaveCount(expected);
    for (const card of await page.getByTestId('verdict-card').all()) await expect(card.locator('.badge').first()).toBeVisible();
    const photo = page.locator('[data-testid="verdict-card"][data-file-name^="Dataset sample/ai-"]').first();
    await photo.getByLabel('Show heatmap of tile scores').check();
    await expect(photo.getByTestId('heatmap').locator('.tile').first()).toBeAttached();
  }
  for (const card of await page.getByTestId('verdict-card').all()) await card.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(ARTIFACTS, '12-datasets.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.screenshot({ path: path.join(ARTIFACTS, '12b-datasets-viewport.png') });
});
