// The report builder (src/jobs/report-builder.ts) frees its thread when the client goes away: one report at a time
// per process, so a report abandoned mid-drawing must not hold the turn of the next one until it has drawn every page.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CaseReport, type CaseReportFile } from '../../../src/api/schemas.js';
import { canonicalJson, sha256Hex } from '../../../src/report/canonical-json.js';
import { createReportBuilder, ReportFailure } from '../../../src/jobs/report-builder.js';
import { loadOrCreateReportSigningKey } from '../../../src/report/signing-key.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-report-builder-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const file = (n: number): CaseReportFile => ({
  fileId: uuid(n),
  jobId: uuid(900),
  applicationId: uuid(901),
  name: `photo-${n}.jpg`,
  mediaType: 'image/jpeg',
  size: 1000 + n,
  sha256: sha256Hex(`file ${n}`),
  status: 'error',
  submittedAt: '2025-07-01T08:00:00.000Z',
  completedAt: '2025-07-01T08:00:04.000Z',
  verdict: null,
  error: { code: 'internal_error', message: 'test' },
  expertReview: null,
  modelVersion: null,
  aggregation: null,
  regions: [],
  pixelSize: null,
});
const report = CaseReport.parse({
  format: 'veracity-case-report',
  version: 3,
  caseId: uuid(902),
  caseName: 'CLM-1',
  caseStatus: 'open',
  caseNotes: null,
  appVersion: '0.0.0',
  timeZone: 'UTC',
  asOf: '2025-07-01T08:00:04.000Z',
  summary: { files: 2, ai_generated: 0, authentic: 0, inconclusive: 0, processing: 0, error: 2, reviewed: 0, effective: { ai_generated: 0, authentic: 0, inconclusive: 0, processing: 0, error: 2 } },
  jobs: [{ jobId: uuid(900), applicationId: uuid(901), status: 'completed', createdAt: '2025-07-01T08:00:00.000Z', completedAt: '2025-07-01T08:00:04.000Z' }],
  files: [file(1), file(2)],
});

describe('the report builder', () => {
  it('stops a report whose client went away and gives its turn to the next one', async () => {
    const builder = createReportBuilder({ signing: await loadOrCreateReportSigningKey(path.join(dir, 'key.pem')) });
    const gone = new AbortController();
    const asked: string[] = [];
    // The first report waits for a picture that never comes: only stopping it lets the second one start.
    const abandoned = builder.buildPdf({ source: { kind: 'report', report }, printedAt: new Date(), signal: gone.signal }, (fileId) => {
      asked.push(fileId);
      gone.abort();
      return new Promise(() => undefined);
    });
    await expect(abandoned).rejects.toBeInstanceOf(ReportFailure);
    expect(asked).toEqual([uuid(1)]);

    const next = await builder.buildPdf({ source: { kind: 'report', report }, printedAt: new Date() }, async () => null);
    const chunks: Buffer[] = [];
    for await (const c of next.pdf) chunks.push(c as Buffer);
    expect(next.sha256).toBe(sha256Hex(canonicalJson(report)));
    expect(Buffer.concat(chunks).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  }, 60_000);
});
