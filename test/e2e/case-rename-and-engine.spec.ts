// The window against the real core after the UI audit of November 2026: a renamed case shows and exports as it is now
// (its new name, only the files in it), the rows show the verdict a file counts by, a poll that gets no answer or a
// refused credential says so without losing the files, a refused file of another case counts there, and an invalid
// SHA-256 search says what it needs rather than leaving the last results listed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { CaseReport } from '../../src/api/schemas.js';
import { ARTIFACTS, expect, test } from './core-fixture.js';
import { makeImage } from './generate-files.js';

const cards = (page: Page) => page.getByTestId('verdict-card');
const progressLine = (page: Page) => page.locator('.case-bar .progress span').first();
/** The requests that poll a job: its stages and the job itself (not the upload, thumbnails or reviews). */
const POLLS = /\/v1\/jobs\/[^/?]+(\/progress)?(\?.*)?$/;

async function allFinished(page: Page): Promise<void> {
  for (const card of await cards(page).all()) await expect(card).not.toHaveAttribute('data-status', 'processing', { timeout: 180_000 });
}

test('a renamed case keeps its new name on screen, its rows show the verdict it counts by, and it exports as one report of the case as it is now', async ({
  appPage: page,
}) => {
  await page.getByTestId('file-input').setInputFiles([
    { name: 'front.jpg', mimeType: 'image/jpeg', buffer: await makeImage(9101, 'jpeg') },
    { name: 'side.jpg', mimeType: 'image/jpeg', buffer: await makeImage(9102, 'jpeg') },
  ]);
  await expect(cards(page)).toHaveCount(2);
  const header = page.getByTestId('case-header');
  await expect(header.getByTestId('case-name')).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  const oldName = (await header.getByTestId('case-name').textContent())!;

  const newName = 'CLM-9100 Renamed';
  await header.getByRole('button', { name: `Rename case “${oldName}”` }).click();
  await header.getByRole('textbox', { name: 'Case name' }).fill(newName);
  await header.getByRole('button', { name: 'Save name' }).click();
  await expect(header.getByTestId('case-name')).toHaveText(newName);
  // A file added after the rename joins the same case, sent under its new name.
  await page.getByTestId('file-input').setInputFiles([{ name: 'rear.jpg', mimeType: 'image/jpeg', buffer: await makeImage(9103, 'jpeg') }]);
  await page.getByTestId('drop-confirm').getByRole('button', { name: `Add to “${newName}”` }).click();
  await expect(cards(page)).toHaveCount(3);

  // The progress line and every card name the case as it is now, the cards sent under the old name too.
  await expect(progressLine(page)).toContainText(`case “${newName}”`);
  await expect(progressLine(page)).not.toContainText(oldName);
  for (const card of await cards(page).all()) {
    await expect(card.locator('.facts')).toContainText(`case “${newName}”`);
    await expect(card.locator('.facts')).not.toContainText(oldName);
  }
  await allFinished(page);

  // A file taken out of the case is not in its report.
  const side = cards(page).filter({ hasText: 'side.jpg' });
  await side.getByRole('button', { name: 'Remove side.jpg from the case' }).click();
  await side.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(cards(page)).toHaveCount(2);

  // Rows: the verdict column shows the verdict the file counts and sorts by, marked as the expert review.
  const front = cards(page).filter({ hasText: 'front.jpg' });
  const machine = (await front.getAttribute('data-verdict'))!;
  const review = machine === 'ai_generated' ? 'authentic' : 'ai_generated';
  const reviewWords = review === 'authentic' ? 'Authentic' : 'AI-generated';
  await front.getByRole('button', { name: 'Add expert review' }).click();
  await front.getByRole('radio', { name: reviewWords }).check();
  await front.getByLabel('Reviewer').fill('R. Expert');
  await front.getByRole('button', { name: 'Save review' }).click();
  await expect(front).toHaveAttribute('data-effective', review);
  await page.getByTestId('view-rows').click();
  const row = page.getByTestId('case-row').filter({ hasText: 'front.jpg' });
  await expect(row.getByTestId('row-verdict')).toHaveAttribute('data-source', 'review');
  await expect(row.getByTestId('row-verdict')).toContainText(reviewWords);
  await expect(row.getByTestId('row-verdict-source')).toContainText('expert review');
  if (machine) await expect(row.getByTestId('row-verdict-source')).toContainText(`machine: `);
  await page.getByTestId('view-cards').click();

  // One report of the case, under its new name, of the files in it now.
  const names: string[] = [];
  const saved: Promise<void>[] = [];
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  page.on('download', (download) => {
    names.push(download.suggestedFilename());
    saved.push(download.saveAs(path.join(ARTIFACTS, `rename-${download.suggestedFilename()}`)));
  });
  const exportButton = page.getByRole('button', { name: 'Export report (PDF + JSON)' });
  await exportButton.click();
  await expect.poll(() => names.length, { timeout: 120_000 }).toBeGreaterThanOrEqual(2);
  await expect(exportButton).toBeEnabled({ timeout: 120_000 });
  await Promise.all(saved);
  expect(names.sort()).toEqual([expect.stringMatching(/^veracity-report-CLM-9100-Renamed-.*\.json$/), expect.stringMatching(/^veracity-report-CLM-9100-Renamed-.*\.pdf$/)]);
  const json = CaseReport.parse(JSON.parse(fs.readFileSync(path.join(ARTIFACTS, `rename-${names.find((n) => n.endsWith('.json'))!}`), 'utf8')));
  expect(json.caseName).toBe(newName);
  expect(json.files.map((f) => f.name).sort()).toEqual(['front.jpg', 'rear.jpg']);
});

test('when the engine stops answering, the window says so, keeps the files as they were and carries on once it answers', async ({ appPage: page }) => {
  await page.route(POLLS, (route) => route.abort('connectionrefused'));
  await page.getByTestId('file-input').setInputFiles([{ name: 'porch.jpg', mimeType: 'image/jpeg', buffer: await makeImage(9201, 'jpeg') }]);
  await expect(cards(page)).toHaveCount(1);
  const notice = page.getByTestId('engine-notice');
  await expect(notice).toHaveAttribute('data-engine', 'unreachable', { timeout: 30_000 });
  await expect(notice).toContainText('Veracity’s engine cannot be reached');
  await expect(cards(page).first()).toHaveAttribute('data-status', 'processing');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'engine-unreachable.png') });

  await page.unroute(POLLS);
  await expect(notice).toHaveCount(0, { timeout: 30_000 });
  await expect(cards(page).first()).not.toHaveAttribute('data-status', 'processing', { timeout: 180_000 });
  await expect(page.getByText('No longer available')).toHaveCount(0);
});

test('a poll refused after Veracity restarted with a new token says to open the new address, and no job is marked gone', async ({ appPage: page }) => {
  // What the core started again answers the old tab: its per-launch credential is no longer one it knows.
  await page.route(POLLS, (route) =>
    route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ code: 'unauthorized', message: 'Missing or invalid credentials.' }) }),
  );
  await page.getByTestId('file-input').setInputFiles([{ name: 'gate.jpg', mimeType: 'image/jpeg', buffer: await makeImage(9202, 'jpeg') }]);
  await expect(cards(page)).toHaveCount(1);
  const notice = page.getByTestId('engine-notice');
  await expect(notice).toHaveAttribute('data-engine', 'restarted', { timeout: 30_000 });
  await expect(notice).toContainText('Veracity was restarted');
  await expect(notice).toContainText('Open the new address it printed');
  await expect(cards(page).first()).toHaveAttribute('data-status', 'processing');
  await expect(page.getByText('No longer available')).toHaveCount(0);
  await expect(page.getByRole('alert').filter({ hasText: 'access key was not accepted' })).toHaveCount(0);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'engine-restarted.png') });
});

test('a file refused from a folder dropped for another case is not counted in the open case', async ({ appPage: page }) => {
  await page.getByTestId('file-input').setInputFiles([{ name: 'shed.jpg', mimeType: 'image/jpeg', buffer: await makeImage(9301, 'jpeg') }]);
  await expect(cards(page)).toHaveCount(1);
  await expect(page.getByTestId('case-header').getByTestId('case-name')).toHaveText(/^\d{4}-/);

  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-e2e-other-'));
  const folder = path.join(root, 'CLM-9300 Other');
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'notes.txt'), 'Not a picture: the adjuster’s notes.\n');
  await page.getByTestId('folder-input').setInputFiles(folder);
  // The window still says it was not sent...
  await expect(page.locator('.refused')).toContainText('notes.txt');
  // ...but it belongs to the folder's case: the open case's counts and cards hold its own file only.
  await expect(page.getByTestId('filter-all').locator('.count')).toHaveText('1');
  await expect(page.getByTestId('filter-not_assessed')).toHaveCount(0);
  await expect(page.getByTestId('pending-card')).toHaveCount(0);
  await expect(progressLine(page)).toContainText(/of 1 file finished/);
});

test('an invalid SHA-256 search says what it needs and leaves no earlier results listed', async ({ appPage: page, core }) => {
  const form = new FormData();
  form.append('metadata', JSON.stringify({ case: 'CLM-9400 Hash check' }));
  form.append('file', new Blob([new Uint8Array(await makeImage(9401, 'jpeg'))], { type: 'image/jpeg' }), 'meter.jpg');
  const sent = await fetch(`${core.baseUrl}/v1/assess?wait=false`, { method: 'POST', headers: { Authorization: `Bearer ${core.keys.images}` }, body: form });
  expect([200, 202]).toContain(sent.status);

  await page.getByRole('button', { name: 'History' }).click();
  await page.getByRole('button', { name: 'All files' }).click();
  await page.getByRole('textbox', { name: 'Case' }).fill('CLM-9400');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  const sha256 = (await page.getByTestId('history-row').getAttribute('data-sha256'))!;

  const shaField = page.getByRole('textbox', { name: 'SHA-256' });
  await shaField.fill('zzzz1234');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('sha-invalid')).toContainText('A SHA-256 search needs 8 to 64 hexadecimal digits');
  await expect(page.getByTestId('sha-invalid')).toContainText('“zzzz1234”');
  await expect(shaField).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('history-row')).toHaveCount(0);
  await expect(page.getByTestId('page-status')).toHaveCount(0);

  await shaField.fill(sha256.slice(0, 10));
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('sha-invalid')).toHaveCount(0);
  await expect(page.getByTestId('history-row')).toHaveCount(1);
});
