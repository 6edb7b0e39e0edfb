// The body of a report worker thread (src/report/report-builder.ts): draws one case report PDF off the event loop
// that answers HTTP. The report's data comes in workerData; pictures are asked of the main thread one file at a
// time (it holds the stores), and the PDF's bytes go back as pdfkit makes them. The thread runs at the lowest CPU
// priority where the system allows it per thread (Linux), so a poll on the main thread is served first.
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { CaseReport } from '../api/schemas.js';
import { writeCaseReportPdf } from './case-report-pdf.js';

export interface ReportThreadData {
  report: CaseReport;
  printedAt: string;
  examiner: string | null;
}
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

// pdfkit writes many small pieces: they go to the main thread in batches of 64 KiB, each one message (every message
// is work for the event loop that answers polls).
const BATCH = 64 * 1024;
let pieces: Buffer[] = [];
let batched = 0;
const flush = () => {
  if (!batched) return;
  const batch = Buffer.concat(pieces, batched);
  pieces = [];
  batched = 0;
  // A batch of its own (not a slice of Node's shared pool, which a small one may be) is moved, not copied.
  const own = batch.byteOffset === 0 && batch.byteLength === batch.buffer.byteLength;
  const data = new Uint8Array(batch.buffer, batch.byteOffset, batch.byteLength);
  port.postMessage({ type: 'chunk', data } satisfies FromThread, own ? [batch.buffer] : []);
};

const data = workerData as ReportThreadData;
try {
  await writeCaseReportPdf({ report: data.report, pictures: picture, printedAt: new Date(data.printedAt), examiner: data.examiner }, (chunk) => {
    pieces.push(chunk);
    batched += chunk.length;
    if (batched >= BATCH) flush();
  });
  flush();
  send({ type: 'end' });
} catch (err) {
  send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
}
