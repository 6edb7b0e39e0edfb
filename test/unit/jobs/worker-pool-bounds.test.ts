// The analysis time bound counts from the moment the worker begins the file, not from the moment it was handed to a
// process still booting: a file must not fail with "took longer than N s" when its analysis took less than N s. The
// boot itself is bounded too. Real child processes (the test worker: it sleeps where the real one analyses).
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerPool, WorkerTaskError } from '../../../src/jobs/worker-pool.js';
import { REPO_ROOT } from '../../../src/config/config.js';

const SLOW_WORKER = path.join(REPO_ROOT, 'test', 'fixtures', 'workers', 'slow-analysis-worker.mjs');
const pools: WorkerPool[] = [];
const saved = { boot: process.env.VERACITY_TEST_BOOT_MS, analyse: process.env.VERACITY_TEST_ANALYSE_MS };

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  process.env.VERACITY_TEST_BOOT_MS = saved.boot;
  process.env.VERACITY_TEST_ANALYSE_MS = saved.analyse;
  if (saved.boot === undefined) delete process.env.VERACITY_TEST_BOOT_MS;
  if (saved.analyse === undefined) delete process.env.VERACITY_TEST_ANALYSE_MS;
});

function pool(bootMs: number, analyseMs: number): WorkerPool {
  process.env.VERACITY_TEST_BOOT_MS = String(bootMs);
  process.env.VERACITY_TEST_ANALYSE_MS = String(analyseMs);
  const p = new WorkerPool({ size: 1, name: 'bounds-test', entry: SLOW_WORKER });
  pools.push(p);
  return p;
}

const analyse = { op: 'analyse', path: __filename, mediaType: 'image/jpeg', modelsDir: '', threads: 1 } as const;

describe('worker pool time bounds', () => {
  it('completes a file whose boot and analysis each fit the bound, though together they do not', { timeout: 60_000 }, async () => {
    // Boot 3 s (plus the worker's own start-up) and analysis 5 s against a bound of 8 s: over it together, under it each.
    const started: number[] = [];
    const result = await pool(3000, 5000).run<{ modelVersion: string }>(analyse, 8000, { onStart: () => started.push(Date.now()) });
    expect(result.modelVersion).toBe('test-worker');
    expect(started).toHaveLength(1);
  });

  it('still stops an analysis that runs past the bound from its start, and a worker that never begins', { timeout: 60_000 }, async () => {
    const slow = await pool(0, 6000).run(analyse, 2500).catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(WorkerTaskError);
    expect((slow as WorkerTaskError).reason).toBe('timeout');
    expect((slow as WorkerTaskError).message).toBe('Analysis took longer than 3 s and was stopped.');
    const stuck = await pool(20_000, 100).run(analyse, 2500).catch((e: unknown) => e);
    expect((stuck as WorkerTaskError).reason).toBe('timeout');
    expect((stuck as WorkerTaskError).message).toBe('The analysis process did not begin the file within 3 s and was stopped.');
  });
});
