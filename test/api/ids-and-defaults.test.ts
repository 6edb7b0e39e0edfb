// Ids and query defaults as the spec gives them: any well-formed 8-4-4-4-12 hex id is an id (one that does not exist
// is 404, one naming another application 403, whatever its version and variant digits), and the OpenAPI document
// states the defaults of wait, page and pageSize that the spec's query tables give.
import { describe, expect, it } from 'vitest';
import { JobList } from '../../src/api/schemas.js';
import { body, expectError, get, startCore } from './helpers.js';

/** Well-formed ids whose version or variant digits are not those of an RFC 9562 UUID. */
const NON_RFC_IDS = ['00000000-0000-0000-0000-000000000001', '12345678-1234-1234-1234-123456789abc', '12345678-1234-0234-8234-123456789abc', '12345678-1234-4234-C234-123456789ABC'];

describe('ids and query defaults', () => {
  it('answers a well-formed id of any version or variant 404 (job) or 403 (applicationId), never 400', async () => {
    const core = await startCore();
    for (const id of NON_RFC_IDS) {
      expectError(await get(core, `/v1/jobs/${id}`), 404, 'not_found');
      expectError(await get(core, `/v1/jobs?applicationId=${id}`), 403, 'forbidden');
    }
    // Still 400 for what is not 8-4-4-4-12 hex.
    for (const bad of ['00000000-0000-0000-0000-00000000000g', '00000000000000000000000000000001', '{00000000-0000-0000-0000-000000000001}']) {
      expectError(await get(core, `/v1/jobs/${encodeURIComponent(bad)}`), 400, 'invalid_request', 'jobId');
    }
    // The caller's own application id in upper case is its own.
    expect(body(await get(core, `/v1/jobs?applicationId=${core.imagesAppId.toUpperCase()}`), JobList).pagination).toMatchObject({ page: 1, pageSize: 100 });
  });

  it('states the defaults of wait (true), page (1) and pageSize (100) in /v1/openapi.json', async () => {
    const core = await startCore();
    const doc = JSON.parse((await core.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body) as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; required?: boolean; schema: { default?: unknown } }[] }>>;
    };
    const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters!.find((p) => p.in === 'query' && p.name === name)!;
    for (const [path, method] of [['/v1/assess', 'post'], ['/v1/jobs/{jobId}', 'get']]) {
      expect(param(path, method, 'wait')).toMatchObject({ required: false, schema: { default: 'true', enum: ['true', 'false'] } });
    }
    expect(param('/v1/jobs', 'get', 'page')).toMatchObject({ required: false, schema: { default: '1' } });
    expect(param('/v1/jobs', 'get', 'pageSize')).toMatchObject({ required: false, schema: { default: '100' } });
    // The defaults are what a request without the parameters gets.
    expect(body(await get(core, `/v1/jobs?applicationId=${core.imagesAppId}`), JobList).pagination).toMatchObject({ page: 1, pageSize: 100 });
  });
});
