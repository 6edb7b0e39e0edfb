// The per-file stage (issue #13), fed by the real worker pool: each file goes queued -> decoding -> analysing -> done
// as its worker process reports it, beside a v1 result whose shape does not change.
import { describe, expect, it } from 'vitest';
import { JobProgress, JobResult, type FileStage } from '../../src/api/schemas.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { assess, body, expectError, expectNothingLeft, filePart, footprint, get, SLOW_WORKER, startCore } from './helpers.js';

/** Consecutive duplicates removed: the stages a file went through, in the order they were seen. */
const steps = (seen: FileStage[]) => seen.filter((s, i) => i === 0 || s !== seen[i - 1]);

describe('GET /v1/jobs/{jobId}/progress', () => {
  it('shows each file queued, then decoding, then analysing, then done, from one analysis worker', async () => {
    const core = await startCore({ analysisWorkers: 1 }, { workerEntry: SLOW_WORKER });
    process.env.VERACITY_TEST_ANALYSE_MS = '1200'; // the test worker decodes for half of it, then analyses
    const jpeg = await makeJpeg(64, 64);
    const job = body(await assess(core, [filePart(jpeg, 'a.jpg'), filePart(jpeg, 'b.jpg')], { wait: 'false' }), JobResult);
    const seen = new Map<string, FileStage[]>(job.results.map((r) => [r.file.id, []]));
    let progress: JobProgress;
    do {
      progress = body(await get(core, `/v1/jobs/${job.jobId}/progress`), JobProgress);
      for (const f of progress.files) seen.get(f.fileId)!.push(f.stage);
      for (const f of progress.files) expect(f.startedAt === null).toBe(f.stage === 'queued');
      await new Promise((r) => setTimeout(r, 20));
    } while (progress.files.some((f) => f.stage !== 'done'));

    const [first, second] = job.results.map((r) => steps(seen.get(r.file.id)!));
    // The second file waits for the only worker: it is seen in every stage. The first may have begun before the first poll.
    expect(second).toEqual(['queued', 'decoding', 'analysing', 'done']);
    expect(['queued', 'decoding', 'analysing', 'done'].slice(-first.length)).toEqual(first);
    const done = body(await get(core, `/v1/jobs/${job.jobId}`), JobResult);
    expect(progress.files.map((f) => f.startedAt)).toEqual(done.results.map((r) => r.startedAt));
    // The v1 FileResult is unchanged: no stage in it.
    expect(Object.keys(done.results[0]).sort()).toEqual(['completedAt', 'dimensions', 'file', 'startedAt', 'status', 'verdict']);
  });

  it('says error for a file whose analysis failed', async () => {
    const core = await startCore(); // no model: every file ends result_unavailable
    const job = body(await assess(core, [filePart(await makeJpeg(64, 64))]), JobResult);
    await core.jobs.whenIdle();
    const progress = body(await get(core, `/v1/jobs/${job.jobId}/progress`), JobProgress);
    expect(progress).toEqual({ jobId: job.jobId, files: [{ fileId: job.results[0].file.id, stage: 'error', startedAt: expect.any(String) }] });
  });

  it('refuses a malformed id (400 jobId), another application\'s job and an unknown one (404), no key (401); nothing changes', async () => {
    const core = await startCore();
    const job = body(await assess(core, [filePart(await makeJpeg(64, 64))]), JobResult);
    await core.jobs.whenIdle();
    const before = await footprint(core);
    expectError(await get(core, '/v1/jobs/nope/progress'), 400, 'invalid_request', 'jobId');
    expectError(await get(core, `/v1/jobs/${job.jobId}/progress`, core.pdfsKey), 404, 'not_found');
    expectError(await get(core, '/v1/jobs/00000000-0000-4000-8000-000000000000/progress'), 404, 'not_found');
    expectError(await core.app.inject({ method: 'GET', url: `/v1/jobs/${job.jobId}/progress` }), 401, 'unauthorized');
    expectError(await get(core, `/v1/jobs/${job.jobId}/progress`, core.uiToken!), 401, 'unauthorized');
    await expectNothingLeft(core, before);
  });
});
