// Issue 22, item 1, over real HTTP: unedited portrait and landscape originals, in all eight EXIF orientations, sent
// to POST /v1/assess of a core with the real model and worker processes, never come back with a capture check that
// says "contradicted" or "manipulation", neither in the dimension, nor in the verdict's description, nor in the case
// report's PDF. A real original whose thumbnail was swapped for another picture's, sent as another case, still does.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { CaseList } from '../../src/api/app-schemas.js';
import { CAPTURE_CONTRADICTED_LABEL, dimensionFinding } from '../../src/api/vocabulary.js';
import { MODELS_DIR } from '../unit/analysis/fixtures.js';
import { ORIENTATIONS, exiftool, readFixture, scratch, withOrientation } from '../support/camera-originals.js';
import { assessOverHttp, onPg, startCore, startListening } from './helpers.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

// Analysis of the files' bytes, which no storage backend touches: SQLite only, so CI's PostgreSQL pass (30 minutes for
// everything) spends its time on what the backend changes (its case reports are report.test.ts's on both backends).
describe.skipIf(onPg)('POST /v1/assess: originals in every orientation are never called manipulated (real model, real HTTP)', () => {
  it('a Canon portrait original and a Nikon original in 8 orientations each and an iPhone HEIC in 2: no contradiction on the cards or in the case report; a swapped thumbnail still is', { timeout: 300_000 }, async () => {
    const core = await startCore({ modelsDir: MODELS_DIR });
    const base = await startListening(core);
    const files: { name: string; data: Buffer; type: string }[] = [];
    for (const o of ORIENTATIONS) {
      files.push({ name: `canon-portrait-o${o}.jpg`, data: withOrientation(readFixture('canon-eos-5d-mark-iii-720x480-orientation-6.jpg'), o, tmp.dir), type: 'image/jpeg' });
      files.push({ name: `nikon-o${o}.jpg`, data: withOrientation(readFixture('nikon-coolpix-s3100-640x480.jpg'), o, tmp.dir), type: 'image/jpeg' });
    }
    for (const o of [6, 8]) {
      files.push({ name: `iphone-o${o}.heic`, data: withOrientation(readFixture('apple-iphone-13-pro-orientation-6.heic'), o, tmp.dir, 'heic'), type: 'image/heic' });
    }
    // The control: a real original, portrait, whose thumbnail now shows another picture.
    const other = join(tmp.dir, 'other.jpg');
    await sharp(readFixture('kodak-dc280-896x592.jpg')).resize(160, 120, { fit: 'fill' }).jpeg().toFile(other);
    const swapped = join(tmp.dir, 'swapped.jpg');
    writeFileSync(swapped, readFixture('canon-powershot-sx150-is-640x480-orientation-6.jpg'));
    exiftool(`-ThumbnailImage<=${other}`, swapped);
    const control = { name: 'swapped-thumbnail.jpg', data: readFileSync(swapped), type: 'image/jpeg' };
    expect(files).toHaveLength(18);

    const job = await assessOverHttp(base, core.imagesKey, files, 'Portrait originals');
    const controlJob = await assessOverHttp(base, core.imagesKey, [control], 'Swapped thumbnail');
    expect([job.status, controlJob.status]).toEqual(['completed', 'completed']);
    const byName = new Map([...job.results, ...controlJob.results].map((r) => [r.file.name, r]));
    for (const f of files) {
      const r = byName.get(f.name)!;
      expect(r.status, f.name).toBe('completed');
      const capture = r.verdict!.dimensions.find((d) => d.key === 'capture');
      expect(capture, f.name).toBeDefined();
      expect(capture!.label, f.name).not.toBe(CAPTURE_CONTRADICTED_LABEL);
      // Every one of these originals is built as its camera builds files, whatever its orientation.
      expect(capture!.assessment, f.name).toBe('likely_authentic');
      expect(dimensionFinding(capture!), f.name).not.toMatch(/contradicted|manipulat/i);
      expect(r.verdict!.display.description, f.name).not.toMatch(/contradicted|manipulat|different shape/i);
    }
    const swappedResult = byName.get('swapped-thumbnail.jpg')!;
    const controlCapture = swappedResult.verdict!.dimensions.find((d) => d.key === 'capture')!;
    expect(controlCapture.label).toBe(CAPTURE_CONTRADICTED_LABEL);
    expect(swappedResult.verdict!.display.description).toContain("The photo's embedded thumbnail shows a different picture from the photo itself.");
    expect(swappedResult.verdict!.assessment).not.toBe('authentic');

    // The case report (the window's route, its UI token, real HTTP): the originals' report never says it either; the
    // control's does.
    const reportText = async (caseName: string) => {
      const ui = { authorization: `Bearer ${core.uiToken}` };
      const list = CaseList.parse(await (await fetch(`${base}/app/cases?q=${encodeURIComponent(caseName)}`, { headers: ui })).json());
      const caseId = list.cases.find((c) => c.name === caseName)!.id;
      const pdf = await fetch(`${base}/app/cases/${caseId}/report.pdf`, { headers: ui });
      expect(pdf.status).toBe(200);
      const p = join(tmp.dir, `${caseId}.pdf`);
      writeFileSync(p, Buffer.from(await pdf.arrayBuffer()));
      return execFileSync('pdftotext', ['-layout', p, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    };
    const originalsReport = await reportText('Portrait originals');
    for (const f of files) expect(originalsReport).toContain(f.name);
    expect(originalsReport).not.toMatch(/manipulat|contradicted|different shape/i);
    expect(await reportText('Swapped thumbnail')).toMatch(/A sign of manipulation/);
  });
});
