// The window after the accessibility audit of November 2026, against the real core: taking a file out of the case
// by keyboard keeps the focus on something on the card's way (the confirmation, then the next card) and says what
// happened; a notice saying where files went is a status in a neutral style, not a red alert; the confirmation of a
// drop speaks of one duplicate in the singular; a case note a card points to can be reached and read by keyboard.
import type { Page } from '@playwright/test';
import { expect, test } from './core-fixture.js';
import { makeImage, makePdf } from './generate-files.js';

const cards = (page: Page) => page.getByTestId('verdict-card');

// Analyses on a shared two-core machine can take minutes: the keyboard and the words are under test here.
test.describe.configure({ timeout: 600_000 });

test('removing a file from the case by keyboard focuses the confirmation, then the next card, and says the file was removed', async ({ appPage: page }) => {
  await page.getByLabel(/Case name for loose files/).fill('Keyboard case');
  await page.getByTestId('file-input').setInputFiles(
    await Promise.all(['one.jpg', 'two.jpg', 'three.jpg'].map(async (name, i) => ({ name, mimeType: 'image/jpeg', buffer: await makeImage(9301 + i, 'jpeg') }))),
  );
  await expect(cards(page)).toHaveCount(3);
  const order = await cards(page).evaluateAll((els) => els.map((el) => el.getAttribute('data-file-name')!));
  const [first, middle, last] = order;
  const card = (name: string) => page.locator(`[data-testid="verdict-card"][data-file-name="${name}"]`);

  // Enter on "Remove from case": the confirmation's first control has the focus, and it says what it asks.
  const removeMiddle = card(middle).getByRole('button', { name: `Remove ${middle} from the case` });
  await removeMiddle.focus();
  await page.keyboard.press('Enter');
  const confirm = card(middle).getByTestId('remove-confirm');
  await expect(confirm.getByRole('button', { name: 'Remove', exact: true })).toBeFocused();
  await expect(confirm).toHaveAccessibleDescription(`Remove “${middle}” from case “Keyboard case”? Its job stays in History.`);
  // Escape keeps the file, and the focus goes back to the button that asked.
  await page.keyboard.press('Escape');
  await expect(confirm).toHaveCount(0);
  await expect(removeMiddle).toBeFocused();

  // Removed: the next card has the focus, and a status line says what happened.
  await page.keyboard.press('Enter');
  await expect(confirm.getByRole('button', { name: 'Remove', exact: true })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(cards(page)).toHaveCount(2);
  await expect(card(last)).toBeFocused();
  await expect(page.getByRole('status').filter({ hasText: `“${middle}” was removed from case “Keyboard case”; its job stays in History.` })).toHaveCount(1);

  // The last card removed: the focus goes to the card before it.
  await card(last).getByRole('button', { name: `Remove ${last} from the case` }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await expect(cards(page)).toHaveCount(1);
  await expect(card(first)).toBeFocused();
  await expect(page.getByTestId('removed-status')).toHaveText(`“${last}” was removed from case “Keyboard case”; its job stays in History.`);

  // The only card removed: the focus goes to the case's name.
  await card(first).getByRole('button', { name: `Remove ${first} from the case` }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await expect(cards(page)).toHaveCount(0);
  await expect(page.getByTestId('case-name')).toBeFocused();
});

test('a notice of where files went is a status in a neutral style, and one duplicate is spoken of in the singular', async ({ appPage: page }) => {
  const porch = await makeImage(9311, 'jpeg');
  await page.getByLabel(/Case name for loose files/).fill('Notices case');
  await page.getByTestId('file-input').setInputFiles([{ name: 'porch.jpg', mimeType: 'image/jpeg', buffer: porch }]);
  await expect(cards(page)).toHaveCount(1);

  const confirm = page.getByTestId('drop-confirm');
  await page.getByTestId('file-input').setInputFiles([
    { name: 'porch-again.jpg', mimeType: 'image/jpeg', buffer: porch },
    { name: 'statement.pdf', mimeType: 'application/pdf', buffer: await makePdf(9312) },
  ]);
  await expect(confirm.getByTestId('drop-confirm-duplicates')).toHaveText('Already in this case (same SHA-256): “porch-again.jpg”. It will be flagged as a duplicate.');
  await confirm.getByRole('button', { name: 'Add, with the PDFs in a case of their own' }).click();

  const notice = page.getByTestId('notice').filter({ hasText: 'The PDF went into a case of their own, “Notices case – PDFs”' });
  await expect(notice).toHaveRole('status');
  await expect(page.getByRole('alert')).toHaveCount(0);
  // Not the red of a failure: its mark is not the colour errors are drawn in.
  const colours = await notice.evaluate((el) => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--error)';
    document.body.append(probe);
    const error = getComputedStyle(probe).color;
    probe.remove();
    return { mark: getComputedStyle(el).borderLeftColor, error };
  });
  expect(colours.mark).not.toBe(colours.error);
});

test('a case note a card points to is a button a keyboard reaches, whose text a screen reader and a sighted user can read on the card', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'verdicts need the detector model');
  const names = ['quay.jpg', 'crane.jpg', 'dock.jpg'];
  await page.getByLabel(/Case name for loose files/).fill('Notes by keyboard');
  await page.getByTestId('file-input').setInputFiles(await Promise.all(names.map(async (name, i) => ({ name, mimeType: 'image/jpeg', buffer: await makeImage(120 + i, 'jpeg') }))));
  await expect(cards(page)).toHaveCount(names.length);
  await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 480_000 });

  const note = page.getByTestId('case-note').first();
  await expect(note).toBeVisible();
  const n = (await note.getAttribute('data-note'))!;
  const sentence = (await note.evaluate((li) => li.firstChild?.textContent ?? '')).trim();
  const card = cards(page).filter({ has: page.locator(`[data-testid="note-ref"][data-note="${n}"]`) }).first();
  const ref = card.getByRole('button', { name: `(case note ${n})` }).first();
  // Said to a screen reader as the button's description; not shown on the card until asked.
  await expect(ref).toHaveAccessibleDescription(sentence);
  await expect(ref).toHaveAttribute('aria-expanded', 'false');
  await expect(card.getByText(sentence)).toBeHidden();
  // Reached by keyboard and opened with Enter: the text is on the card, where the list of notes is not needed.
  await ref.focus();
  await expect(ref).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(ref).toHaveAttribute('aria-expanded', 'true');
  await expect(card.getByTestId('note-text').first()).toBeVisible();
  await expect(card.getByTestId('note-text').first()).toHaveText(sentence);
});
