// Path parameters and query strings accepted once are not parsed again (src/server/route-schemas.ts): the same input
// gets the same (frozen) value, a refused input is refused every time with its issues, and other input is unchanged.
import { describe, expect, it } from 'vitest';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import type { z } from 'zod';
import { JobIdParams, JobListQuery } from '../../../src/api/schemas.js';
import { validateRequest } from '../../../src/server/route-schemas.js';

const compile = (schema: z.ZodType, httpPart: string) => validateRequest({ schema, httpPart, method: 'GET', url: '/x' } as FastifyRouteSchemaDef<z.ZodType>) as (d: unknown) => { value?: unknown; error?: unknown };
const ID = '3F2504E0-4F89-41D3-9A0C-0305E82C3301';

describe('request validation', () => {
  it('keeps the value accepted for the same path parameters, frozen', () => {
    const params = compile(JobIdParams, 'params');
    const first = params({ jobId: ID });
    expect(first.value).toEqual({ jobId: ID.toLowerCase() });
    expect(Object.isFrozen(first.value)).toBe(true);
    expect(params({ jobId: ID })).toBe(first);
    expect(params({ jobId: ID.toLowerCase() }).value).toEqual({ jobId: ID.toLowerCase() });
  });

  it('refuses a refused input every time, with its issues', () => {
    const params = compile(JobIdParams, 'params');
    for (let i = 0; i < 3; i++) expect(params({ jobId: 'nope' }).error).toBeTruthy();
  });

  it('tells query strings apart by every value, and does not keep repeated keys (arrays)', () => {
    const query = compile(JobListQuery, 'querystring');
    const a = query({ applicationId: ID, pageSize: '20' });
    const b = query({ applicationId: ID, pageSize: '5' });
    expect(a.value).toMatchObject({ pageSize: 20 });
    expect(b.value).toMatchObject({ pageSize: 5 });
    const repeated = query({ applicationId: ID, pageSize: ['20', '5'] });
    expect(query({ applicationId: ID, pageSize: ['20', '5'] })).not.toBe(repeated);
  });
});
