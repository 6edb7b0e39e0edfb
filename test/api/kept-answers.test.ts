// What the server keeps between requests to answer faster (test/bench/README.md) follows every change a user can
// make: a verified key stops working the moment it is revoked (even by the CLI, from another process) or expires,
// and a finished job or a list page kept for polls shows a review, a new job or a new page at once.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { JobList, JobResult } from '../../src/api/schemas.js';
import { createKeyService } from '../../src/auth/api-keys.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { REPO, SLOW_WORKER, assess, body, expectError, filePart, get, onPg, startCore } from './helpers.js';

const run = promisify(execFile);
const veracity = (...args: string[]) => run(process.execPath, [path.join(REPO, 'src', 'bin', 'veracity.mjs'), ...args], { env: { ...process.env, VERACITY_DATA_DIR: '' } });

describe('verified keys', () => {
  // `veracity keys revoke --data-dir` and the Settings screen's route are the desktop's (a team node serves no window).
  it.skipIf(onPg)('refuses a key at the next request once `veracity keys revoke` (another process) has revoked it', async () => {
    const core = await startCore();
    const key = await core.keys.issueKey(core.imagesAppId, 'tool');
    const list = `/v1/jobs?applicationId=${core.imagesAppId}`;
    for (let i = 0; i < 3; i++) expect((await get(core, list, key.token)).statusCode).toBe(200);
    expect(JSON.parse((await veracity('keys', 'revoke', key.id, '--data-dir', core.dataDir)).stdout)).toEqual({ revoked: 1 });
    expectError(await get(core, list, key.token), 401, 'unauthorized');
    // Revoked from the Settings screen (this process) as well.
    const other = await core.keys.issueKey(core.imagesAppId, 'tool 2');
    expect((await get(core, list, other.token)).statusCode).toBe(200);
    expect((await core.app.inject({ method: 'POST', url: `/app/keys/${other.id}/revoke`, headers: { authorization: `Bearer ${core.uiToken}` } })).statusCode).toBe(200);
    expectError(await get(core, list, other.token), 401, 'unauthorized');
    expect((await get(core, list)).statusCode).toBe(200); // the test's own key is untouched
  });

  it('refuses a key verified before its expiry once it has expired', async () => {
    const core = await startCore();
    let clock = Date.now();
    const keys = createKeyService({ secret: core.keySecret, store: core.keyStore, now: () => new Date(clock) });
    const key = await keys.issueKey(core.imagesAppId, 'one day', 1);
    expect(await keys.verify(key.token)).toMatchObject({ applicationId: core.imagesAppId, keyId: key.id });
    clock += 86_400_000 - 60_000;
    expect(await keys.verify(key.token)).not.toBeNull();
    clock += 120_000;
    expect(await keys.verify(key.token)).toBeNull();
  });
});

describe('kept answers', () => {
  it('shows a review, its removal and a new job in the poll and the list that were answered before', async () => {
    process.env.VERACITY_TEST_ANALYSE_MS = '300';
    const core = await startCore({}, { workerEntry: SLOW_WORKER });
    const job = body(await assess(core, [filePart(await makeJpeg(64, 64), 'a.jpg')]), JobResult);
    expect(job.status).toBe('completed');
    const poll = () => get(core, `/v1/jobs/${job.jobId}?wait=false`);
    const listUrl = `/v1/jobs?applicationId=${core.imagesAppId}&pageSize=1`;
    const first = body(await poll(), JobResult);
    expect(body(await poll(), JobResult)).toEqual(first);
    const listed = body(await get(core, listUrl), JobList);
    expect(listed.jobs.map((j) => j.id)).toEqual([job.jobId]);

    const url = `/v1/jobs/${job.jobId}/files/${job.results[0].file.id}/review`;
    const auth = { authorization: `Bearer ${core.imagesKey}` };
    await new Promise((r) => setTimeout(r, 5)); // updatedAt is an ISO time in ms
    expect((await core.app.inject({ method: 'PUT', url, payload: { assessment: 'authentic', reviewer: 'R' }, headers: auth })).statusCode).toBe(200);
    expect(body(await poll(), JobResult).results[0].expertReview).toMatchObject({ assessment: 'authentic', reviewer: 'R' });
    expect(body(await get(core, listUrl), JobList).jobs[0].updatedAt).not.toBe(listed.jobs[0].updatedAt);
    expect((await core.app.inject({ method: 'DELETE', url, headers: auth })).statusCode).toBe(200);
    expect(body(await poll(), JobResult)).toEqual(first);

    const next = body(await assess(core, [filePart(await makeJpeg(64, 64), 'b.jpg')], { wait: 'false' }), JobResult);
    const page = body(await get(core, listUrl), JobList);
    expect(page.jobs.map((j) => j.id)).toEqual([next.jobId]);
    expect(page.pagination).toMatchObject({ total: 2, totalPages: 2, hasNextPage: true });
    // A job polled while processing is read again at the next poll, and once finished it says so.
    expect(body(await get(core, `/v1/jobs/${next.jobId}?wait=false`), JobResult).status).toBe('processing');
    await core.jobs.whenIdle();
    expect(body(await get(core, `/v1/jobs/${next.jobId}?wait=false`), JobResult).status).toBe('completed');
  });
});
