// The specialist's workspace against the real core (issue #13): the active case's header (renamed in place, its
// status and notes stored by the core and shown again after a reload), and each file's stage on its card while the
// core works, read from GET /v1/jobs/{jobId}/progress with one request per job and poll.
import type { Page, Request } from '@playwright/test';
import { CaseInfo } from '../../src/api/app-schemas.js';
import { expect, test } from './core-fixture.js';
import { makeImage } from './generate-files.js';

const cards = (page: Page) => page.getByTestId('verdict-card');

test('the case header renames the case in place, sets its status and notes, and a reload shows them again', async ({ appPage: page, core }) => {
  await page.getByLabel(/Case name for loose files/).fill('CLM-8101 Header');
  await page.getByTestId('file-input').setInputFiles([{ name: 'porch.jpg', mimeType: 'image/jpeg', buffer: await makeImage(801, 'jpeg') }]);
  await expect(cards(page)).toHaveCount(1);
  const header = page.getByTestId('case-header');
  await expect(header.getByTestId('case-name')).toHaveText('CLM-8101 Header');
  const caseId = await header.getAttribute('data-case-id');
  await expect(header.getByTestId('case-status')).toHaveValue('open');

  // Esc leaves the name as it was.
  await header.getByRole('button', { name: 'Rename case “CLM-8101 Header”' }).click();
  await header.getByRole('textbox', { name: 'Case name' }).fill('Not this');
  await header.getByRole('textbox', { name: 'Case name' }).press('Escape');
  await expect(header.getByTestId('case-name')).toHaveText('CLM-8101 Header');

  // A name another case has is refused in words; the name stays.
  const ui = { Authorization: `Bearer ${core.uiToken}`, 'Content-Type': 'application/json' };
  expect((await fetch(`${core.baseUrl}/app/cases`, { method: 'POST', headers: ui, body: JSON.stringify({ name: 'CLM-8102 Taken' }) })).status).toBe(201);
  await header.getByRole('button', { name: /^Rename case/ }).click();
  await header.getByRole('textbox', { name: 'Case name' }).fill('CLM-8102 Taken');
  await header.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Another case is already called “CLM-8102 Taken”' })).toBeVisible();
  await header.getByRole('button', { name: 'Cancel' }).click();
  await expect(header.getByTestId('case-name')).toHaveText('CLM-8101 Header');

  await header.getByRole('button', { name: /^Rename case/ }).click();
  await header.getByRole('textbox', { name: 'Case name' }).fill('CLM-8101 Storm damage, Quay St');
  await header.getByRole('textbox', { name: 'Case name' }).press('Enter');
  await expect(header.getByTestId('case-name')).toHaveText('CLM-8101 Storm damage, Quay St');
  await expect(header.getByTestId('case-saved')).toHaveText('Name saved.');
  await header.getByTestId('case-status').selectOption({ label: 'In review' });
  await expect(header.getByTestId('case-saved')).toHaveText('Status saved.');
  const notes = 'Policyholder sent the photos by e-mail on 12 May.\nAsk for the originals from the phone.';
  await header.getByLabel('Notes').fill(notes);
  await expect(header.getByTestId('case-saved')).toHaveText('Notes not saved yet.');
  await header.getByRole('button', { name: 'Save notes' }).click();
  await expect(header.getByTestId('case-saved')).toHaveText('Notes saved.');
  await expect(header.getByRole('button', { name: 'Save notes' })).toBeDisabled();

  await page.reload();
  await expect(cards(page)).toHaveCount(1);
  await expect(header.getByTestId('case-name')).toHaveText('CLM-8101 Storm damage, Quay St');
  await expect(header.getByTestId('case-status')).toHaveValue('in_review');
  await expect(header.getByTestId('case-status').locator('option:checked')).toHaveText('In review');
  await expect(header.getByLabel('Notes')).toHaveValue(notes);

  // The core holds them (not the window), and a loose file dropped now joins the renamed case once the window says so.
  await page.getByTestId('file-input').setInputFiles([{ name: 'gutter.jpg', mimeType: 'image/jpeg', buffer: await makeImage(802, 'jpeg') }]);
  await page.getByTestId('drop-confirm').getByRole('button', { name: 'Add to “CLM-8101 Storm damage, Quay St”' }).click();
  await expect(cards(page)).toHaveCount(2);
  const stored = CaseInfo.parse(await (await fetch(`${core.baseUrl}/app/cases/${caseId}`, { headers: ui })).json());
  expect([stored.name, stored.status, stored.notes, stored.fileCount]).toEqual(['CLM-8101 Storm damage, Quay St', 'in_review', notes, 2]);
});

test('every card of a drop shows its stage before its verdict, read with one progress request per job', async ({ appPage: page }) => {
  // Record, in the page, each card's stage element as it appears and the card's status as it changes: the stage
  // must be seen on every card while it is still processing.
  await page.evaluate(() => {
    const seen: Record<string, { stages: string[]; words: string[]; statuses: string[] }> = {};
    (window as unknown as { stageLog: typeof seen }).stageLog = seen;
    const record = (card: Element | null): void => {
      if (!card) return;
      const name = card.getAttribute('data-file-name') ?? '';
      const entry = (seen[name] ??= { stages: [], words: [], statuses: [] });
      const status = card.getAttribute('data-status') ?? '';
      if (entry.statuses.at(-1) !== status) entry.statuses.push(status);
      const stage = card.querySelector('[data-testid="file-stage"]');
      const value = stage?.getAttribute('data-stage') ?? '';
      if (stage && value && entry.stages.at(-1) !== value) {
        entry.stages.push(value);
        entry.words.push(stage.textContent?.trim() ?? '');
      }
    };
    const lines: string[] = [];
    (window as unknown as { progressLines: string[] }).progressLines = lines;
    new MutationObserver((mutations) => {
      const line = document.querySelector('.progress span')?.textContent ?? '';
      if (line && lines.at(-1) !== line) lines.push(line);
      for (const m of mutations) {
        const element = m.target instanceof Element ? m.target : m.target.parentElement;
        record(element?.closest('[data-testid="verdict-card"]') ?? null);
        for (const node of m.addedNodes) if (node instanceof Element) node.querySelectorAll('[data-testid="verdict-card"]').forEach(record);
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true, attributeFilter: ['data-stage', 'data-status'] });
  });
  const requests: Request[] = [];
  page.on('request', (r) => requests.push(r));

  const names = ['s1-roof.jpg', 's2-hall.jpg', 's3-yard.png', 's4-door.jpg'];
  await page.getByLabel(/Case name for loose files/).fill('Stage case');
  await page.getByTestId('file-input').setInputFiles(
    await Promise.all(names.map(async (name, i) => ({ name, mimeType: name.endsWith('.png') ? 'image/png' : 'image/jpeg', buffer: await makeImage(820 + i, name.endsWith('.png') ? 'png' : 'jpeg', 480, 360) }))),
  );
  await expect(cards(page)).toHaveCount(4);
  await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 180_000 });

  const log = await page.evaluate(() => (window as unknown as { stageLog: Record<string, { stages: string[]; words: string[]; statuses: string[] }> }).stageLog);
  const words: Record<string, string> = { queued: 'Queued', decoding: 'Decoding', analysing: 'Analysing', done: 'Done', error: 'Failed' };
  for (const name of names) {
    const entry = log[name];
    expect(entry, `${name} was seen`).toBeDefined();
    // Processing first, with a stage from the API shown in words; then finished.
    expect(entry.statuses[0], name).toBe('processing');
    expect(entry.statuses.at(-1), name).not.toBe('processing');
    expect(entry.stages.length, `${name} showed a stage before its verdict`).toBeGreaterThan(0);
    entry.stages.forEach((stage, i) => {
      expect(Object.keys(words), name).toContain(stage);
      expect(entry.words[i].startsWith(words[stage]), `${name}: “${entry.words[i]}”`).toBe(true);
    });
  }

  // The progress line counted the files at each stage while they ran.
  const lines = await page.evaluate(() => (window as unknown as { progressLines: string[] }).progressLines);
  expect(lines.some((l) => /finished \((\d+ (queued|decoding|analysing)(, )?)+\)/.test(l)), lines.join(' | ')).toBe(true);

  // One job for the four images: its stages are polled, and the job itself is read again only when files finished
  // (at most once per file), not on every poll.
  const jobIds = new Set(requests.map((r) => /\/v1\/jobs\/([0-9a-f-]{36})\/progress/.exec(r.url())?.[1]).filter((id): id is string => Boolean(id)));
  expect(jobIds.size).toBe(1);
  const [jobId] = jobIds;
  const jobReads = requests.filter((r) => r.method() === 'GET' && new URL(r.url()).pathname === `/v1/jobs/${jobId}`).length;
  expect(jobReads).toBeGreaterThan(0);
  expect(jobReads).toBeLessThanOrEqual(names.length);
});

test('every dropped file has a card with the window’s stage before the core accepts the job; the same cards then show the API’s stages and verdicts', async ({ appPage: page }) => {
  // The first POST /v1/assess is held in the browser until released: what the cards show meanwhile is the window's
  // own knowledge (sending the body, the core checking the files), not the API's.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let posts = 0;
  await page.route('**/v1/assess?*', async (route) => {
    if (++posts === 1) await held;
    await route.continue();
  });

  const names = ['w1-porch.jpg', 'w2-broken.jpg', 'w3-yard.png', 'w4-shed.jpg', 'w5-fence.jpg'];
  const files = await Promise.all(
    names.map(async (name, i) => ({
      name,
      mimeType: name.endsWith('.png') ? 'image/png' : 'image/jpeg',
      // JPEG magic bytes, then garbage: the window sends it, the core refuses the request for it (422).
      buffer: name.includes('broken') ? Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 7)]) : await makeImage(840 + i, name.endsWith('.png') ? 'png' : 'jpeg', 480, 360),
    })),
  );
  await page.getByLabel(/Case name for loose files/).fill('Window stage case');
  await page.getByTestId('file-input').setInputFiles(files);

  const pending = page.getByTestId('pending-card');
  const cardNames = () => page.locator('ul.cards article').evaluateAll((els) => els.map((e) => e.getAttribute('data-file-name')));
  await expect(pending).toHaveCount(names.length);
  await expect(page.locator('[data-testid="pending-card"]:is([data-stage="sending"], [data-stage="checking"])')).toHaveCount(names.length);
  await expect(cards(page)).toHaveCount(0);
  expect(await cardNames()).toEqual(names);
  for (const name of names) {
    await expect(page.locator(`[data-testid="pending-card"][data-file-name="${name}"]`).getByTestId('file-stage')).toHaveText(/^\s*(Sending|Checking)…$/);
  }
  await expect(page.locator('.progress span')).toHaveText(/^0 of 5 files finished \((\d+ (sending|checking)(, )?)+\)/);
  expect(posts).toBe(1);

  // From here on, record each verdict card's API stages as they appear (the same record as the test above).
  await page.evaluate(() => {
    const seen: Record<string, string[]> = {};
    (window as unknown as { apiStages: typeof seen }).apiStages = seen;
    const record = (card: Element | null): void => {
      const stage = card?.querySelector('[data-testid="file-stage"]')?.getAttribute('data-stage');
      if (!card || !stage) return;
      const entry = (seen[card.getAttribute('data-file-name') ?? ''] ??= []);
      if (entry.at(-1) !== stage) entry.push(stage);
    };
    new MutationObserver((mutations) => {
      for (const m of mutations) {
        const element = m.target instanceof Element ? m.target : m.target.parentElement;
        record(element?.closest('[data-testid="verdict-card"]') ?? null);
        for (const node of m.addedNodes) if (node instanceof Element) node.querySelectorAll('[data-testid="verdict-card"]').forEach(record);
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-stage'] });
  });
  release();

  // The refused file keeps its card, in its place, saying why (as the "Not sent" list does); the others are sent
  // again without it and their job's cards take the pending cards' places.
  const broken = page.locator('[data-testid="pending-card"][data-file-name="w2-broken.jpg"]');
  await expect(broken).toHaveAttribute('data-stage', 'not_sent');
  await expect(broken.getByTestId('file-stage')).toContainText('Not sent: Cannot be analysed. The image cannot be decoded');
  await expect(page.getByRole('region', { name: /Not sent/ }).getByRole('listitem').filter({ hasText: 'w2-broken.jpg' })).toContainText('Cannot be analysed');
  await expect(cards(page)).toHaveCount(4);
  await expect(pending).toHaveCount(1);
  expect(await cardNames()).toEqual(names);
  await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 180_000 });
  expect(await cardNames()).toEqual(names);
  expect(posts).toBe(2);

  const apiStages = await page.evaluate(() => (window as unknown as { apiStages: Record<string, string[]> }).apiStages);
  for (const name of names.filter((n) => !n.includes('broken'))) {
    expect(apiStages[name]?.length, `${name} showed an API stage before its verdict`).toBeGreaterThan(0);
    for (const stage of apiStages[name]) expect(['queued', 'decoding', 'analysing', 'done', 'error']).toContain(stage);
    await expect(page.locator(`[data-testid="verdict-card"][data-file-name="${name}"]`)).not.toHaveAttribute('data-status', 'processing');
  }
});
