// A team server end to end on a real PostgreSQL: two API nodes and one worker node (real worker processes with the
// test analysis worker), one shared blob directory. A job submitted on one API node is analysed by the worker and
// its wait, held on the other API node, wakes; a key made on one node works on the other; an idempotent retry on
// the other node lands on the original job. Without a blob directory, the files are kept in PostgreSQL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobList, JobResult } from '../../../src/api/schemas.js';
import { loadConfig, type CoreConfig } from '../../../src/config/config.js';
import { createTeamApiNode, createTeamWorker, keySecretFromEnv, newKeySecret, type TeamApiNode, type TeamOptions, type TeamWorkerNode } from '../../../src/team-core.js';
import { readManifest } from '../../../src/analysis/model-session.js';
import { HAS_MODEL, makeJpeg, MODELS_DIR } from '../analysis/fixtures.js';
import { SLOW_WORKER, body, multipart, filePart } from '../../api/helpers.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

describe('team server on PostgreSQL (2 API nodes, 1 worker)', () => {
  let server: TestPostgres;
  let dir: string;
  let apiA: TeamApiNode;
  let apiB: TeamApiNode;
  let worker: TeamWorkerNode;
  let key: string;
  let appId: string;
  let team: TeamOptions;
  let config: (name: string, overrides?: Record<string, unknown>) => CoreConfig;

  beforeAll(async () => {
    server = await startPostgres();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-team-'));
    process.env.VERACITY_TEST_ANALYSE_MS = '300';
    team = {
      databaseUrl: await server.createDatabase('team'),
      blobDir: path.join(dir, 'blobs'),
      keySecret: keySecretFromEnv({ VERACITY_KEY_SECRET: newKeySecret() }),
    };
    config = (name, overrides = {}) =>
      loadConfig(
        { dataDir: path.join(dir, name), modelsDir: path.join(dir, 'no-models'), rendererDir: path.join(dir, 'no-renderer'), logLevel: 'silent', analysisWorkers: 1, ...overrides },
        {},
      );
    [apiA, apiB] = await Promise.all([createTeamApiNode(config('a'), team), createTeamApiNode(config('b'), team)]);
    worker = await createTeamWorker(config('w'), team, { workerEntry: SLOW_WORKER });
    const apps = await apiA.backend.keyStore.listApplications();
    expect(apps.map((a) => a.kind).sort()).toEqual(['images', 'pdfs']);
    appId = apps.find((a) => a.kind === 'images')!.id;
    key = (await apiA.keys.issueKey(appId, 'team test')).token;
  });
  afterAll(async () => {
    await worker?.close();
    await apiA?.close();
    await apiB?.close();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function submit(node: TeamApiNode, idempotencyKey: string) {
    const { body: payload, contentType } = await multipart([filePart(await makeJpeg(64, 64), 'a.jpg'), filePart(await makeJpeg(48, 48), 'b.jpg')]);
    return node.app.inject({
      method: 'POST',
      url: '/v1/assess?wait=false',
      payload,
      headers: { 'content-type': contentType, authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
    });
  }

  it('analyses a job submitted on one node on a worker, and wakes a wait held on the other node', async () => {
    const res = await submit(apiA, 'claim-7');
    expect(res.statusCode).toBe(202);
    const job = body(res, JobResult);
    expect(job.status).toBe('processing');

    const waited = await apiB.app.inject({ method: 'GET', url: `/v1/jobs/${job.jobId}?wait=true`, headers: { authorization: `Bearer ${key}` } });
    expect(waited.statusCode).toBe(200);
    const done = body(waited, JobResult);
    expect(done.status).toBe('completed');
    expect(done.results.map((r) => [r.file.name, r.status, r.verdict?.assessment])).toEqual([
      ['a.jpg', 'completed', 'inconclusive'],
      ['b.jpg', 'completed', 'inconclusive'],
    ]);

    // The same request retried on the other node lands on the original job.
    const replay = await submit(apiB, 'claim-7');
    expect(body(replay, JobResult).jobId).toBe(job.jobId);
    const list = body(await apiB.app.inject({ method: 'GET', url: `/v1/jobs?applicationId=${appId}`, headers: { authorization: `Bearer ${key}` } }), JobList);
    expect(list.jobs.map((j) => j.id)).toEqual([job.jobId]);
    const { rows } = await apiA.backend.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM job_files WHERE status = 'processing'");
    expect(rows[0].n).toBe(0);
  });

  // Node B must not answer from what it kept: a list page without A's new job, a result without A's review.
  it("shows a job made on one node in the list another node already served, and a review made on one node on the other", async () => {
    const list = async (node: TeamApiNode) =>
      body(await node.app.inject({ method: 'GET', url: `/v1/jobs?applicationId=${appId}`, headers: { authorization: `Bearer ${key}` } }), JobList).jobs.map((j) => j.id);
    const before = await list(apiB);
    const job = body(await submit(apiA, 'claim-8'), JobResult);
    expect(await list(apiB)).toEqual([job.jobId, ...before]);

    const done = body(await apiB.app.inject({ method: 'GET', url: `/v1/jobs/${job.jobId}?wait=true`, headers: { authorization: `Bearer ${key}` } }), JobResult);
    expect(done.status).toBe('completed');
    const fileId = done.results[0].file.id;
    const review = await apiA.app.inject({
      method: 'PUT',
      url: `/v1/jobs/${job.jobId}/files/${fileId}/review`,
      payload: { assessment: 'ai_generated', reviewer: 'ana' },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(review.statusCode).toBe(200);
    const seenOnB = body(await apiB.app.inject({ method: 'GET', url: `/v1/jobs/${job.jobId}`, headers: { authorization: `Bearer ${key}` } }), JobResult);
    expect(seenOnB.results[0].expertReview?.assessment).toBe('ai_generated');
  });

  it('hands a file back, its attempt unspent, when a worker stops cleanly mid-analysis; another worker ends it', async () => {
    await worker.close();
    process.env.VERACITY_TEST_ANALYSE_MS = '5000';
    const stopping = await createTeamWorker(config('w-stop', { shutdownGraceMs: 0 }), team, { workerEntry: SLOW_WORKER });
    const job = body(await submit(apiA, 'claim-9'), JobResult);
    const attempts = async () =>
      (await apiA.backend.pool.query<{ a: number }>('SELECT sum(attempts)::int AS a FROM job_files WHERE job_id = $1', [job.jobId])).rows[0].a;
    for (let i = 0; i < 400 && (await attempts()) === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await attempts()).toBe(1);
    await stopping.close();
    expect(await attempts()).toBe(0);

    process.env.VERACITY_TEST_ANALYSE_MS = '300';
    const next = await createTeamWorker(config('w-next'), team, { workerEntry: SLOW_WORKER });
    try {
      const done = body(await apiB.app.inject({ method: 'GET', url: `/v1/jobs/${job.jobId}?wait=true`, headers: { authorization: `Bearer ${key}` } }), JobResult);
      expect(done.status).toBe('completed');
      expect(await attempts()).toBe(2);
    } finally {
      await next.close();
    }
  });

  it('keeps the uploaded files in PostgreSQL when no blob directory is given: an API node and a worker without one', async () => {
    const small: TeamOptions = { databaseUrl: await server.createDatabase('small'), keySecret: team.keySecret };
    const api = await createTeamApiNode(config('small-api'), small);
    let smallWorker: TeamWorkerNode | undefined;
    try {
      smallWorker = await createTeamWorker(config('small-w'), small, { workerEntry: SLOW_WORKER });
      const images = (await api.backend.keyStore.listApplications()).find((a) => a.kind === 'images')!.id;
      const smallKey = (await api.keys.issueKey(images, 'small team')).token;
      const { body: payload, contentType } = await multipart([filePart(await makeJpeg(64, 64), 'a.jpg')]);
      const res = await api.app.inject({
        method: 'POST',
        url: '/v1/assess?wait=true',
        payload,
        headers: { 'content-type': contentType, authorization: `Bearer ${smallKey}` },
      });
      expect(res.statusCode).toBe(200);
      const done = body(res, JobResult);
      expect(done.results.map((r) => [r.file.name, r.status, r.verdict?.assessment])).toEqual([['a.jpg', 'completed', 'inconclusive']]);
      const { rows } = await api.backend.pool.query<{ file_id: string; size: number }>('SELECT file_id, length(data) AS size FROM blobs');
      expect(rows.map((r) => [r.file_id, r.size])).toEqual([[done.results[0].file.id, done.results[0].file.size]]);
    } finally {
      await smallWorker?.close();
      await api.close();
    }
  });

  it('each node starts its process ahead of the first file: an API node its probe process, a worker node its first analysis process with the model loaded, which then analyses the first file', { timeout: 240_000, skip: !HAS_MODEL }, async () => {
    expect(await apiA.warmedUp).toEqual({ analysis: [], probe: [{ model: null }] });
    const warm: TeamOptions = { databaseUrl: await server.createDatabase('warm'), keySecret: team.keySecret };
    const api = await createTeamApiNode(config('warm-api', { warmWorkers: false }), warm);
    let warmWorker: TeamWorkerNode | undefined;
    try {
      expect(await api.warmedUp).toEqual({ analysis: [], probe: [] });
      warmWorker = await createTeamWorker(config('warm-w', { modelsDir: MODELS_DIR }), warm);
      const manifest = await readManifest(MODELS_DIR);
      expect(await warmWorker.warmedUp).toEqual({ analysis: [{ model: `${manifest.name}@${manifest.version}` }], probe: [] });
      const images = (await api.backend.keyStore.listApplications()).find((a) => a.kind === 'images')!.id;
      const warmKey = (await api.keys.issueKey(images, 'warm team')).token;
      const { body: payload, contentType } = await multipart([filePart(await makeJpeg(640, 480), 'a.jpg')]);
      const res = await api.app.inject({ method: 'POST', url: '/v1/assess?wait=true', payload, headers: { 'content-type': contentType, authorization: `Bearer ${warmKey}` } });
      expect(res.statusCode).toBe(200);
      const done = body(res, JobResult);
      expect(done.results[0]?.status).toBe('completed');
      expect(done.results[0]?.dimensions?.map((d) => d.key)).toContain('ai_detection');
    } finally {
      await warmWorker?.close();
      await api.close();
    }
  });

  it('refuses to start without the shared key secret in the environment', () => {
    expect(() => keySecretFromEnv({})).toThrow(/VERACITY_KEY_SECRET is not set/);
    expect(() => keySecretFromEnv({ VERACITY_KEY_SECRET: 'c2hvcnQ=' })).toThrow(/too short/);
  });
});
