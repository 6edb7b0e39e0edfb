// The body of a report worker thread (src/jobs/report-builder.ts): gathers, checks, hashes, draws and signs one case
// report PDF off the event loop that answers HTTP. On SQLite the thread reads the case's rows itself, through a
// read-only connection of its own (closed before drawing starts); otherwise the data comes in workerData. Pictures are
// asked of the main thread one file at a time (it holds the stores and the preview pool): it names a kept preview by
// path, read here, or moves the bytes of one made for the report. The PDF is signed with the installation's key once
// it is whole (src/report/report-signing.ts: the signature covers every byte but its own, so it is computed last), then its bytes
// go back. The thread runs at the lowest CPU priority where the system allows it per thread (Linux), so a poll on the
// main thread is served first.
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { CaseReport, type MediaType } from '../api/schemas.js';
import { createJobsRepository } from '../db/jobs-repository.js';
import { assembleCaseReport, type ReportSource } from './case-report-data.js';
import { canonicalJson, sha256Hex } from '../report/canonical-json.js';
import { writeCaseReportPdf } from '../report/case-report-pdf.js';
import { addSignaturePlaceholder, signerName, signPdf } from '../report/report-signing.js';
import type { ReportSigningKey } from '../report/signing-key.js';

export interface ReportThreadData {
  source: ReportSource;
  printedAt: string;
  examiner: string | null;
  /** The installation's key: the PDF is signed with it. */
  signing: ReportSigningKey;
}

/**
 * The largest PDF the thread holds to sign, in bytes: a 200-file case makes 2.8 MiB; signing holds about four copies
 * at once (off the thread's JS heap, which its limit does not count), so this bounds the thread's memory instead.
 */
export const MAX_SIGNED_PDF_BYTES = 64 * 2 ** 20;
export type ToThread = { type: 'picture'; fileId: string; data: Uint8Array } | { type: 'picture'; fileId: string; path: string | null };
export type FromThread =
  | { type: 'hash'; sha256: string }
  | { type: 'picture'; fileId: string; mediaType: MediaType }
  | { type: 'chunk'; data: Uint8Array }
  | { type: 'end' }
  | { type: 'error'; kind: 'not_found' | 'mismatch' | 'failed'; message: string; issues?: unknown[] };

const port = parentPort!;
const send = (m: FromThread) => port.postMessage(m);

try {
  // /proc/thread-self -> "<pid>/task/<tid>": setpriority on a thread id applies to that thread only (Linux).
  const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, 19);
} catch {
  // Not Linux, or not allowed: the thread keeps the server's priority.
}
// One thumbnail at a time, each drawn once: libvips' operation cache (process-wide, 50 MB by default) and a thread per
// core only grow the server's memory here.
sharp.cache(false);
sharp.concurrency(1);

const waiting = new Map<string, (data: Buffer | null) => void>();
port.on('message', (m: ToThread) => {
  if (m.type !== 'picture') return;
  const resolve = waiting.get(m.fileId);
  waiting.delete(m.fileId);
  if (!resolve) return;
  if ('data' in m) resolve(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
  // A kept preview removed meanwhile (its file left the case) is a file printed without a picture.
  else if (m.path) fs.promises.readFile(m.path).then(resolve, () => resolve(null));
  else resolve(null);
});

/** The report's data: read here through a read-only connection of the thread's own, or as it was handed over. */
async function reportOf(source: ReportSource): Promise<CaseReport | null> {
  if (source.kind === 'report') return source.report;
  const db = new Database(source.file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const repo = createJobsRepository(db);
    return await assembleCaseReport(
      { getJob: async (id) => repo.getJob(id), getFiles: async (id) => repo.getFiles(id), getFileRegions: async (jobId, fileId) => repo.getFileRegions(jobId, fileId) },
      source.scope,
    );
  } finally {
    db.close();
  }
}

// The PDF goes to the main thread in pieces of 64 KiB, each one message (every message is work for the event loop that
// answers polls), each a copy of its own, moved rather than copied again.
const PIECE = 64 * 1024;
function sendPdf(pdf: Buffer): void {
  for (let at = 0; at < pdf.length; at += PIECE) {
    const piece = new Uint8Array(pdf.subarray(at, at + PIECE));
    port.postMessage({ type: 'chunk', data: piece } satisfies FromThread, [piece.buffer]);
  }
}

const data = workerData as ReportThreadData;
const printedAt = new Date(data.printedAt);
try {
  const report = await reportOf(data.source);
  if (!report) {
    send({ type: 'error', kind: 'not_found', message: 'job' });
  } else {
    // Checked against its schema like any answer, and hashed as GET .../report.json serves it.
    const checked = CaseReport.safeParse(report);
    if (!checked.success) {
      send({ type: 'error', kind: 'mismatch', message: 'The case report does not match its schema.', issues: JSON.parse(JSON.stringify(checked.error.issues)) as unknown[] });
    } else {
      const reportHash = sha256Hex(canonicalJson(report));
      send({ type: 'hash', sha256: reportHash });
      const kinds = new Map(report.files.map((f) => [f.fileId, f.mediaType]));
      const picture = (fileId: string) =>
        new Promise<Buffer | null>((resolve) => {
          waiting.set(fileId, resolve);
          send({ type: 'picture', fileId, mediaType: kinds.get(fileId)! });
        });
      const { signing } = data;
      const whole: Buffer[] = [];
      let size = 0;
      await writeCaseReportPdf(
        { report, reportHash, pictures: picture, printedAt, examiner: data.examiner, beforeEnd: (doc) => addSignaturePlaceholder(doc, signerName(signing), printedAt) },
        (chunk) => {
          size += chunk.length;
          if (size <= MAX_SIGNED_PDF_BYTES) whole.push(chunk);
        },
      );
      if (size > MAX_SIGNED_PDF_BYTES) throw new Error(`the report is larger than ${MAX_SIGNED_PDF_BYTES / 2 ** 20} MiB, the most that is signed; split the case`);
      const signed = await signPdf(Buffer.concat(whole, size), signing, printedAt);
      whole.length = 0;
      sendPdf(signed);
      send({ type: 'end' });
    }
  }
} catch (err) {
  send({ type: 'error', kind: 'failed', message: err instanceof Error ? err.message : String(err) });
}
