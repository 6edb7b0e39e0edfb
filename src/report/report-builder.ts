// Builds case report PDFs off the request path (issue 23, item 8): each in a worker thread of its own
// (src/report/report-thread.ts), one at a time per process (others wait their turn), streamed to the response as it
// is drawn. Memory is bounded by one picture at a time, the thumbnails (about 30 KB a file) and the thread's heap
// limit, whatever the size of the case; a 200-file report built in the request's own turn held every picture and
// the whole PDF at once and stalled every poll of the node while it drew.
import { PassThrough, type Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { CaseReport } from '../api/schemas.js';
import type { ReportSigningKey } from './signing-key.js';
import type { FromThread, ReportThreadData, ToThread } from './report-thread.js';

const THREAD_ENTRY = new URL('../bin/report-thread.mjs', import.meta.url);

export interface ReportBuilderOptions {
  /** The installation's key: every report is signed with it (report-signing.ts). */
  signing: ReportSigningKey;
  /** Reports drawn at once by this process (default 1). */
  concurrency?: number;
  /** The JS heap limit of a report thread, in MiB (default 256): past it the thread ends and the report fails. */
  maxHeapMb?: number;
}

export interface ReportBuilder {
  /**
   * Starts drawing the PDF; resolves with its bytes as a stream once the first of them are made (a failure before
   * that rejects; one after it destroys the stream). `picture` is asked for one file's picture at a time.
   */
  buildPdf(
    input: { report: CaseReport; printedAt: Date; examiner?: string | null },
    picture: (fileId: string) => Promise<Buffer | null>,
  ): Promise<Readable>;
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
      const workerData: ReportThreadData = { report: input.report, printedAt: input.printedAt.toISOString(), examiner: input.examiner ?? null, signing: opts.signing };
      let worker: Worker;
      try {
        worker = new Worker(THREAD_ENTRY, { workerData, resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb ?? 256 } });
      } catch (err) {
        give();
        throw err;
      }
      const out = new PassThrough();
      return new Promise<Readable>((resolve, reject) => {
        let started = false;
        let settled = false;
        const finish = (err?: Error) => {
          if (settled) return;
          settled = true;
          give();
          void worker.terminate();
          if (!err) out.end();
          else if (started) out.destroy(err);
          else reject(err);
          if (!started && !err) resolve(out);
        };
        worker.on('message', (m: FromThread) => {
          if (settled) return;
          if (m.type === 'picture') {
            picture(m.fileId)
              .catch(() => null)
              .then((data) => {
                // A copy of its own (a Buffer read from disk may share a pool): moved to the thread, not copied again.
                const own = data ? new Uint8Array(data) : null;
                const msg: ToThread = { type: 'picture', fileId: m.fileId, data: own };
                if (!settled) worker.postMessage(msg, own ? [own.buffer] : []);
              });
          } else if (m.type === 'chunk') {
            out.write(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
            if (!started) {
              started = true;
              resolve(out);
            }
          } else if (m.type === 'end') finish();
          else finish(new Error(`The report could not be drawn: ${m.message}`));
        });
        worker.on('error', (err) => finish(err));
        worker.on('exit', (code) => finish(new Error(`The report thread stopped (exit ${code}).`)));
        // The client went away: nobody reads the rest.
        out.on('close', () => finish(new Error('The report was not read to the end.')));
      });
    },
  };
}
