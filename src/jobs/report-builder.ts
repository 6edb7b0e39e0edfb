// Builds case reports off the request path (issue 23, item 8): each in a child process of its own
// (src/jobs/report-process.ts), one at a time per server (others wait their turn), streamed to the response once it
// is made. The server hands over ids, not data: the process reads the case's rows through a connection of its own,
// and checks, hashes, draws and signs the report; a picture is named by path where the preview is a local file. A
// worker thread did the same work but inside the server's process: its runtime, the PDF libraries and libvips' buffers
// grew the server by 220-270 MiB for a 200-file case, which no heap limit counted. Here that memory is the child's,
// capped (heap limit and RSS watch), and given back when it ends; the server holds one 64 KiB piece of output at a time.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { MediaType } from '../api/schemas.js';
import type { ReportPicture, ReportSource } from './case-report-data.js';
import type { ReportSigningKey } from '../report/signing-key.js';
import type { FromReport, ReportJob, ToReport } from './report-process.js';

const ENTRY = fileURLToPath(new URL('../bin/report-process.mjs', import.meta.url));

export interface ReportBuilderOptions {
  /** The installation's key: every report is signed with it (src/report/report-signing.ts). */
  signing: ReportSigningKey;
  /** Reports made at once by this server (default 1). */
  concurrency?: number;
  /** The JS heap limit of a report process, in MiB (default 256). */
  maxHeapMb?: number;
  /** The most a report process may hold, in MiB (RSS, native memory included; default 768): past it, it is stopped. */
  maxRssMb?: number;
  /** How long a report may take before its first byte, in ms (default 10 minutes). */
  timeoutMs?: number;
  /** The process's entry (tests: one that misbehaves). */
  entry?: string;
}

/** Why a report was not made before its first byte: the process's own words, with what the route answers. */
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
  /** SHA-256 of the report's canonical JSON (the bytes GET .../report.json serves), computed by the process. */
  sha256: string;
  /** The PDF or the JSON, read from the process as the response is written. */
  body: Readable;
}

export interface ReportInput {
  source: ReportSource;
  printedAt: Date;
  examiner?: string | null;
  /** Aborted when the client goes away: the process is stopped, whatever it was doing. */
  signal?: AbortSignal;
}

export type PictureOf = (fileId: string, mediaType: MediaType) => Promise<ReportPicture | null>;

export interface ReportBuilder {
  /**
   * Starts a report; resolves once it is made (a failure before that rejects with a ReportFailure; one after it
   * destroys the stream). `picture` is asked for one file's picture at a time.
   */
  buildPdf(input: ReportInput, picture: PictureOf): Promise<BuiltReport>;
  /** The report's canonical JSON, read, checked and hashed in the same kind of process. */
  buildJson(input: ReportInput): Promise<BuiltReport>;
}

function rssMbOf(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export function createReportBuilder(opts: ReportBuilderOptions): ReportBuilder {
  const concurrency = opts.concurrency ?? 1;
  const maxRssMb = opts.maxRssMb ?? 768;
  const timeoutMs = opts.timeoutMs ?? 10 * 60_000;
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

  async function build(output: ReportJob['output'], input: ReportInput, picture: PictureOf | null): Promise<BuiltReport> {
    await take();
    if (input.signal?.aborted) {
      give();
      throw new ReportFailure('failed', 'The report was given up before it started.');
    }
    let child: ChildProcess;
    try {
      child = fork(opts.entry ?? ENTRY, [], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        execArgv: [`--max-old-space-size=${opts.maxHeapMb ?? 256}`],
        serialization: 'advanced',
      });
    } catch (err) {
      give();
      throw err;
    }
    // The turn is given back once the process has ended (its memory with it), not when it is told to.
    let exited = false;
    let settled = false;
    child.once('exit', () => {
      exited = true;
      if (settled) give();
    });
    const job: ReportJob = { output, source: input.source, printedAt: input.printedAt.toISOString(), examiner: input.examiner ?? null, signing: opts.signing };
    const tell = (m: ToReport) => {
      if (!settled && child.connected) child.send(m, (err) => err && finish(new ReportFailure('failed', 'The report process could not be reached.')));
    };

    let started = false;
    let resolveBuilt: (b: BuiltReport) => void = () => undefined;
    let rejectBuilt: (err: Error) => void = () => undefined;
    const body = new Readable({
      read: () => tell({ type: 'more' }),
      destroy: (err, callback) => {
        finish(err ?? new Error('The report was not read to the end.'));
        callback(err);
      },
    });
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(memWatch);
      input.signal?.removeEventListener('abort', onAbort);
      if (exited) give();
      else child.kill('SIGKILL');
      if (!err) return;
      if (started) body.destroy(err);
      else rejectBuilt(err);
    };
    const onAbort = () => finish(new ReportFailure('failed', 'The report was given up: its client went away.'));
    const timer = setTimeout(() => finish(new ReportFailure('failed', `The report took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`)), timeoutMs);
    // The heap limit does not count native memory (libvips, Buffers): the process's whole size is watched (Linux).
    const memWatch = setInterval(() => {
      const rss = child.pid ? rssMbOf(child.pid) : null;
      if (rss !== null && rss > maxRssMb) finish(new ReportFailure('failed', `The report needed more than ${maxRssMb} MiB of memory and was stopped.`));
    }, 250);

    child.on('message', (m: FromReport) => {
      if (settled) return;
      if (m.type === 'picture') {
        const asked = picture ? picture(m.fileId, m.mediaType).catch(() => null) : Promise.resolve(null);
        void asked.then((found) => tell(found && 'data' in found ? { type: 'picture', fileId: m.fileId, data: found.data } : { type: 'picture', fileId: m.fileId, path: found?.path ?? null }));
      } else if (m.type === 'ready') {
        started = true;
        resolveBuilt({ sha256: m.sha256, body });
      } else if (m.type === 'chunk') body.push(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
      else if (m.type === 'end') {
        body.push(null);
        finish();
      } else finish(new ReportFailure(m.kind, m.kind === 'failed' ? `The report could not be made: ${m.message}` : m.message, m.issues));
    });
    child.on('error', (err) => finish(new ReportFailure('failed', `The report process could not be started: ${err.message}`)));
    child.on('exit', (code, signal) => {
      const stopped = () => finish(new ReportFailure('failed', `The report process stopped (${signal ?? `exit ${code}`}).`));
      // Messages it sent before ending are still read (its last piece, its 'end') until its channel closes.
      if (child.connected) child.once('disconnect', stopped);
      else stopped();
    });
    input.signal?.addEventListener('abort', onAbort, { once: true });
    tell({ type: 'start', job });
    return new Promise<BuiltReport>((resolve, reject) => {
      resolveBuilt = resolve;
      rejectBuilt = reject;
    });
  }

  return {
    buildPdf: (input, picture) => build('pdf', input, picture),
    buildJson: (input) => build('json', input, null),
  };
}
