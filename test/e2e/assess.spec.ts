// The Assess screen against the real core: a folder becomes a case, refused files are listed with reasons, more than
// 20 files go out as several requests of one case, cards appear on acceptance and fill in, a review is recorded and
// read back through GET /v1/jobs/{jobId}, and the case report is exported.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { CaseReport, JobList, JobResult } from '../../src/api/schemas.js';
import { ARTIFACTS, expect, test, type CoreHandle } from './core-fixture.js';
import { dropFiles } from './drop-files.js';
import { makeImage, makePdf, writeFiles } from './generate-files.js';

function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `veracity-e2e-${label}-`));
}

const cards = (page: Page) => page.getByTestId('verdict-card');

/** Thumbnails load when their card scrolls into view: bring every card past the viewport once (for screenshots). */
async function revealAllCards(page: Page): Promise<void> {
  for (const card of await cards(page).all()) await card.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
}

/** Every card leaves `processing`; with the model they complete with a verdict, without it they say so in words. */
async function expectCardsFinished(page: Page, core: CoreHandle, count: number): Promise<void> {
  await expect(cards(page)).toHaveCount(count);
  await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 180_000 });
  if (core.modelPresent) {
    await expect(page.locator('[data-testid="verdict-card"][data-status="completed"]')).toHaveCount(count);
    await expect(page.locator('[data-testid="verdict-card"] .badge').first()).toBeVisible();
  } else {
    await expect(page.locator('[data-testid="verdict-card"][data-status="error"]')).toHaveCount(count);
    await expect(cards(page).first()).toContainText('the detector model is not installed');
  }
}

async function getJob(core: CoreHandle, apiKey: string, jobId: string): Promise<JobResult> {
  const response = await fetch(`${core.baseUrl}/v1/jobs/${jobId}?wait=false`, { headers: { Authorization: `Bearer ${apiKey}` } });
  expect(response.status).toBe(200);
  return JobResult.parse(await response.json());
}

test('opening the printed address keeps the token out of the address bar', async ({ appPage, core }) => {
  expect(appPage.url()).toBe(`${core.baseUrl}/`);
  // The header says where files go: this computer's own core (a team server says so instead: team-window.spec.ts).
  await expect(appPage.getByTestId('server-label')).toHaveText(/This computer/);
  await expect(appPage.getByTestId('server-label')).toHaveAttribute('data-kind', 'desktop');
  expect(await appPage.evaluate(() => typeof (window as unknown as { require?: unknown }).require === 'undefined' && typeof (window as unknown as { process?: unknown }).process === 'undefined')).toBe(true);
  await appPage.screenshot({ path: path.join(ARTIFACTS, '01-empty.png'), fullPage: true });
});

test('a dropped folder is a case: refused files are listed, images and PDFs go to their applications, cards fill in', async ({ appPage: page, core }) => {
  const root = tempDir('folder');
  const folder = path.join(root, 'Harbour fire');
  await writeFiles(folder, [
    { name: 'dock-1.jpg', data: makeImage(1, 'jpeg') },
    { name: 'dock-2.jpg', data: makeImage(2, 'jpeg') },
    { name: 'crane.png', data: makeImage(3, 'png') },
    { name: 'scans/statement.pdf', data: makePdf(4) },
    { name: 'scans/witness.pdf', data: makePdf(5) },
    { name: 'notes.txt', data: Buffer.from('witness notes, not evidence') },
    { name: 'disguised.jpg', data: Buffer.from('<html>not a picture</html>') },
    { name: '.DS_Store', data: Buffer.from('junk') },
  ]);
  await page.getByTestId('folder-input').setInputFiles(folder);

  const refused = page.getByRole('region', { name: /Not sent/ });
  await expect(refused).toContainText('Harbour fire/notes.txt');
  await expect(refused).toContainText('Harbour fire/disguised.jpg');
  await expect(refused).toContainText('judged from its content');
  await expect(refused).not.toContainText('.DS_Store');

  // Cards appear on acceptance (wait=false), then fill in by polling.
  await expect(cards(page)).toHaveCount(5);
  await expect(cards(page).first()).toContainText('case “Harbour fire”');
  await expectCardsFinished(page, core, 5);
  // The two files not sent count in the bar as in the chips: finished, not assessed (issue 22).
  await expect(page.getByRole('status').filter({ hasText: 'files finished' })).toContainText('7 of 7 files finished, 2 not assessed');
  await expect(page.getByTestId('filter-not_assessed')).toHaveAttribute('data-count', '2');
  await expect(page.locator('[data-file-name="Harbour fire/scans/statement.pdf"]')).toContainText('PDF document');
  await expect(page.locator('[data-file-name="Harbour fire/dock-1.jpg"] img[data-testid="thumbnail"]')).toBeVisible();
  // A PDF card shows its first page, drawn by pdf.js in the page under the app's CSP, once it scrolls into view.
  await page.locator('[data-file-name="Harbour fire/scans/statement.pdf"]').scrollIntoViewIfNeeded();
  await expect(page.locator('[data-file-name="Harbour fire/scans/statement.pdf"] img[data-testid="thumbnail"]')).toBeVisible();

  // Both applications got a job of this case.
  for (const kind of ['images', 'pdfs'] as const) {
    const response = await fetch(`${core.baseUrl}/v1/jobs?applicationId=${core.applicationIds[kind]}&case=${encodeURIComponent('Harbour fire')}`, {
      headers: { Authorization: `Bearer ${core.keys[kind]}` },
    });
    const list = JobList.parse(await response.json());
    expect(list.jobs).toHaveLength(1);
    const job = await getJob(core, core.keys[kind], list.jobs[0].id);
    expect(job.results.map((r) => r.file.type).every((t) => (kind === 'pdfs' ? t === 'application/pdf' : t.startsWith('image/')))).toBe(true);
  }

  if (core.modelPresent) {
    const card = page.locator('[data-file-name="Harbour fire/dock-1.jpg"]');
    await card.getByLabel('Show heatmap of tile scores').check();
    await expect(card.getByTestId('heatmap').locator('.tile').first()).toBeAttached();
    await card.screenshot({ path: path.join(ARTIFACTS, '02b-card-heatmap.png') });
  }
  await revealAllCards(page);
  await page.screenshot({ path: path.join(ARTIFACTS, '02-cards.png'), fullPage: true });
  // The README's picture (generated images only: nothing from ../shared/datasets goes into the repo).
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.screenshot({ path: path.join(ARTIFACTS, 'readme-assess.png') });
});

test('files dropped on the drop zone take the typed case name; a hostile file name is shown as text', async ({ appPage: page, core }) => {
  await page.getByLabel(/Case name for loose files/).fill('Loose case');
  await dropFiles(page, [
    { name: '<img src=x onerror=alert(1)>.jpg', mimeType: 'image/jpeg', data: await makeImage(11, 'jpeg') },
    { name: 'memo.pdf', mimeType: 'application/pdf', data: await makePdf(12) },
  ]);
  await expect(cards(page)).toHaveCount(2);
  await expect(page.getByRole('heading', { name: '<img src=x onerror=alert(1)>.jpg' })).toBeVisible();
  await expect(page.locator('.card img:not([data-testid="thumbnail"])')).toHaveCount(0);
  await expect(cards(page).first()).toContainText('case “Loose case”');
  await expectCardsFinished(page, core, 2);
});

test('more than 20 files are sent as several requests of the same case, with progress', async ({ appPage: page, core }) => {
  const folder = path.join(tempDir('bulk'), 'Bulk case');
  await writeFiles(
    folder,
    Array.from({ length: 25 }, (_, i) => ({ name: `frame-${String(i).padStart(2, '0')}.jpg`, data: makeImage(100 + i, 'jpeg', 160, 120) })),
  );
  await page.getByTestId('folder-input').setInputFiles(folder);
  await expect(cards(page)).toHaveCount(25);
  await page.screenshot({ path: path.join(ARTIFACTS, '03-progress.png') });
  await expectCardsFinished(page, core, 25);
  await expect(page.getByRole('status').filter({ hasText: 'files finished' })).toContainText('25 of 25 files finished');

  const response = await fetch(`${core.baseUrl}/v1/jobs?applicationId=${core.applicationIds.images}&case=${encodeURIComponent('Bulk case')}`, {
    headers: { Authorization: `Bearer ${core.keys.images}` },
  });
  const list = JobList.parse(await response.json());
  expect(list.jobs).toHaveLength(2);
  const sizes = await Promise.all(list.jobs.map(async (entry) => (await getJob(core, core.keys.images, entry.id)).results.length));
  expect(sizes.sort((a, b) => a - b)).toEqual([5, 20]);
  expect(list.jobs.every((j) => j.metadata.case === 'Bulk case' && j.metadata.parts === 2)).toBe(true);
});

test('an expert review is stored beside the machine verdict and read back through GET /v1/jobs/{jobId}; the report carries it', async ({ appPage: page, core }) => {
  const folder = path.join(tempDir('review'), 'Review case');
  const [photoPath] = await writeFiles(folder, [
    { name: 'portrait.jpg', data: makeImage(21, 'jpeg') },
    { name: 'contract.pdf', data: makePdf(22) },
  ]);
  await page.getByTestId('folder-input').setInputFiles(folder);
  await expectCardsFinished(page, core, 2);

  const card = page.locator('[data-file-name="Review case/portrait.jpg"]');
  await card.getByRole('button', { name: 'Add expert review' }).click();
  await card.getByRole('radio', { name: 'Authentic' }).check();
  await card.getByLabel(/Note/).fill('Matches the camera original <b>seen</b> on site.');
  await card.getByLabel('Reviewer').fill('A. Specialist');
  await page.screenshot({ path: path.join(ARTIFACTS, '04-review-form.png'), fullPage: true });
  await card.getByRole('button', { name: 'Save review' }).click();
  await expect(card.getByTestId('expert-review')).toContainText('Authentic');
  await expect(card.getByTestId('expert-review')).toContainText('A. Specialist');
  await expect(card.getByTestId('expert-review')).toContainText('Matches the camera original <b>seen</b> on site.');

  const jobId = await card.getAttribute('data-job-id');
  const fileId = await card.getAttribute('data-file-id');
  const job = await getJob(core, core.keys.images, jobId!);
  const result = job.results.find((r) => r.file.id === fileId);
  expect(result?.expertReview).toMatchObject({ assessment: 'authentic', reviewer: 'A. Specialist', note: 'Matches the camera original <b>seen</b> on site.' });
  // The machine verdict is untouched by the review (DECISIONS 7).
  expect(result?.status).toBe(core.modelPresent ? 'completed' : 'error');

  // The case's status and notes, set in the case header, go into the report.
  const header = page.getByTestId('case-header');
  await header.getByTestId('case-status').selectOption('in_review');
  await expect(header.getByTestId('case-saved')).toHaveText('Status saved.');
  await header.getByTestId('case-notes').fill('Claim CLM-77: portrait sent by the policy holder.');
  await header.getByRole('button', { name: 'Save notes' }).click();
  await expect(header.getByTestId('case-saved')).toHaveText('Notes saved.');

  // Export: the core's printable PDF and the JSON whose SHA-256 it prints, with the file hashes, the review and the model version.
  const downloads: string[] = [];
  const waitTwo = new Promise<void>((resolve) => {
    page.on('download', async (download) => {
      const target = path.join(ARTIFACTS, download.suggestedFilename());
      await download.saveAs(target);
      downloads.push(target);
      if (downloads.length === 2) resolve();
    });
  });
  await page.getByRole('button', { name: 'Export report (PDF + JSON)' }).click();
  await waitTwo;
  const jsonPath = downloads.find((d) => d.endsWith('.json'))!;
  const pdfPath = downloads.find((d) => d.endsWith('.pdf'))!;
  expect(path.basename(jsonPath)).toMatch(/^veracity-report-Review-case-\d{4}-\d{2}-\d{2}\.json$/);
  const jsonBytes = fs.readFileSync(jsonPath);
  const report = CaseReport.parse(JSON.parse(jsonBytes.toString('utf8')));
  expect(report.caseName).toBe('Review case');
  expect(report.jobs).toHaveLength(2);
  const sha = createHash('sha256').update(fs.readFileSync(photoPath)).digest('hex');
  expect(report.files.map((f) => f.sha256)).toContain(sha);
  expect(report.files.find((f) => f.fileId === fileId)?.expertReview?.reviewer).toBe('A. Specialist');
  expect([report.caseStatus, report.caseNotes]).toEqual(['in_review', 'Claim CLM-77: portrait sent by the policy holder.']);
  expect(report.summary.effective.authentic).toBeGreaterThanOrEqual(1);
  const text = execFileSync('pdftotext', ['-layout', pdfPath, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
  for (const f of report.files) expect(text).toContain(f.sha256);
  expect(text).toContain('Case status In review');
  expect(text).toContain('Case notes Claim CLM-77: portrait sent by the policy holder.');
  // The sign-off names the reviewer, the file and when, above the lines written by hand.
  const place = report.files.findIndex((f) => f.fileId === fileId) + 1;
  expect(text).toMatch(new RegExp(`Expert reviews recorded in this case A\\. Specialist file ${place}; reviewed \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d .*Examiner name`));
  expect(/Report SHA-256 ([0-9a-f]{64})/.exec(text)?.[1]).toBe(createHash('sha256').update(jsonBytes).digest('hex'));
  execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', '-singlefile', pdfPath, path.join(ARTIFACTS, '05-report')]);
});

test('a file the core refuses is named in plain words, and the rest of its request is still sent', async ({ appPage: page, core }) => {
  const folder = path.join(tempDir('refusal'), 'Damaged case');
  await writeFiles(folder, [
    { name: 'a-good.jpg', data: makeImage(31, 'jpeg') },
    // JPEG magic bytes, then garbage: the browser cannot tell, the core refuses it as unprocessable (422).
    { name: 'b-broken.jpg', data: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 7)]) },
    { name: 'c-tiny.png', data: makeImage(32, 'png', 8, 8) },
    { name: 'd-good.png', data: makeImage(33, 'png') },
  ]);
  await page.getByTestId('folder-input').setInputFiles(folder);
  const refused = page.getByRole('region', { name: /Not sent/ });
  await expect(refused.getByRole('listitem').filter({ hasText: 'Damaged case/b-broken.jpg' })).toContainText('Cannot be analysed. The image cannot be decoded');
  await expect(refused.getByRole('listitem').filter({ hasText: 'Damaged case/c-tiny.png' })).toContainText('Cannot be analysed. The image is 8x8 pixels');
  await expectCardsFinished(page, core, 2);
  await expect(page.locator('[data-file-name="Damaged case/a-good.jpg"]')).toBeVisible();
  await expect(page.locator('[data-file-name="Damaged case/d-good.png"]')).toBeVisible();
  await page.screenshot({ path: path.join(ARTIFACTS, '11-refusals.png'), fullPage: true });
});

const HEIC_FIXTURE = 'test/fixtures/analysis/camera-exif-128x96.heic';
test('a HEIC photo is routed to the images application and its card shows the picture the core decoded', async ({ appPage: page, core }) => {
  test.skip(!fs.existsSync(HEIC_FIXTURE), `${HEIC_FIXTURE} is absent`);
  await page.getByLabel(/Case name for loose files/).fill('Phone photos');
  await page.getByTestId('file-input').setInputFiles(HEIC_FIXTURE);
  const card = page.locator('[data-file-name="camera-exif-128x96.heic"]');
  await expect(card).toContainText('HEIC image');
  // Chromium cannot draw HEIC: the thumbnail is the core's own preview of it (a JPEG), not a file icon.
  const thumb = card.getByRole('img', { name: 'Thumbnail of camera-exif-128x96.heic (decoded by Veracity)' });
  await expect(thumb).toHaveAttribute('data-preview', 'core');
  await expect.poll(() => thumb.evaluate((e: HTMLImageElement) => (e.complete ? e.naturalWidth : 0))).toBe(128);
  await expectCardsFinished(page, core, 1);
  await expect(card.locator('.thumb-icon')).toHaveCount(0);
});

test('the page CSP blocks injected inline script even if a sink were missed (checklist 73, 77)', async ({ page, core }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.goto(`${core.baseUrl}/#token=${core.uiToken}`);
  await expect(page.getByRole('button', { name: 'Choose files…' })).toBeVisible();
  await page.evaluate(() => {
    document.body.insertAdjacentHTML('beforeend', '<img src="x" onerror="window.__pwned = 1"><a id="js" href="javascript:window.__pwned = 2">x</a>');
    const script = document.createElement('script');
    script.textContent = 'window.__pwned = 3';
    document.body.append(script);
  });
  await page.locator('#js').click();
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(violations.length).toBeGreaterThanOrEqual(2);
});

test('“Assess again” resends a stored file that could not be assessed, as a new job of the same case', async ({ appPage: page, core }) => {
  test.skip(core.modelPresent, 'with the detector model installed no result ends in result_unavailable');
  await page.getByLabel(/Case name for loose files/).fill('Again case');
  await page.getByTestId('file-input').setInputFiles([{ name: 'again.jpg', mimeType: 'image/jpeg', buffer: await makeImage(51, 'jpeg') }]);
  await expectCardsFinished(page, core, 1);
  const firstJob = await cards(page).first().getAttribute('data-job-id');
  await cards(page).first().getByRole('button', { name: 'Assess again' }).click();
  await expect(cards(page)).toHaveCount(2);
  const secondJob = await cards(page).nth(1).getAttribute('data-job-id');
  expect(secondJob).not.toBe(firstJob);
  const job = await getJob(core, core.keys.images, secondJob!);
  expect(job.metadata).toEqual({ case: 'Again case' });
  expect(job.results[0].file.name).toBe('again.jpg');
});
