// Issue 22, item 1, in the window: unedited originals in all eight EXIF orientations, made by the test with
// exiftool (a real portrait Canon and a real Nikon original, the bytes unchanged but the Orientation tag), and two
// phone-like pictures made by the test with a thumbnail of their stored pixels, are dropped on the drop zone of the
// real core with the real model. No card may say "contradicted" or "manipulation"; the real originals' capture check
// reads "points to authentic", the pictures a program wrote "re-saved".
import { CAPTURE_RESAVED_WORDS } from '../../src/api/vocabulary.js';
import { ORIENTATIONS, madeOriginal, readFixture, scratch, withOrientation } from '../support/camera-originals.js';
import { expect, test } from './core-fixture.js';
import { dropFiles, type DroppedFile } from './drop-files.js';

const RESAVED_SENTENCES = CAPTURE_RESAVED_WORDS.split(/(?<=\.) (?=A re-save)/);

test('eight-orientation originals dropped into the window: no card says manipulation or contradicted', async ({ appPage: page, core }) => {
  test.skip(!core.modelPresent, 'needs the detector model (models/veracity-detector)');
  const tmp = scratch();
  try {
    const files: DroppedFile[] = [];
    const add = (name: string, data: Buffer) => files.push({ name, mimeType: 'image/jpeg', data });
    for (const o of ORIENTATIONS) {
      add(`canon-portrait-o${o}.jpg`, withOrientation(readFixture('canon-eos-5d-mark-iii-720x480-orientation-6.jpg'), o, tmp.dir));
      add(`nikon-o${o}.jpg`, withOrientation(readFixture('nikon-coolpix-s3100-640x480.jpg'), o, tmp.dir));
    }
    add('phone-made-o6.jpg', await madeOriginal(tmp.dir, { make: 'Apple', model: 'iPhone 14 Pro', orientation: 6 }));
    add('phone-made-o8.jpg', await madeOriginal(tmp.dir, { make: 'samsung', model: 'SM-S911B', orientation: 8 }));

    await page.getByLabel(/Case name for loose files/).fill('Portrait originals');
    await dropFiles(page, files);

    const cards = page.getByTestId('verdict-card');
    await expect(cards).toHaveCount(files.length);
    await expect(page.locator('[data-testid="verdict-card"][data-status="processing"]')).toHaveCount(0, { timeout: 180_000 });
    await expect(page.locator('[data-testid="verdict-card"][data-status="completed"]')).toHaveCount(files.length);

    for (const f of files) {
      const card = page.locator(`[data-testid="verdict-card"][data-file-name="${f.name}"]`);
      await expect(card, f.name).toHaveCount(1);
      await expect(card, f.name).not.toContainText(/manipulat|contradicted|different shape/i);
      const capture = card.locator('[data-testid="dimension"][data-key="capture"]');
      await expect(capture, f.name).toHaveCount(1);
      // The phone-like pictures are written by libjpeg (sharp): the Apple one with libjpeg's tables where Apple never
      // used them, and both with libjpeg's one-table-per-marker layout where both makers' phones put the tables
      // together: re-saved. Two cards saying it, each sentence is said once as a case note the cards point to, so the
      // sentences are looked for one by one.
      if (f.name.startsWith('phone-made-')) {
        for (const sentence of RESAVED_SENTENCES) await expect(capture, f.name).toContainText(sentence);
      } else await expect(capture, f.name).toContainText('Points to authentic');
    }
  } finally {
    tmp.cleanup();
  }
});
