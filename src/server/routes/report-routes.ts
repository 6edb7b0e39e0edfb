// Additive extensions for issue 13: a file's preview made by the core (for pictures browsers cannot decode: HEIC),
// and the case report as a printable PDF with its canonical JSON beside it, for one job (API key) or for a case
// across both applications (the window's UI token).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, CaseReport, CaseReportQuery, JobFileParams, JobIdParams, JobReportQuery } from '../../api/schemas.js';
import type { FilePreview } from '../../jobs/job-service.js';
import { canonicalJson, sha256Hex } from '../../report/canonical-json.js';
import { renderCaseReportPdf } from '../../report/case-report-pdf.js';
import type { AppDeps } from '../app.js';
import { COMMON_ERRORS, ResponseMismatch } from '../route-schemas.js';

/** Bytes the core made itself, sent as they are (Fastify never serialises a Buffer); described as binary. */
const Bytes = z.custom<Buffer>((v) => Buffer.isBuffer(v)).meta({ type: 'string', format: 'binary' });

/** A download name for the report: letters, digits, dot, dash and underscore only. */
function reportFileName(caseName: string | null, extension: 'pdf' | 'json'): string {
  const base = (caseName ?? 'case').normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 60) || 'case';
  return `veracity-report-${base}.${extension}`;
}

type Collected = { report: CaseReport; pictures: Map<string, FilePreview> };

/** The report's JSON exactly as its SHA-256 is printed in the PDF; checked against its schema first, like any answer. */
function reportJson(route: string, report: CaseReport): { json: string; sha256: string } {
  const checked = CaseReport.safeParse(report);
  if (!checked.success) throw new ResponseMismatch(route, checked.error.issues);
  const json = canonicalJson(report);
  return { json, sha256: sha256Hex(json) };
}

async function sendPdf(reply: FastifyReply, route: string, collected: Collected, examiner: string | undefined) {
  const { sha256 } = reportJson(route, collected.report);
  const pictures = new Map([...collected.pictures].map(([id, p]) => [id, p.data]));
  const pdf = await renderCaseReportPdf({ report: collected.report, pictures, printedAt: new Date(), examiner: examiner?.trim() || null });
  return reply
    .header('content-type', 'application/pdf')
    .header('content-disposition', `attachment; filename="${reportFileName(collected.report.caseName, 'pdf')}"`)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, no-store')
    .header('veracity-report-sha256', sha256)
    .send(pdf);
}

function sendJson(reply: FastifyReply, route: string, collected: Collected) {
  const { json, sha256 } = reportJson(route, collected.report);
  return reply
    .header('content-type', 'application/json; charset=utf-8')
    .header('content-disposition', `attachment; filename="${reportFileName(collected.report.caseName, 'json')}"`)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, no-store')
    .header('veracity-report-sha256', sha256)
    .send(json);
}

const PDF_RESPONSE = { 200: Bytes, 404: ApiError, ...COMMON_ERRORS };
const JSON_RESPONSE = { 200: CaseReport, 404: ApiError, ...COMMON_ERRORS };

export function registerReportRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/jobs/:jobId/files/:fileId/preview',
    {
      schema: {
        summary: 'Extension: a PNG or JPEG of the file made by the core (at most 2048 px, orientation applied, no metadata)',
        description:
          'Decoded by the core in a worker process with the analysis decoder, for clients that cannot decode the original (HEIC). ' +
          'A PNG for a PNG original or a PDF (its first page), a JPEG otherwise. Never the stored original: that is GET .../content.',
        produces: ['image/png', 'image/jpeg'],
        params: JobFileParams,
        response: { 200: Bytes, 404: ApiError, ...COMMON_ERRORS },
      },
    },
    async (req, reply) => {
      const preview = await deps.jobs.filePreview(req.principal!.applicationId, req.params.jobId, req.params.fileId);
      return reply
        .header('content-type', preview.mediaType)
        .header('content-disposition', 'inline')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'private, max-age=3600')
        .send(preview.data);
    },
  );

  const oneJob = (ext: 'pdf' | 'json') => `/v1/jobs/:jobId/report.${ext}`;
  app.get(
    oneJob('pdf'),
    {
      schema: {
        summary: 'Extension: the case report of one job as a printable PDF (prints the SHA-256 of report.json)',
        produces: ['application/pdf'],
        params: JobIdParams,
        querystring: JobReportQuery,
        response: PDF_RESPONSE,
      },
    },
    async (req, reply) => sendPdf(reply, oneJob('pdf'), await deps.jobs.jobCaseReport(req.principal!.applicationId, req.params.jobId), req.query.examiner),
  );
  app.get(
    oneJob('json'),
    { schema: { summary: 'Extension: the case report of one job as canonical JSON (the bytes whose SHA-256 the PDF prints)', params: JobIdParams, response: JSON_RESPONSE } },
    async (req, reply) => sendJson(reply, oneJob('json'), await deps.jobs.jobCaseReport(req.principal!.applicationId, req.params.jobId)),
  );

  /** A case spans both applications: the window's case is one case whatever kind of file it holds. */
  const caseReport = async (caseName: string) => {
    const applicationIds = (await deps.keys.listApplications()).map((a) => a.id);
    return deps.jobs.collectCaseReport(caseName, await deps.jobs.caseJobIds(applicationIds, caseName));
  };
  app.get(
    '/app/report.pdf',
    { schema: { summary: 'App: the case report of every job filed under a case, as a printable PDF', produces: ['application/pdf'], querystring: CaseReportQuery, response: PDF_RESPONSE } },
    async (req, reply) => sendPdf(reply, '/app/report.pdf', await caseReport(req.query.case), req.query.examiner),
  );
  app.get(
    '/app/report.json',
    { schema: { summary: 'App: the case report of every job filed under a case, as canonical JSON', querystring: CaseReportQuery, response: JSON_RESPONSE } },
    async (req, reply) => sendJson(reply, '/app/report.json', await caseReport(req.query.case)),
  );
}
