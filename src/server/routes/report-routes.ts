// Additive extensions for issue 13: a file's preview made by the core (for pictures browsers cannot decode: HEIC),
// and the case report as a printable PDF with its canonical JSON beside it, for one job (API key) or for a case,
// named by its id, across both applications (the window's UI token).
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CaseIdParams } from '../../api/app-schemas.js';
import { NotFound } from '../../api/domain-errors.js';
import { ApiError, CaseReport, CaseReportQuery, JobFileParams, JobIdParams, JobReportQuery, ReportSigningCertificate } from '../../api/schemas.js';
import type { CollectedReport } from '../../jobs/job-service.js';
import { createReportBuilder, ReportFailure, type ReportBuilder } from '../../jobs/report-builder.js';
import type { AppDeps } from '../app.js';
import { COMMON_ERRORS, ResponseMismatch } from '../route-schemas.js';
import { UI_TOKEN_SECURITY } from './case-routes.js';

/** Bytes the core made itself, sent as they are (Fastify never serialises a Buffer); described as binary. */
const Bytes = z.custom<Buffer>((v) => Buffer.isBuffer(v)).meta({ type: 'string', format: 'binary' });

/** A download name for the report: letters, digits, dot, dash and underscore only. */
function reportFileName(caseName: string | null, extension: 'pdf' | 'json'): string {
  const base = (caseName ?? 'case').normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 60) || 'case';
  return `veracity-report-${base}.${extension}`;
}

type Collected = CollectedReport;

/**
 * Either file is gathered (and the PDF drawn and signed) in a report process and streamed once it is made: the event
 * loop hands it the report's ids (it reads the rows itself) and keeps answering polls meanwhile. A client that goes
 * away before the first byte stops the process at once, not once it has drawn every page; one that goes away after
 * it stops it through the stream.
 */
async function send(reports: ReportBuilder, reply: FastifyReply, route: string, collected: Collected, extension: 'pdf' | 'json', examiner?: string) {
  const gone = new AbortController();
  const onClose = () => gone.abort();
  reply.raw.once('close', onClose);
  let built;
  try {
    const input = { source: await collected.source(), printedAt: new Date(), examiner: examiner?.trim() || null, signal: gone.signal };
    built = await (extension === 'pdf' ? reports.buildPdf(input, collected.picture) : reports.buildJson(input));
  } catch (err) {
    if (err instanceof ReportFailure && err.kind === 'not_found') throw new NotFound('job');
    if (err instanceof ReportFailure && err.kind === 'mismatch') throw new ResponseMismatch(route, err.issues as z.core.$ZodIssue[]);
    throw err;
  } finally {
    reply.raw.off('close', onClose);
  }
  return sendReport(reply, collected.caseName, extension, built.sha256, built.body);
}

/** Either file of the report: a private download named after the case, with the SHA-256 of the JSON that binds them. */
function sendReport(reply: FastifyReply, caseName: string | null, extension: 'pdf' | 'json', sha256: string, body: Readable) {
  return reply
    .header('content-type', extension === 'pdf' ? 'application/pdf' : 'application/json; charset=utf-8')
    .header('content-disposition', `attachment; filename="${reportFileName(caseName, extension)}"`)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'private, no-store')
    .header('veracity-report-sha256', sha256)
    .send(body);
}

const PDF_RESPONSE = { 200: Bytes, 404: ApiError, ...COMMON_ERRORS };
const JSON_RESPONSE = { 200: CaseReport, 404: ApiError, ...COMMON_ERRORS };

export function registerReportRoutes(fastify: FastifyInstance, deps: AppDeps): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const reports = createReportBuilder({ signing: deps.reportSigning });

  app.get(
    '/v1/jobs/:jobId/files/:fileId/preview',
    {
      schema: {
        summary: 'Extension: a PNG or JPEG of the file made by the core (at most 2048 px, orientation applied, no metadata)',
        description:
          'Decoded by the core in a worker process with the analysis decoder, for clients that cannot decode the original (HEIC). ' +
          'A PNG for a PNG original or a PDF (its first page), a JPEG otherwise. Never the stored original: that is GET .../content. ' +
          'A stored file that gives no picture (its decoder refuses it, or drawing it runs past its time or memory) is 422 unprocessable; nothing is kept.',
        produces: ['image/png', 'image/jpeg'],
        params: JobFileParams,
        response: { 200: Bytes, 404: ApiError, 422: ApiError, ...COMMON_ERRORS },
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
    async (req, reply) => send(reports, reply, oneJob('pdf'), await deps.jobs.jobCaseReport(req.principal!.applicationId, req.params.jobId), 'pdf', req.query.examiner),
  );
  app.get(
    oneJob('json'),
    { schema: { summary: 'Extension: the case report of one job as canonical JSON (the bytes whose SHA-256 the PDF prints)', params: JobIdParams, response: JSON_RESPONSE } },
    async (req, reply) => send(reports, reply, oneJob('json'), await deps.jobs.jobCaseReport(req.principal!.applicationId, req.params.jobId), 'json'),
  );

  // The certificate that checks every report's signature: for API clients (an API key) and for Settings (UI token).
  const certificate = { 200: ReportSigningCertificate, ...COMMON_ERRORS };
  const sendCertificate = (reply: FastifyReply) => reply.header('cache-control', 'no-store').send(deps.reportSigning.certificate);
  app.get(
    '/v1/report-signing-certificate',
    {
      schema: {
        summary: "Extension: the certificate of this installation's key, which signs every case report PDF (PAdES, ETSI.CAdES.detached)",
        description: 'Self-signed, made on first start and kept in the data dir. Compare its SHA-256 fingerprint with the signer a PDF reader shows. Never the key.',
        response: certificate,
      },
    },
    async (_req, reply) => sendCertificate(reply),
  );
  app.get(
    '/app/report-signing-certificate',
    // A Settings route, like the window's applications and keys: not part of the documented API.
    { schema: { summary: "Window: the certificate of this installation's report signing key (Settings)", response: certificate } },
    async (_req, reply) => sendCertificate(reply),
  );

  /** A case spans both applications: the window's case is one case whatever kind of file it holds. */
  const caseReport = async (caseId: string) => {
    const { case: found, jobIds, removedFileIds } = await deps.cases.reportJobs(caseId);
    return deps.jobs.collectCaseReport({ caseId: found.id, caseName: found.name, caseStatus: found.status, caseNotes: found.notes }, jobIds, removedFileIds);
  };
  const ofCase = (ext: 'pdf' | 'json') => `/app/cases/:caseId/report.${ext}`;
  app.get(
    ofCase('pdf'),
    {
      schema: {
        summary: 'Window: the case report (every job of the case, both applications) as a printable PDF; a case without jobs is 404',
        security: UI_TOKEN_SECURITY,
        produces: ['application/pdf'],
        params: CaseIdParams,
        querystring: CaseReportQuery,
        response: PDF_RESPONSE,
      },
    },
    async (req, reply) => send(reports, reply, ofCase('pdf'), await caseReport(req.params.caseId), 'pdf', req.query.examiner),
  );
  app.get(
    ofCase('json'),
    {
      schema: {
        summary: 'Window: the case report as canonical JSON (the bytes whose SHA-256 the PDF prints)',
        security: UI_TOKEN_SECURITY,
        params: CaseIdParams,
        querystring: CaseReportQuery,
        response: JSON_RESPONSE,
      },
    },
    async (req, reply) => send(reports, reply, ofCase('json'), await caseReport(req.params.caseId), 'json'),
  );
}
