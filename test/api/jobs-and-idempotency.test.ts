// Jobs: the same result from the synchronous response, the poll and the list; wait/no-wait; pagination and
// clamping; idempotent replay, conflict and concurrent same-key requests; the queue bound; expert reviews.
import { describe, expect, it } from 'vitest';
import { FileRegions, JobList, JobResult } from '../../src/api/schemas.js';
import { JobReport } from '../../src/api/schemas.js';
import { makeJpeg, makePng } from '../unit/analysis/fixtures.js';
import { SLOW_WORKER, assess, body, countRows, expectError, expectNothingLeft, filePart, footprint, get, multipart, startCore, startListening } from './helpers.js';

describe('job results', () => {
  it('returns the same job from the synchronous response, the poll and the list (no model: result_unavailable)', async () => {
    const core = await startCore();
    const res = await assess(core, [filePart(await makeJpeg(64, 64), 'a.jpg'), filePart(await makePng(40, 40), 'b.png')], {
      headers: {},
    });
    expect(res.statusCode).toBe(200);
    const job = body(res, JobResult);
    expect(job.status).toBe('error');
    expect(job.error).toEqual({ code: 'result_unavailable', message: expect.any(String) });
    expect(job.results.map((r) => [r.file.name, r.file.type, r.status, r.error?.code])).toEqual([
      ['a.jpg', 'image/jpeg', 'error', 'result_unavailable'],
      ['b.png', 'image/png', 'error', 'result_unavailable'],
    ]);
    expect(job.metadata).toBeUndefined();
    expect(job.completedAt).toBeDefined();
    const polled = body(await get(core, `/v1/jobs/${job.jobId}`), JobResult);
    expect(polled).toEqual(job);
    const list = body(await get(core, `/v1/jobs?applicationId=${core.imagesAppId}`), JobList);
    expect(list.jobs).toEqual([{ id: job.jobId, applicationId: core.imagesAppId, metadata: {}, createdAt: job.createdAt, updatedAt: expect.any(String) }]);
  });

  it('wait=false answers 202 at once with processing results; GET wait=false returns 200 processing; wait=true wakes on completion', async () => {
    // One analysis worker: the second job waits in the queue until the first is done.
    const core = await startCore({ analysisWorkers: 1 }, { workerEntry: SLOW_WORKER });
    process.env.VERACITY_TEST_ANALYSE_MS = '1500';
    const res = await assess(core, [filePart(await makeJpeg(64, 64))], { wait: 'false' });
    expect(res.statusCode).toBe(202);
    const job = body(res, JobResult);
    expect(job.status).toBe('processing');
    expect(job.completedAt).toBeUndefined();
    expect(job.results[0]).toMatchObject({ status: 'processing', completedAt: null });
    const polled = await get(core, `/v1/jobs/${job.jobId}?wait=false`);
    expect(polled.statusCode).toBe(200);
    expect(body(polled, JobResult).status).toBe('processing');
    const queued = body(await assess(core, [filePart(await makeJpeg(64, 64), 'queued.jpg')], { wait: 'false' }), JobResult);

    // The queued job's wait starts first, so if a wait only ended with its window, the queued job would answer first.
    // Woken by completion, the first job answers while the queued one is still waiting.
    const answered: string[] = [];
    const waitFor = (id: string) =>
      get(core, `/v1/jobs/${id}?wait=true`).then((r) => {
        answered.push(id);
        return r;
      });
    const queuedWait = waitFor(queued.jobId);
    const waited = await waitFor(job.jobId);
    expect(waited.statusCode).toBe(200);
    const result = body(waited, JobResult);
    expect(result.status).toBe('completed');
    expect(result.results[0].verdict?.dimensions).toEqual(result.results[0].dimensions);
    expect(answered).toEqual([job.jobId]);
    const later = await queuedWait;
    expect(later.statusCode).toBe(200);
    expect(body(later, JobResult).status).toBe('completed');
    expect(answered).toEqual([job.jobId, queued.jobId]);
  });

  it('wait=true gives up after the wait window with 202 and the job still processing', async () => {
    const core = await startCore({ waitWindowMs: 300 }, { workerEntry: SLOW_WORKER });
    process.env.VERACITY_TEST_ANALYSE_MS = '3000';
    const res = await assess(core, [filePart(await makeJpeg(64, 64))]);
    expect(res.statusCode).toBe(202);
    expect(body(res, JobResult).status).toBe('processing');
    await core.jobs.whenIdle();
  });

  it('400 for a job id that is not a uuid, 404 for an unknown one', async () => {
    const core = await startCore();
    expectError(await get(core, '/v1/jobs/not-a-uuid'), 400, 'invalid_request', 'jobId');
    // A path the router cannot decode gets the ApiError shape too, not Fastify's own error body.
    for (const url of ['/v1/jobs/%zz', '/v1/jobs/%E0%A4%A', '/app/keys/%/revoke']) expectError(await get(core, url), 400, 'invalid_request');
    expectError(await get(core, '/v1/jobs/3f2504e0-4f89-41d3-9a0c-0305e82c3301'), 404, 'not_found');
    expectError(await get(core, `/v1/jobs/3f2504e0-4f89-41d3-9a0c-0305e82c3301?wait=yes`), 400, 'invalid_request', 'wait');
  });

  it('400 for an id of any length that is not a uuid, on every route with a job or file id (DECISIONS 12)', async () => {
    const core = await startCore();
    const job = body(await assess(core, [filePart(await makeJpeg(64, 64))], { wait: 'false' }), JobResult);
    const fileId = job.results[0].file.id;
    for (const long of ['a'.repeat(201), 'b'.repeat(300), `${job.jobId}${'0'.repeat(5000)}`]) {
      const calls: [string, string, string, string?][] = [
        ['GET', `/v1/jobs/${long}`, 'jobId'],
        ['GET', `/v1/jobs/${long}/report`, 'jobId'],
        ['GET', `/v1/jobs/${long}/files/${fileId}/content`, 'jobId'],
        ['GET', `/v1/jobs/${job.jobId}/files/${long}/content`, 'fileId'],
        ['GET', `/v1/jobs/${job.jobId}/files/${long}/regions`, 'fileId'],
        ['PUT', `/v1/jobs/${job.jobId}/files/${long}/review`, 'fileId', '{}'],
        ['DELETE', `/v1/jobs/${job.jobId}/files/${long}/review`, 'fileId'],
        // A malformed fileId is 400 before the job is looked up, even under a job that does not exist.
        ['GET', `/v1/jobs/3f2504e0-4f89-41d3-9a0c-0305e82c3301/files/${long}/regions`, 'fileId'],
      ];
      for (const [method, url, path, payload] of calls) {
        const res = await core.app.inject({
          method: method as 'GET',
          url,
          payload,
          headers: { authorization: `Bearer ${core.imagesKey}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
        });
        expectError(res, 400, 'invalid_request', path);
      }
      // The window's Settings routes (UI token; on a team API node, its VERACITY_UI_TOKEN).
      const app = (url: string) => core.app.inject({ method: 'POST', url, payload: {}, headers: { authorization: `Bearer ${core.uiToken}` } });
      expectError(await app(`/app/applications/${long}/keys`), 400, 'invalid_request', 'applicationId');
      expectError(await app(`/app/keys/${long}/revoke`), 400, 'invalid_request', 'keyId');
      // Without a key the long id is still an API route: 401, not a 404 that skipped authentication.
      expectError(await core.app.inject({ method: 'GET', url: `/v1/jobs/${long}` }), 401, 'unauthorized');
    }
  });
});

describe('GET /v1/jobs pagination', () => {
  it('pages newest first, clamps pageSize to 100, and validates its parameters', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await assess(core, [filePart(jpeg), { name: 'metadata', data: JSON.stringify({ case: i < 2 ? 'A' : 'B', n: i }) }], { wait: 'false' });
      ids.push(body(r, JobResult).jobId);
    }
    const base = `/v1/jobs?applicationId=${core.imagesAppId}`;
    const p1 = body(await get(core, `${base}&pageSize=2`), JobList);
    expect(p1.jobs.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    expect(p1.pagination).toEqual({ page: 1, pageSize: 2, total: 3, totalPages: 2, hasNextPage: true });
    expect(p1.jobs[0].metadata).toEqual({ case: 'B', n: 2 });
    const p2 = body(await get(core, `${base}&pageSize=2&page=2`), JobList);
    expect(p2.jobs.map((j) => j.id)).toEqual([ids[0]]);
    expect(p2.pagination.hasNextPage).toBe(false);
    const beyond = body(await get(core, `${base}&pageSize=2&page=9`), JobList);
    expect(beyond.jobs).toEqual([]);
    expect(body(await get(core, `${base}&pageSize=100000`), JobList).pagination.pageSize).toBe(100);
    // Any well-formed positive integer: pageSize is clamped, a page past the end is empty, never a 400.
    for (const size of ['1000000000', '9007199254740993', '9'.repeat(400)]) {
      const res = body(await get(core, `${base}&pageSize=${size}`), JobList);
      expect(res.pagination).toEqual({ page: 1, pageSize: 100, total: 3, totalPages: 1, hasNextPage: false });
      expect(res.jobs).toHaveLength(3);
    }
    const farPage = body(await get(core, `${base}&pageSize=2&page=1000000000`), JobList);
    expect(farPage).toEqual({ jobs: [], pagination: { page: 1000000000, pageSize: 2, total: 3, totalPages: 2, hasNextPage: false } });
    for (const page of ['9007199254740993', '99999999999999999999', '9'.repeat(400)]) {
      const res = body(await get(core, `${base}&page=${page}`), JobList);
      expect(res).toEqual({ jobs: [], pagination: { page: Number.MAX_SAFE_INTEGER, pageSize: 100, total: 3, totalPages: 1, hasNextPage: false } });
    }
    expect(body(await get(core, `${base}&pageSize=002&page=02`), JobList).jobs.map((j) => j.id)).toEqual([ids[0]]);
    expect(body(await get(core, base), JobList).pagination).toEqual({ page: 1, pageSize: 100, total: 3, totalPages: 1, hasNextPage: false });
    const caseA = body(await get(core, `${base}&case=A`), JobList);
    expect(caseA.jobs.map((j) => j.id)).toEqual([ids[1], ids[0]]);
    for (const [q, path] of [
      ['&pageSize=0', 'pageSize'],
      ['&pageSize=000', 'pageSize'],
      ['&pageSize=', 'pageSize'],
      ['&pageSize=1e3', 'pageSize'],
      ['&page=%2B1', 'page'],
      ['&page=0', 'page'],
      ['&page=-1', 'page'],
      ['&page=1.5', 'page'],
      ['&page=abc', 'page'],
      ['&page=1&page=2', 'page'],
    ]) {
      expectError(await get(core, `${base}${q}`), 400, 'invalid_request', path);
    }
    expectError(await get(core, '/v1/jobs'), 400, 'invalid_request', 'applicationId');
    expectError(await get(core, "/v1/jobs?applicationId=' OR 1=1--"), 400, 'invalid_request', 'applicationId');
  });
});

describe('idempotency (DECISIONS 14-18)', () => {
  it('replays the original job for the same key and payload, and refuses another payload with 422', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const parts = [filePart(jpeg, 'a.jpg'), { name: 'metadata', data: '{"case":"K"}' }];
    const first = await assess(core, parts, { idempotencyKey: 'case-42' });
    const job = body(first, JobResult);
    const before = await footprint(core);
    const again = await assess(core, parts, { idempotencyKey: 'case-42', wait: 'false' });
    expect(again.statusCode).toBe(200); // the job is terminal: same wait semantics, status from the job
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(body(again, JobResult)).toEqual(job);
    await expectNothingLeft(core, before);

    const otherBytes = await makeJpeg(64, 65);
    for (const changed of [
      [filePart(otherBytes, 'a.jpg'), { name: 'metadata', data: '{"case":"K"}' }],
      [filePart(jpeg, 'a.jpg'), { name: 'metadata', data: '{"case":"L"}' }],
      [filePart(jpeg, 'renamed.jpg'), { name: 'metadata', data: '{"case":"K"}' }],
    ]) {
      expectError(await assess(core, changed, { idempotencyKey: 'case-42' }), 422, 'invalid_request', 'Idempotency-Key');
    }
    await expectNothingLeft(core, before);
    // Scoped to the application: the same key from the PDF application is another key.
    expect(await core.jobsStore.jobs.findIdempotency(core.pdfsAppId, 'case-42', 0)).toBeUndefined();
  });

  it('keeps a key 24 hours: a reuse after that creates a new job', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const core = await startCore({}, { now: () => new Date(clock) });
    const jpeg = await makeJpeg(64, 64);
    const first = body(await assess(core, [filePart(jpeg)], { idempotencyKey: 'day', wait: 'false' }), JobResult);
    clock += 24 * 3_600_000 - 1000;
    expect(body(await assess(core, [filePart(jpeg)], { idempotencyKey: 'day', wait: 'false' }), JobResult).jobId).toBe(first.jobId);
    clock += 2000;
    const later = body(await assess(core, [filePart(jpeg)], { idempotencyKey: 'day', wait: 'false' }), JobResult);
    expect(later.jobId).not.toBe(first.jobId);
    await core.jobs.whenIdle();
  });

  it('does not consume a key on a refused request', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const before = await footprint(core);
    expectError(await assess(core, [filePart(jpeg), { name: 'metadata', data: '[1]' }], { idempotencyKey: 'retry-me' }), 400, 'invalid_request', 'metadata');
    await expectNothingLeft(core, before);
    const ok = await assess(core, [filePart(jpeg), { name: 'metadata', data: '{}' }], { idempotencyKey: 'retry-me', wait: 'false' });
    expect(ok.statusCode).toBe(202);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it('creates exactly one job for concurrent requests with the same key (real HTTP)', async () => {
    const core = await startCore({}, { workerEntry: SLOW_WORKER });
    process.env.VERACITY_TEST_ANALYSE_MS = '200';
    const base = await startListening(core);
    const { body: payload, contentType } = await multipart([filePart(await makeJpeg(400, 300), 'same.jpg')]);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${base}/v1/assess?wait=false`, {
          method: 'POST',
          body: new Uint8Array(payload),
          headers: { 'content-type': contentType, authorization: `Bearer ${core.imagesKey}`, 'idempotency-key': 'burst' },
        }).then(async (r) => ({ status: r.status, job: body({ body: await r.text() }, JobResult) })),
      ),
    );
    expect(new Set(results.map((r) => r.job.jobId)).size).toBe(1);
    expect(results.every((r) => r.status === 200 || r.status === 202)).toBe(true);
    expect(await countRows(core, 'jobs')).toBe(1);
    await core.jobs.whenIdle();
    expect((await footprint(core)).stored).toHaveLength(1);
    expect((await footprint(core)).tmp).toEqual([]);
  });
});

describe('queue bound (DECISIONS 24)', () => {
  it('answers 503 service_unavailable with retryAfter when the queue is full, and stores nothing', async () => {
    const core = await startCore({ queueMaxFiles: 2 }, { workerEntry: SLOW_WORKER });
    process.env.VERACITY_TEST_ANALYSE_MS = '2000';
    const jpeg = await makeJpeg(64, 64);
    expect((await assess(core, [filePart(jpeg), filePart(jpeg)], { wait: 'false' })).statusCode).toBe(202);
    const before = await footprint(core);
    const res = await assess(core, [filePart(jpeg)], { wait: 'false' });
    const err = expectError(res, 503, 'service_unavailable');
    expect(err.retryAfter).toBeGreaterThan(0);
    expect(res.headers['retry-after']).toBe(String(err.retryAfter));
    await expectNothingLeft(core, before);
    await core.jobs.whenIdle();
    expect((await assess(core, [filePart(jpeg)], { wait: 'false' })).statusCode).toBe(202);
    await core.jobs.whenIdle();
  });
});

describe('extensions', () => {
  it('stores an expert review next to the machine verdict, replaces and deletes it', async () => {
    const core = await startCore({}, { workerEntry: SLOW_WORKER });
    process.env.VERACITY_TEST_ANALYSE_MS = '10';
    const job = body(await assess(core, [filePart(await makeJpeg(64, 64), 'claim.jpg')]), JobResult);
    const fileId = job.results[0].file.id;
    const url = `/v1/jobs/${job.jobId}/files/${fileId}/review`;
    const put = (payload: unknown, key = core.imagesKey) =>
      core.app.inject({ method: 'PUT', url, payload: payload as object, headers: { authorization: `Bearer ${key}` } });
    expectError(await put({ assessment: 'fake', reviewer: 'A' }), 400, 'invalid_request', 'assessment');
    expectError(await put({ assessment: 'authentic' }), 400, 'invalid_request', 'reviewer');
    expectError(await put({ assessment: 'authentic', reviewer: 'A' }, core.pdfsKey), 404, 'not_found');
    const reviewed = body(await put({ assessment: 'ai_generated', reviewer: 'J. Doe', note: 'Shadows inconsistent' }), JobResult);
    expect(reviewed.results[0].expertReview).toEqual({ assessment: 'ai_generated', reviewer: 'J. Doe', note: 'Shadows inconsistent', reviewedAt: expect.any(String) });
    expect(reviewed.results[0].verdict).toEqual(job.results[0].verdict);
    expect(body(await get(core, `/v1/jobs/${job.jobId}`), JobResult).results[0].expertReview?.assessment).toBe('ai_generated');
    const deleted = await core.app.inject({ method: 'DELETE', url, headers: { authorization: `Bearer ${core.imagesKey}` } });
    expect(body(deleted, JobResult).results[0].expertReview).toBeUndefined();
  });

  it('serves the stored original as an attachment, the tile scores, and the case report', async () => {
    const core = await startCore({}, { workerEntry: SLOW_WORKER });
    process.env.VERACITY_TEST_ANALYSE_MS = '10';
    const jpeg = await makeJpeg(64, 64);
    const job = body(await assess(core, [filePart(jpeg, '<img src=x onerror=alert(1)>.jpg')]), JobResult);
    const fileId = job.results[0].file.id;
    const content = await get(core, `/v1/jobs/${job.jobId}/files/${fileId}/content`);
    expect(content.statusCode).toBe(200);
    expect(content.headers['content-type']).toBe('image/jpeg');
    expect(content.headers['content-disposition']).toMatch(/^attachment;/);
    expect(content.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(content.rawPayload, jpeg)).toBe(0);
    const regions = body(await get(core, `/v1/jobs/${job.jobId}/files/${fileId}/regions`), FileRegions);
    expect(regions.grids[0].tiles.length).toBeGreaterThan(0);
    const report = body(await get(core, `/v1/jobs/${job.jobId}/report`), JobReport);
    const { createHash } = await import('node:crypto');
    expect(report.files[0].sha256).toBe(createHash('sha256').update(jpeg).digest('hex'));
    expect(report.job).toEqual(body(await get(core, `/v1/jobs/${job.jobId}`), JobResult));
    expectError(await get(core, `/v1/jobs/${job.jobId}/files/3f2504e0-4f89-41d3-9a0c-0305e82c3301/content`), 404, 'not_found');
  });

  it('serves an OpenAPI 3.1 document generated from the schemas', async () => {
    const core = await startCore();
    const res = await core.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    const doc = JSON.parse(res.body);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/assess', '/v1/jobs', '/v1/jobs/{jobId}', '/v1/jobs/{jobId}/files/{fileId}/review']));
    expect(doc.components.schemas.JobResult.properties.results).toBeDefined();
  });
});
