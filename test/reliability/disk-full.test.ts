// Disk full while receiving and while finishing analyses, on a real 8 MiB tmpfs holding the whole data dir
// (database included): a clear 500 internal_error, nothing half-written kept, and once space is back the same
// process takes new uploads and finishes the jobs it had accepted, without a restart. Skips when mount is refused.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { JobResult } from '../../src/api/schemas.js';
import { SLOW_WORKER, footprint, startCore, startListening, type TestCore } from '../api/helpers.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { eventually, integrityCheck, multipartBody, rawRequest, tempDir, writeReport, type Part } from './harness.js';

const mountPoint = tempDir('veracity-diskfull-');
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.log('[reliability] disk-full: mounting a tmpfs is not permitted here (needs root): skipped');
}

const counts: Record<string, number> = { diskFullRequests: 0 };
const notes: string[] = [];
const opened: TestCore[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});
afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
  if (mounted) writeReport({ suite: 'disk-full', counts, lost: 0, notes });
});

/** Writes a filler file until ENOSPC; returns its path. */
function fillDisk(dir: string): string {
  const filler = path.join(dir, 'filler.bin');
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 0xaa);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    // Fill the last partial page too.
    for (let n = 4096; n >= 1; n = Math.floor(n / 2)) {
      try {
        for (;;) fs.writeSync(fd, chunk.subarray(0, n));
      } catch {
        /* next smaller size */
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

describe.skipIf(!mounted)('disk full (8 MiB tmpfs data dir)', () => {
  it('answers 500 internal_error, keeps nothing half-written, and recovers without a restart', { timeout: 120_000 }, async () => {
    process.env.VERACITY_TEST_ANALYSE_MS = '1500';
    const dataDir = path.join(mountPoint, 'data');
    const core = await startCore({}, { dataDir, workerEntry: SLOW_WORKER });
    opened.push(core);
    const base = await startListening(core);
    const port = Number(new URL(base).port);
    const jpeg = await makeJpeg(64, 64);
    const send = async (parts: Part[], wait = false) => {
      counts.diskFullRequests++;
      const { body, contentType } = multipartBody(parts);
      return rawRequest({
        port,
        path: `/v1/assess?wait=${wait}`,
        headers: { authorization: `Bearer ${core.imagesKey}`, 'content-type': contentType, 'content-length': String(body.length) },
        body,
        timeoutMs: 30_000,
      });
    };
    const expectNothing = async (label: string, before: Awaited<ReturnType<typeof footprint>>) => {
      const ok = await eventually(async () => JSON.stringify(await footprint(core)) === JSON.stringify({ ...before, tmp: [] }), 3000);
      expect(ok, `${label}: ${JSON.stringify({ before, after: await footprint(core) })}`).toBe(true);
    };

    // 1. One file larger than the free space: the temp file hits ENOSPC mid-stream.
    let before = await footprint(core);
    let res = await send([{ name: 'file', data: Buffer.concat([jpeg, Buffer.alloc(12 * 2 ** 20, 1)]), filename: 'big.jpg' }]);
    expect([res.status, res.body]).toEqual([500, expect.stringContaining('"code":"internal_error"')]);
    await expectNothing('12 MiB upload on 8 MiB', before);
    counts.enospcWhileReceiving = 1;

    // 2. Three files: the first ones fit, a later one does not; every temp file goes.
    const three = Array.from({ length: 3 }, (_, i) => ({ name: 'file', data: Buffer.concat([jpeg, Buffer.alloc(3 * 2 ** 20, i)]), filename: `f${i}.jpg` }));
    res = await send(three);
    expect(res.status).toBe(500);
    await expectNothing('3 x 3 MiB on 8 MiB', before);

    // 3. A job accepted with room to spare, then the disk fills while it is being analysed.
    const accepted = await send([{ name: 'file', data: jpeg, filename: 'accepted.jpg' }]);
    expect(accepted.status).toBe(202);
    const jobId = (JSON.parse(accepted.body) as { jobId: string }).jobId;
    const filler = fillDisk(mountPoint);
    before = await footprint(core);
    // While full: new uploads are refused with a clear 5xx and leave nothing.
    const whileFull: (number | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await send([{ name: 'file', data: Buffer.concat([jpeg, Buffer.alloc(64 * 1024 * (i + 1), 2)]), filename: `full${i}.jpg` }]);
      whileFull.push(r.status);
      if (r.status !== 500 && r.status !== 503) notes.push(`upload while the disk is full answered ${r.status}: ${r.body.slice(0, 200)}`);
      else expect(r.body).toMatch(/"code":"(internal_error|service_unavailable)"/);
    }
    counts.refusedWhileFull = whileFull.filter((s) => s === 500 || s === 503).length;
    await expectNothing('uploads while full', before);
    await new Promise((r) => setTimeout(r, 2500)); // the accepted job's analysis ends while the disk is full

    // 4. Space comes back: same process, no restart.
    fs.rmSync(filler);
    const after = await send([{ name: 'file', data: jpeg, filename: 'after.jpg' }], true);
    expect(after.status).toBe(200);
    const done = await fetch(`${base}/v1/jobs/${jobId}?wait=true`, { headers: { authorization: `Bearer ${core.imagesKey}` } });
    const job = JobResult.parse(await done.json());
    if (job.status === 'processing') notes.push(`job ${jobId}, accepted before the disk filled, was still processing 30 s after space came back`);
    expect(job.status).not.toBe('processing');
    counts.acceptedJobsFinishedAfterRecovery = 1;
    expect(integrityCheck(dataDir)).toBe('ok');
    expect(fs.readdirSync(path.join(dataDir, 'tmp'))).toEqual([]);
    expect(notes).toEqual([]);
  });
});
