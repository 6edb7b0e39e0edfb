// The case report as a printable PDF with its JSON beside it, against the real core and model: the PDF's text
// (pdftotext, poppler-utils) holds every file's SHA-256 and verdict, the app and model versions and page numbers, and
// the report hash it prints is the SHA-256 of the JSON variant. The first page is saved as the README's screenshot.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaseInfo, CaseList } from '../../src/api/app-schemas.js';
import { CaseReport, JobResult } from '../../src/api/schemas.js';
import { VERDICT_WORDS } from '../../src/api/vocabulary.js';
import { localTime } from '../../src/report/case-report-pdf.js';
import { makeJpeg, makePng, MODELS_DIR, photoPdf } from '../unit/analysis/fixtures.js';
import { REPO, assess, body, expectError, expectNothingLeft, filePart, footprint, get, onPg, settled, startCore, tempDir, type TestCore } from './helpers.js';

const APP_VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const sha256 = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');

function pdfText(pdf: Buffer): string {
  const dir = tempDir('veracity-report-');
  fs.writeFileSync(path.join(dir, 'r.pdf'), pdf);
  return execFileSync('pdftotext', ['-layout', path.join(dir, 'r.pdf'), '-'], { encoding: 'utf8' });
}

function heic(jpeg: Buffer): Buffer {
  const dir = tempDir('veracity-heic-');
  fs.writeFileSync(path.join(dir, 'in.jpg'), jpeg);
  execFileSync('heif-enc', ['-q', '85', '-o', path.join(dir, 'out.heic'), path.join(dir, 'in.jpg')], { stdio: 'ignore' });
  return fs.readFileSync(path.join(dir, 'out.heic'));
}

const caseIdOf = (list: CaseList, name: string) => list.cases.find((c) => c.name === name)!.id;
const ui = (core: TestCore, url: string) => core.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${core.uiToken}` } });

/** A case of four files in two submissions, one per application, with an expert review on one file. */
async function caseOfFour(core: TestCore, caseName: string) {
  const metadata = { name: 'metadata', data: JSON.stringify({ case: caseName }) };
  let images = body(
    await assess(core, [filePart(await makeJpeg(640, 480), 'kitchen-ceiling.jpg'), filePart(heic(await makeJpeg(512, 384)), 'IMG_4410.HEIC'), filePart(await makePng(320, 240), 'receipt-scan.png'), metadata]),
    JobResult,
  );
  let pdfs = body(await assess(core, [filePart(await photoPdf(), 'repair-estimate.pdf'), metadata], { key: core.pdfsKey }), JobResult);
  if (pdfs.status === 'processing' || images.status === 'processing') {
    // On a loaded machine either job can outlast the 30 s wait of its submission: their answers once the core has settled.
    await settled(core, 300_000);
    images = body(await get(core, `/v1/jobs/${images.jobId}`, core.imagesKey), JobResult);
    pdfs = body(await get(core, `/v1/jobs/${pdfs.jobId}`, core.pdfsKey), JobResult);
  }
  expect([images.status, pdfs.status]).toEqual(['completed', 'completed']);
  const reviewed = await core.app.inject({
    method: 'PUT',
    url: `/v1/jobs/${images.jobId}/files/${images.results[0].file.id}/review`,
    headers: { authorization: `Bearer ${core.imagesKey}` },
    payload: { assessment: 'authentic', reviewer: 'Dana Whitfield', note: 'Matches the adjuster’s site photos.' },
  });
  expect(reviewed.statusCode).toBe(200);
  return { images, pdfs };
}

describe('the case report (PDF and JSON)', () => {
  // The case report is the window's /app route (UI token): on a team API node, its VERACITY_UI_TOKEN.
  // Six reports, each made in a report process of its own (1 s to start on an idle machine, many on a loaded one).
  it('GET /app/cases/{caseId}/report.pdf prints every file of the case across both applications, bound to report.json by its SHA-256', { timeout: 240_000 }, async () => {
    // The submission probe's bound, raised as the C2PA tests raise it: on a loaded machine a cold probe opening a PDF takes more than 15 s.
    const core = await startCore({ modelsDir: MODELS_DIR, probeTimeoutMs: 60_000 });
    const { images, pdfs } = await caseOfFour(core, 'CLM-2041');
    // A job of another case is not in the report.
    await assess(core, [filePart(await makeJpeg(64, 64), 'other-case.jpg'), { name: 'metadata', data: '{"case":"CLM-9999"}' }]);
    const caseId = caseIdOf(body(await ui(core, '/app/cases?q=CLM-2041'), CaseList), 'CLM-2041');
    const notes = 'Burst pipe, kitchen ceiling. Policy holder sent the HEIC from her phone.';
    const patched = await core.app.inject({ method: 'PATCH', url: `/app/cases/${caseId}`, headers: { authorization: `Bearer ${core.uiToken}` }, payload: { status: 'in_review', notes } });
    expect(patched.statusCode).toBe(200);

    const json = await ui(core, `/app/cases/${caseId}/report.json`);
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    const report = body(json, CaseReport);
    expect([report.caseId, report.caseName, report.version]).toEqual([caseId, 'CLM-2041', 3]);
    expect(report.files.map((f) => f.name)).toEqual(['kitchen-ceiling.jpg', 'IMG_4410.HEIC', 'receipt-scan.png', 'repair-estimate.pdf']);
    expect(report.jobs.map((j) => j.jobId)).toEqual([images.jobId, pdfs.jobId]);
    expect(report.appVersion).toBe(APP_VERSION);
    expect(report.summary.files).toBe(4);
    expect(report.summary.reviewed).toBe(1);
    expect(report.summary.ai_generated + report.summary.authentic + report.summary.inconclusive).toBe(4);
    // The case as it stands, and the counts by effective verdict (the review of kitchen-ceiling.jpg counts as authentic).
    expect([report.caseStatus, report.caseNotes]).toEqual(['in_review', notes]);
    const machine = report.files[0].verdict!.assessment;
    expect(report.summary.effective.authentic).toBe(report.summary.authentic + (machine === 'authentic' ? 0 : 1));
    expect(report.summary.effective[machine]).toBe(report.summary[machine] - (machine === 'authentic' ? 0 : 1));
    // Pixels as analysed (the HEIC after decoding); a PDF has no one size.
    expect(report.files.map((f) => f.pixelSize)).toEqual([{ width: 640, height: 480 }, { width: 512, height: 384 }, { width: 320, height: 240 }, null]);
    expect(json.headers['veracity-report-sha256']).toBe(sha256(json.rawPayload));

    const pdfAnswer = await ui(core, `/app/cases/${caseId}/report.pdf?examiner=${encodeURIComponent('Dana Whitfield')}`);
    expect(pdfAnswer.statusCode).toBe(200);
    expect(pdfAnswer.headers['content-type']).toBe('application/pdf');
    expect(pdfAnswer.headers['content-disposition']).toBe('attachment; filename="veracity-report-CLM-2041.pdf"');
    expect(pdfAnswer.headers['x-content-type-options']).toBe('nosniff');
    const pdf = pdfAnswer.rawPayload;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfText(pdf);
    const flat = text.replace(/\s+/g, ' ');

    for (const f of report.files) {
      expect(flat, f.name).toContain(f.sha256);
      expect(flat, f.name).toContain(f.name);
      expect(flat, f.name).toContain(VERDICT_WORDS[f.verdict!.assessment]);
    }
    const models = [...new Set(report.files.map((f) => f.modelVersion))];
    expect(models).toHaveLength(1);
    expect(flat).toContain(models[0]!);
    expect(flat).toContain(`Veracity version ${APP_VERSION}`);
    expect(flat).toContain('Dana Whitfield');
    expect(flat).toMatch(/Examiner name/);
    expect(flat).toContain(`Time zone ${report.timeZone}`);
    expect(flat).toContain('Case status In review');
    expect(flat).toContain(`Case notes ${notes}`);
    expect(flat).toContain('640 × 480 px');
    expect(flat).toContain('Counted by effective verdict: the expert review where one is recorded (1 of 4 files)');
    // The sign-off names who reviewed, which file and when, above the lines written by hand.
    const reviewedAt = localTime(report.files[0].expertReview!.reviewedAt, report.timeZone);
    expect(flat).toMatch(new RegExp(`Expert reviews recorded in this case Dana Whitfield file 1; reviewed ${reviewedAt.replace(/[()+]/g, '\\$&')} .*Examiner name`));
    const pages = Number(/Page 1 of (\d+)/.exec(flat)?.[1]);
    expect(pages).toBeGreaterThan(1);
    for (let p = 1; p <= pages; p++) expect(flat).toContain(`Page ${p} of ${pages}`);
    // The printed hash is the SHA-256 of the JSON variant's bytes (the case did not change in between).
    const printed = /Report SHA-256 ([0-9a-f]{64})/.exec(flat)?.[1];
    expect(printed).toBe(sha256(json.rawPayload));
    expect(pdfAnswer.headers['veracity-report-sha256']).toBe(printed);

    // The first page, as the README shows it (from the desktop run only: one screenshot, not one per backend).
    if (!onPg) {
      const dir = tempDir('veracity-report-png-');
      fs.writeFileSync(path.join(dir, 'r.pdf'), pdf);
      execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', '-singlefile', path.join(dir, 'r.pdf'), path.join(dir, 'page')]);
      fs.copyFileSync(path.join(dir, 'page.png'), path.join(REPO, 'renderer', 'screenshots', 'report.png'));
    }

    // A change to the case (a new review) changes the JSON, and so the hash.
    const review = await core.app.inject({
      method: 'PUT',
      url: `/v1/jobs/${pdfs.jobId}/files/${pdfs.results[0].file.id}/review`,
      headers: { authorization: `Bearer ${core.pdfsKey}` },
      payload: { assessment: 'inconclusive', reviewer: 'Dana Whitfield' },
    });
    expect(review.statusCode).toBe(200);
    const after = await ui(core, `/app/cases/${caseId}/report.json`);
    expect(sha256(after.rawPayload)).not.toBe(printed);
    // Asked again without a change: the same bytes (nothing in the JSON depends on when it is asked for).
    expect((await ui(core, `/app/cases/${caseId}/report.json`)).rawPayload.equals(after.rawPayload)).toBe(true);

    // Keyed by the case, not its name: renamed, the case keeps its files and the report names it as it is now.
    const renamed = await core.app.inject({
      method: 'PATCH',
      url: `/app/cases/${caseId}`,
      headers: { authorization: `Bearer ${core.uiToken}` },
      payload: { name: 'CLM-2041 (fire, kitchen)' },
    });
    expect(body(renamed, CaseInfo).name).toBe('CLM-2041 (fire, kitchen)');
    const afterRename = body(await ui(core, `/app/cases/${caseId}/report.json`), CaseReport);
    expect([afterRename.caseId, afterRename.caseName]).toEqual([caseId, 'CLM-2041 (fire, kitchen)']);
    expect(afterRename.files.map((f) => f.fileId)).toEqual(report.files.map((f) => f.fileId));
    const renamedPdf = await ui(core, `/app/cases/${caseId}/report.pdf`);
    expect(renamedPdf.headers['content-disposition']).toBe('attachment; filename="veracity-report-CLM-2041-fire-kitchen.pdf"');
  });

  it('GET /v1/jobs/{jobId}/report.pdf|.json: one job of the caller\'s application; refusals as the other job endpoints, nothing left behind', async () => {
    const core = await startCore();
    const job = body(await assess(core, [filePart(await makeJpeg(200, 150), 'front-door.jpg'), { name: 'metadata', data: '{"case":"CLM-7"}' }]), JobResult);
    const json = await get(core, `/v1/jobs/${job.jobId}/report.json`);
    expect(json.statusCode).toBe(200);
    const report = body(json, CaseReport);
    expect([report.caseId, report.caseName, report.caseStatus, report.caseNotes]).toEqual([null, 'CLM-7', null, null]);
    // No model in this core: the file is not assessed, and the report says so.
    expect(report.files[0]).toMatchObject({ status: 'error', verdict: null, error: { code: 'result_unavailable' } });
    const pdf = await get(core, `/v1/jobs/${job.jobId}/report.pdf`);
    expect(pdf.statusCode).toBe(200);
    const flat = pdfText(pdf.rawPayload).replace(/\s+/g, ' ');
    expect(flat).toContain(report.files[0].sha256);
    expect(flat).toContain('Not assessed');
    expect(/Report SHA-256 ([0-9a-f]{64})/.exec(flat)?.[1]).toBe(sha256(json.rawPayload));

    const before = await footprint(core);
    expectError(await get(core, `/v1/jobs/${job.jobId}/report.pdf`, core.pdfsKey), 404, 'not_found');
    expectError(await get(core, `/v1/jobs/${job.jobId}/report.json`, core.pdfsKey), 404, 'not_found');
    expectError(await get(core, '/v1/jobs/not-a-uuid/report.pdf'), 400, 'invalid_request', 'jobId');
    expectError(await get(core, '/v1/jobs/3f2504e0-4f89-41d3-9a0c-0305e82c3301/report.pdf'), 404, 'not_found');
    expectError(await get(core, `/v1/jobs/${job.jobId}/report.pdf`, core.uiToken!), 401, 'unauthorized');
    await expectNothingLeft(core, before);
  });

  // The case report is the window's /app route (UI token): on a team API node, its VERACITY_UI_TOKEN.
  it('GET /app/cases/{caseId}/report.pdf|.json: refusals (malformed id, no such case, a case without jobs, a repeated examiner, no UI token), nothing left behind', async () => {
    const core = await startCore();
    await assess(core, [filePart(await makeJpeg(64, 64), 'porch.jpg'), { name: 'metadata', data: '{"case":"CLM-7"}' }]);
    const caseId = caseIdOf(body(await ui(core, '/app/cases?q=CLM-7'), CaseList), 'CLM-7');
    const empty = body(
      await core.app.inject({ method: 'POST', url: '/app/cases', headers: { authorization: `Bearer ${core.uiToken}` }, payload: { name: 'Nothing yet' } }),
      CaseInfo,
    );
    const before = await footprint(core);
    for (const ext of ['pdf', 'json']) {
      expectError(await ui(core, `/app/cases/not-a-uuid/report.${ext}`), 400, 'invalid_request', 'caseId');
      expectError(await ui(core, `/app/cases/3f2504e0-4f89-41d3-9a0c-0305e82c3301/report.${ext}`), 404, 'not_found');
      expectError(await ui(core, `/app/cases/${empty.id}/report.${ext}`), 404, 'not_found');
      expectError(await get(core, `/app/cases/${caseId}/report.${ext}`), 401, 'unauthorized');
      expectError(await core.app.inject({ method: 'GET', url: `/app/cases/${caseId}/report.${ext}` }), 401, 'unauthorized');
    }
    expectError(await ui(core, `/app/cases/${caseId}/report.pdf?examiner=A&examiner=B`), 400, 'invalid_request', 'examiner');
    // The old address by case name is gone.
    expect((await ui(core, '/app/report.pdf?case=CLM-7')).statusCode).toBe(404);
    await expectNothingLeft(core, before);
  });
});
