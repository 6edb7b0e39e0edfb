// Cases in the window against the real core (issue #13): a dropped folder makes the active case, loose files dropped
// next join it, a reload opens the window on it again with its jobs read back from the core; History finds a file by
// its SHA-256 across both applications and shows its verdict.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CaseInfo, CaseList, HistoryList } from '../../src/api/app-schemas.js';
import { expect, test } from './core-fixture.js';
import { makeImage, makePdf, writeFiles } from './generate-files.js';

const cards = (page: import('@playwright/test').Page) => page.getByTestId('verdict-card');

test('the window reopens on its case after a reload, and loose files dropped into it join it', async ({ appPage: page, core }) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-e2e-cases-'));
  const folder = path.join(root, 'CLM-7001 Reload');
  await writeFiles(folder, [
    { name: 'porch.jpg', data: makeImage(701, 'jpeg') },
    { name: 'invoice.pdf', data: makePdf(702) },
  ]);
  await page.getByTestId('folder-input').setInputFiles(folder);
  await expect(cards(page)).toHaveCount(2);
  // The folder's case becomes the active one once its files are sent (the window keeps its id for reloads).
  await expect.poll(() => page.evaluate(() => localStorage.getItem('veracity.activeCaseId'))).toMatch(/^[0-9a-f-]{36}$/);

  // A loose file, dropped while that case is open, goes into it (not into no case) once the window has said so.
  const loose = path.join(root, 'loose.jpg');
  fs.writeFileSync(loose, await makeImage(703, 'jpeg'));
  await page.getByTestId('file-input').setInputFiles(loose);
  await page.getByTestId('drop-confirm').getByRole('button', { name: 'Add to “CLM-7001 Reload”' }).click();
  await expect(cards(page)).toHaveCount(3);
  const ui = { Authorization: `Bearer ${core.uiToken}` };
  const listed = CaseList.parse(await (await fetch(`${core.baseUrl}/app/cases?q=CLM-7001`, { headers: ui })).json());
  expect(listed.cases.map((c) => [c.name, c.fileCount])).toEqual([['CLM-7001 Reload', 3]]);

  await page.reload();
  await expect(cards(page)).toHaveCount(3);
  await expect(page.getByText('loose.jpg').first()).toBeVisible();
  await expect(page.getByText('invoice.pdf').first()).toBeVisible();
});

test('History finds a file by its SHA-256 among both applications and shows its verdict', async ({ appPage: page, core }) => {
  const jpeg = await makeImage(711, 'jpeg');
  const sha256 = crypto.createHash('sha256').update(jpeg).digest('hex');
  const send = async (key: string, name: string, data: Buffer, type: string) => {
    const form = new FormData();
    form.append('metadata', JSON.stringify({ case: 'Hash search' }));
    form.append('file', new Blob([new Uint8Array(data)], { type }), name);
    const res = await fetch(`${core.baseUrl}/v1/assess?wait=true`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
    expect([200, 202]).toContain(res.status);
  };
  await send(core.keys.images, 'needle.jpg', jpeg, 'image/jpeg');
  await send(core.keys.images, 'hay.jpg', await makeImage(712, 'jpeg'), 'image/jpeg');
  await send(core.keys.pdfs, 'hay.pdf', await makePdf(713), 'application/pdf');

  await page.getByRole('button', { name: 'History' }).click();
  await page.getByRole('button', { name: 'All files' }).click();
  await page.getByRole('textbox', { name: 'Case' }).fill('hash SEARCH');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('history-row')).toHaveCount(3); // both applications, partial case name, any case
  await page.getByRole('textbox', { name: 'Case' }).fill('');
  await page.getByRole('textbox', { name: 'SHA-256' }).fill(sha256.toUpperCase());
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  const row = page.getByTestId('history-row');
  await expect(row).toContainText('needle.jpg');
  await expect(row).toHaveAttribute('data-sha256', sha256);
  await expect(row).toContainText('Finished', { timeout: 120_000 });
  await expect(row.getByTestId('history-verdict')).toHaveText(/AI-generated|Authentic|Inconclusive|–/);
  if (core.modelPresent) await expect(row.getByTestId('history-verdict')).toHaveText(/^(AI-generated|Authentic|Inconclusive)/);
  await expect(page.getByTestId('page-status')).toHaveText('Page 1 of 1 · 1 file');
});

// Issue 22, item 2: every drop belongs to a case.
test('a reload after an unnamed drop keeps every card; a drop into the open case waits for the window\'s word', async ({ appPage: page, core }) => {
  const ui = { Authorization: `Bearer ${core.uiToken}` };
  const porch = await makeImage(721, 'jpeg');
  await page.getByTestId('file-input').setInputFiles([
    { name: 'porch.jpg', mimeType: 'image/jpeg', buffer: porch },
    { name: 'roof.jpg', mimeType: 'image/jpeg', buffer: await makeImage(722, 'jpeg') },
  ]);
  await expect(cards(page)).toHaveCount(2);
  // No case named: a new case named after the date and time, renamable in its header.
  const header = page.getByTestId('case-header');
  await expect(header.getByTestId('case-name')).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  const caseName = (await header.getByTestId('case-name').textContent())!;
  const caseId = (await header.getAttribute('data-case-id'))!;
  await expect(header.getByRole('button', { name: `Rename case “${caseName}”` })).toBeVisible();
  await page.reload();
  await expect(cards(page)).toHaveCount(2);
  await expect(header.getByTestId('case-name')).toHaveText(caseName);

  // Dropped while the case is open: nothing is sent before the window's word; Cancel sends nothing.
  const confirm = page.getByTestId('drop-confirm');
  await page.getByTestId('file-input').setInputFiles([{ name: 'porch-again.jpg', mimeType: 'image/jpeg', buffer: porch }]);
  await expect(confirm.getByRole('heading')).toHaveText(`Add 1 file to case “${caseName}”?`);
  // Its SHA-256 is already in the case: said before it is added, and flagged on its card after.
  await expect(confirm.getByTestId('drop-confirm-duplicates')).toContainText('“porch-again.jpg”');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);
  await expect(cards(page)).toHaveCount(2);
  expect(CaseInfo.parse(await (await fetch(`${core.baseUrl}/app/cases/${caseId}`, { headers: ui })).json()).fileCount).toBe(2);
  await page.getByTestId('file-input').setInputFiles([{ name: 'porch-again.jpg', mimeType: 'image/jpeg', buffer: porch }]);
  await confirm.getByRole('button', { name: `Add to “${caseName}”` }).click();
  await expect(cards(page)).toHaveCount(3);
  const copy = cards(page).filter({ hasText: 'porch-again.jpg' });
  await expect(copy.getByTestId('duplicate')).toHaveText('Duplicate: the same file (SHA-256) as “porch.jpg”, already in this case.');
  await expect(cards(page).filter({ hasText: 'roof.jpg' }).getByTestId('duplicate')).toHaveCount(0);

  // A PDF dropped into this case of images is offered a case of its own.
  await page.getByTestId('file-input').setInputFiles([{ name: 'statement.pdf', mimeType: 'application/pdf', buffer: await makePdf(723) }]);
  await expect(confirm.getByTestId('drop-confirm-pdfs')).toContainText('this case holds images only');
  await confirm.getByRole('button', { name: 'Add, with the PDFs in a case of their own' }).click();
  await expect(page.getByRole('status').filter({ hasText: `into a case of their own, “${caseName} – PDFs”` })).toBeVisible();
  await expect(cards(page)).toHaveCount(3);
  const pdfCase = CaseList.parse(await (await fetch(`${core.baseUrl}/app/cases?q=${encodeURIComponent(`${caseName} – PDFs`)}`, { headers: ui })).json());
  expect(pdfCase.cases.map((c) => [c.name, c.fileCount])).toEqual([[`${caseName} – PDFs`, 1]]);

  // A file taken out of the case leaves the screen and the case; its job stays in History.
  await copy.getByRole('button', { name: 'Remove porch-again.jpg from the case' }).click();
  await copy.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(cards(page)).toHaveCount(2);
  const stored = CaseInfo.parse(await (await fetch(`${core.baseUrl}/app/cases/${caseId}`, { headers: ui })).json());
  expect(stored.fileCount).toBe(2);
  const history = HistoryList.parse(await (await fetch(`${core.baseUrl}/app/history?name=porch-again`, { headers: ui })).json());
  expect(history.files.map((f) => [f.name, f.caseName])).toEqual([['porch-again.jpg', null]]);
  await page.reload();
  await expect(cards(page)).toHaveCount(2);
  await expect(page.getByTestId('verdict-card').filter({ hasText: 'porch-again.jpg' })).toHaveCount(0);
});

// Issue 22, item 3: reviews count.
test('a review changes the counts and the filter', async ({ appPage: page }) => {
  await page.getByTestId('file-input').setInputFiles([
    { name: 'gate.jpg', mimeType: 'image/jpeg', buffer: await makeImage(731, 'jpeg') },
    { name: 'shed.jpg', mimeType: 'image/jpeg', buffer: await makeImage(732, 'jpeg') },
  ]);
  await expect(cards(page)).toHaveCount(2);
  for (const card of await cards(page).all()) await expect(card).not.toHaveAttribute('data-status', 'processing', { timeout: 180_000 });
  const gate = cards(page).filter({ hasText: 'gate.jpg' });
  const before = (await gate.getAttribute('data-effective'))!;
  // The review disagrees with the machine: it decides where the file counts.
  const review = before === 'ai_generated' ? 'authentic' : 'ai_generated';
  const count = async (filter: string) => Number(await page.getByTestId(`filter-${filter}`).getAttribute('data-count'));
  const beforeCounts = { [before]: await count(before), [review]: await count(review) };
  await expect(page.getByTestId('counts-basis')).toHaveText('Counted by the expert review where there is one, the machine verdict otherwise (0 of 2 reviewed).');
  await expect(page.getByTestId('filter-reviewed')).toHaveAttribute('data-count', '0');

  await gate.getByRole('button', { name: 'Add expert review' }).click();
  await gate.getByRole('radio', { name: review === 'authentic' ? 'Authentic' : 'AI-generated' }).check();
  await gate.getByLabel('Reviewer').fill('R. Expert');
  await gate.getByRole('button', { name: 'Save review' }).click();
  await expect(gate.getByTestId('expert-review')).toBeVisible();
  await expect(gate).toHaveAttribute('data-effective', review);
  await expect(gate.getByTestId('effective-verdict')).toContainText('the expert review');
  await expect(page.getByTestId(`filter-${review}`)).toHaveAttribute('data-count', String(beforeCounts[review] + 1));
  await expect(page.getByTestId(`filter-${before}`)).toHaveAttribute('data-count', String(beforeCounts[before] - 1));
  await expect(page.getByTestId('filter-reviewed')).toHaveAttribute('data-count', '1');
  await expect(page.getByTestId('filter-not_reviewed')).toHaveAttribute('data-count', '1');
  await expect(page.getByTestId('counts-basis')).toContainText('(1 of 2 reviewed)');

  // The filters follow the review: the reviewed file is under its review's verdict, and under "Reviewed".
  await page.getByTestId(`filter-${review}`).click();
  await expect(cards(page).filter({ hasText: 'gate.jpg' })).toHaveCount(1);
  await page.getByTestId('filter-reviewed').click();
  await expect(cards(page)).toHaveCount(1);
  await expect(cards(page).first()).toHaveAttribute('data-file-name', 'gate.jpg');
  await page.getByTestId('filter-not_reviewed').click();
  await expect(cards(page)).toHaveCount(1);
  await expect(cards(page).first()).toHaveAttribute('data-file-name', 'shed.jpg');

  // The reviewer's name is remembered for this launch: the next review form has it, after a reload too.
  await page.reload();
  await expect(cards(page)).toHaveCount(2);
  const shed = cards(page).filter({ hasText: 'shed.jpg' });
  await shed.getByRole('button', { name: 'Add expert review' }).click();
  await expect(shed.getByLabel('Reviewer')).toHaveValue('R. Expert');
  await shed.getByRole('button', { name: 'Cancel' }).click();

  // History's verdict filter is the effective verdict, and says which one decided.
  await page.getByRole('button', { name: 'History' }).click();
  await expect(page.getByTestId('case-row').first()).toContainText('1 reviewed');
  await page.getByRole('button', { name: 'All files' }).click();
  // (the history is the whole core's: other specs' files, e.g. a generated picture the pixels call AI, are in it too)
  await page.getByRole('textbox', { name: 'File name' }).fill('gate.jpg');
  await page.getByRole('combobox', { name: /^Verdict/ }).selectOption(review);
  await page.getByRole('combobox', { name: /^Review/ }).selectOption('yes');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  await expect(page.getByTestId('history-row')).toContainText('gate.jpg');
  await expect(page.getByTestId('history-verdict')).toContainText('(expert review');
  await page.getByRole('combobox', { name: /^Review/ }).selectOption('no');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('history-row')).toHaveCount(0);
});

// Issue 22, item 5: a case list.
test('History opens on cases, then a case\'s files; a SHA-256 prefix finds a file and "Open" opens its case at it', async ({ appPage: page, core }) => {
  const ui = { Authorization: `Bearer ${core.uiToken}` };
  const send = async (caseName: string, files: { name: string; data: Buffer }[]) => {
    const form = new FormData();
    form.append('metadata', JSON.stringify({ case: caseName }));
    for (const f of files) form.append('file', new Blob([new Uint8Array(f.data)], { type: 'image/jpeg' }), f.name);
    const res = await fetch(`${core.baseUrl}/v1/assess?wait=false`, { method: 'POST', headers: { Authorization: `Bearer ${core.keys.images}` }, body: form });
    expect([200, 202]).toContain(res.status);
  };
  const needle = await makeImage(741, 'jpeg');
  const sha256 = crypto.createHash('sha256').update(needle).digest('hex');
  await send('CLM-9001 Quay St', [
    { name: 'quay-1.jpg', data: await makeImage(742, 'jpeg') },
    { name: 'quay-2.jpg', data: needle },
    { name: 'quay-3.jpg', data: await makeImage(743, 'jpeg') },
  ]);
  await send('CLM-9002 Dock', [{ name: 'dock.jpg', data: await makeImage(744, 'jpeg') }]);
  const quay = CaseList.parse(await (await fetch(`${core.baseUrl}/app/cases?q=CLM-9001`, { headers: ui })).json()).cases[0];
  await fetch(`${core.baseUrl}/app/cases/${quay.id}`, {
    method: 'PATCH',
    headers: { ...ui, 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'in_review', notes: 'Originals asked from the broker.' }),
  });

  await page.getByRole('button', { name: 'History' }).click();
  const row = page.getByTestId('case-row').filter({ hasText: 'CLM-9001 Quay St' });
  await expect(row.getByTestId('case-row-status')).toHaveText('In review');
  await expect(row.getByTestId('case-row-notes')).toHaveText('Originals asked from the broker.');
  await expect(row.getByTestId('case-row-counts')).toContainText(/^3 files: .* · 0 reviewed$/, { timeout: 120_000 });
  await expect(page.getByTestId('case-row').filter({ hasText: 'CLM-9002 Dock' })).toContainText('1 file');
  await page.getByRole('textbox', { name: 'Case name' }).fill('quay');
  await page.getByRole('button', { name: 'Find cases' }).click();
  await expect(page.getByTestId('case-row')).toHaveCount(1);

  await row.getByRole('button', { name: 'Files of case CLM-9001 Quay St' }).click();
  await expect(page.getByTestId('history-case-title')).toHaveText('Files of case “CLM-9001 Quay St”');
  await expect(page.getByTestId('history-row')).toHaveCount(3);
  // Any prefix of 8 or more hex digits, either case.
  await page.getByRole('textbox', { name: 'SHA-256' }).fill(sha256.slice(0, 8).toUpperCase());
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  const found = page.getByTestId('history-row');
  await expect(found).toContainText('quay-2.jpg');
  const fileId = (await found.getAttribute('data-file-id'))!;

  await found.getByRole('button', { name: /^Open job/ }).click();
  await expect(page.getByRole('button', { name: 'Assess' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('case-header').getByTestId('case-name')).toHaveText('CLM-9001 Quay St');
  await expect(cards(page)).toHaveCount(3);
  const target = page.locator(`[data-testid="verdict-card"][data-file-id="${fileId}"]`);
  await expect(target).toHaveAttribute('data-focused', 'true');
  await expect(target).toBeInViewport();
  await expect(target).toBeFocused();
});
