// Issue 22 in the window, without a browser: every drop belongs to a case (a date-and-time case for an unnamed drop,
// the window's word before files join the open case, PDFs offered a case of their own, a file taken out of the case),
// duplicates by SHA-256, counts and filters by the effective verdict, and the reviewer's name kept for the launch.
import { afterEach, describe, expect, it } from 'vitest';
import type { CaseInfo } from '../../../src/api/app-schemas.js';
import type { FileResult, JobResult } from '../../../src/api/schemas.js';
import { ApiFailure, type ApiClient } from '../../../renderer/lib/api-client.js';
import { ACTIVE_CASE_KEY, CaseSession, dateCaseName, sha256Of, type CaseStorage, type TrackedJob } from '../../../renderer/lib/case-session.js';
import { rememberActiveCase } from '../../../renderer/lib/case-session.js';
import { REVIEWER_KEY, rememberReviewer, resetReviewerForTests, reviewerName, subscribeReviewer } from '../../../renderer/lib/reviewer-name.js';
import { caseFiles, countByState, countReviewed, duplicatesOf, effectiveState, filterFiles, withPending } from '../../../renderer/lib/triage.js';

const NOW = '2026-11-24T10:00:00.000Z';
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const PDF = new Uint8Array(new TextEncoder().encode('%PDF-1.7\n%%EOF\n'));

function caseInfo(name: string, extra: Partial<CaseInfo> = {}): CaseInfo {
  const zero = { ai_generated: 0, authentic: 0, inconclusive: 0, processing: 0, error: 0 };
  return { id: crypto.randomUUID(), name, notes: '', status: 'open', createdAt: NOW, updatedAt: NOW, jobCount: 0, fileCount: 0, counts: zero, effectiveCounts: zero, reviewed: 0, ...extra };
}

function result(name: string, over: Partial<FileResult> = {}): FileResult {
  return {
    file: { id: crypto.randomUUID(), name, size: 7, type: 'image/jpeg' },
    status: 'completed',
    startedAt: NOW,
    completedAt: NOW,
    verdict: { assessment: 'ai_generated', confidence: 'high', display: { label: 'AI' }, dimensions: [] },
    ...over,
  };
}

function memoryStorage(): CaseStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return { items, getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v), removeItem: (k) => void items.delete(k) };
}

/** A core that makes cases and accepts every request as a finished job of the files sent. */
function fakeCore() {
  const cases: CaseInfo[] = [];
  const sent: { names: string[]; metadata: unknown }[] = [];
  const removed: string[] = [];
  const client = {
    createCase: async (body: { name: string }) => {
      if (cases.some((c) => c.name === body.name)) {
        throw new ApiFailure('http', 422, { code: 'invalid_request', message: 'taken', details: { issues: [{ path: 'name' }] } }, 'taken');
      }
      const made = caseInfo(body.name);
      cases.push(made);
      return made;
    },
    assess: async (_key: string, files: { name: string; blob: Blob }[], metadata: unknown): Promise<JobResult> => {
      sent.push({ names: files.map((f) => f.name), metadata });
      return { jobId: crypto.randomUUID(), status: 'completed', createdAt: NOW, completedAt: NOW, metadata: metadata as Record<string, unknown>, results: files.map((f) => result(f.name)) };
    },
    removeCaseFile: async (caseId: string, fileId: string) => {
      removed.push(fileId);
      return { ...cases.find((c) => c.id === caseId)!, fileCount: 1 };
    },
    getJob: async () => {
      throw new Error('not polled: every job is finished');
    },
  } as unknown as ApiClient;
  return { client, cases, sent, removed };
}

const keys = () => ({ images: { applicationId: 'a', apiKey: 'K' }, pdfs: { applicationId: 'p', apiKey: 'P' } });
const loose = (name: string, bytes: Uint8Array<ArrayBuffer> = JPEG) => ({ file: new File([bytes], name), path: name, caseName: null });
const at = new Date(2026, 10, 24, 9, 5, 7);

describe('every drop belongs to a case', () => {
  it('names a case after the date and time for files dropped with none named, and makes it the one a reload opens', async () => {
    expect(dateCaseName(at)).toBe('2026-11-24 09:05:07');
    const core = fakeCore();
    const storage = memoryStorage();
    core.cases.push(caseInfo('2026-11-24 09:05:07')); // a case made in the same second already has the name
    const session = new CaseSession({ client: core.client, keys, storage, now: () => at, pollIntervalMs: 60_000 });
    await session.drop([loose('a.jpg'), loose('b.jpg')]);
    const active = session.getState().activeCase!;
    expect(active.name).toBe('2026-11-24 09:05:07 (2)');
    expect(storage.items.get(ACTIVE_CASE_KEY)).toBe(active.id);
    expect(core.sent).toEqual([{ names: ['a.jpg', 'b.jpg'], metadata: { case: '2026-11-24 09:05:07 (2)' } }]);
    expect(session.getState().confirm).toBeNull();
  });

  it('asks before files join the open case: cancel sends nothing, join sends them into it, a new case starts apart', async () => {
    const core = fakeCore();
    const session = new CaseSession({ client: core.client, keys, storage: memoryStorage(), now: () => at, pollIntervalMs: 60_000 });
    await session.drop([loose('a.jpg')]);
    const first = session.getState().activeCase!;
    // The same bytes again: a duplicate, said before it is sent (the window's hash of what it sent).
    await new Promise((r) => setTimeout(r, 10));
    await session.drop([loose('a-again.jpg'), { file: new File([JPEG], 'x.jpg'), path: 'Folder/x.jpg', caseName: 'Folder' }]);
    const asked = session.getState().confirm!;
    expect(asked).toMatchObject({ caseName: first.name, joining: 1, pdfs: 0, duplicates: ['a-again.jpg'] });
    expect(core.sent).toHaveLength(1);
    // Another drop while the window waits: asked about with the first, as one.
    await session.drop([loose('more.jpg', new Uint8Array([...JPEG, 9]))]);
    expect(session.getState().confirm).toMatchObject({ joining: 2, duplicates: ['a-again.jpg'] });
    expect(session.getState().confirm!.files.map((f) => f.path)).toEqual(['a-again.jpg', 'Folder/x.jpg', 'more.jpg']);
    await session.confirmDrop('cancel');
    expect(session.getState().confirm).toBeNull();
    expect(core.sent).toHaveLength(1);

    await session.drop([loose('a-again.jpg')]);
    await session.confirmDrop('join');
    expect(core.sent[1]).toEqual({ names: ['a-again.jpg'], metadata: { case: first.name } });
    // The copy is flagged on its card, against the file dropped first.
    const files = caseFiles(session.getState().jobs);
    expect([...duplicatesOf(files).values()]).toEqual(['a.jpg']);

    await session.drop([loose('c.jpg')]);
    await session.confirmDrop('new_case');
    const second = session.getState().activeCase!;
    expect(second.id).not.toBe(first.id);
    expect(second.name).toBe(`${first.name} (2)`);
    expect(core.sent[2]).toEqual({ names: ['c.jpg'], metadata: { case: second.name } });
    expect(session.getState().jobs.map((t) => t.job.results.map((r) => r.file.name))).toEqual([['c.jpg']]);
  });

  it('sends a folder dropped while a case is open to its own case, off the screen, and says where it went', async () => {
    const core = fakeCore();
    const session = new CaseSession({ client: core.client, keys, storage: memoryStorage(), now: () => at, pollIntervalMs: 60_000 });
    await session.drop([loose('a.jpg')]);
    const name = session.getState().activeCase!.name;
    await session.drop([{ file: new File([JPEG], 'x.jpg'), path: 'Folder/x.jpg', caseName: 'Folder' }]);
    expect(session.getState().confirm).toBeNull();
    expect(core.sent[1]).toEqual({ names: ['Folder/x.jpg'], metadata: { case: 'Folder' } });
    expect(session.getState().activeCase!.name).toBe(name);
    expect(caseFiles(session.getState().jobs).map((f) => f.result.file.name)).toEqual(['a.jpg']);
    expect(session.getState().notices.map((n) => n.text)).toEqual(['1 file went into case “Folder”, named by the drop (History lists it).']);
  });

  it('offers PDFs dropped into a case of images a case of their own', async () => {
    const core = fakeCore();
    const session = new CaseSession({ client: core.client, keys, storage: memoryStorage(), now: () => at, pollIntervalMs: 60_000 });
    await session.drop([loose('a.jpg')]);
    const name = session.getState().activeCase!.name;
    await session.drop([loose('b.jpg'), loose('statement.pdf', PDF)]);
    expect(session.getState().confirm).toMatchObject({ joining: 2, pdfs: 1 });
    await session.confirmDrop('join_pdfs_apart');
    expect(core.sent.slice(1)).toEqual([
      { names: ['b.jpg'], metadata: { case: name } },
      { names: ['statement.pdf'], metadata: { case: `${name} – PDFs` } },
    ]);
    // The screen shows the open case: the PDF is in its own case, which the notice names.
    expect(caseFiles(session.getState().jobs).map((f) => f.result.file.name)).toEqual(['a.jpg', 'b.jpg']);
    expect(session.getState().notices.map((n) => n.text)).toEqual([`The PDF went into a case of their own, “${name} – PDFs” (History lists it).`]);
  });

  it('takes a file out of the case: its card leaves and a later answer about its job does not bring it back', async () => {
    const core = fakeCore();
    const session = new CaseSession({ client: core.client, keys, storage: memoryStorage(), now: () => at, pollIntervalMs: 60_000 });
    await session.drop([loose('a.jpg'), loose('b.jpg')]);
    const tracked = session.getState().jobs[0];
    const [a, b] = tracked.job.results;
    expect(await session.removeFromCase(tracked.job.jobId, a.file.id)).toBe(true);
    expect(core.removed).toEqual([a.file.id]);
    expect(session.getState().activeCase!.fileCount).toBe(1);
    const after = session.getState().jobs[0];
    expect(after.job.results.map((r) => r.file.name)).toEqual(['b.jpg']);
    expect(after.dropOrder).toEqual([tracked.dropOrder![1]]);
    session.updateJob({ ...tracked.job, results: [a, { ...b, expertReview: { assessment: 'authentic', reviewer: 'R', reviewedAt: NOW } }] });
    expect(session.getState().jobs[0].job.results.map((r) => [r.file.name, r.expertReview?.assessment])).toEqual([['b.jpg', 'authentic']]);
  });
});

describe('reviews count', () => {
  const tracked = (results: FileResult[]): TrackedJob => ({
    job: { jobId: crypto.randomUUID(), status: 'completed', createdAt: NOW, completedAt: NOW, results },
    kind: 'images',
    apiKey: 'K',
  });
  const reviewed = result('reviewed.jpg', { expertReview: { assessment: 'authentic', reviewer: 'R', reviewedAt: NOW } });
  const files = caseFiles([tracked([result('machine.jpg'), reviewed, result('pending.jpg', { status: 'processing', verdict: undefined })])]);

  it('counts and filters by the expert review where there is one, the machine verdict otherwise', () => {
    expect(effectiveState(reviewed)).toBe('authentic');
    expect(countByState(files)).toEqual({ ai_generated: 1, authentic: 1, inconclusive: 0, processing: 1, not_assessed: 0 });
    expect(countReviewed(files)).toBe(1);
    expect(filterFiles(files, 'authentic').map((f) => f.result.file.name)).toEqual(['reviewed.jpg']);
    expect(filterFiles(files, 'ai_generated').map((f) => f.result.file.name)).toEqual(['machine.jpg']);
    expect(filterFiles(files, 'reviewed').map((f) => f.result.file.name)).toEqual(['reviewed.jpg']);
    expect(filterFiles(files, 'not_reviewed').map((f) => f.result.file.name)).toEqual(['machine.jpg', 'pending.jpg']);
    // A dropped file not yet in a job is among those not reviewed.
    const pending = [{ key: 'p/9', name: 'late.jpg', size: 1, dropOrder: 9, stage: 'sending' as const }];
    expect(withPending(filterFiles(files, 'not_reviewed'), pending, 'drop', 'not_reviewed')).toHaveLength(3);
    expect(withPending(filterFiles(files, 'reviewed'), pending, 'drop', 'reviewed')).toHaveLength(1);
  });

  it('remembers the reviewer\'s name for the launch, and tells the forms on screen', () => {
    const items = new Map<string, string>();
    const storage = { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) };
    resetReviewerForTests();
    expect(reviewerName(storage)).toBe('');
    let told = 0;
    const stop = subscribeReviewer(() => told++);
    rememberReviewer('R. Expert', storage);
    stop();
    expect([reviewerName(storage), items.get(REVIEWER_KEY), told]).toEqual(['R. Expert', 'R. Expert', 1]);
    resetReviewerForTests(); // a reload: memory is gone, the launch's storage is not
    expect(reviewerName(storage)).toBe('R. Expert');
    resetReviewerForTests();
  });
});

describe('SHA-256 in the window', () => {
  afterEach(() => rememberActiveCase(null, null));
  it('hashes a file as the core does', async () => {
    expect(await sha256Of(new Blob([new TextEncoder().encode('abc')]))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
