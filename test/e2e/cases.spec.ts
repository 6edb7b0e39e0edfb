// Cases in the window against the real core (issue #13): a dropped folder makes the active case, loose files dropped
// next join it, a reload opens the window on it again with its jobs read back from the core; History finds a file by
// its SHA-256 across both applications and shows its verdict.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CaseList } from '../../src/api/app-schemas.js';
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

  // A loose file, dropped while that case is open, goes into it (not into no case).
  const loose = path.join(root, 'loose.jpg');
  fs.writeFileSync(loose, await makeImage(703, 'jpeg'));
  await page.getByTestId('file-input').setInputFiles(loose);
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
