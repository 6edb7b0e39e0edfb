// The body of a report process (src/jobs/report-builder.ts): gathers, checks and hashes one case report, then draws and
// signs its PDF or writes its canonical JSON, in a child process of its own, so that neither the work nor the memory
// it takes (the PDF and font libraries, libvips' buffers, the whole PDF held to be signed) is the server's: the server
// stays at its own size whatever the case's, and this process ends with the report. It reads the case's rows itself
// through a connection of its own (SQLite read-only, or PostgreSQL), closed before drawing starts; only ids and paths
// cross, and a picture's bytes only where the store keeps no local file. The output goes back in 64 KiB pieces, one
// each time the server asks for more, so the server holds one piece at a time however slowly its client reads.
import fs from 'node:fs';
import os from 'node:os';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { CaseReport, type MediaType } from '../api/schemas.js';
import { createJobsRepository } from '../db/jobs-repository.js';
import { assembleCaseReport, type ReportRows, type ReportSource } from './case-report-data.js';
import { canonicalJson, sha256Hex } from '../report/canonical-json.js';
import { writeCaseReportPdf } from '../report/case-report-pdf.js';
import { addSignaturePlaceholder, signerName, signPdf } from '../report/report-signing.js';
import type { ReportSigningKey } from '../report/signing-key.js';

/** What the server asks of a report process: one report, as a PDF or as its canonical JSON. */
export interface ReportJob {
  output: 'pdf' | 'json';
  source: ReportSource;
  printedAt: string;
  examiner: string | null;
  /** The installation's key: the PDF is signed with it. */
  signing: ReportSigningKey;
}

/**
 * The largest PDF the process holds to sign, in bytes: a 200-file case makes 2.8 MiB; signing holds about four copies
 * at once, so this bounds the process's memory with its RSS cap (report-builder.ts).
 */
export const MAX_SIGNED_PDF_BYTES = 64 * 2 ** 20;
const PIECE = 64 * 1024;

export type ToReport =
  | { type: 'start'; job: ReportJob }
  | { type: 'picture'; fileId: string; data: Uint8Array }
  | { type: 'picture'; fileId: string; path: string | null }
  | { type: 'more' };
export type FromReport =
  | { type: 'picture'; fileId: string; mediaType: MediaType }
  | { type: 'ready'; sha256: string; bytes: number }
  | { type: 'chunk'; data: Uint8Array }
  | { type: 'end' }
  | { type: 'error'; kind: 'not_found' | 'mismatch' | 'failed'; message: string; issues?: unknown[] };

const send = (m: FromReport) => void process.send!(m);
// The server went away (or gave the report up): nobody reads what this process would make.
process.on('disconnect', () => process.exit(0));

// One thumbnail at a time, each drawn once: libvips' operation cache (50 MB by default) and a thread per core only
// grow this process's memory.
sharp.cache(false);
sharp.concurrency(1);

const waiting = new Map<string, (data: Buffer | null) => void>();
let output: Buffer | null = null;
let sent = 0;

process.on('message', (m: ToReport) => {
  if (m.type === 'start') {
    // Loaded at the server's priority (a second at most, not seconds at the lowest on a busy machine); a PDF is then
    // seconds of batch work, drawn at the lowest priority so that a poll on the server is answered first. The JSON,
    // a fraction of a second for someone waiting on the download, keeps the server's.
    if (m.job.output === 'pdf') {
      try {
        os.setPriority(19);
      } catch {
        // not permitted here: the process keeps the server's priority
      }
    }
    void make(m.job);
  }
  else if (m.type === 'picture') {
    const resolve = waiting.get(m.fileId);
    waiting.delete(m.fileId);
    if (!resolve) return;
    if ('data' in m) resolve(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
    // A kept preview removed meanwhile (its file left the case) is a file printed without a picture.
    else if (m.path) fs.promises.readFile(m.path).then(resolve, () => resolve(null));
    else resolve(null);
  } else if (m.type === 'more' && output) {
    if (sent >= output.length) {
      // Written out before the process ends.
      process.send!({ type: 'end' } satisfies FromReport, undefined, {}, () => process.exit(0));
      return;
    }
    send({ type: 'chunk', data: output.subarray(sent, sent + PIECE) });
    sent += PIECE;
  }
});

/** The report's data: read through a connection of this process's own, or as it was handed over. */
async function reportOf(source: ReportSource): Promise<CaseReport | null> {
  if (source.kind === 'report') return source.report;
  if (source.kind === 'sqlite') {
    const db = new Database(source.file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      const repo = createJobsRepository(db);
      const rows: ReportRows = { getJob: async (id) => repo.getJob(id), getFiles: async (id) => repo.getFiles(id), getFileRegions: async (j, f) => repo.getFileRegions(j, f) };
      return await assembleCaseReport(rows, source.scope);
    } finally {
      db.close();
    }
  }
  // PostgreSQL: one connection, no migrations (the server that started this process has checked the schema).
  const { default: pg } = await import('pg');
  const { createPgJobsStore } = await import('../db/pg/jobs-store.js');
  const pool = new pg.Pool({ connectionString: source.url, max: 1, application_name: 'veracity-report' });
  pool.on('error', () => {});
  try {
    return await assembleCaseReport(createPgJobsStore(pool).jobs, source.scope);
  } finally {
    await pool.end();
  }
}

async function make(job: ReportJob): Promise<void> {
  try {
    const report = await reportOf(job.source);
    if (!report) {
      send({ type: 'error', kind: 'not_found', message: 'job' });
      return;
    }
    // Checked against its schema like any answer, and hashed as GET .../report.json serves it.
    const checked = CaseReport.safeParse(report);
    if (!checked.success) {
      const issues = JSON.parse(JSON.stringify(checked.error.issues)) as unknown[];
      send({ type: 'error', kind: 'mismatch', message: 'The case report does not match its schema.', issues });
      return;
    }
    const json = canonicalJson(report);
    const reportHash = sha256Hex(json);
    output = job.output === 'json' ? Buffer.from(json, 'utf8') : await pdfOf(job, report, reportHash);
    send({ type: 'ready', sha256: reportHash, bytes: output.length });
  } catch (err) {
    send({ type: 'error', kind: 'failed', message: err instanceof Error ? err.message : String(err) });
  }
}

/** The PDF, drawn whole, then signed (the signature covers every byte but its own, so it is computed last). */
async function pdfOf(job: ReportJob, report: CaseReport, reportHash: string): Promise<Buffer> {
  const printedAt = new Date(job.printedAt);
  const kinds = new Map(report.files.map((f) => [f.fileId, f.mediaType]));
  const picture = (fileId: string) =>
    new Promise<Buffer | null>((resolve) => {
      waiting.set(fileId, resolve);
      send({ type: 'picture', fileId, mediaType: kinds.get(fileId)! });
    });
  const { signing } = job;
  const whole: Buffer[] = [];
  let size = 0;
  await writeCaseReportPdf(
    { report, reportHash, pictures: picture, printedAt, examiner: job.examiner, beforeEnd: (doc) => addSignaturePlaceholder(doc, signerName(signing), printedAt) },
    (chunk) => {
      size += chunk.length;
      if (size <= MAX_SIGNED_PDF_BYTES) whole.push(chunk);
    },
  );
  if (size > MAX_SIGNED_PDF_BYTES) throw new Error(`the report is larger than ${MAX_SIGNED_PDF_BYTES / 2 ** 20} MiB, the most that is signed; split the case`);
  return signPdf(Buffer.concat(whole, size), signing, printedAt);
}
