// The report builder (src/jobs/report-builder.ts) makes each report in a child process of its own, so the server's
// memory does not grow with the case: the process ends with the report, is stopped when the client goes away (one
// report at a time, so an abandoned one must not hold the next one's turn until it has drawn every page) and when it
// outgrows its memory cap, and leaves nothing behind.
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

/** This process's children that are report processes (Linux). */
function reportProcesses(): number[] {
  let kids: number[] = [];
  try {
    kids = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return kids.filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('report-process');
    } catch {
      return false;
    }
  });
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !check() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
}

const read = async (body: AsyncIterable<unknown>) => {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

describe('the report builder', () => {
  // Fails on a builder that draws in a thread of the server's own process (its memory is the server's).
  it.runIf(process.platform === 'linux')('makes the PDF and the JSON in a process of its own, which is gone once the report is read', async () => {
    const builder = createReportBuilder({ signing: await loadOrCreateReportSigningKey(path.join(dir, 'key.pem')) });
    let during: number[] = [];
    const built = await builder.buildPdf({ source: { kind: 'report', report }, printedAt: new Date() }, async () => {
      during = reportProcesses();
      return null;
    });
    expect(during).toHaveLength(1);
    const pdf = await read(built.body);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const json = await builder.buildJson({ source: { kind: 'report', report }, printedAt: new Date() });
    expect(json.sha256).toBe(built.sha256);
    expect((await read(json.body)).toString('utf8')).toBe(canonicalJson(report));
    await until(() => reportProcesses().length === 0);
    expect(reportProcesses()).toEqual([]);
  }, 60_000);

  // Fails on a builder with no bound on the memory it takes beyond its heap (a thread's native memory is uncounted).
  it.runIf(process.platform === 'linux')('stops a report that outgrows its memory cap with a failure, leaves no process, and makes the next one', async () => {
    const signing = await loadOrCreateReportSigningKey(path.join(dir, 'key.pem'));
    const capped = createReportBuilder({ signing, maxRssMb: 1 });
    const failed = capped.buildPdf({ source: { kind: 'report', report }, printedAt: new Date() }, () => new Promise(() => undefined));
    await expect(failed).rejects.toThrow(/more than 1 MiB of memory/);
    await expect(failed).rejects.toBeInstanceOf(ReportFailure);
    await until(() => reportProcesses().length === 0);
    expect(reportProcesses()).toEqual([]);
    const next = await createReportBuilder({ signing }).buildPdf({ source: { kind: 'report', report }, printedAt: new Date() }, async () => null);
    expect((await read(next.body)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  }, 60_000);

  it.runIf(process.platform === 'linux')('stops the process of a report whose reader goes away after its first byte', async () => {
    const builder = createReportBuilder({ signing: await loadOrCreateReportSigningKey(path.join(dir, 'key.pem')) });
    const built = await builder.buildPdf({ source: { kind: 'report', report }, printedAt: new Date() }, async () => null);
    for await (const first of built.body) {
      expect((first as Buffer).length).toBeGreaterThan(0);
      break; // leaving the loop destroys the stream, as a closed response does
    }
    await until(() => reportProcesses().length === 0);
    expect(reportProcesses()).toEqual([]);
  }, 60_000);

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
    await until(() => reportProcesses().length === 0);
    expect(reportProcesses()).toEqual([]);

    const next = await builder.buildPdf({ source: { kind: 'report', report }, printedAt: new Date() }, async () => null);
    expect(next.sha256).toBe(sha256Hex(canonicalJson(report)));
    expect((await read(next.body)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  }, 60_000);
});
