// Builds case report PDFs off the request path (issue 23, item 8): each in a worker thread of its own
// (src/jobs/report-thread.ts), one at a time per process (others wait their turn), streamed to the response once it
// is drawn and signed. The event loop hands over ids, not data: on SQLite the thread reads the case's rows itself, and
// checks, hashes, draws and signs it; the pictures it asks for one at a time are named by path when the preview is a
// local file (only a preview made for the report passes through here as bytes, moved rather than copied). A 200-file
// case gathered and drawn on the loop held every picture and the whole PDF and stalled every poll while it drew.
import { PassThrough, type Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { MediaType } from '../api/schemas.js';
import type { ReportPicture, ReportSource } from './case-report-data.js';
import type { ReportSigningKey } from '../report/signing-key.js';
import type { FromThread, ReportThreadData, ToThread } from './report-thread.js';

const THREAD_ENTRY = new URL('../bin/report-thread.mjs', import.meta.url);

export interface ReportBuilderOptions {
  /** The installation's key: every report is signed with it (src/report/report-signing.ts). */
  signing: ReportSigningKey;
  /** Reports drawn at once by this process (default 1). */
  concurrency?: number;
  /** The JS heap limit of a report thread, in MiB (default 256): past it the thread ends and the report fails. */
  maxHeapMb?: number;
}

/** Why a report was not made before its first byte: the thread's own words, with what the route answers. */
export class ReportFailure extends Error {
  constructor(
    readonly kind: 'not_found' | 'mismatch' | 'failed',
    message: string,
    readonly issues: unknown[] = [],
  ) {
    super(message);
  }
}

export interface BuiltReport {
  /** SHA-256 of the report's canonical JSON (the bytes GET .../report.json serves), computed by the thread. */
  sha256: string;
  pdf: Readable;
}

export interface ReportBuilder {
  /**
   * Starts a report; resolves once its first bytes are made (a failure before that rejects with a ReportFailure; one
   * after it destroys the stream). `picture` is asked for one file's picture at a time. Once `signal` aborts (the
   * client went away), the thread is stopped and its turn given to the next report, whatever it was doing.
   */
  buildPdf(
    input: { source: ReportSource; printedAt: Date; examiner?: string | null; signal?: AbortSignal },
    picture: (fileId: string, mediaType: MediaType) => Promise<ReportPicture | null>,
  ): Promise<BuiltReport>;
}

export function createReportBuilder(opts: ReportBuilderOptions): ReportBuilder {
  const concurrency = opts.concurrency ?? 1;
  let running = 0;
  const turns: (() => void)[] = [];
  const take = async () => {
    while (running >= concurrency) await new Promise<void>((resolve) => turns.push(resolve));
    running++;
  };
  const give = () => {
    running--;
    turns.shift()?.();
  };

  return {
    async buildPdf(input, picture) {
      await take();
      if (input.signal?.aborted) {
        give();
        throw new ReportFailure('failed', 'The report was given up before it started.');
      }
      const workerData: ReportThreadData = { source: input.source, printedAt: input.printedAt.toISOString(), examiner: input.examiner ?? null, signing: opts.signing };
      let worker: Worker;
      try {
        worker = new Worker(THREAD_ENTRY, { workerData, resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb ?? 256 } });
      } catch (err) {
        give();
        throw err;
      }
      const out = new PassThrough();
      return new Promise<BuiltReport>((resolve, reject) => {
        let sha256: string | null = null;
        let started = false;
        let settled = false;
        const onAbort = () => finish(new ReportFailure('failed', 'The report was given up: its client went away.'));
        const finish = (err?: Error) => {
          if (settled) return;
          settled = true;
          input.signal?.removeEventListener('abort', onAbort);
          give();
          void worker.terminate();
          if (!err) out.end();
          else if (started) out.destroy(err);
          else reject(err);
          if (!started && !err) resolve({ sha256: sha256 ?? '', pdf: out });
        };
        worker.on('message', (m: FromThread) => {
          if (settled) return;
          if (m.type === 'hash') sha256 = m.sha256;
          else if (m.type === 'picture') {
            picture(m.fileId, m.mediaType)
              .catch(() => null)
              .then((found) => {
                if (settled) return;
                let msg: ToThread;
                let moved: ArrayBuffer[] = [];
                if (found && 'data' in found) {
                  // A copy of its own (a Buffer may share a pool): moved to the thread, not copied again.
                  const own = new Uint8Array(found.data);
                  msg = { type: 'picture', fileId: m.fileId, data: own };
                  moved = [own.buffer];
                } else msg = { type: 'picture', fileId: m.fileId, path: found?.path ?? null };
                worker.postMessage(msg, moved);
              });
          } else if (m.type === 'chunk') {
            out.write(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
            if (!started) {
              started = true;
              resolve({ sha256: sha256 ?? '', pdf: out });
            }
          } else if (m.type === 'end') finish();
          else finish(new ReportFailure(m.kind, m.kind === 'failed' ? `The report could not be drawn: ${m.message}` : m.message, m.issues));
        });
        worker.on('error', (err) => finish(err));
        worker.on('exit', (code) => finish(new Error(`The report thread stopped (exit ${code}).`)));
        // The client went away: nobody reads the rest.
        out.on('close', () => finish(new Error('The report was not read to the end.')));
        input.signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
