// kill -9 of the core at seeded random instants while uploads are streaming and analyses are running, many
// times over one data dir: every job answered 200/202 survives and completes, no refused or half-received
// request leaves a job or a file, the database passes integrity_check, and a retried request with its key
// yields at most one job (the same one if it was answered). Replay a failure with RELIABILITY_SEED=<seed>.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import {
  HAS_MODEL,
  MODEL_DIR,
  diskState,
  integrityCheck,
  keysOf,
  multipartBody,
  prng,
  rawRequest,
  removeTempDirs,
  serve,
  sleep,
  suiteSeed,
  tempDir,
  writeReport,
  type Part,
  type Served,
} from './harness.js';

const KILLS = Number(process.env.RELIABILITY_KILLS ?? 14);

interface Sent {
  key: string;
  parts: Part[];
  sha256: string[]; // of the file parts, in order
  bad: boolean; // built to be refused (last part unsupported): must never leave a job
  acked: string | null; // jobId of a 200/202
  statuses: (number | null)[];
  iteration: number;
}

afterAll(() => removeTempDirs());

function sha(b: Buffer | string): string {
  return crypto.createHash('sha256').update(b).digest('hex');
}

describe('kill -9 at random points, then restart', () => {
  it(`keeps every acknowledged job and leaves nothing half-done over ${KILLS} kills`, { timeout: 420_000 }, async () => {
    const seed = suiteSeed();
    const rnd = prng(seed);
    const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
    const dataDir = tempDir();
    const emptyModels = tempDir('veracity-nomodel-');
    const small = await makeJpeg(64, 64);
    const medium = await makeJpeg(320, 240);
    const ledger: Sent[] = [];
    const killPoints: { iteration: number; worker: string; killAtMs: number; inFlight: number; acked: number }[] = [];
    const failures: string[] = [];
    let requestsSent = 0;

    const build = (iteration: number): Sent => {
      const n = int(1, 4);
      const bad = rnd() < 0.2;
      const parts: Part[] = [];
      const hashes: string[] = [];
      for (let i = 0; i < n; i++) {
        const base = rnd() < 0.5 ? small : medium;
        // Trailing bytes after EOI make uploads of different lengths (0 to 1.5 MiB) without changing the image.
        const pad = rnd() < 0.5 ? 0 : int(1, 1.5 * 2 ** 20);
        const data = Buffer.concat([base, crypto.randomBytes(8), Buffer.alloc(pad, i)]);
        parts.push({ name: 'file', data, filename: `it${iteration}-f${i}.jpg`, contentType: 'image/jpeg' });
        hashes.push(sha(data));
      }
      if (bad) parts.push({ name: 'file', data: Buffer.from('not an image at all, just text'), filename: 'notes.txt', contentType: 'text/plain' });
      if (rnd() < 0.5) parts.unshift({ name: 'metadata', data: JSON.stringify({ case: `kill-${iteration}`, seed }) });
      return { key: `rel-${seed}-${iteration}-${crypto.randomUUID()}`, parts, sha256: hashes, bad, acked: null, statuses: [], iteration };
    };

    const send = async (srv: Served, apiKey: string, s: Sent, wait: boolean) => {
      const { body, contentType } = multipartBody(s.parts);
      requestsSent++;
      const res = await rawRequest({
        port: srv.port,
        path: `/v1/assess?wait=${wait}`,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType, 'content-length': String(body.length), 'idempotency-key': s.key, connection: 'close' },
        body,
        chunk: 64 * 1024,
        pauseMs: 1,
        timeoutMs: 40_000,
      });
      s.statuses.push(res.status);
      if (res.status === 200 || res.status === 202) {
        const jobId = (JSON.parse(res.body) as { jobId: string }).jobId;
        if (s.acked && s.acked !== jobId) failures.push(`key ${s.key} answered two different jobs ${s.acked} and ${jobId}`);
        s.acked = jobId;
      } else if (res.status !== null && !(s.bad && res.status === 400)) {
        failures.push(`unexpected ${res.status} for ${s.bad ? 'bad' : 'good'} request ${s.key}: ${res.body.slice(0, 300)}`);
      }
      return res;
    };

    /** What the database says, checked against what was sent; run with the core stopped or running. */
    const audit = (when: string) => {
      expect(integrityCheck(dataDir), `integrity_check ${when}`).toBe('ok');
      const db = new Database(path.join(dataDir, 'veracity.db'), { readonly: true });
      try {
        const jobs = db.prepare('SELECT j.id, i.key FROM jobs j LEFT JOIN idempotency_keys i ON i.job_id = j.id').all() as { id: string; key: string | null }[];
        for (const j of jobs) {
          const sent = ledger.find((s) => s.key === j.key);
          if (!sent) {
            failures.push(`${when}: job ${j.id} has no request of ours (key ${j.key})`);
            continue;
          }
          if (sent.bad) failures.push(`${when}: refused request ${sent.key} left job ${j.id}`);
          const files = db.prepare('SELECT sha256 FROM job_files WHERE job_id = ? ORDER BY position').all(j.id) as { sha256: string }[];
          if (JSON.stringify(files.map((f) => f.sha256)) !== JSON.stringify(sent.sha256)) failures.push(`${when}: job ${j.id} does not hold exactly the files sent (half-received?)`);
          if (sent.acked && sent.acked !== j.id) failures.push(`${when}: key ${sent.key} acked ${sent.acked} but the database has ${j.id}`);
        }
        for (const s of ledger) if (s.acked && !jobs.some((j) => j.id === s.acked)) failures.push(`${when}: acknowledged job ${s.acked} is missing`);
      } finally {
        db.close();
      }
    };

    let srv = await serve({ dataDir, modelsDir: emptyModels, worker: 'slow', env: { VERACITY_TEST_ANALYSE_MS: '400' } });
    let worker = 'slow';
    for (let it = 0; it < KILLS; it++) {
      const keys = keysOf(dataDir);
      // After each restart the start-up sweep must have left no temp file and no stored file without a row.
      const st = diskState(dataDir);
      if (st.tmp.length) failures.push(`iteration ${it}: ${st.tmp.length} temp files after restart`);
      if (st.stored.length !== st.files) failures.push(`iteration ${it}: ${st.stored.length} stored files for ${st.files} file rows after restart`);

      const batch = Array.from({ length: int(2, 6) }, () => build(it));
      ledger.push(...batch);
      const running = batch.map(async (s) => {
        await sleep(int(0, 500));
        return send(srv, keys.images, s, rnd() < 0.3);
      });
      const killAtMs = int(50, 2500);
      await sleep(killAtMs);
      await srv.kill9();
      await Promise.all(running);
      killPoints.push({ iteration: it, worker, killAtMs, inFlight: batch.filter((s) => s.statuses.at(-1) === null).length, acked: batch.filter((s) => s.acked).length });
      audit(`after kill ${it}`);
      // Alternate the analysis worker: the sleeping test worker holds files in `processing` so kills land
      // mid-analysis; the real one (with the model when it is there) runs the real pipeline.
      const real = it % 3 === 2;
      worker = real ? (HAS_MODEL ? 'real+model' : 'real') : 'slow';
      srv = await serve({
        dataDir,
        modelsDir: real && HAS_MODEL ? MODEL_DIR : emptyModels,
        worker: real ? 'real' : 'slow',
        env: { VERACITY_TEST_ANALYSE_MS: String(int(100, 1500)) },
      });
    }

    // Final start: retry every request that got no answer (same key, same bytes): at most one job each, and the
    // answered ones replay their job. Then every job must reach a terminal status.
    const keys = keysOf(dataDir);
    const retry = ledger.filter((x) => !x.acked || rnd() < 0.2);
    const t0 = Date.now();
    const lanes = Array.from({ length: 4 }, async (_, lane) => {
      for (let i = lane; i < retry.length; i += 4) await retryOne(retry[i]);
    });
    async function retryOne(s: Sent) {
      const before = s.acked;
      const res = await send(srv, keys.images, s, false);
      if (s.bad) {
        if (res.status !== 400) failures.push(`retry of refused request ${s.key} answered ${res.status}`);
      } else if (res.status !== 200 && res.status !== 202) failures.push(`retry of ${s.key} answered ${res.status}: ${res.body.slice(0, 200)}`);
      if (before && s.acked !== before) failures.push(`retry of acked ${s.key} gave another job`);
    }
    await Promise.all(lanes);
    const retryMs = Date.now() - t0;
    audit('after retries');
    const accepted = ledger.filter((s) => s.acked);
    const terminal = await Promise.all(
      accepted.map(async (s) => {
        for (let tries = 0; tries < 4; tries++) {
          const r = await fetch(`${srv.base}/v1/jobs/${s.acked}?wait=true`, { headers: { authorization: `Bearer ${keys.images}` } });
          const job = (await r.json()) as { status: string; results: unknown[] };
          if (job.status !== 'processing') return job;
        }
        return null;
      }),
    );
    const completionMs = Date.now() - t0 - retryMs;
    const stuck = terminal.filter((j) => j === null).length;
    if (stuck) failures.push(`${stuck} acknowledged jobs still processing after 120 s`);
    const end = diskState(dataDir);
    await srv.stop();
    expect(integrityCheck(dataDir)).toBe('ok');
    if (end.tmp.length) failures.push(`${end.tmp.length} temp files at the end`);
    if (end.stored.length !== end.files) failures.push(`${end.stored.length} stored files for ${end.files} rows at the end`);

    writeReport({
      suite: 'kill-and-restart',
      seed,
      counts: {
        kills: KILLS,
        requests: requestsSent,
        distinctRequests: ledger.length,
        acknowledgedJobs: accepted.length,
        refusedByDesign: ledger.filter((s) => s.bad).length,
        unansweredAtKill: ledger.filter((s) => s.statuses[0] === null).length,
        jobsCompleted: terminal.filter((j) => j !== null).length,
        filesStored: end.files,
      },
      lost: ledger.filter((s) => s.acked).length - terminal.filter((j) => j !== null).length,
      notes: failures,
      killPoints,
      retries: retry.length,
      retryMs,
      completionMs,
      modelPresent: HAS_MODEL,
    });
    expect(failures).toEqual([]);
    expect(accepted.length).toBeGreaterThan(0);
  });
});

describe('kill -9 of analysis workers (not the server)', () => {
  it('ends the killed files in internal_error, keeps serving, and analyses the next job with fresh workers', { timeout: 120_000 }, async () => {
    const dataDir = tempDir();
    const srv = await serve({ dataDir, modelsDir: tempDir('veracity-nomodel-'), worker: 'slow', env: { VERACITY_TEST_ANALYSE_MS: '3000' } });
    try {
      const keys = keysOf(dataDir);
      const jpeg = await makeJpeg(64, 64);
      const post = async (n: number, tag: string) => {
        const { body, contentType } = multipartBody(Array.from({ length: n }, (_, i) => ({ name: 'file', data: jpeg, filename: `${tag}-${i}.jpg` })));
        const res = await fetch(`${srv.base}/v1/assess?wait=false`, { method: 'POST', body: new Uint8Array(body), headers: { authorization: `Bearer ${keys.images}`, 'content-type': contentType } });
        expect(res.status).toBe(202);
        return ((await res.json()) as { jobId: string }).jobId;
      };
      const jobId = await post(4, 'victim');
      await sleep(1000); // two files are being analysed by the two workers
      const analysisWorkers = childPidsOf(srv.child.pid!).filter((pid) => envOf(pid).includes('VERACITY_WORKER=analysis'));
      expect(analysisWorkers.length).toBeGreaterThan(0);
      for (const pid of analysisWorkers) process.kill(pid, 'SIGKILL');
      const alive = await fetch(`${srv.base}/v1/jobs?applicationId=${keys.imagesAppId}`, { headers: { authorization: `Bearer ${keys.images}` } });
      expect(alive.status).toBe(200);
      const job = (await (await fetch(`${srv.base}/v1/jobs/${jobId}?wait=true`, { headers: { authorization: `Bearer ${keys.images}` } })).json()) as {
        status: string;
        results: { status: string; error?: { code: string } }[];
      };
      expect(job.status).toBe('error');
      const killed = job.results.filter((r) => r.status === 'error');
      expect(killed.length).toBe(analysisWorkers.length);
      expect(killed.every((r) => r.error?.code === 'internal_error')).toBe(true);
      expect(job.results.filter((r) => r.status === 'completed')).toHaveLength(4 - analysisWorkers.length);
      const next = await post(2, 'after');
      const after = (await (await fetch(`${srv.base}/v1/jobs/${next}?wait=true`, { headers: { authorization: `Bearer ${keys.images}` } })).json()) as { status: string };
      expect(after.status).toBe('completed');
      writeReport({ suite: 'worker-kill', counts: { workerKills: analysisWorkers.length, filesEndedInError: killed.length }, lost: 0, notes: [] });
    } finally {
      await srv.stop();
    }
  });
});

function childPidsOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
function envOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return '';
  }
}
