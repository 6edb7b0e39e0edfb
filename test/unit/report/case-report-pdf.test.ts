// The pure report module: canonical JSON and its hash, local times with their zone, the heatmap cells, and the PDF
// itself read back with pdftotext (poppler-utils): summary, one section per file, page numbers, the bound hash.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { CaseReport, type CaseReportFile, type RegionGrid } from '../../../src/api/schemas.js';
import { canonicalJson, sha256Hex } from '../../../src/report/canonical-json.js';
import { localTime, printable, renderCaseReportPdf } from '../../../src/report/case-report-pdf.js';
import { heatmapCells, thumbnailWithHeatmap } from '../../../src/report/heatmap-picture.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-report-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const pdfText = (pdf: Buffer) => {
  const p = path.join(dir, `${sha256Hex(pdf).slice(0, 8)}.pdf`);
  fs.writeFileSync(p, pdf);
  return execFileSync('pdftotext', ['-layout', p, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
};

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
    ...over,
  };
}
function report(files: CaseReportFile[]): CaseReport {
  return CaseReport.parse({
    format: 'veracity-case-report',
    version: 3,
    caseId: uuid(902),
    caseName: 'CLM-1',
    appVersion: '9.8.7',
    timeZone: 'Europe/Berlin',
    asOf: '2025-07-01T08:00:04.000Z',
    summary: { files: files.length, ai_generated: files.filter((f) => f.verdict?.assessment === 'ai_generated').length, authentic: 0, inconclusive: files.filter((f) => f.verdict?.assessment === 'inconclusive').length, processing: 0, error: files.filter((f) => f.status === 'error').length, reviewed: files.filter((f) => f.expertReview).length },
    jobs: [{ jobId: uuid(900), applicationId: uuid(901), status: 'completed', createdAt: '2025-07-01T08:00:00.000Z', completedAt: '2025-07-01T08:00:04.000Z' }],
    files,
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
});
