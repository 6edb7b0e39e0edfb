// Builds the OpenAPI 3.1 description of v1 and its extensions from the zod schemas in src/api (never by hand).
import { z } from 'zod';
import { ApiKeyInfo, ApplicationInfo, ApplicationList, CreateApplicationRequest, CreateKeyRequest, JobReport } from '../api/admin-schemas.js';
import { ApiError, FileRegions, JobList, JobResult, ReviewRequest } from '../api/schemas.js';

const schemas = { ApiError, JobResult, JobList, ReviewRequest, FileRegions, JobReport, ApplicationList, ApplicationInfo, ApiKeyInfo, CreateApplicationRequest, CreateKeyRequest };

const ref = (name: keyof typeof schemas) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: keyof typeof schemas) => ({ content: { 'application/json': { schema: ref(name) } } });
const err = (description: string) => ({ description, ...json('ApiError') });
const rateLimited = {
  description: 'rate_limited',
  headers: Object.fromEntries(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'].map((h) => [h, { schema: { type: 'string' } }])),
  ...json('ApiError'),
};
const common = { '401': err('unauthorized'), '429': rateLimited, '500': err('internal_error') };
const waitParam = { name: 'wait', in: 'query', schema: { type: 'string', enum: ['true', 'false'], default: 'true' } };
const jobIdParam = { name: 'jobId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const fileIdParam = { name: 'fileId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

export function buildOpenApiDocument(): object {
  const components = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, z.toJSONSchema(schema as z.ZodType, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' })]),
  );
  return {
    openapi: '3.1.0',
    info: { title: 'Veracity assessment API', version: '1.0.0', description: 'Local (127.0.0.1) implementation of the v1 File Assessment interface, with additive extensions.' },
    servers: [{ url: '/' }],
    components: { schemas: components, securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ apiKey: [] }],
    paths: {
      '/v1/assess': {
        post: {
          summary: 'Submit 1 to 20 files of one case',
          parameters: [waitParam, { name: 'Idempotency-Key', in: 'header', schema: { type: 'string', minLength: 1, maxLength: 255 } }],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  properties: { file: { type: 'array', items: { type: 'string', format: 'binary' }, minItems: 1, maxItems: 20 }, metadata: { type: 'string' } },
                  required: ['file'],
                },
              },
            },
          },
          responses: {
            '200': { description: 'Terminal job', ...json('JobResult') },
            '202': { description: 'Still processing', ...json('JobResult') },
            '400': err('invalid_request or unsupported_format'),
            '413': err('file_too_large'),
            '422': err('unprocessable, or invalid_request for an Idempotency-Key reused with another payload'),
            '503': err('service_unavailable'),
            ...common,
          },
        },
      },
      '/v1/jobs': {
        get: {
          summary: 'List the jobs of an application',
          parameters: [
            { name: 'applicationId', in: 'query', required: true, schema: { type: 'string', format: 'uuid' } },
            { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
            { name: 'pageSize', in: 'query', schema: { type: 'integer', minimum: 1, default: 100 }, description: 'Values above 100 are clamped to 100.' },
            { name: 'case', in: 'query', schema: { type: 'string' }, description: 'Extension: only jobs whose metadata.case equals this.' },
          ],
          responses: { '200': { description: 'Jobs', ...json('JobList') }, '400': err('invalid_request'), '403': err('forbidden'), ...common },
        },
      },
      '/v1/jobs/{jobId}': {
        get: {
          summary: 'Get (poll) a job',
          parameters: [jobIdParam, waitParam],
          responses: { '200': { description: 'The job in its current state', ...json('JobResult') }, '400': err('invalid_request'), '404': err('not_found'), ...common },
        },
      },
      '/v1/jobs/{jobId}/files/{fileId}/review': {
        put: {
          summary: 'Extension: store or replace the expert review of one file',
          parameters: [jobIdParam, fileIdParam],
          requestBody: { required: true, ...json('ReviewRequest') },
          responses: { '200': { description: 'Updated job', ...json('JobResult') }, '400': err('invalid_request'), '404': err('not_found'), ...common },
        },
        delete: {
          summary: 'Extension: remove the expert review of one file',
          parameters: [jobIdParam, fileIdParam],
          responses: { '200': { description: 'Updated job', ...json('JobResult') }, '404': err('not_found'), ...common },
        },
      },
      '/v1/jobs/{jobId}/files/{fileId}/content': {
        get: {
          summary: 'Extension: the stored original, as an attachment with its detected media type',
          parameters: [jobIdParam, fileIdParam],
          responses: { '200': { description: 'File bytes' }, '404': err('not_found'), ...common },
        },
      },
      '/v1/jobs/{jobId}/files/{fileId}/regions': {
        get: {
          summary: 'Extension: tile scores behind ai_detection, for heatmaps',
          parameters: [jobIdParam, fileIdParam],
          responses: { '200': { description: 'Tile grids', ...json('FileRegions') }, '404': err('not_found'), ...common },
        },
      },
      '/v1/jobs/{jobId}/report': {
        get: {
          summary: 'Extension: case report data (job, file hashes, model versions)',
          parameters: [jobIdParam],
          responses: { '200': { description: 'Report', ...json('JobReport') }, '404': err('not_found'), ...common },
        },
      },
    },
  };
}
