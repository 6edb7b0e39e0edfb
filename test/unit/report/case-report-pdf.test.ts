// The pure report module: canonical JSON and its hash, local times with their zone, the heatmap cells, and the PDF
// itself read back with pdftotext (poppler-utils): summary, one section per file, page numbers, the bound hash.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { CaseReport, type C2paManifest, type CaseReportFile, type RegionGrid } from '../../../src/api/schemas.js';
import { canonicalJson, sha256Hex } from '../../../src/report/canonical-json.js';
import { localTime, printable, renderCaseReportPdf } from '../../../src/report/case-report-pdf.js';
import { heatmapCells, thumbnailWithHeatmap } from '../../../src/report/heatmap-picture.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-report-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const saved = (pdf: Buffer) => {
  const p = path.join(dir, `${sha256Hex(pdf).slice(0, 8)}.pdf`);
  fs.writeFileSync(p, pdf);
  return p;
};
const pdfText = (pdf: Buffer) => execFileSync('pdftotext', ['-layout', saved(pdf), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
/** The text of each page on its own (pdftotext -f N -l N), spaces folded. */
const pageTexts = (pdf: Buffer): string[] => {
  const p = saved(pdf);
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [p], { encoding: 'utf8' }))?.[1]);
  return Array.from({ length: pages }, (_, i) => execFileSync('pdftotext', ['-layout', '-f', String(i + 1), '-l', String(i + 1), p, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' '));
};
/** Every word pdftotext finds on page `page`, with its box in points. */
const pageWords = (pdf: Buffer, page: number) =>
  [...execFileSync('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), saved(pdf), '-'], { encoding: 'utf8' }).matchAll(
    /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g,
  )].map((m) => ({ x0: Number(m[1]), y0: Number(m[2]), x1: Number(m[3]), y1: Number(m[4]), text: m[5] }));

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
function file(n: number, over: Partial<CaseReportFile> = {}): CaseReportFile {
  const tiles = [];
  for (let y = 0; y + 96 <= 300; y += 64) for (let x = 0; x + 96 <= 400; x += 64) tiles.push({ x, y, w: 96, h: 96, score: x > 200 ? 0.9 : 0.1 });
  return {
    fileId: uuid(n),
    jobId: uuid(900),
    applicationId: uuid(901),
    name: `photo-${n}.jpg`,
    mediaType: 'image/jpeg',
    size: 123_456 + n,
    sha256: sha256Hex(`file ${n}`),
    status: 'completed',
    submittedAt: '2025-07-01T08:00:00.000Z',
    completedAt: '2025-07-01T08:00:04.000Z',
    verdict: {
      assessment: 'inconclusive',
      confidence: 'low',
      display: { label: 'Inconclusive', title: 'Inconclusive: the checks cannot decide', description: `Plain words for file ${n}.` },
      dimensions: [{ key: 'ai_detection', label: 'AI-generation detector', score: 0.62, assessment: 'likely_ai', confidence: 'medium' }],
    },
    error: null,
    expertReview: null,
    modelVersion: 'veracity-detector@0.2.0',
    aggregation: 'top-k mean',
    // veracity-detector 0.2.0's thresholds, kept with its tile scores: they set each tile's band and colour.
    regions: [{ source: { kind: 'image' }, width: 400, height: 300, tiles, thresholds: { decision: 0.5592, highAi: 0.957, highAuthentic: 0.2623, inconclusiveBand: [0.5592, 0.7387] } }],
    pixelSize: { width: 400, height: 300 },
    ...over,
  };
}
function report(files: CaseReportFile[], over: Partial<CaseReport> = {}): CaseReport {
  const by = (a: string, of: (f: CaseReportFile) => string | undefined) => files.filter((f) => of(f) === a).length;
  const machine = (f: CaseReportFile) => f.verdict?.assessment;
  const effective = (f: CaseReportFile) => f.expertReview?.assessment ?? f.verdict?.assessment;
  return CaseReport.parse({
    format: 'veracity-case-report',
    version: 3,
    caseId: uuid(902),
    caseName: 'CLM-1',
    caseStatus: 'in_review',
    caseNotes: 'Water damage, kitchen ceiling. Adjuster visit booked.',
    appVersion: '9.8.7',
    timeZone: 'Europe/Berlin',
    asOf: '2025-07-01T08:00:04.000Z',
    summary: {
      files: files.length,
      ai_generated: by('ai_generated', machine),
      authentic: by('authentic', machine),
      inconclusive: by('inconclusive', machine),
      processing: 0,
      error: files.filter((f) => f.status === 'error').length,
      reviewed: files.filter((f) => f.expertReview).length,
      effective: {
        ai_generated: by('ai_generated', effective),
        authentic: by('authentic', effective),
        inconclusive: by('inconclusive', effective),
        processing: 0,
        error: files.filter((f) => f.status === 'error' && !f.expertReview).length,
      },
    },
    jobs: [{ jobId: uuid(900), applicationId: uuid(901), status: 'completed', createdAt: '2025-07-01T08:00:00.000Z', completedAt: '2025-07-01T08:00:04.000Z' }],
    files,
    ...over,
  });
}
const picture = () => sharp({ create: { width: 400, height: 300, channels: 3, background: '#808080' } }).jpeg().toBuffer();

describe('canonicalJson', () => {
  it('sorts keys by code unit at every depth, drops undefined, writes no spaces: one text per value', () => {
    expect(canonicalJson({ b: 1, a: [{ z: null, y: 'é"\n' }, 1.5e-7, true], é: undefined, A: 0 })).toBe('{"A":0,"a":[{"y":"é\\"\\n","z":null},1.5e-7,true],"b":1}');
    expect(canonicalJson({ x: 1, y: { b: 2, a: 1 } })).toBe(canonicalJson({ y: { a: 1, b: 2 }, x: 1 }));
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
  });
});

describe('localTime', () => {
  it('states the local time of the zone with that date\'s offset (summer and winter)', () => {
    expect(localTime('2025-07-01T08:00:04.000Z', 'Europe/Berlin')).toBe('2025-07-01 10:00:04 (UTC+02:00)');
    expect(localTime('2025-01-15T23:30:00.000Z', 'Europe/Berlin')).toBe('2025-01-16 00:30:00 (UTC+01:00)');
    expect(localTime('2025-01-15T23:30:00.000Z', 'UTC')).toBe('2025-01-15 23:30:00 (UTC+00:00)');
  });
});

describe('heatmap', () => {
  it('cells between tile edges take the mean of the tiles covering them', () => {
    const grid: RegionGrid = { source: { kind: 'image' }, width: 160, height: 96, tiles: [{ x: 0, y: 0, w: 96, h: 96, score: 0.2 }, { x: 64, y: 0, w: 96, h: 96, score: 0.8 }] };
    expect(heatmapCells(grid).map((c) => [c.x0, c.x1, Number(c.score.toFixed(2))])).toEqual([[0, 64, 0.2], [64, 96, 0.5], [96, 160, 0.8]]);
  });

  it('draws red over tiles that lean AI and blue over those that lean authentic, in the bands of the grid\'s thresholds', async () => {
    const grid = file(1).regions[0];
    const { data, width, height } = await thumbnailWithHeatmap(await picture(), grid, 200);
    expect([width, height]).toEqual([200, 150]);
    const { data: px } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...px.subarray((y * width + x) * 3, (y * width + x) * 3 + 3)];
    const [lr, , lb] = at(20, 40); // grid x 40: tiles at x 0 (score 0.1)
    const [rr, , rb] = at(170, 40); // grid x 340: only the tile at x 256 (score 0.9) covers it
    expect(lb).toBeGreaterThan(lr);
    expect(rr).toBeGreaterThan(rb);
  });
});

describe('renderCaseReportPdf', () => {
  it('prints the summary, every file (hash, verdict, review, sizes, times in the stated zone), versions, page numbers and the SHA-256 of the canonical JSON', async () => {
    const files = [
      file(1, { expertReview: { assessment: 'authentic', reviewer: 'Dana Whitfield', note: 'Seen on site.', reviewedAt: '2025-07-01T09:00:00.000Z' } }),
      file(2, { status: 'error', verdict: null, error: { code: 'result_unavailable', message: 'no model' }, regions: [] }),
      ...Array.from({ length: 6 }, (_, i) => file(i + 3)),
    ];
    const r = report(files);
    const pictures = new Map([[uuid(1), await picture()], [uuid(3), await picture()]]);
    const pdf = await renderCaseReportPdf({ report: r, pictures, printedAt: new Date('2025-07-02T12:00:00Z'), examiner: 'Dana Whitfield' });
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfText(pdf);
    for (const f of files) {
      expect(text).toContain(f.sha256);
      expect(text).toContain(f.name);
    }
    expect(text).toContain('Inconclusive, low confidence');
    expect(text).toContain('Not assessed');
    expect(text).toContain('Authentic, by Dana Whitfield, 2025-07-01 11:00:00 (UTC+02:00)');
    expect(text).toContain(`Case id ${uuid(902)}`);
    // The words of the window (src/api/vocabulary.ts): the check's finding and why the verdict is less certain.
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('The checks cannot decide');
    expect(flat).toContain('Points to AI-generated · medium confidence');
    expect(flat).toContain('Why is the verdict less certain than the “AI-generation detector” check?');
    expect(text).toContain('Printed 2025-07-02 14:00:00 (UTC+02:00)');
    expect(text).toContain('Time zone Europe/Berlin');
    expect(text).toContain('Veracity version 9.8.7');
    expect(text).toContain('veracity-detector@0.2.0');
    expect(text).toContain('120.6 KiB (123,457 bytes)');
    expect(text).toContain('Plain words for file 8.');
    expect(text).toContain('No picture');
    // The heatmap's legend: every band of the thresholds stored with the tiles (0.2.0's here), with its range.
    for (const range of ['95.7–100 %', '73.9–95.7 %', '55.9–73.9 %', '26.2–55.9 %', '0–26.2 %']) expect(flat).toContain(range);
    // the undecided band is drawn clear, as the window's legend says; the reading notes say what the model does
    expect(flat).toMatch(/55\.9–73\.9 % \(left clear\)/);
    expect(flat).toContain('unshaded areas were scored in the undecided band or not scored');
    expect(flat).toContain('The detector alone gives "AI-generated" only at its highest scores');
    expect(flat).not.toContain('never gives');
    expect(text).toMatch(/Examiner name.*Date.*Signature/);
    const pages = Number(/Page 1 of (\d+)/.exec(text)?.[1]);
    expect(pages).toBeGreaterThanOrEqual(4);
    for (let p = 1; p <= pages; p++) expect(text).toContain(`Page ${p} of ${pages}`);
    expect(/Report SHA-256 ([0-9a-f]{64})/.exec(text)?.[1]).toBe(sha256Hex(canonicalJson(r)));
  });

  it('prints characters its fonts lack as "?" (the JSON keeps the name exactly)', async () => {
    expect(printable('Schäden 東京 “ok” –\u0007')).toBe('Schäden ?? “ok” –?');
    const pdf = await renderCaseReportPdf({ report: report([file(1, { name: 'Schäden-東京.jpg' })]), pictures: new Map(), printedAt: new Date() });
    expect(pdfText(pdf)).toContain('Schäden-??.jpg');
  });

  it('prints the case status and notes, counts by effective verdict and says so, and the pixel size of each file', async () => {
    const files = [
      file(1, { expertReview: { assessment: 'authentic', reviewer: 'Dana Whitfield', reviewedAt: '2025-07-01T09:00:00.000Z' } }),
      file(2, { expertReview: { assessment: 'ai_generated', reviewer: 'Sam Ortiz', reviewedAt: '2025-07-01T09:30:00.000Z' } }),
      file(3, { pixelSize: { width: 4032, height: 3024 } }),
    ];
    const text = pdfText(await renderCaseReportPdf({ report: report(files), pictures: new Map(), printedAt: new Date('2025-07-02T12:00:00Z') }));
    expect(text).toContain('Case status In review');
    expect(text).toContain('Case notes Water damage, kitchen ceiling. Adjuster visit booked.');
    // Effective: 1 authentic, 1 AI-generated, 1 inconclusive; the machine said inconclusive for all three.
    expect(text).toMatch(/Effective verdict Files Share Machine verdict AI-generated 1 33 % 0 Authentic 1 33 % 0 Inconclusive 1 33 % 3 Total 3 100 % 3/);
    expect(text).toContain('Counted by effective verdict: the expert review where one is recorded (2 of 3 files), the machine verdict otherwise.');
    expect(text).toContain('Pixels 4032 × 3024 px');
    expect(text).toContain('Pixels 400 × 300 px');
    // A job's report (no case) prints neither.
    const job = pdfText(await renderCaseReportPdf({ report: report(files, { caseId: null, caseStatus: null, caseNotes: null }), pictures: new Map(), printedAt: new Date() }));
    expect(job).not.toContain('Case status');
    expect(job).not.toContain('Case notes');
  });

  it('keeps each file of a 30-file case with notes on one page, and names the reviewers with their times above the handwritten sign-off', async () => {
    const reviewers = ['Dana Whitfield', 'Sam Ortiz'];
    const files = Array.from({ length: 30 }, (_, i) =>
      file(i + 1, {
        name: `claim-photo-${i + 1}.jpg`,
        expertReview:
          i % 3 === 0
            ? {
                assessment: 'authentic',
                reviewer: reviewers[(i / 3) % 2],
                note: `Checked against the adjuster's site visit, photo ${i + 1}. `.repeat(1 + (i % 5) * 5),
                reviewedAt: new Date(Date.UTC(2025, 6, 1, 9, i)).toISOString(),
              }
            : null,
      }),
    );
    const pdf = await renderCaseReportPdf({ report: report(files), pictures: new Map([[uuid(1), await picture()]]), printedAt: new Date('2025-07-02T12:00:00Z') });
    const pages = pageTexts(pdf);
    expect(pages.length).toBeGreaterThan(10);
    files.forEach((f, i) => {
      const starts = pages.flatMap((t, p) => (t.includes(`File ${i + 1} of 30 `) ? [p] : []));
      const ends = pages.flatMap((t, p) => (t.includes(`file ${f.fileId}, submission`) ? [p] : []));
      expect(starts, f.name).toHaveLength(1);
      // The block's last line (its identifiers) is on the page where it begins: it was not split.
      expect(ends, f.name).toEqual(starts);
      expect(pages[starts[0]]).toContain(f.sha256);
    });
    expect(pages.join(' ')).not.toContain('continued');

    // The sign-off (on the last page): who reviewed which files and when, then the lines to sign by hand.
    const last = pages.at(-1)!;
    const dana = 'Dana Whitfield files 1, 7, 13, 19, 25; reviewed 2025-07-01 11:00:00 (UTC+02:00) to 2025-07-01 11:24:00 (UTC+02:00)';
    const sam = 'Sam Ortiz files 4, 10, 16, 22, 28; reviewed 2025-07-01 11:03:00 (UTC+02:00) to 2025-07-01 11:27:00 (UTC+02:00)';
    expect(last).toContain(dana);
    expect(last).toContain(sam);
    expect(last.indexOf(sam)).toBeLessThan(last.indexOf('Examiner name'));
    expect(last).toMatch(/Examiner sign-off Expert reviews recorded in this case .* Examiner name .*Date.*Signature/);
  });

  it('runs a file section taller than a page on to the next page, and says "continued" at the top of that page', async () => {
    const note = 'The roof was inspected twice and the photos compared with the drone survey. '.repeat(80);
    const files = [file(1), file(2, { expertReview: { assessment: 'authentic', reviewer: 'Dana Whitfield', note, reviewedAt: '2025-07-01T09:00:00.000Z' } }), file(3)];
    const pages = pageTexts(await renderCaseReportPdf({ report: report(files), pictures: new Map(), printedAt: new Date() }));
    const start = pages.findIndex((t) => t.includes('File 2 of 3 '));
    expect(pages[start]).not.toContain('File 1 of 3 '); // it starts a page of its own
    expect(pages[start + 1]).toMatch(/^\s*File 2 of 3, continued: photo-2\.jpg/);
    expect(pages[start + 1]).toContain(`file ${uuid(2)}, submission`);
    expect(pages.filter((t) => t.includes('continued')).length).toBeGreaterThanOrEqual(1);
    expect(pages.some((t) => t.includes('File 1 of 3, continued') || t.includes('File 3 of 3, continued'))).toBe(false);
  });

  it('keeps every cell of the files table in its column: long names wrap within it and end in an ellipsis; no two words overlap', async () => {
    const long = 'Schadensmeldung_Kueche_Wasserschaden_Decke_2025-07-01_Originalaufnahme_vom_Handy_des_Versicherungsnehmers_IMG_4410_Kopie_von_Kopie_final.jpg';
    const spaced = 'Photo of the kitchen ceiling taken by the policy holder on the morning after the pipe burst, sent by e-mail to the adjuster.jpg';
    const files = [
      file(1, { name: long, verdict: { ...file(1).verdict!, assessment: 'ai_generated', confidence: 'high' } }),
      file(2, { name: spaced, expertReview: { assessment: 'inconclusive', reviewer: 'Dana Whitfield-Montgomery of the Special Investigations Unit', reviewedAt: '2025-07-01T09:00:00.000Z' } }),
      file(3),
    ];
    const pdf = await renderCaseReportPdf({ report: report(files), pictures: new Map(), printedAt: new Date() });
    const page = pageTexts(pdf).findIndex((t) => t.includes('# File Pixels Machine verdict Expert review')) + 1;
    expect(page).toBeGreaterThan(0);
    const words = pageWords(pdf, page);
    const header = words.find((w) => w.text === 'Pixels')!;
    const howTo = words.find((w) => w.text === 'How' && w.y0 > header.y0)!;
    const table = words.filter((w) => w.y0 >= header.y0 && w.y1 <= howTo.y0);
    const reviewer = 'Dana Whitfield-Montgomery of the Special Investigations Unit';
    const ofName = (w: { text: string }) => [long, spaced].some((n) => n.includes(w.text.replace(/…$/, ''))) && !reviewer.includes(w.text.replace(/…$/, ''));
    const pieces = table.filter((w) => w.text.length > 2 && ofName(w));
    expect(pieces.length).toBeGreaterThan(4);
    // Every piece of a name lies left of the Pixels column, and the names are cut short with an ellipsis.
    for (const w of pieces) expect(w.x1, w.text).toBeLessThanOrEqual(header.x0);
    expect(pieces.map((w) => w.text)).toContain('aufnahme_vom_Handy_des_Versi…');
    expect(table.some((w) => w.text.startsWith('adjuster'))).toBe(false);
    expect(table.some((w) => w.text.endsWith('…') && spaced.includes(w.text.slice(0, -1)))).toBe(true);
    expect(table.filter((w) => w.text === '400').length).toBe(3);
    for (const [i, a] of table.entries())
      for (const b of table.slice(i + 1)) {
        const overlap = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > 0.5 && Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0.5;
        expect(overlap, `"${a.text}" and "${b.text}" overlap`).toBe(false);
      }
    // The JSON keeps the whole name.
    expect(report(files).files[0].name).toBe(long);
  });

  it('prints the Content Credentials manifest chain of a file: each manifest with signer and trust, time-stamp, tool, actions and ingredients (and the JSON keeps it)', async () => {
    const chain: C2paManifest[] = [
      {
        label: 'urn:uuid:edit',
        signer: { subject: 'Veracity tests / Test Editor', issuer: 'Veracity tests / Test Root', trust: 'trusted' },
        signedAt: null,
        claimGenerator: 'Veracity Test Editor',
        actions: [{ action: 'c2pa.opened' }, { action: 'c2pa.color_adjustments', softwareAgent: 'Test Editor 2.0' }],
        ingredients: [{ title: 'IMG_0001.jpg', relationship: 'parentOf', manifest: 'urn:uuid:capture', validated: false }],
        valid: true,
        failures: [],
      },
      {
        label: 'urn:uuid:capture',
        signer: { subject: 'Veracity tests / Test Camera', issuer: 'Veracity tests / Test Root', trust: 'not_established' },
        signedAt: '2025-07-01T07:59:00.000Z',
        claimGenerator: 'Veracity Test Camera',
        actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture', softwareAgent: 'Test Firmware 1.0' }],
        ingredients: [],
        valid: false,
        failures: ['assertion.hashedURI.mismatch', 'signingCredential.untrusted'],
      },
    ];
    const base = file(1);
    const provenance = { key: 'provenance', label: 'Provenance', score: 0.2, assessment: 'likely_authentic' as const, confidence: 'medium' as const, manifests: chain };
    const r = report([file(1, { verdict: { ...base.verdict!, dimensions: [...base.verdict!.dimensions, provenance] } }), file(2)]);
    expect(r.files[0].verdict!.dimensions[1].manifests).toEqual(chain);
    const text = pdfText(await renderCaseReportPdf({ report: r, pictures: new Map(), printedAt: new Date() }));
    expect(text).toContain('Content Credentials (C2PA): the manifest chain Manifest 1 of 2: the active manifest');
    expect(text).toContain('Signer Veracity tests / Test Editor, issued by Veracity tests / Test Root; trusted: chains to a configured trust anchor');
    expect(text).toContain('Signed no time-stamp: the signing time is not established');
    expect(text).toContain('Actions c2pa.opened; c2pa.color_adjustments (by Test Editor 2.0)');
    expect(text).toContain('Ingredients IMG_0001.jpg (parentOf): its manifest did not validate');
    expect(text).toContain('Manifest 2 of 2: of “IMG_0001.jpg”, an ingredient of manifest 1');
    expect(text).toContain('not established: no trust anchors are configured');
    expect(text).toContain('Signed 2025-07-01 09:59:00 (UTC+02:00), from its time-stamp');
    expect(text).toContain('Actions c2pa.created (digitalCapture, by Test Firmware 1.0)');
    expect(text).toContain('Validation failed: assertion.hashedURI.mismatch, signingCredential.untrusted');
    // Only the file that has Content Credentials lists them.
    expect(text.split('Content Credentials (C2PA)').length).toBe(2);
  });
});
