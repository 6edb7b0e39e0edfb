// Worker processes started with the core (config.warmWorkers): each loads what its first file needs before that file
// arrives, so the first verdict after a start does not wait for the model (about 5 s on 2 cores). Real worker
// processes, the real model; the readings must be those of a process that loaded nothing ahead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { WorkerPool, WorkerTaskError } from '../../../src/jobs/worker-pool.js';
import { readManifest } from '../../../src/analysis/model-session.js';
import type { FileAnalysis } from '../../../src/analysis/index.js';
import { assessOverHttp, startCore, startListening, tempDir } from '../../api/helpers.js';
import { HAS_MODEL, makeJpeg, MODELS_DIR, textPdf } from '../analysis/fixtures.js';

const pools: WorkerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

function pool(warm: ConstructorParameters<typeof WorkerPool>[0]['warm'], size = 1): WorkerPool {
  const p = new WorkerPool({ size, name: 'warm-test', warm });
  pools.push(p);
  return p;
}

const analyse = (file: string, modelsDir = MODELS_DIR) => ({ op: 'analyse', path: file, mediaType: 'image/jpeg', modelsDir, threads: 1 }) as const;
/** What a person reads of a file's analysis (the detectors' scores, the verdict's inputs), without timings. */
const reading = (a: FileAnalysis) => JSON.parse(JSON.stringify(a, (k, v) => (/ms$|Ms$|duration/i.test(k) ? undefined : v)));

describe.skipIf(!HAS_MODEL)('analysis processes warmed up at start', () => {
  let dir: string;
  let photo: string;
  let version: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-warm-'));
    photo = path.join(dir, 'photo.jpg');
    fs.writeFileSync(photo, await makeJpeg(900, 600));
    const manifest = await readManifest(MODELS_DIR);
    version = `${manifest.name}@${manifest.version}`;
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a process started ahead of any file says it loaded the model; its first file reads exactly as in a process that loaded nothing ahead', { timeout: 180_000 }, async () => {
    const warm = pool({ modelsDir: MODELS_DIR, threads: 1 });
    expect(await warm.start()).toEqual([{ model: version }]);
    // asked again, the process already started is not started afresh: the same report
    expect(await warm.start()).toEqual([{ model: version }]);
    const warmed = await warm.run<FileAnalysis>(analyse(photo), 120_000);
    const cold = await pool(undefined).run<FileAnalysis>(analyse(photo), 120_000);
    expect(warmed.modelVersion).toBe(version);
    expect(reading(warmed)).toEqual(reading(cold));
  });

  it('a file that arrives while its process is still loading is taken at once and reads the same', { timeout: 180_000 }, async () => {
    const warm = pool({ modelsDir: MODELS_DIR, threads: 1 });
    const ready = warm.start();
    const started: number[] = [];
    const first = await warm.run<FileAnalysis>(analyse(photo), 120_000, { onStart: () => started.push(1) });
    expect(started).toHaveLength(1);
    expect(await ready).toEqual([{ model: version }]);
    const again = await warm.run<FileAnalysis>(analyse(photo), 120_000);
    expect(reading(first)).toEqual(reading(again));
  });

  it('without an installed model the process says why and stays up: files then fail as they do without a warm-up (result_unavailable), probes still answer', { timeout: 120_000 }, async () => {
    const empty = tempDir('veracity-nomodel-');
    const warm = pool({ modelsDir: empty, threads: 1 });
    const [report] = await warm.start();
    expect(report).toEqual({ error: expect.stringMatching(/not installed/) });
    const failure = await warm.run(analyse(photo, empty), 60_000).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WorkerTaskError);
    expect(failure).toMatchObject({ reason: 'failed', code: 'result_unavailable' });
    const probe = await warm.run<{ ok: boolean; width?: number }>({ op: 'probe', path: photo, sniffed: { mediaType: 'image/jpeg', kind: 'images' } }, 60_000);
    expect(probe).toMatchObject({ ok: true, width: 900 });
    fs.rmSync(empty, { recursive: true, force: true });
  });

  it('a probe process is warmed without the model (pdf.js loaded): it reports no model and reads a PDF', { timeout: 120_000 }, async () => {
    const pdf = path.join(dir, 'text.pdf');
    fs.writeFileSync(pdf, textPdf());
    const probes = pool({});
    expect(await probes.start()).toEqual([{ model: null }]);
    expect(await probes.run({ op: 'probe', path: pdf, sniffed: { mediaType: 'application/pdf', kind: 'pdfs' } }, 60_000)).toMatchObject({ ok: true, pages: 1 });
  });

  it("a process that stops before it is ready, or is stopped by the pool's close, is reported so", { timeout: 60_000 }, async () => {
    const broken = new WorkerPool({ size: 1, name: 'warm-test', warm: {}, entry: path.join(dir, 'no-such-entry.mjs') });
    pools.push(broken);
    const [report] = await broken.start();
    expect(report).toEqual({ error: expect.stringMatching(/stopped before it was ready \(exit 1\)/) });
    // and one stopped by the pool's close while it loads is reported, not left waiting
    const closing = pool({ modelsDir: MODELS_DIR, threads: 1 });
    const ready = closing.start();
    await closing.close();
    expect(await ready).toEqual([{ error: expect.stringMatching(/stopped before it was ready/) }]);
  });

  it('a core started with warmWorkers has its first analysis process and its probe process ready before a file is sent; its first verdict is as without', { timeout: 240_000 }, async () => {
    const core = await startCore({ modelsDir: MODELS_DIR, warmWorkers: true, analysisWorkers: 2 });
    const warmed = await core.desktop!.warmedUp;
    // the first analysis process only: the second starts with the files that need it, not beside the first one's file
    expect(warmed).toEqual({ analysis: [{ model: version }], probe: [{ model: null }] });
    const plain = await startCore({ modelsDir: MODELS_DIR });
    expect(await plain.desktop!.warmedUp).toEqual({ analysis: [], probe: [] });
    const answers = [];
    for (const c of [core, plain]) {
      const job = await assessOverHttp(await startListening(c), c.imagesKey, [{ name: 'photo.jpg', data: fs.readFileSync(photo), type: 'image/jpeg' }]);
      expect(job.results[0]?.status).toBe('completed');
      answers.push({ verdict: job.results[0]?.verdict, dimensions: job.results[0]?.dimensions });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]?.verdict?.assessment).toBeTruthy();
  });
});

describe('config: warmWorkers', () => {
  it('is on unless VERACITY_WARM_WORKERS says 0 or false; another value stops the start, named', () => {
    const dataDir = tempDir();
    expect(loadConfig({ dataDir }, {}).warmWorkers).toBe(true);
    expect(loadConfig({ dataDir }, { VERACITY_WARM_WORKERS: '0' }).warmWorkers).toBe(false);
    expect(loadConfig({ dataDir }, { VERACITY_WARM_WORKERS: 'false' }).warmWorkers).toBe(false);
    expect(loadConfig({ dataDir }, { VERACITY_WARM_WORKERS: '1' }).warmWorkers).toBe(true);
    expect(() => loadConfig({ dataDir }, { VERACITY_WARM_WORKERS: 'maybe' })).toThrow(/warmWorkers/);
  });
});
