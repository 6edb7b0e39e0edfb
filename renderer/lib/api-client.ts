// The renderer's only way to the core: typed calls over HTTP, every response validated with the zod schemas of
// src/api (STYLE 10), every failure turned into an ApiFailure that the UI can put into words.
import { z } from 'zod';
import { ApiError, FileRegions, JobList, JobProgress, JobReport, JobResult, RegionTiles, ReportSigningCertificate, type RegionRequest, type ReviewRequest } from '../../src/api/schemas.js';
import {
  ApiKeyInfo,
  ApplicationList,
  CaseInfo,
  CaseJobList,
  CaseList,
  CreatedApiKey,
  CreatedApplication,
  HistoryList,
  ServerInfo,
  TrustAnchorList,
  type CaseStatus,
  type HistoryFilter,
} from '../../src/api/app-schemas.js';
import type { PipelineKind } from '../../src/api/schemas.js';

export type FailureKind = 'http' | 'network' | 'invalid-response';

export class ApiFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly status: number,
    readonly apiError: ApiError | null,
    message: string,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }

  get retryAfter(): number | null {
    return this.apiError?.retryAfter ?? null;
  }
}

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface UploadFile {
  name: string;
  blob: Blob;
}

export interface ListJobsQuery {
  applicationId: string;
  page: number;
  pageSize: number;
  caseName?: string;
}

/** A history search as the window makes it: the filters of GET /app/history and the page. */
export type HistorySearch = HistoryFilter & { page: number; pageSize: number };

export class ApiClient {
  /** Whether the client talks through the browser's own transport (no fetch injected), where uploads can report progress. */
  private readonly browserTransport: boolean;
  private readonly fetchImpl: FetchLike;

  constructor(
    private readonly baseUrl: string,
    private readonly uiToken: string,
    fetchImpl?: FetchLike,
  ) {
    this.browserTransport = fetchImpl === undefined;
    this.fetchImpl = fetchImpl ?? ((input, init) => fetch(input, init));
  }

  // ---- /app routes (UI token) ----

  /** Where this window sends files: this computer's core or a team server. */
  serverInfo(): Promise<ServerInfo> {
    return this.json(ServerInfo, '/app/server', { headers: this.auth(this.uiToken) });
  }

  /** The certificate of the key that signs this installation's case reports (never the key). */
  reportSigningCertificate(): Promise<ReportSigningCertificate> {
    return this.json(ReportSigningCertificate, '/app/report-signing-certificate', { headers: this.auth(this.uiToken) });
  }

  // ---- Content Credentials trust anchors (Settings) ----

  listTrustAnchors(): Promise<TrustAnchorList> {
    return this.json(TrustAnchorList, '/app/trust-anchors', { headers: this.auth(this.uiToken) });
  }

  /** Adds the certificates of PEM text (CA certificates or signers' own); refused with the spec's error when one does not parse. */
  addTrustAnchors(pem: string): Promise<TrustAnchorList> {
    return this.json(TrustAnchorList, '/app/trust-anchors', this.jsonBody('POST', this.uiToken, { pem }));
  }

  removeTrustAnchor(fingerprintSha256: string): Promise<TrustAnchorList> {
    return this.json(TrustAnchorList, `/app/trust-anchors/${encodeURIComponent(fingerprintSha256)}`, { method: 'DELETE', headers: this.auth(this.uiToken) });
  }

  listApplications(): Promise<ApplicationList> {
    return this.json(ApplicationList, '/app/applications', { headers: this.auth(this.uiToken) });
  }

  /** The new application with its first key: `createdKey.apiKey` is sent this once and never again. */
  createApplication(name: string, kind: PipelineKind): Promise<CreatedApplication> {
    return this.json(CreatedApplication, '/app/applications', this.jsonBody('POST', this.uiToken, { name, kind }));
  }

  /** The new key: `apiKey` is sent this once and never again. */
  createKey(applicationId: string, body: { name?: string; expiresInDays?: number }): Promise<CreatedApiKey> {
    return this.json(CreatedApiKey, `/app/applications/${encodeURIComponent(applicationId)}/keys`, this.jsonBody('POST', this.uiToken, body));
  }

  revokeKey(keyId: string): Promise<ApiKeyInfo> {
    return this.json(ApiKeyInfo, `/app/keys/${encodeURIComponent(keyId)}/revoke`, { method: 'POST', headers: this.auth(this.uiToken) });
  }

  // ---- cases and history (UI token: a case spans both applications) ----

  listCases(query: { page: number; pageSize: number; q?: string; status?: CaseStatus }): Promise<CaseList> {
    const params = new URLSearchParams({ page: String(query.page), pageSize: String(query.pageSize) });
    if (query.q) params.set('q', query.q);
    if (query.status) params.set('status', query.status);
    return this.json(CaseList, `/app/cases?${params.toString()}`, { headers: this.auth(this.uiToken) });
  }

  createCase(body: { name: string; notes?: string }): Promise<CaseInfo> {
    return this.json(CaseInfo, '/app/cases', this.jsonBody('POST', this.uiToken, body));
  }

  getCase(caseId: string): Promise<CaseInfo> {
    return this.json(CaseInfo, `/app/cases/${encodeURIComponent(caseId)}`, { headers: this.auth(this.uiToken) });
  }

  updateCase(caseId: string, patch: { name?: string; notes?: string; status?: CaseStatus }): Promise<CaseInfo> {
    return this.json(CaseInfo, `/app/cases/${encodeURIComponent(caseId)}`, this.jsonBody('PATCH', this.uiToken, patch));
  }

  /** Takes a file out of a case (its job keeps it, History lists it): the case as it is now. */
  removeCaseFile(caseId: string, fileId: string): Promise<CaseInfo> {
    return this.json(CaseInfo, `/app/cases/${encodeURIComponent(caseId)}/files/${encodeURIComponent(fileId)}`, { method: 'DELETE', headers: this.auth(this.uiToken) });
  }

  caseJobs(caseId: string, page: number, pageSize: number): Promise<CaseJobList> {
    return this.json(CaseJobList, `/app/cases/${encodeURIComponent(caseId)}/jobs?page=${page}&pageSize=${pageSize}`, { headers: this.auth(this.uiToken) });
  }

  searchHistory(query: HistorySearch): Promise<HistoryList> {
    const params = new URLSearchParams({ page: String(query.page), pageSize: String(query.pageSize) });
    const filters: [string, string | undefined][] = [
      ['case', query.caseName],
      ['name', query.fileName],
      ['sha256', query.sha256],
      ['caseId', query.caseId],
      ['reviewed', query.reviewed === undefined ? undefined : String(query.reviewed)],
      ['from', query.from],
      ['to', query.to],
      ['verdict', query.verdict],
    ];
    for (const [name, value] of filters) if (value) params.set(name, value);
    return this.json(HistoryList, `/app/history?${params.toString()}`, { headers: this.auth(this.uiToken) });
  }

  // ---- /v1 routes (API key) ----

  /**
   * POST /v1/assess?wait=false: returns the accepted job (202) or a terminal one (200). `onSent` is called once the
   * whole request body has left the window (the core then receives and checks the files before it answers): known
   * from XMLHttpRequest's upload events where the client uses the browser's own transport; with an injected fetch
   * (the unit tests) it is never called.
   */
  async assess(
    apiKey: string,
    files: UploadFile[],
    metadata: Record<string, unknown> | null,
    idempotencyKey: string,
    options: { onSent?: () => void } = {},
  ): Promise<JobResult> {
    const form = new FormData();
    if (metadata) form.append('metadata', JSON.stringify(metadata));
    for (const file of files) form.append('file', file.blob, file.name);
    const transport = options.onSent && this.browserTransport && typeof XMLHttpRequest !== 'undefined' ? xhrTransport(options.onSent) : this.fetchImpl;
    return this.json(
      JobResult,
      '/v1/assess?wait=false',
      {
        method: 'POST',
        headers: { ...this.auth(apiKey), 'Idempotency-Key': idempotencyKey },
        body: form,
      },
      transport,
    );
  }

  getJob(apiKey: string, jobId: string): Promise<JobResult> {
    return this.json(JobResult, `/v1/jobs/${encodeURIComponent(jobId)}?wait=false`, { headers: this.auth(apiKey) });
  }

  /** Each file's stage (queued, decoding, analysing, done, error) while the job runs. */
  getProgress(apiKey: string, jobId: string): Promise<JobProgress> {
    return this.json(JobProgress, `/v1/jobs/${encodeURIComponent(jobId)}/progress`, { headers: this.auth(apiKey) });
  }

  listJobs(apiKey: string, query: ListJobsQuery): Promise<JobList> {
    const params = new URLSearchParams({ applicationId: query.applicationId, page: String(query.page), pageSize: String(query.pageSize) });
    if (query.caseName) params.set('case', query.caseName);
    return this.json(JobList, `/v1/jobs?${params.toString()}`, { headers: this.auth(apiKey) });
  }

  putReview(apiKey: string, jobId: string, fileId: string, review: ReviewRequest): Promise<JobResult> {
    return this.json(JobResult, this.reviewPath(jobId, fileId), this.jsonBody('PUT', apiKey, review));
  }

  deleteReview(apiKey: string, jobId: string, fileId: string): Promise<JobResult> {
    return this.json(JobResult, this.reviewPath(jobId, fileId), { method: 'DELETE', headers: this.auth(apiKey) });
  }

  getRegions(apiKey: string, jobId: string, fileId: string): Promise<FileRegions> {
    return this.json(FileRegions, `${this.filePath(jobId, fileId)}/regions`, { headers: this.auth(apiKey) });
  }

  /** Every model tile of a rectangle of an analysed image, scored by the core on demand (kept there: a second ask is free). */
  scoreRegion(apiKey: string, jobId: string, fileId: string, rect: RegionRequest): Promise<RegionTiles> {
    return this.json(RegionTiles, `${this.filePath(jobId, fileId)}/regions`, this.jsonBody('POST', apiKey, rect));
  }

  async getContent(apiKey: string, jobId: string, fileId: string): Promise<Blob> {
    const response = await this.send(`${this.filePath(jobId, fileId)}/content`, { headers: this.auth(apiKey) });
    return response.blob();
  }

  /** The picture the core decoded itself (a PNG or JPEG, at most 2048 px): for originals a browser cannot draw (HEIC). */
  async getPreview(apiKey: string, jobId: string, fileId: string): Promise<Blob> {
    const response = await this.send(`${this.filePath(jobId, fileId)}/preview`, { headers: this.auth(apiKey) });
    return response.blob();
  }

  getReport(apiKey: string, jobId: string): Promise<JobReport> {
    return this.json(JobReport, `/v1/jobs/${encodeURIComponent(jobId)}/report`, { headers: this.auth(apiKey) });
  }

  /**
   * The case report as the core prints it (PDF) or as its canonical JSON, with the SHA-256 of that JSON: for a case
   * (every job filed under it, both applications; the UI token) or for one job (its application's key).
   */
  async getReportFile(of: { caseId: string } | { apiKey: string; jobId: string }, extension: 'pdf' | 'json'): Promise<{ blob: Blob; sha256: string | null }> {
    const response =
      'caseId' in of
        ? await this.send(`/app/cases/${encodeURIComponent(of.caseId)}/report.${extension}`, { headers: this.auth(this.uiToken) })
        : await this.send(`/v1/jobs/${encodeURIComponent(of.jobId)}/report.${extension}`, { headers: this.auth(of.apiKey) });
    return { blob: await response.blob(), sha256: response.headers.get('veracity-report-sha256') };
  }

  // ---- plumbing ----

  private auth(token: string): Record<string, string> {
    return { Authorization: `Bearer ${token}` };
  }

  private jsonBody(method: string, token: string, body: unknown): RequestInit {
    return { method, headers: { ...this.auth(token), 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  }

  private filePath(jobId: string, fileId: string): string {
    return `/v1/jobs/${encodeURIComponent(jobId)}/files/${encodeURIComponent(fileId)}`;
  }

  private reviewPath(jobId: string, fileId: string): string {
    return `${this.filePath(jobId, fileId)}/review`;
  }

  private async send(path: string, init: RequestInit, transport: FetchLike = this.fetchImpl): Promise<Response> {
    let response: Response;
    try {
      response = await transport(`${this.baseUrl}${path}`, { ...init, credentials: 'omit', cache: 'no-store' });
    } catch (error) {
      throw new ApiFailure('network', 0, null, `Network error: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (response.ok) return response;
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      // A non-JSON error body (a proxy, a crash page) is reported by its status alone.
    }
    const parsed = ApiError.safeParse(body);
    if (parsed.success) throw new ApiFailure('http', response.status, parsed.data, parsed.data.message);
    throw new ApiFailure('http', response.status, null, `HTTP ${response.status}`);
  }

  private async json<T>(schema: z.ZodType<T>, path: string, init: RequestInit, transport?: FetchLike): Promise<T> {
    const response = await this.send(path, init, transport);
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new ApiFailure('invalid-response', response.status, null, `The answer to ${path.split('?')[0]} was not JSON.`);
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new ApiFailure('invalid-response', response.status, null, `Unexpected answer to ${path.split('?')[0]}: ${first?.path.join('.') ?? ''} ${first?.message ?? ''}`.trim());
    }
    return parsed.data;
  }
}

/**
 * A fetch made of XMLHttpRequest, for the one request whose upload the window follows: `onSent` fires when the
 * upload ends (the body has been handed to the network), before the core answers. A failed connection rejects like
 * fetch does (a TypeError), so the caller words it as a network failure.
 */
function xhrTransport(onSent: () => void): FetchLike {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(init.method ?? 'GET', input);
      xhr.responseType = 'blob';
      xhr.withCredentials = false;
      new Headers(init.headers).forEach((value, name) => xhr.setRequestHeader(name, value));
      let sent = false;
      const markSent = (): void => {
        if (sent) return;
        sent = true;
        onSent();
      };
      xhr.upload.addEventListener('load', markSent);
      xhr.addEventListener('load', () => {
        markSent();
        const headers = new Headers();
        for (const line of xhr.getAllResponseHeaders().trim().split(/[\r\n]+/)) {
          const at = line.indexOf(':');
          if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
        }
        // A status outside 200-599 cannot make a Response; treat it as a broken connection.
        if (xhr.status < 200 || xhr.status > 599) reject(new TypeError(`HTTP status ${xhr.status}`));
        else resolve(new Response(xhr.status === 204 || xhr.status === 205 || xhr.status === 304 ? null : (xhr.response as Blob), { status: xhr.status, headers }));
      });
      xhr.addEventListener('error', () => reject(new TypeError('Failed to fetch')));
      xhr.addEventListener('abort', () => reject(new TypeError('The request was aborted')));
      xhr.addEventListener('timeout', () => reject(new TypeError('The request timed out')));
      xhr.send((init.body ?? null) as XMLHttpRequestBodyInit | null);
    });
}
