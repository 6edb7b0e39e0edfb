// Cases and the history search (issue #13): the window's /app routes over a real core (SQLite file, worker
// processes; on pg a team API node with its UI token and a team worker), jobs of both applications joining a case
// through metadata.case, and every refusal in the ApiError vocabulary with nothing left behind (no case made or
// changed, no job, no file).
import { describe, expect, it } from 'vitest';
import { CaseInfo, CaseJobList, CaseList, HistoryList } from '../../src/api/app-schemas.js';
import { CaseReport, JobResult } from '../../src/api/schemas.js';
import { makeJpeg, textPdf } from '../unit/analysis/fixtures.js';
import { assess, body, expectError, expectNothingLeft, filePart, footprint, get, SLOW_WORKER, startCore, type TestCore } from './helpers.js';

const AI_MARKER = 'VERACITY-TEST-AI-MARKER';

function app(core: TestCore, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, token: string | null = core.uiToken) {
  return core.app.inject({
    method,
    url,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function createCase(core: TestCore, name: string, notes?: string): Promise<CaseInfo> {
  const res = await app(core, 'POST', '/app/cases', notes === undefined ? { name } : { name, notes });
  expect(res.statusCode).toBe(201);
  return body(res, CaseInfo);
}

/** Everything a refusal must leave as it was: jobs, files, stored and temp files, and every case as listed. */
async function snapshot(core: TestCore) {
  return { ...(await footprint(core)), cases: body(await app(core, 'GET', '/app/cases'), CaseList) };
}
async function expectUnchanged(core: TestCore, before: Awaited<ReturnType<typeof snapshot>>) {
  const { cases, ...files } = before;
  await expectNothingLeft(core, files);
  expect(body(await app(core, 'GET', '/app/cases'), CaseList)).toEqual(cases);
}

// Cases and history are the window's /app routes (UI token): on a team API node, its VERACITY_UI_TOKEN.
describe('cases (/app/cases, UI token)', () => {
  it('creates, renames, takes notes and a status, and lists with a partial, case-insensitive name and a status', async () => {
    const core = await startCore();
    const created = await createCase(core, 'CLM-1042 Smith', 'Roof damage claim');
    expect(created).toMatchObject({ name: 'CLM-1042 Smith', notes: 'Roof damage claim', status: 'open', jobCount: 0, fileCount: 0 });
    await createCase(core, 'KYC-7 Jones');

    const renamed = body(await app(core, 'PATCH', `/app/cases/${created.id}`, { name: 'CLM-1042 Smith (hail)' }), CaseInfo);
    expect(renamed).toMatchObject({ id: created.id, name: 'CLM-1042 Smith (hail)', notes: 'Roof damage claim', status: 'open' });
    const reviewed = body(await app(core, 'PATCH', `/app/cases/${created.id}`, { status: 'in_review', notes: 'Asked for originals' }), CaseInfo);
    expect(reviewed).toMatchObject({ name: 'CLM-1042 Smith (hail)', notes: 'Asked for originals', status: 'in_review' });
    expect(body(await app(core, 'GET', `/app/cases/${created.id}`), CaseInfo)).toEqual(reviewed);

    const byName = body(await app(core, 'GET', '/app/cases?q=smith'), CaseList);
    expect(byName.cases.map((c) => c.name)).toEqual(['CLM-1042 Smith (hail)']);
    const open = body(await app(core, 'GET', '/app/cases?status=open'), CaseList);
    expect(open.cases.map((c) => c.name)).toEqual(['KYC-7 Jones']);
    // Most recently changed first; pageSize is clamped to 100 like GET /v1/jobs; a page past the end is empty.
    const all = body(await app(core, 'GET', '/app/cases?pageSize=1000'), CaseList);
    expect(all.cases.map((c) => c.name)).toEqual(['CLM-1042 Smith (hail)', 'KYC-7 Jones']);
    expect(all.pagination).toEqual({ page: 1, pageSize: 100, total: 2, totalPages: 1, hasNextPage: false });
    expect(body(await app(core, 'GET', '/app/cases?page=2&pageSize=1'), CaseList).cases.map((c) => c.name)).toEqual(['KYC-7 Jones']);
    expect(body(await app(core, 'GET', '/app/cases?page=3&pageSize=1'), CaseList).cases).toEqual([]);
    // A % or _ in the search is a character, not a wildcard.
    expect(body(await app(core, 'GET', `/app/cases?q=${encodeURIComponent('%')}`), CaseList).cases).toEqual([]);
  });

  it('a job whose metadata names a case joins it (made if missing), from both applications, in submission order', async () => {
    const core = await startCore({}, { workerEntry: SLOW_WORKER });
    process.env.VERACITY_TEST_ANALYSE_MS = '10';
    process.env.VERACITY_TEST_AI_MARKER = AI_MARKER;
    const meta = { name: 'metadata', data: JSON.stringify({ case: 'CLM-2001' }) };
    const ai = Buffer.concat([await makeJpeg(64, 64), Buffer.from(AI_MARKER)]);
    const first = body(await assess(core, [filePart(await makeJpeg(64, 64), 'a.jpg'), filePart(ai, 'b.jpg'), meta]), JobResult);
    const second = body(await assess(core, [filePart(textPdf(), 'c.pdf'), meta], { key: core.pdfsKey }), JobResult);
    await core.jobs.whenIdle();

    const cases = body(await app(core, 'GET', '/app/cases'), CaseList).cases;
    expect(cases).toHaveLength(1);
    expect(cases[0]).toMatchObject({
      name: 'CLM-2001',
      status: 'open',
      jobCount: 2,
      fileCount: 3,
      counts: { ai_generated: 1, authentic: 0, inconclusive: 2, processing: 0, error: 0 },
    });
    const jobs = body(await app(core, 'GET', `/app/cases/${cases[0].id}/jobs`), CaseJobList);
    expect(jobs.jobs.map((j) => [j.job.jobId, j.applicationId, j.kind])).toEqual([
      [first.jobId, core.imagesAppId, 'images'],
      [second.jobId, core.pdfsAppId, 'pdfs'],
    ]);
    expect(jobs.jobs[0].job.results.map((r) => r.file.name)).toEqual(['a.jpg', 'b.jpg']);
    expect(jobs.jobs[1].job).toEqual(body(await get(core, `/v1/jobs/${second.jobId}`, core.pdfsKey), JobResult));

    // A case made in the window is the one a later job names; renaming it keeps its jobs.
    const made = await createCase(core, 'CLM-2002');
    await assess(core, [filePart(await makeJpeg(64, 64), 'd.jpg'), { name: 'metadata', data: JSON.stringify({ case: 'CLM-2002' }) }]);
    await core.jobs.whenIdle();
    body(await app(core, 'PATCH', `/app/cases/${made.id}`, { name: 'CLM-2002 renamed' }), CaseInfo);
    expect(body(await app(core, 'GET', `/app/cases/${made.id}`), CaseInfo)).toMatchObject({ name: 'CLM-2002 renamed', jobCount: 1, fileCount: 1 });
    expect(body(await app(core, 'GET', '/app/cases'), CaseList).pagination.total).toBe(2);
  });

  it('refuses bad requests with the ApiError, its code and path, and changes nothing', async () => {
    const core = await startCore();
    const a = await createCase(core, 'Case A');
    await createCase(core, 'Case B');
    const before = await snapshot(core);
    const unknown = '00000000-0000-4000-8000-000000000000';

    expectError(await app(core, 'POST', '/app/cases', { name: 'X' }, null), 401, 'unauthorized');
    expectError(await app(core, 'POST', '/app/cases', { name: 'X' }, core.imagesKey), 401, 'unauthorized');
    expectError(await app(core, 'GET', '/app/cases', undefined, core.imagesKey), 401, 'unauthorized');
    expectError(await app(core, 'POST', '/app/cases', { name: '   ' }), 400, 'invalid_request', 'name');
    expectError(await app(core, 'POST', '/app/cases', { name: 'x'.repeat(501) }), 400, 'invalid_request', 'name');
    expectError(await app(core, 'POST', '/app/cases', { name: 'Y', notes: 'n'.repeat(20_001) }), 400, 'invalid_request', 'notes');
    expectError(await app(core, 'POST', '/app/cases', { name: 'Y', owner: 'me' }), 400, 'invalid_request', 'body');
    expectError(await app(core, 'POST', '/app/cases', {}), 400, 'invalid_request', 'name');
    expectError(await app(core, 'POST', '/app/cases', { name: 'Case A' }), 422, 'invalid_request', 'name');

    expectError(await app(core, 'PATCH', `/app/cases/${unknown}`, { notes: 'x' }), 404, 'not_found');
    expectError(await app(core, 'PATCH', '/app/cases/not-a-uuid', { notes: 'x' }), 400, 'invalid_request', 'caseId');
    expectError(await app(core, 'PATCH', `/app/cases/${a.id}`, { status: 'archived' }), 400, 'invalid_request', 'status');
    expectError(await app(core, 'PATCH', `/app/cases/${a.id}`, { name: 'Case B' }), 422, 'invalid_request', 'name');
    expectError(await app(core, 'PATCH', `/app/cases/${a.id}`, {}), 400, 'invalid_request', 'body');
    expectError(await app(core, 'GET', `/app/cases/${unknown}`), 404, 'not_found');
    expectError(await app(core, 'GET', '/app/cases/123'), 400, 'invalid_request', 'caseId');
    expectError(await app(core, 'GET', `/app/cases/${unknown}/jobs`), 404, 'not_found');
    expectError(await app(core, 'GET', `/app/cases/${a.id}/jobs?page=0`), 400, 'invalid_request', 'page');
    expectError(await app(core, 'GET', '/app/cases?status=archived'), 400, 'invalid_request', 'status');
    expectError(await app(core, 'GET', '/app/cases?pageSize=-1'), 400, 'invalid_request', 'pageSize');
    expectError(await app(core, 'GET', '/app/cases?q=a&q=b'), 400, 'invalid_request', 'q');
    await expectUnchanged(core, before);
  });
});

// Cases and history are the window's /app routes (UI token): on a team API node, its VERACITY_UI_TOKEN.
describe('history search (/app/history, UI token)', () => {
  it('finds files of both applications by case (partial), file name (partial, wildcards literal), SHA-256, date range and verdict', async () => {
    let clock = new Date('2025-03-01T10:00:00.000Z');
    const core = await startCore({}, { workerEntry: SLOW_WORKER, now: () => clock });
    process.env.VERACITY_TEST_ANALYSE_MS = '10';
    process.env.VERACITY_TEST_AI_MARKER = AI_MARKER;
    const ai = Buffer.concat([await makeJpeg(64, 64), Buffer.from(AI_MARKER)]);
    const meta = (c: string) => ({ name: 'metadata', data: JSON.stringify({ case: c }) });
    const march = body(await assess(core, [filePart(await makeJpeg(64, 64), 'roof_1.jpg'), filePart(ai, 'roofx1.jpg'), meta('CLM-3001 Smith')]), JobResult);
    clock = new Date('2025-04-15T10:00:00.000Z');
    const april = body(await assess(core, [filePart(textPdf(), 'invoice 100%.pdf'), meta('KYC-9 Jones')], { key: core.pdfsKey }), JobResult);
    await core.jobs.whenIdle();
    const files = async (query: string) => body(await app(core, 'GET', `/app/history?${query}`), HistoryList).files.map((f) => f.name);

    const all = body(await app(core, 'GET', '/app/history'), HistoryList);
    expect(all.files.map((f) => [f.name, f.kind, f.caseName, f.assessment])).toEqual([
      ['invoice 100%.pdf', 'pdfs', 'KYC-9 Jones', 'inconclusive'],
      ['roof_1.jpg', 'images', 'CLM-3001 Smith', 'inconclusive'],
      ['roofx1.jpg', 'images', 'CLM-3001 Smith', 'ai_generated'],
    ]);
    expect(all.files[0]).toMatchObject({ jobId: april.jobId, applicationId: core.pdfsAppId, type: 'application/pdf', reviewAssessment: null, createdAt: '2025-04-15T10:00:00.000Z' });
    expect(await files('case=smith')).toEqual(['roof_1.jpg', 'roofx1.jpg']);
    expect(await files('case=KYC')).toEqual(['invoice 100%.pdf']);
    expect(await files('name=ROOF')).toEqual(['roof_1.jpg', 'roofx1.jpg']);
    expect(await files('name=roof_')).toEqual(['roof_1.jpg']); // _ is not a wildcard
    expect(await files(`name=${encodeURIComponent('100%')}`)).toEqual(['invoice 100%.pdf']);
    expect(await files(`name=${encodeURIComponent('%')}`)).toEqual(['invoice 100%.pdf']);
    const sha = all.files[2].sha256;
    expect(await files(`sha256=${sha.toUpperCase()}`)).toEqual(['roofx1.jpg']);
    expect(await files(`sha256=${'0'.repeat(64)}`)).toEqual([]);
    expect(await files('from=2025-04-01T00:00:00Z')).toEqual(['invoice 100%.pdf']);
    expect(await files('to=2025-03-31T23:59:59%2B02:00')).toEqual(['roof_1.jpg', 'roofx1.jpg']);
    expect(await files('from=2025-03-01T10:00:00Z&to=2025-03-01T10:00:00Z')).toEqual(['roof_1.jpg', 'roofx1.jpg']);
    expect(await files('verdict=ai_generated')).toEqual(['roofx1.jpg']);
    expect(await files('verdict=authentic')).toEqual([]);
    expect(await files('case=smith&verdict=inconclusive&name=roof')).toEqual(['roof_1.jpg']);
    expect(march.results).toHaveLength(2);

    const paged = body(await app(core, 'GET', '/app/history?page=2&pageSize=2'), HistoryList);
    expect(paged.files.map((f) => f.name)).toEqual(['roofx1.jpg']);
    expect(paged.pagination).toEqual({ page: 2, pageSize: 2, total: 3, totalPages: 2, hasNextPage: false });
    expect(body(await app(core, 'GET', '/app/history?pageSize=500'), HistoryList).pagination.pageSize).toBe(100);
  });

  it('refuses bad filters with the ApiError, its code and path, and changes nothing', async () => {
    const core = await startCore();
    const before = await snapshot(core);
    expectError(await app(core, 'GET', '/app/history', undefined, core.imagesKey), 401, 'unauthorized');
    expectError(await app(core, 'GET', '/app/history?sha256=abc'), 400, 'invalid_request', 'sha256');
    expectError(await app(core, 'GET', `/app/history?sha256=${'g'.repeat(64)}`), 400, 'invalid_request', 'sha256');
    expectError(await app(core, 'GET', '/app/history?from=yesterday'), 400, 'invalid_request', 'from');
    expectError(await app(core, 'GET', '/app/history?to=2025-01-01'), 400, 'invalid_request', 'to');
    expectError(await app(core, 'GET', '/app/history?from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z'), 400, 'invalid_request', 'to');
    expectError(await app(core, 'GET', '/app/history?verdict=fake'), 400, 'invalid_request', 'verdict');
    expectError(await app(core, 'GET', '/app/history?case=a&case=b'), 400, 'invalid_request', 'case');
    expectError(await app(core, 'GET', `/app/history?name=${'n'.repeat(501)}`), 400, 'invalid_request', 'name');
    expectError(await app(core, 'GET', '/app/history?page=0'), 400, 'invalid_request', 'page');
    await expectUnchanged(core, before);
  });
});

// Issue 22: a file taken out of its case (its job keeps it, History lists it with no case), the effective verdict
// (the expert review where there is one) in the case's counts and History's filters, and a SHA-256 prefix search.
describe('case files and effective verdicts (/app, UI token)', () => {
  async function caseWithReview(core: TestCore) {
    process.env.VERACITY_TEST_ANALYSE_MS = '10';
    process.env.VERACITY_TEST_AI_MARKER = AI_MARKER;
    const plain = await makeJpeg(64, 64);
    const ai = Buffer.concat([await makeJpeg(64, 64), Buffer.from(AI_MARKER)]);
    const meta = { name: 'metadata', data: JSON.stringify({ case: 'CLM-4001' }) };
    const job = body(await assess(core, [filePart(plain, 'a.jpg'), filePart(ai, 'b.jpg'), filePart(plain, 'a copy.jpg'), meta]), JobResult);
    const pdf = body(await assess(core, [filePart(textPdf(), 'c.pdf'), meta], { key: core.pdfsKey }), JobResult);
    await core.jobs.whenIdle();
    const [a, b, copy] = job.results.map((r) => r.file.id);
    // The specialist disagrees with the machine on b.jpg.
    const review = await core.app.inject({
      method: 'PUT',
      url: `/v1/jobs/${job.jobId}/files/${b}/review`,
      headers: { authorization: `Bearer ${core.imagesKey}` },
      // A note may hold any character, NUL included (PostgreSQL's json refuses to unescape it): counts still work.
      payload: { assessment: 'authentic', reviewer: 'R. Expert', note: 'see \u0000 the "assessment":"ai_generated" original' },
    });
    expect(review.statusCode).toBe(200);
    const found = body(await app(core, 'GET', '/app/cases?q=CLM-4001'), CaseList).cases[0];
    return { job, pdf, a, b, copy, found };
  }

  it('counts and filters by the effective verdict, says how many are reviewed, and finds a file by a SHA-256 prefix', async () => {
    const core = await startCore({}, { workerEntry: SLOW_WORKER });
    const { job, b, found } = await caseWithReview(core);
    expect(found).toMatchObject({
      fileCount: 4,
      counts: { ai_generated: 1, authentic: 0, inconclusive: 3, processing: 0, error: 0 },
      effectiveCounts: { ai_generated: 0, authentic: 1, inconclusive: 3, processing: 0, error: 0 },
      reviewed: 1,
    });
    const files = async (query: string) => body(await app(core, 'GET', `/app/history?${query}`), HistoryList).files.map((f) => f.name);
    expect(await files('verdict=authentic')).toEqual(['b.jpg']);
    expect(await files('verdict=ai_generated')).toEqual([]);
    expect(await files('reviewed=true')).toEqual(['b.jpg']);
    expect(await files('reviewed=false&case=CLM-4001')).toEqual(['c.pdf', 'a.jpg', 'a copy.jpg']);
    expect(await files(`caseId=${found.id}&verdict=inconclusive`)).toEqual(['c.pdf', 'a.jpg', 'a copy.jpg']);

    // The SHA-256 of each file comes with the case's jobs (the window flags a duplicate in the case).
    const listed = body(await app(core, 'GET', `/app/cases/${found.id}/jobs`), CaseJobList).jobs;
    const shas = listed[0].files.map((f) => f.sha256);
    expect(listed[0].files.map((f) => f.fileId)).toEqual(job.results.map((r) => r.file.id));
    expect(shas[0]).toBe(shas[2]);
    expect(shas[1]).not.toBe(shas[0]);
    const bSha = shas[1];
    expect(await files(`sha256=${bSha.slice(0, 8)}`)).toEqual(['b.jpg']);
    expect(await files(`sha256=${bSha.slice(0, 20).toUpperCase()}`)).toEqual(['b.jpg']);
    expect(await files(`sha256=${shas[0].slice(0, 12)}`)).toEqual(['a.jpg', 'a copy.jpg']);
    expect(await files(`sha256=${bSha}`)).toEqual(['b.jpg']);
    expect(await files(`sha256=${bSha.slice(0, 8) === 'ffffffff' ? '00000000' : 'ffffffff'}`)).toEqual([]);
    expect(b).toBe(listed[0].files[1].fileId);
  });

  it('takes a file out of its case: the job and History keep it, the case, its jobs and its report leave it out', async () => {
    const core = await startCore({}, { workerEntry: SLOW_WORKER });
    const { job, pdf, copy, found } = await caseWithReview(core);
    const removed = await app(core, 'DELETE', `/app/cases/${found.id}/files/${copy}`);
    expect(removed.statusCode).toBe(200);
    expect(body(removed, CaseInfo)).toMatchObject({
      id: found.id,
      jobCount: 2,
      fileCount: 3,
      counts: { ai_generated: 1, authentic: 0, inconclusive: 2, processing: 0, error: 0 },
      effectiveCounts: { ai_generated: 0, authentic: 1, inconclusive: 2, processing: 0, error: 0 },
    });
    const listed = body(await app(core, 'GET', `/app/cases/${found.id}/jobs`), CaseJobList).jobs;
    expect(listed.map((j) => j.job.results.map((r) => r.file.name))).toEqual([['a.jpg', 'b.jpg'], ['c.pdf']]);
    expect(listed[0].files.map((f) => f.fileId)).not.toContain(copy);
    // The job itself is unchanged for its API clients.
    expect(body(await get(core, `/v1/jobs/${job.jobId}`), JobResult).results).toHaveLength(3);
    // History still lists the file, with no case; the case's files no longer include it.
    const history = body(await app(core, 'GET', '/app/history?name=copy'), HistoryList).files;
    expect(history.map((f) => [f.fileId, f.caseId, f.caseName])).toEqual([[copy, null, null]]);
    expect(body(await app(core, 'GET', `/app/history?caseId=${found.id}`), HistoryList).files.map((f) => f.name)).toEqual(['c.pdf', 'a.jpg', 'b.jpg']);
    expect(body(await app(core, 'GET', '/app/history?case=CLM-4001'), HistoryList).pagination.total).toBe(3);
    const report = body(await app(core, 'GET', `/app/cases/${found.id}/report.json`), CaseReport);
    expect(report.files.map((f) => f.name)).toEqual(['a.jpg', 'b.jpg', 'c.pdf']);

    // Removing every file of a job takes the job out of the case's list.
    expect((await app(core, 'DELETE', `/app/cases/${found.id}/files/${pdf.results[0].file.id}`)).statusCode).toBe(200);
    const after = body(await app(core, 'GET', `/app/cases/${found.id}`), CaseInfo);
    expect([after.jobCount, after.fileCount]).toEqual([1, 2]);
    expect(body(await app(core, 'GET', `/app/cases/${found.id}/jobs`), CaseJobList).pagination.total).toBe(1);
  });

  it('refuses to remove what is not in the case, from a closed case, or with bad ids, and changes nothing', async () => {
    const core = await startCore({}, { workerEntry: SLOW_WORKER });
    const { a, found } = await caseWithReview(core);
    const other = await createCase(core, 'CLM-4002 other');
    expect((await app(core, 'DELETE', `/app/cases/${found.id}/files/${a}`)).statusCode).toBe(200);
    const before = await snapshot(core);
    const jobsBefore = body(await app(core, 'GET', `/app/cases/${found.id}/jobs`), CaseJobList);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const b = jobsBefore.jobs[0].files[0].fileId;

    expectError(await app(core, 'DELETE', `/app/cases/${found.id}/files/${a}`), 404, 'not_found'); // already out
    expectError(await app(core, 'DELETE', `/app/cases/${other.id}/files/${b}`), 404, 'not_found'); // another case's file
    expectError(await app(core, 'DELETE', `/app/cases/${unknown}/files/${b}`), 404, 'not_found');
    expectError(await app(core, 'DELETE', `/app/cases/${found.id}/files/${unknown}`), 404, 'not_found');
    expectError(await app(core, 'DELETE', `/app/cases/${found.id}/files/not-a-uuid`), 400, 'invalid_request', 'fileId');
    expectError(await app(core, 'DELETE', `/app/cases/123/files/${b}`), 400, 'invalid_request', 'caseId');
    expectError(await app(core, 'DELETE', `/app/cases/${found.id}/files/${b}`, undefined, core.imagesKey), 401, 'unauthorized');
    expectError(await app(core, 'GET', '/app/history?sha256=abcdef1'), 400, 'invalid_request', 'sha256');
    expectError(await app(core, 'GET', '/app/history?reviewed=yes'), 400, 'invalid_request', 'reviewed');
    expectError(await app(core, 'GET', '/app/history?caseId=CLM-4001'), 400, 'invalid_request', 'caseId');
    await expectUnchanged(core, before);

    // A closed case gives up no file until it is opened again.
    body(await app(core, 'PATCH', `/app/cases/${found.id}`, { status: 'closed' }), CaseInfo);
    const closed = await snapshot(core);
    expectError(await app(core, 'DELETE', `/app/cases/${found.id}/files/${b}`), 422, 'invalid_request', 'caseId');
    await expectUnchanged(core, closed);
    expect(body(await app(core, 'GET', `/app/cases/${found.id}/jobs`), CaseJobList)).toEqual(jobsBefore);
  });
});
