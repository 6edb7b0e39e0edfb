// The renderer's talk with the core, without a browser: responses validated by the zod schemas, errors in plain
// words naming the file, the UI token taken from the address and removed from it, the case report escaped
// (checklist 73), the heatmap geometry, and a case session splitting out a refused file and resending the rest.
import { describe, expect, it } from 'vitest';
import type { JobReport } from '../../../src/api/schemas.js';
import type { JobResult } from '../../../src/api/schemas.js';
import { ApiClient, ApiFailure, type FetchLike } from '../../../renderer/lib/api-client.js';
import { buildCaseReport, caseReportHtml, reportFileName } from '../../../renderer/lib/case-report.js';
import { CaseSession, progressOf } from '../../../renderer/lib/case-session.js';
import { overlayTiles, pickGrid } from '../../../renderer/lib/heatmap.js';
import { caseFiles, withPending } from '../../../renderer/lib/triage.js';
import { MAX_FILES_PER_REQUEST } from '../../../src/api/limits.js';
import { findCredentials, TOKEN_STORAGE_KEY, tokenFromHash } from '../../../renderer/lib/ui-credentials.js';
import { errorWords, failureWords, resultErrorWords } from '../../../renderer/lib/words.js';

const JOB_ID = '7b0f0f8e-5a43-4c8b-9b1a-2d3e4f5a6b7c';
const FILE_ID = '0d7e0c0a-1b2c-4d5e-8f90-a1b2c3d4e5f6';
const NOW = '2026-11-21T13:00:00.000Z';

function jobResult(overrides: Partial<JobResult> = {}, name = '<img src=x onerror=alert(1)>.jpg'): JobResult {
  return {
    jobId: JOB_ID,
    status: 'completed',
    createdAt: NOW,
    completedAt: NOW,
    metadata: { case: '<b>Case</b>' },
    results: [
      {
        file: { id: FILE_ID, name, size: 2048, type: 'image/jpeg' },
        status: 'completed',
        startedAt: NOW,
        completedAt: NOW,
        verdict: {
          assessment: 'ai_generated',
          confidence: 'high',
          display: { label: 'Likely AI', title: '<script>alert(2)</script>', description: 'Tiles look generated.' },
          dimensions: [{ key: 'ai_detection', label: 'AI detection', score: 0.91, assessment: 'likely_ai', confidence: 'high' }],
        },
        expertReview: { assessment: 'authentic', reviewer: 'Ana <i>', note: 'Seen the <raw> original', reviewedAt: NOW },
      },
    ],
    ...overrides,
  };
}

function respond(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

describe('ApiClient', () => {
  it('sends the bearer key and returns the validated job', async () => {
    const seen: { url: string; init?: RequestInit }[] = [];
    const fetchImpl: FetchLike = async (url, init) => {
      seen.push({ url, init });
      return respond(200, jobResult());
    };
    const client = new ApiClient('http://127.0.0.1:5', 'ui', fetchImpl);
    const job = await client.getJob('KEY', JOB_ID);
    expect(job.jobId).toBe(JOB_ID);
    expect(seen[0].url).toBe(`http://127.0.0.1:5/v1/jobs/${JOB_ID}?wait=false`);
    expect(new Headers(seen[0].init?.headers).get('authorization')).toBe('Bearer KEY');
  });

  it('refuses an answer that does not match the schema', async () => {
    const client = new ApiClient('', 'ui', async () => respond(200, { ...jobResult(), status: 'done' }));
    const failure = await client.getJob('K', JOB_ID).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiFailure);
    expect((failure as ApiFailure).kind).toBe('invalid-response');
  });

  it('turns an ApiError into a failure with its code, and a network error into kind network', async () => {
    const apiError = { code: 'file_too_large', message: 'File file.1 too large', details: { issues: [{ path: 'file.1' }] } };
    const client = new ApiClient('', 'ui', async () => respond(413, apiError));
    const failure = (await client.assess('K', [{ name: 'a.jpg', blob: new Blob(['x']) }], null, 'idem').catch((e: unknown) => e)) as ApiFailure;
    expect(failure.apiError?.code).toBe('file_too_large');
    expect(failure.status).toBe(413);
    const offline = new ApiClient('', 'ui', async () => {
      throw new TypeError('fetch failed');
    });
    expect(((await offline.listApplications().catch((e: unknown) => e)) as ApiFailure).kind).toBe('network');
  });

  it('sends files as multipart parts named file, metadata as a JSON string, and an Idempotency-Key', async () => {
    let body: FormData | null = null;
    let headers: Headers | null = null;
    const client = new ApiClient('', 'ui', async (_url, init) => {
      body = init?.body as FormData;
      headers = new Headers(init?.headers);
      return respond(202, jobResult({ status: 'processing', completedAt: undefined }));
    });
    await client.assess('K', [{ name: 'a.jpg', blob: new Blob(['1']) }, { name: 'b.jpg', blob: new Blob(['2']) }], { case: 'C' }, 'idem-1');
    expect(body!.getAll('file')).toHaveLength(2);
    expect(body!.get('metadata')).toBe('{"case":"C"}');
    expect(headers!.get('idempotency-key')).toBe('idem-1');
  });
});

describe('words', () => {
  const failure = (status: number, code: string, extra: object = {}): ApiFailure =>
    new ApiFailure('http', status, { code, message: 'm', ...extra } as ApiFailure['apiError'], 'm');

  it('names the file the error concerns', () => {
    expect(failureWords(failure(400, 'unsupported_format'), { fileName: 'report.docx' })).toMatch(/^“report\.docx” was refused/);
    expect(failureWords(failure(413, 'file_too_large'), { fileName: 'big.jpg' })).toMatch(/“big\.jpg” is too large/);
    expect(failureWords(failure(422, 'unprocessable'), { fileName: 'x.pdf' })).toMatch(/“x\.pdf” cannot be analysed/);
    expect(failureWords(failure(503, 'service_unavailable', { retryAfter: 7 }), { fileNames: ['a', 'b'] })).toMatch(/“a”, “b”.*7 s/);
    expect(failureWords(failure(401, 'unauthorized'), { action: 'Sending' })).toMatch(/revoked/);
    expect(failureWords(new ApiFailure('network', 0, null, 'x'), { action: 'Sending' })).toMatch(/did not reach the Veracity engine/);
  });

  it('words anything thrown: an API failure as failureWords does, anything else as its string or the given fallback', () => {
    const refused = failure(413, 'file_too_large');
    expect(errorWords(refused, { fileName: 'big.jpg', action: 'Sending' })).toBe(failureWords(refused, { fileName: 'big.jpg', action: 'Sending' }));
    expect(errorWords(failure(500, 'teapot'))).toBe(failureWords(failure(500, 'teapot')));
    expect(errorWords(new Error('boom'), { action: 'Sending' })).toBe('Error: boom');
    expect(errorWords('plain', {}, (e) => `Could not draw: ${String(e)}`)).toBe('Could not draw: plain');
  });

  it('gives the refusal reason without repeating the file name the list already shows', async () => {
    const { refusalWords } = await import('../../../renderer/lib/words.js');
    const refusal = failure(422, 'unprocessable');
    refusal.apiError!.message = 'File "x/b.jpg": the image is 8x8 pixels, under the 32-pixel minimum on a side';
    expect(refusalWords(refusal)).toBe('Cannot be analysed. The image is 8x8 pixels, under the 32-pixel minimum on a side.');
    expect(refusalWords(failure(413, 'file_too_large'))).toMatch(/^Too large/);
  });

  it('explains result errors, including the missing model', () => {
    expect(resultErrorWords({ code: 'result_unavailable', message: 'model missing' })).toMatch(/detector model is not installed/);
    expect(resultErrorWords({ code: 'internal_error', message: 'x' })).toMatch(/failed inside Veracity/);
  });
});

describe('UI token', () => {
  it('takes the token from the hash once, removes it from the address and keeps it for the session', async () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    const replaced: string[] = [];
    const token = 'A'.repeat(43);
    const location = { hash: `#token=${token}`, origin: 'http://127.0.0.1:9', pathname: '/', search: '' };
    expect(await findCredentials(location, storage, (u) => replaced.push(u), undefined)).toEqual({ baseUrl: 'http://127.0.0.1:9', uiToken: token });
    expect(replaced).toEqual(['/']);
    expect(store.get(TOKEN_STORAGE_KEY)).toBe(token);
    // After a reload the hash is gone: the session copy is used.
    expect(await findCredentials({ ...location, hash: '' }, storage, () => {}, undefined)).toEqual({ baseUrl: 'http://127.0.0.1:9', uiToken: token });
  });

  it('prefers the Electron preload and ignores malformed tokens', async () => {
    const bridge = { getConfig: async () => ({ baseUrl: 'http://127.0.0.1:7', uiToken: 'from-preload' }) };
    const storage = { getItem: () => null, setItem: () => {} };
    expect(await findCredentials({ hash: '', origin: 'x', pathname: '/', search: '' }, storage, () => {}, bridge)).toEqual({ baseUrl: 'http://127.0.0.1:7', uiToken: 'from-preload' });
    expect(tokenFromHash('#token=<script>')).toBeNull();
    expect(tokenFromHash('#token=short')).toBeNull();
  });
});

describe('case report', () => {
  const report: JobReport = {
    generatedAt: NOW,
    applicationId: '11111111-2222-4333-8444-555555555555',
    job: jobResult(),
    files: [{ fileId: FILE_ID, name: 'x', sha256: 'a'.repeat(64), modelVersion: 'veracity-detector@1.0.0' }],
  };

  it('carries hashes, verdicts, reviews and the model version, with every text escaped', () => {
    const html = caseReportHtml(buildCaseReport('<b>Case</b>', [report], new Date(NOW)));
    expect(html).toContain('a'.repeat(64));
    expect(html).toContain('veracity-detector@1.0.0');
    // The window's words for the verdict and checks, not the core's label ('Likely AI' here).
    expect(html).toContain('<strong>AI-generated</strong> (high confidence)');
    expect(html).toContain('AI-generation detector: Points to AI-generated · high confidence (score 91%)');
    expect(html).not.toContain('Likely AI');
    expect(html).toContain('Authentic</strong> by Ana &lt;i&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;.jpg');
    expect(html).not.toMatch(/<img|<script|<b>|<i>|<raw>/);
    expect(html).toContain("default-src 'none'");
  });

  it('makes a safe download name', () => {
    expect(reportFileName('../../etc/passwd', new Date(NOW), 'json')).toBe('veracity-report-etc-passwd-2026-11-21.json');
    expect(reportFileName(null, new Date(NOW), 'html')).toBe('veracity-report-case-2026-11-21.html');
  });
});

describe('heatmap', () => {
  it('places tiles as percentages of the analysed image, clipped to its edges', () => {
    const grid = {
      source: { kind: 'image' as const },
      width: 200,
      height: 100,
      tiles: [
        { x: 0, y: 0, w: 100, h: 100, score: 0.9 },
        { x: 150, y: 50, w: 100, h: 100, score: 0.1 },
      ],
    };
    // Cells are cut at every tile edge: the first tile spans two cells (edges at y = 50 from the second tile).
    expect(overlayTiles(grid).map(({ left, top, width, height, score }) => [left, top, width, height, score])).toEqual([
      [0, 0, 50, 50, 0.9],
      [0, 50, 50, 50, 0.9],
      [75, 50, 25, 50, 0.1],
    ]);
    // Overlapping tiles become cells with the mean score of the tiles covering them, not darker overlaps.
    const overlapping = {
      ...grid,
      tiles: [
        { x: 0, y: 0, w: 100, h: 100, score: 0.2 },
        { x: 50, y: 0, w: 100, h: 100, score: 0.8 },
      ],
    };
    expect(overlayTiles(overlapping).map(({ left, width, score }) => [left, width, Math.round(score * 100) / 100])).toEqual([
      [0, 25, 0.2],
      [25, 25, 0.5],
      [50, 25, 0.8],
    ]);
    expect(pickGrid([{ ...grid, source: { kind: 'pdf_page', page: 2 } }, grid])).toBe(grid);
    expect(pickGrid([])).toBeNull();
  });
});

describe('CaseSession', () => {
  it('lists a file the core refuses by index and resends the others of the request', async () => {
    const sent: string[][] = [];
    const fake = {
      assess: async (_key: string, files: { name: string }[]) => {
        sent.push(files.map((f) => f.name));
        if (files.some((f) => f.name === 'bad.jpg')) {
          const index = files.findIndex((f) => f.name === 'bad.jpg');
          throw new ApiFailure('http', 422, { code: 'unprocessable', message: 'cannot decode', details: { issues: [{ path: `file.${index}` }] } }, 'x');
        }
        return jobResult({ status: 'processing', completedAt: undefined }, files[0].name);
      },
      getJob: async () => jobResult(),
    } as unknown as ApiClient;
    const session = new CaseSession({ client: fake, keys: () => ({ images: { applicationId: 'a', apiKey: 'K' } }), pollIntervalMs: 5, sleep: async () => {} });
    const jpegBytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const mk = (name: string) => ({ file: new File([jpegBytes], name), path: name, caseName: 'C' });
    await session.submit([mk('a.jpg'), mk('bad.jpg'), mk('c.jpg'), { file: new File(['hello'], 'notes.txt'), path: 'notes.txt', caseName: 'C' }]);
    expect(sent).toEqual([
      ['a.jpg', 'bad.jpg', 'c.jpg'],
      ['a.jpg', 'c.jpg'],
    ]);
    const state = session.getState();
    expect(state.refused.map((r) => r.name)).toEqual(['notes.txt', 'bad.jpg']);
    expect(state.refused[1].reason).toBe('Cannot be analysed. Cannot decode.');
    expect(state.jobs).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(session.getState().jobs[0].job.status).toBe('completed');
    expect(progressOf(session.getState().jobs)).toEqual({ done: 1, total: 1 });
    session.clear();
  });
});

describe('CaseSession pending cards', () => {
  it('gives every dropped file a card at once, says sending then checking, keeps a refused file\'s card with its reason, and hands the rest to the job in drop order', async () => {
    const seen: string[][] = [];
    let session: CaseSession | null = null;
    const snapshot = () => seen.push(session!.getState().pending.map((p) => `${p.name}:${p.stage}`));
    const fake = {
      assess: async (_key: string, files: { name: string }[], _m: unknown, _i: string, options: { onSent?: () => void } = {}) => {
        snapshot();
        options.onSent?.();
        snapshot();
        const index = files.findIndex((f) => f.name === 'bad.jpg');
        if (index >= 0) throw new ApiFailure('http', 422, { code: 'unprocessable', message: 'cannot decode', details: { issues: [{ path: `file.${index}` }] } }, 'x');
        const job = jobResult({ status: 'processing', completedAt: undefined });
        return { ...job, results: files.map((f, i) => ({ ...job.results[0], status: 'processing', verdict: undefined, file: { ...job.results[0].file, id: `${FILE_ID.slice(0, -1)}${i}`, name: f.name } })) };
      },
      getJob: async () => jobResult(),
      getProgress: async () => ({ jobId: JOB_ID, files: [] }),
    } as unknown as ApiClient;
    session = new CaseSession({ client: fake, keys: () => ({ images: { applicationId: 'a', apiKey: 'K' } }), pollIntervalMs: 60_000, sleep: async () => {}, storage: null });
    const jpegBytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const mk = (name: string) => ({ file: new File([jpegBytes], name), path: name, caseName: 'C' });
    const submitted = session.submit([mk('a.jpg'), { file: new File(['hello'], 'notes.txt'), path: 'notes.txt', caseName: 'C' }, mk('bad.jpg'), mk('c.jpg')]);
    // At once, before any file is read: a card for every file, in drop order.
    expect(session.getState().pending.map((p) => `${p.name}:${p.stage}`)).toEqual(['a.jpg:sending', 'notes.txt:sending', 'bad.jpg:sending', 'c.jpg:sending']);
    await submitted;
    expect(seen).toEqual([
      ['a.jpg:sending', 'notes.txt:not_sent', 'bad.jpg:sending', 'c.jpg:sending'],
      ['a.jpg:checking', 'notes.txt:not_sent', 'bad.jpg:checking', 'c.jpg:checking'],
      ['a.jpg:sending', 'notes.txt:not_sent', 'bad.jpg:not_sent', 'c.jpg:sending'],
      ['a.jpg:checking', 'notes.txt:not_sent', 'bad.jpg:not_sent', 'c.jpg:checking'],
    ]);
    const state = session.getState();
    // The refused files keep their cards with the words of the "Not sent" list; the others are the job's now.
    expect(state.pending.map((p) => [p.name, p.stage, p.reason])).toEqual([
      ['notes.txt', 'not_sent', state.refused[0].reason],
      ['bad.jpg', 'not_sent', 'Cannot be analysed. Cannot decode.'],
    ]);
    const cards = withPending(caseFiles(state.jobs), state.pending, 'drop', 'all');
    expect(cards.map((c) => (c.kind === 'pending' ? c.pending.name : c.file.result.file.name))).toEqual(['a.jpg', 'notes.txt', 'bad.jpg', 'c.jpg']);
    expect(withPending(caseFiles(state.jobs), state.pending, 'drop', 'processing')).toHaveLength(2);
    session.clear();
    expect(session.getState().pending).toEqual([]);
  });
});

describe('CaseSession pending cards of a drop sent as several requests', () => {
  it('shows the files of a later request as waiting while the first is sent', async () => {
    const seen: string[][] = [];
    let session: CaseSession | null = null;
    const fake = {
      assess: async (_key: string, files: { name: string }[]) => {
        seen.push([...new Set(session!.getState().pending.map((p) => p.stage))]);
        const job = jobResult({ status: 'completed', jobId: crypto.randomUUID() });
        return { ...job, results: files.map((f) => ({ ...job.results[0], file: { ...job.results[0].file, id: crypto.randomUUID(), name: f.name } })) };
      },
    } as unknown as ApiClient;
    session = new CaseSession({ client: fake, keys: () => ({ images: { applicationId: 'a', apiKey: 'K' } }), pollIntervalMs: 60_000, sleep: async () => {}, storage: null });
    const jpegBytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const files = Array.from({ length: MAX_FILES_PER_REQUEST + 1 }, (_, i) => ({ file: new File([jpegBytes], `p${i}.jpg`), path: `p${i}.jpg`, caseName: 'C' }));
    await session.submit(files);
    expect(seen).toEqual([['sending', 'waiting'], ['sending']]);
    expect(session.getState().pending).toEqual([]);
    expect(session.getState().jobs).toHaveLength(2);
    session.clear();
  });
});

describe('CaseSession retries and re-assessment', () => {
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

  it('waits out a 503 and resends with the same Idempotency-Key, so a retry never makes a second job', async () => {
    const keys: string[] = [];
    const sleeps: number[] = [];
    let calls = 0;
    const fake = {
      assess: async (_k: string, _f: unknown, _m: unknown, idempotencyKey: string) => {
        keys.push(idempotencyKey);
        if (++calls === 1) throw new ApiFailure('http', 503, { code: 'service_unavailable', message: 'busy', retryAfter: 4 }, 'busy');
        return jobResult({ status: 'processing', completedAt: undefined }, 'a.jpg');
      },
      getJob: async () => jobResult({}, 'a.jpg'),
    } as unknown as ApiClient;
    let n = 0;
    const session = new CaseSession({
      client: fake,
      keys: () => ({ images: { applicationId: 'a', apiKey: 'K' } }),
      sleep: async (ms) => void sleeps.push(ms),
      newId: () => `idem-${++n}`,
      pollIntervalMs: 5,
    });
    await session.submit([{ file: new File([jpeg], 'a.jpg'), path: 'a.jpg', caseName: null }]);
    expect(keys).toEqual(['idem-1', 'idem-1']);
    expect(sleeps).toEqual([4000]);
    expect(session.getState().jobs).toHaveLength(1);
    expect(session.getState().notices).toEqual([]);
    session.clear();
  });

  it('gives up after repeated refusals with a notice naming the files', async () => {
    const fake = {
      assess: async () => {
        throw new ApiFailure('http', 401, { code: 'unauthorized', message: 'no' }, 'no');
      },
    } as unknown as ApiClient;
    const session = new CaseSession({ client: fake, keys: () => ({ images: { applicationId: 'a', apiKey: 'K' } }), sleep: async () => {} });
    await session.submit([{ file: new File([jpeg], 'x.jpg'), path: 'x.jpg', caseName: null }]);
    expect(session.getState().notices.map((n) => n.text)).toEqual([expect.stringMatching(/^Sending was refused: the access key was not accepted/)]);
    expect(session.getState().sending).toEqual([]);
  });

  it('assesses a stored file again from its original bytes, as a new job of the same case', async () => {
    const sent: { name: string; metadata: unknown; bytes: number }[] = [];
    const fake = {
      getContent: async () => new Blob([jpeg]),
      assess: async (_k: string, files: { name: string; blob: Blob }[], metadata: unknown) => {
        sent.push({ name: files[0].name, metadata, bytes: files[0].blob.size });
        return jobResult({ jobId: '9b0f0f8e-5a43-4c8b-9b1a-2d3e4f5a6b7c', status: 'processing', completedAt: undefined });
      },
      getJob: async () => jobResult({ jobId: '9b0f0f8e-5a43-4c8b-9b1a-2d3e4f5a6b7c' }),
    } as unknown as ApiClient;
    const session = new CaseSession({ client: fake, keys: () => ({}), pollIntervalMs: 5 });
    const tracked = { job: jobResult({ status: 'error' }), kind: 'images' as const, apiKey: 'K' };
    session.open([tracked]);
    await session.reassess(tracked, FILE_ID);
    expect(sent).toEqual([{ name: '<img src=x onerror=alert(1)>.jpg', metadata: { case: '<b>Case</b>' }, bytes: jpeg.length }]);
    expect(session.getState().jobs.map((t) => t.job.jobId)).toEqual([JOB_ID, '9b0f0f8e-5a43-4c8b-9b1a-2d3e4f5a6b7c']);
    session.clear();
  });
});

describe('CaseSession on a closed case', () => {
  it('sends no file into a closed case and says why; a dropped folder of another case still goes', async () => {
    const sent: { names: string[]; metadata: unknown }[] = [];
    const closedCase = { id: 'c-1', name: 'CLM-1 Closed', status: 'closed', notes: '', createdAt: NOW, updatedAt: NOW, fileCount: 1 };
    const fake = {
      getCase: async () => closedCase,
      caseJobs: async () => ({ jobs: [], pagination: { page: 1, pageSize: 100, total: 0, hasNextPage: false } }),
      assess: async (_key: string, files: { name: string }[], metadata: unknown) => {
        sent.push({ names: files.map((f) => f.name), metadata });
        return jobResult({ status: 'completed', jobId: crypto.randomUUID() });
      },
      getJob: async () => jobResult(),
    } as unknown as ApiClient;
    const session = new CaseSession({ client: fake, keys: () => ({ images: { applicationId: 'a', apiKey: 'K' } }), pollIntervalMs: 60_000, sleep: async () => {}, storage: null });
    await session.openCase('c-1');
    expect(session.getState().activeCase?.status).toBe('closed');
    const jpegBytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const loose = (name: string) => ({ file: new File([jpegBytes], name), path: name, caseName: null });
    await session.submit([loose('a.jpg'), loose('b.jpg')]);
    expect(sent).toEqual([]);
    expect(session.getState().pending).toEqual([]);
    expect(session.getState().notices.map((n) => n.text)).toEqual([
      'The case “CLM-1 Closed” is closed: 2 files were not added. Set its status to Open or In review to add files to it.',
    ]);
    await session.submit([loose('c.jpg'), { file: new File([jpegBytes], 'd.jpg'), path: 'CLM-2/d.jpg', caseName: 'CLM-2' }]);
    expect(sent.map((s) => s.names)).toEqual([['CLM-2/d.jpg']]);
    expect(sent[0].metadata).toEqual({ case: 'CLM-2' });
    expect(session.getState().notices.at(-1)?.text).toMatch(/^The case “CLM-1 Closed” is closed: 1 file was not added\./);
    session.clear();
  });
});
