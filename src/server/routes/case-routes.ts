// The window's workspace under /app (per-launch UI token): cases spanning both applications, their jobs, and the
// history search over every file. Documented in the OpenAPI document under the uiToken scheme (src/api/README.md).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  CaseFileParams,
  CaseIdParams,
  CaseInfo,
  CaseJobList,
  CaseJobsQuery,
  CaseList,
  CaseListQuery,
  CreateCaseRequest,
  HistoryList,
  HistoryQuery,
  UpdateCaseRequest,
} from '../../api/app-schemas.js';
import { ApiError } from '../../api/schemas.js';
import type { AppDeps } from '../app.js';
import { COMMON_ERRORS } from '../route-schemas.js';

/** These /app routes are part of the documented API, under the window's credential (src/server/openapi.ts). */
export const UI_TOKEN_SECURITY = [{ uiToken: [] }];

export function registerCaseRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const security = UI_TOKEN_SECURITY;

  app.get(
    '/app/cases',
    { schema: { summary: 'Window: list cases, most recently changed first', security, querystring: CaseListQuery, response: { 200: CaseList, ...COMMON_ERRORS } } },
    async (req) => deps.cases.list(req.query),
  );

  app.post(
    '/app/cases',
    { schema: { summary: 'Window: create a case', security, body: CreateCaseRequest, response: { 201: CaseInfo, 422: ApiError, ...COMMON_ERRORS } } },
    async (req, reply) => reply.status(201).send(await deps.cases.create(req.body)),
  );

  app.get(
    '/app/cases/:caseId',
    { schema: { summary: 'Window: one case, with its counts by verdict', security, params: CaseIdParams, response: { 200: CaseInfo, 404: ApiError, ...COMMON_ERRORS } } },
    async (req) => deps.cases.get(req.params.caseId),
  );

  app.patch(
    '/app/cases/:caseId',
    {
      schema: {
        summary: 'Window: rename a case, change its notes or its status',
        security,
        params: CaseIdParams,
        body: UpdateCaseRequest,
        response: { 200: CaseInfo, 404: ApiError, 422: ApiError, ...COMMON_ERRORS },
      },
    },
    async (req) => deps.cases.update(req.params.caseId, req.body),
  );

  app.get(
    '/app/cases/:caseId/jobs',
    {
      schema: {
        summary: 'Window: the jobs of a case, of both applications, in submission order',
        security,
        params: CaseIdParams,
        querystring: CaseJobsQuery,
        response: { 200: CaseJobList, 404: ApiError, ...COMMON_ERRORS },
      },
    },
    async (req) => deps.cases.jobs(req.params.caseId, req.query),
  );

  app.delete(
    '/app/cases/:caseId/files/:fileId',
    {
      schema: {
        summary: 'Window: take a file out of a case (its job keeps it, and History lists it with no case); answers the case',
        security,
        params: CaseFileParams,
        response: { 200: CaseInfo, 404: ApiError, 422: ApiError, ...COMMON_ERRORS },
      },
    },
    async (req) => deps.cases.removeFile(req.params.caseId, req.params.fileId),
  );

  app.get(
    '/app/history',
    {
      schema: {
        summary: 'Window: search the files of both applications by case, file name, SHA-256 (or its first 8+ digits), date, review and effective verdict',
        security,
        querystring: HistoryQuery,
        response: { 200: HistoryList, ...COMMON_ERRORS },
      },
    },
    async (req) => {
      const { case: caseName, name: fileName, sha256, caseId, reviewed, from, to, verdict, page, pageSize } = req.query;
      return deps.cases.history({ caseName, fileName, sha256, caseId, reviewed, from, to, verdict, page, pageSize });
    },
  );
}
