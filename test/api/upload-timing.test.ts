// Time limits of POST /v1/assess: a stalled upload answered 408 leaves no temp file behind while its client keeps the
// connection open, and wait=true counts its 30 s window from the request's arrival, so the upload, probes and commit
// come out of it (the call never blocks much longer than the window).
import net from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { JobResult } from '../../src/api/schemas.js';
import { remainingWindowMs } from '../../src/server/wait-window.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { SLOW_WORKER, assess, body, expectNothingLeft, filePart, footprint, multipart, onPg, startCore, startListening, tmpFiles } from './helpers.js';

const until = async (fn: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (fn()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return fn();
};

describe('POST /v1/assess time limits', () => {
  it('answers a stalled upload 408 and deletes its partial temp file at once, though the client keeps its socket open', { timeout: 30_000 }, async () => {
    const core = await startCore({ requestTimeoutMs: 1500, headersTimeoutMs: 1000 });
    const base = await startListening(core);
    const before = await footprint(core);
    const { body: payload, contentType } = await multipart([filePart(Buffer.concat([await makeJpeg(64, 64), Buffer.alloc(2 ** 20, 1)]), 'stall.jpg')]);
    const { hostname, port } = new URL(base);
    // allowHalfOpen: like a client that reads the answer and does not hang up when the server half-closes.
    const socket = net.connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (answer += c));
    socket.on('error', () => {});
    try {
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /v1/assess?wait=false HTTP/1.1\r\nHost: ${new URL(base).host}\r\nAuthorization: Bearer ${core.imagesKey}\r\nContent-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`,
      );
      socket.write(payload.subarray(0, payload.length >> 1)); // then nothing more
      expect(await until(() => tmpFiles(core).length === 1, 5000)).toBe(true); // the upload is being written
      expect(await until(() => answer.includes('\r\n\r\n'), 10_000)).toBe(true);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'invalid_request', message: 'Request timed out.' });
      // The client has not closed its side: the temp file must go anyway, promptly.
      expect(await until(() => tmpFiles(core).length === 0, 2000)).toBe(true);
      await expectNothingLeft(core, before);
    } finally {
      socket.destroy();
    }
  });

  it('what is left of the wait window: the window less the time the request has taken, never below 0', () => {
    expect(remainingWindowMs(30_000, 0)).toBe(30_000);
    expect(remainingWindowMs(30_000, 7_250.4)).toBe(22_749);
    expect(remainingWindowMs(30_000, 30_000)).toBe(0);
    expect(remainingWindowMs(30_000, 41_000)).toBe(0);
  });

  // The job service is spied on in this process: on the team server's backend the API node runs it elsewhere.
  it.skipIf(onPg)('waits only what is left of the window after the upload, probes and commit (counted from the request\'s arrival)', { timeout: 90_000 }, async () => {
    const WINDOW_MS = 5000;
    const SUBMIT_DELAY_MS = 800;
    process.env.VERACITY_TEST_ANALYSE_MS = '8000';
    const core = await startCore({ waitWindowMs: WINDOW_MS }, { workerEntry: SLOW_WORKER });
    // The worker processes start with the first file: started here, so that the probe below takes little of the window.
    expect((await assess(core, [filePart(await makeJpeg(64, 64))], { wait: 'false' })).statusCode).toBe(202);
    const submit = core.jobs.submit.bind(core.jobs);
    // A commit that takes SUBMIT_DELAY_MS: at least that much of the window is spent before the wait can start.
    vi.spyOn(core.jobs, 'submit').mockImplementation(async (input) => {
      await new Promise((r) => setTimeout(r, SUBMIT_DELAY_MS));
      return submit(input);
    });
    const waited: number[] = [];
    const waitForTerminal = core.jobs.waitForTerminal.bind(core.jobs);
    vi.spyOn(core.jobs, 'waitForTerminal').mockImplementation((jobId, ms, signal) => {
      waited.push(ms);
      return waitForTerminal(jobId, ms, signal);
    });
    const res = await assess(core, [filePart(await makeJpeg(64, 64))]);
    expect(res.statusCode).toBe(202);
    expect(body(res, JobResult).status).toBe('processing');
    expect(waited).toHaveLength(1);
    expect(waited[0]).toBeGreaterThan(0);
    expect(waited[0]).toBeLessThanOrEqual(WINDOW_MS - SUBMIT_DELAY_MS);

    // A request that has spent the whole window before its job is made is answered without waiting at all.
    core.jobs.submit = vi.fn(async (input) => {
      await new Promise((r) => setTimeout(r, WINDOW_MS + 100));
      return submit(input);
    });
    const late = await assess(core, [filePart(await makeJpeg(64, 64))]);
    expect(late.statusCode).toBe(202);
    expect(waited).toHaveLength(1);
    delete process.env.VERACITY_TEST_ANALYSE_MS;
    await core.jobs.whenIdle();
  });
});
