// The contract as the server states it: the OpenAPI document generated from the routes' own schemas matches the
// spec's three endpoints and the extensions (DECISIONS 32-35), and a response that does not match its schema is
// never sent (500 internal_error instead).
import { describe, expect, it } from 'vitest';
import { JobResult } from '../../src/api/schemas.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { assess, body, expectError, filePart, get, sql, startCore } from './helpers.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Record<string, unknown>;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, unknown> }> }>;
}
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };

const params = (op: Operation) => Object.fromEntries((op.parameters ?? []).map((p) => [`${p.in}:${p.name}`, { required: p.required ?? false, ...p.schema }]));
const statuses = (op: Operation) => Object.keys(op.responses).sort();
const ref = (op: Operation, status: string) => op.responses[status].content?.['application/json']?.schema.$ref;

describe('GET /v1/openapi.json', () => {
  it('describes the spec\'s three endpoints and the extensions, with their parameters and statuses, from the route schemas', async () => {
    const core = await startCore();
    const res = await core.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body) as Doc;
    expect(doc.openapi).toBe('3.1.0');
    // Every v1 route, the window's case and history routes (uiToken), and nothing else: the Settings routes and the
    // document itself are not part of the API.
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/app/cases',
      '/app/cases/{caseId}',
      '/app/cases/{caseId}/files/{fileId}',
      '/app/cases/{caseId}/jobs',
      '/app/cases/{caseId}/report.json',
      '/app/cases/{caseId}/report.pdf',
      '/app/history',
      '/v1/assess',
      '/v1/jobs',
      '/v1/jobs/{jobId}',
      '/v1/jobs/{jobId}/files/{fileId}/content',
      '/v1/jobs/{jobId}/files/{fileId}/preview',
      '/v1/jobs/{jobId}/files/{fileId}/regions',
      '/v1/jobs/{jobId}/files/{fileId}/review',
      '/v1/jobs/{jobId}/progress',
      '/v1/jobs/{jobId}/report',
      '/v1/jobs/{jobId}/report.json',
      '/v1/jobs/{jobId}/report.pdf',
      '/v1/report-signing-certificate',
    ]);

    // POST /v1/assess: wait, Idempotency-Key (1 to 255), a multipart body of 1 to 20 files and metadata.
    const assessOp = doc.paths['/v1/assess'].post;
    expect(params(assessOp)).toMatchObject({
      'query:wait': { required: false, enum: ['true', 'false'] },
      'header:idempotency-key': { required: false, minLength: 1, maxLength: 255 },
    });
    const upload = assessOp.requestBody!.content['multipart/form-data'].schema as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(upload.properties.file).toMatchObject({ type: 'array', minItems: 1, maxItems: 20, items: { type: 'string', format: 'binary' } });
    expect(upload.properties.metadata).toMatchObject({ type: 'string' });
    expect(upload.required).toEqual(['file']);
    expect(statuses(assessOp)).toEqual(['200', '202', '400', '401', '403', '413', '422', '429', '500', '503']);
    expect([ref(assessOp, '200'), ref(assessOp, '202')]).toEqual(['#/components/schemas/JobResult', '#/components/schemas/JobResult']);

    // GET /v1/jobs: applicationId (uuid, required), page, pageSize (clamped), and the case extension.
    const listOp = doc.paths['/v1/jobs'].get;
    expect(params(listOp)).toMatchObject({
      'query:applicationId': { required: true, format: 'uuid' },
      'query:page': { required: false, pattern: '^\\d+$' },
      'query:pageSize': { required: false, pattern: '^\\d+$' },
      'query:case': { required: false, maxLength: 500 },
    });
    expect(statuses(listOp)).toEqual(['200', '400', '401', '403', '429', '500']);
    expect(ref(listOp, '200')).toBe('#/components/schemas/JobList');

    // GET /v1/jobs/{jobId}: the job id (uuid) and wait; 404 for an unknown job.
    const jobOp = doc.paths['/v1/jobs/{jobId}'].get;
    expect(params(jobOp)).toMatchObject({ 'path:jobId': { required: true, format: 'uuid' }, 'query:wait': { required: false, enum: ['true', 'false'] } });
    expect(statuses(jobOp)).toEqual(['200', '400', '401', '403', '404', '429', '500']);
    expect(ref(jobOp, '200')).toBe('#/components/schemas/JobResult');

    // Every error answer is an ApiError; every 429 names the spec's rate-limit headers.
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const status of statuses(op).filter((s) => Number(s) >= 400)) expect(ref(op, status), `${method} ${path} ${status}`).toBe('#/components/schemas/ApiError');
        expect(Object.keys(op.responses['429'].headers ?? {}), `${method} ${path}`).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']);
      }
    }
    expect(doc.components.schemas.ApiError.properties).toHaveProperty('details');

    // Extensions (DECISIONS 32-34 and the case report): the job and file ids on every one, 404 for an unknown one.
    const ext = {
      put: doc.paths['/v1/jobs/{jobId}/files/{fileId}/review'].put,
      delete: doc.paths['/v1/jobs/{jobId}/files/{fileId}/review'].delete,
      content: doc.paths['/v1/jobs/{jobId}/files/{fileId}/content'].get,
      regions: doc.paths['/v1/jobs/{jobId}/files/{fileId}/regions'].get,
    };
    for (const op of Object.values(ext)) {
      expect(params(op)).toMatchObject({ 'path:jobId': { required: true, format: 'uuid' }, 'path:fileId': { required: true, format: 'uuid' } });
      expect(statuses(op)).toEqual(['200', '400', '401', '403', '404', '429', '500']);
    }
    expect(ext.put.requestBody!.content['application/json'].schema.$ref).toBe('#/components/schemas/ReviewRequestInput');
    expect([ref(ext.put, '200'), ref(ext.delete, '200'), ref(ext.regions, '200')]).toEqual([
      '#/components/schemas/JobResult',
      '#/components/schemas/JobResult',
      '#/components/schemas/FileRegions',
    ]);
    // Issue 22: the tiles of a rectangle, scored on demand (422 when they cannot be scored now).
    const regionTiles = doc.paths['/v1/jobs/{jobId}/files/{fileId}/regions'].post;
    expect(params(regionTiles)).toMatchObject({ 'path:jobId': { required: true, format: 'uuid' }, 'path:fileId': { required: true, format: 'uuid' } });
    expect(statuses(regionTiles)).toEqual(['200', '400', '401', '403', '404', '422', '429', '500']);
    expect(regionTiles.requestBody!.content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\/RegionRequest/);
    expect(ref(regionTiles, '200')).toBe('#/components/schemas/RegionTiles');
    expect(Object.keys(ext.content.responses['200'].content ?? {})).toEqual(['image/jpeg', 'image/png', 'image/heic', 'image/heif', 'application/pdf']);
    expect(ext.content.responses['200'].content!['application/pdf'].schema).toMatchObject({ type: 'string', format: 'binary' });
    const reportOp = doc.paths['/v1/jobs/{jobId}/report'].get;
    expect(params(reportOp)).toMatchObject({ 'path:jobId': { required: true, format: 'uuid' } });
    expect(ref(reportOp, '200')).toBe('#/components/schemas/JobReport');
    expect(doc.components.schemas.JobResult.properties).toHaveProperty('results');
    // Issue #24: the certificate that checks every report PDF's signature (an API key).
    const certificateOp = doc.paths['/v1/report-signing-certificate'].get;
    expect(ref(certificateOp, '200')).toBe('#/components/schemas/ReportSigningCertificate');
    expect(Object.keys(doc.components.schemas.ReportSigningCertificate.properties ?? {}).sort()).toEqual(['fingerprintSha256', 'notAfter', 'notBefore', 'pem', 'serialNumber', 'subject']);

    // Issue #13: per-file stage (API key), cases and history (the window's UI token, a case spans both applications).
    const progressOp = doc.paths['/v1/jobs/{jobId}/progress'].get;
    expect(params(progressOp)).toMatchObject({ 'path:jobId': { required: true, format: 'uuid' } });
    expect(ref(progressOp, '200')).toBe('#/components/schemas/JobProgress');
    const cases = doc.paths['/app/cases'] as Record<string, Operation & { security?: unknown }>;
    expect(Object.keys(cases).sort()).toEqual(['get', 'post']);
    expect(cases.post.security).toEqual([{ uiToken: [] }]);
    expect(statuses(cases.post)).toEqual(['201', '400', '401', '403', '422', '429', '500']);
    expect(ref(cases.post, '201')).toBe('#/components/schemas/CaseInfo');
    expect(Object.keys(doc.paths['/app/cases/{caseId}']).sort()).toEqual(['get', 'patch']);
    expect(statuses(doc.paths['/app/cases/{caseId}'].patch)).toEqual(['200', '400', '401', '403', '404', '422', '429', '500']);
    const removeOp = doc.paths['/app/cases/{caseId}/files/{fileId}'].delete;
    expect(statuses(removeOp)).toEqual(['200', '400', '401', '403', '404', '422', '429', '500']);
    expect(ref(removeOp, '200')).toBe('#/components/schemas/CaseInfo');
    const historyOp = doc.paths['/app/history'].get;
    expect(params(historyOp)).toMatchObject({
      'query:sha256': { required: false, pattern: '^[0-9a-fA-F]{8,64}$' },
      'query:reviewed': { required: false, enum: ['true', 'false'] },
      'query:caseId': { required: false, format: 'uuid' },
      'query:verdict': { required: false, enum: ['ai_generated', 'authentic', 'inconclusive'] },
      'query:from': { required: false, format: 'date-time' },
    });
    expect(ref(historyOp, '200')).toBe('#/components/schemas/HistoryList');
    expect((doc as unknown as { components: { securitySchemes: Record<string, unknown> } }).components.securitySchemes).toHaveProperty('uiToken');
  });
});

describe('responses are checked against their schema', () => {
  it('answers 500 internal_error, not the malformed job, when a stored row does not match the contract', async () => {
    const core = await startCore();
    const job = body(await assess(core, [filePart(await makeJpeg(64, 64), 'a.jpg'), { name: 'metadata', data: '{"case":"C-1"}' }]), JobResult);
    // What a bug or a hand-edited database could leave: a media type outside the spec's list, a creation time that
    // is not a date-time (written behind the job service's back, before anything was read).
    await sql(core, "UPDATE job_files SET media_type = 'image/gif' WHERE job_id = ?", [job.jobId]);
    await sql(core, "UPDATE jobs SET created_at = 'yesterday' WHERE id = ?", [job.jobId]);
    for (const url of [`/v1/jobs/${job.jobId}`, `/v1/jobs/${job.jobId}/report`, `/v1/jobs?applicationId=${core.imagesAppId}`]) {
      const res = await get(core, url);
      const err = expectError(res, 500, 'internal_error');
      expect(err.message).toBe('Internal server error.');
      expect(res.body).not.toMatch(/image\/gif|yesterday/);
    }
  });
});
