// What the server keeps between requests to answer faster (test/bench/README.md) follows every change a user can
// make: a verified key stops working the moment it is revoked (even by the CLI, from another process) or expires,
// and a finished job or a list page kept for polls shows a review, a new job or a new page at once.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { JobList, JobResult } from '../../src/api/schemas.js';
import { KEY_RECHECK_MS, createKeyService } from '../../src/auth/api-keys.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { REPO, SLOW_WORKER, assess, body, expectError, filePart, get, onPg, sql, startCore, startListening, type TestCore } from './helpers.js';

const run = promisify(execFile);
const veracity = (...args: string[]) => run(process.execPath, [path.join(REPO, 'src', 'bin', 'veracity.mjs'), ...args], { env: { ...process.env, VERACITY_DATA_DIR: '' } });

/** `veracity keys revoke ID` in a process of its own, on the same SQLite file or the same PostgreSQL database. */
function revokeByCli(core: TestCore, id: string) {
  if (!core.pgPool) return veracity('keys', 'revoke', id, '--data-dir', core.dataDir);
  const env = { ...process.env, VERACITY_DATA_DIR: '', VERACITY_KEY_SECRET: Buffer.from(core.keySecret).toString('base64') };
  return run(process.execPath, [path.join(REPO, 'src', 'bin', 'veracity.mjs'), 'keys', 'revoke', id, '--database-url', core.pgPool.options.connectionString!], { env });
}

describe('verified keys', () => {
  // `veracity keys revoke --data-dir` revokes in a desktop data dir's SQLite file: the team server's counterparts (the
  // CLI with --database-url, another node's revocation) are the next two tests.
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

  it('keeps a verified key without reading its row while no key changed, and refuses it at the next request once the CLI (another process) revoked it (real HTTP)', async () => {
    const core = await startCore();
    const base = await startListening(core);
    const key = await core.keys.issueKey(core.imagesAppId, 'tool');
    const list = () => fetch(`${base}/v1/jobs?applicationId=${core.imagesAppId}`, { headers: { authorization: `Bearer ${key.token}` } });
    expect((await list()).status).toBe(200); // verified in full, its key's state kept
    const reads = vi.spyOn(core.keyStore, 'getKey');
    for (let i = 0; i < 5; i++) expect((await list()).status).toBe(200);
    // Unchanged revision: no key row read (on PostgreSQL too, where the signal is the NOTIFY listener).
    expect(reads).not.toHaveBeenCalled();
    expect(JSON.parse((await revokeByCli(core, key.id)).stdout)).toEqual({ revoked: 1 });
    const refused = await list();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'unauthorized' });
    expect(reads).toHaveBeenCalledWith(key.id);
    reads.mockRestore();
    // Revoking every key of the application from the CLI (by its id) as well.
    const other = await core.keys.issueKey(core.imagesAppId, 'tool 2');
    const listOther = () => fetch(`${base}/v1/jobs?applicationId=${core.imagesAppId}`, { headers: { authorization: `Bearer ${other.token}` } });
    for (let i = 0; i < 3; i++) expect((await listOther()).status).toBe(200);
    expect(JSON.parse((await revokeByCli(core, core.imagesAppId)).stdout).revoked).toBeGreaterThanOrEqual(1);
    expect((await listOther()).status).toBe(401);
  });

  it.runIf(onPg)('refuses a key at the next request on one team node once another node has revoked it and the revocation was announced', async () => {
    const nodeA = await startCore();
    const nodeB = await startCore({}, { dataDir: nodeA.dataDir }); // a second API node on the same database
    const key = await nodeB.keys.issueKey(nodeA.imagesAppId, 'tool');
    const list = `/v1/jobs?applicationId=${nodeA.imagesAppId}`;
    for (let i = 0; i < 3; i++) expect((await get(nodeA, list, key.token)).statusCode).toBe(200);
    const before = nodeA.keyStore.keysRevision();
    expect(before).not.toBeNull();
    await nodeB.keys.revokeKey(key.id);
    // The NOTIFY is sent at the revocation's commit and reaches node A a moment later (not before its answer to B).
    for (let i = 0; i < 200 && nodeA.keyStore.keysRevision() === before; i++) await new Promise((r) => setTimeout(r, 5));
    expect(nodeA.keyStore.keysRevision()).not.toBe(before);
    expectError(await get(nodeA, list, key.token), 401, 'unauthorized');
  });

  it('reads a kept key again after KEY_RECHECK_MS even when the revocation signal did not move', async () => {
    const core = await startCore();
    let clock = Date.now();
    const keys = createKeyService({ secret: core.keySecret, store: core.keyStore, now: () => new Date(clock) });
    const key = await keys.issueKey(core.imagesAppId, 'tool');
    expect(await keys.verify(key.token)).not.toBeNull();
    // A revocation the signal does not see: a statement on the server's own connection (SQLite), no NOTIFY (PostgreSQL).
    await sql(core, 'UPDATE api_keys SET revoked_at = ? WHERE id = ?', [new Date(clock).toISOString(), key.id]);
    clock += KEY_RECHECK_MS;
    expect(await keys.verify(key.token)).toBeNull();
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
    // A kept answer is answered without awaiting anything, and still only to its own application.
    const other = { authorization: `Bearer ${core.pdfsKey}` };
    const foreignPoll = await core.app.inject({ url: `/v1/jobs/${job.jobId}?wait=false`, headers: other });
    expect([foreignPoll.statusCode, foreignPoll.json().code]).toEqual([404, 'not_found']);
    const foreignList = await core.app.inject({ url: listUrl, headers: other });
    expect([foreignList.statusCode, foreignList.json().code]).toEqual([403, 'forbidden']);

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
