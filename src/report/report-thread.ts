// The body of a report worker thread (src/report/report-builder.ts): draws one case report PDF off the event loop
// that answers HTTP. The report's data comes in workerData; pictures are asked of the main thread one file at a
// time (it holds the stores). The PDF is signed with the installation's key once it is whole (report-signing.ts:
// the signature covers every byte but its own, so it is computed last), then its bytes go back. The thread runs at
// the lowest CPU priority where the system allows it per thread (Linux), so a poll on the main thread is served first.
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { CaseReport } from '../api/schemas.js';
import { writeCaseReportPdf } from './case-report-pdf.js';
import { addSignaturePlaceholder, signerName, signPdf } from './report-signing.js';
import type { ReportSigningKey } from './signing-key.js';

export interface ReportThreadData {
  report: CaseReport;
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
export type ToThread = { type: 'picture'; fileId: string; data: Uint8Array | null };
export type FromThread = { type: 'picture'; fileId: string } | { type: 'chunk'; data: Uint8Array } | { type: 'end' } | { type: 'error'; message: string };

const port = parentPort!;
const send = (m: FromThread) => port.postMessage(m);

try {
  // /proc/thread-self -> "<pid>/task/<tid>": setpriority on a thread id applies to that thread only (Linux).
  const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, 19);
} catch {
  // Not Linux, or not allowed: the thread keeps the server's priority.
}

const waiting = new Map<string, (data: Buffer | null) => void>();
port.on('message', (m: ToThread) => {
  if (m.type !== 'picture') return;
  waiting.get(m.fileId)?.(m.data ? Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength) : null);
  waiting.delete(m.fileId);
});
const picture = (fileId: string) =>
  new Promise<Buffer | null>((resolve) => {
    waiting.set(fileId, resolve);
    send({ type: 'picture', fileId });
  });

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
  const { signing } = data;
  const whole: Buffer[] = [];
  let size = 0;
  await writeCaseReportPdf(
    { report: data.report, pictures: picture, printedAt, examiner: data.examiner, beforeEnd: (doc) => addSignaturePlaceholder(doc, signerName(signing), printedAt) },
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
} catch (err) {
  send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
}
