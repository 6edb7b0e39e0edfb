// Jobs: creation (atomic with idempotency and the queueing of its files), the queue bound, completion events for
// wait=true, and recovery after a restart. Heavy work goes to the worker pools (src/jobs/analysis-runner.ts); this
// module only orchestrates, through the storage interfaces of src/db/stores.ts.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { PreviewImage } from '../analysis/index.js';
import type { ExpertReview, FileRegions, JobList, JobProgress, JobReport, JobResult, MediaType, RegionGrid, RegionRequest, RegionTiles } from '../api/schemas.js';
import { trustAnchorsFileOf, type CoreConfig } from '../config/config.js';
import type { BlobStore, FileRecord, FileStages, JobEvents, JobsStore, NewFile, WorkQueue } from '../db/stores.js';
import { ForeignApplication, IdempotencyConflict, InvalidRegion, JobVanished, NotFound, PreviewUnavailable, QueueFull, TilesUnavailable } from '../api/domain-errors.js';
import { REGION_TILES_MAX } from '../api/limits.js';
import { modelTiling } from '../analysis/index.js';
import { originsInRect } from '../api/tile-grid.js';
import { assembleCaseReport, type CaseReportScope, type ReportPicture, type ReportRowsAt, type ReportSource } from './case-report-data.js';
import { createAnalysisRunner } from './analysis-runner.js';
import { caseIdForName } from './case-service.js';
import { toJobListEntry, toJobResult } from './job-result.js';
import { WorkerTaskError, type WorkerPool } from './worker-pool.js';

/** A file fully received, flushed to a temp path and accepted by the probe. */
export interface ReceivedFile {
  tmpPath: string;
  name: string;
  size: number;
  mediaType: MediaType;
  sha256: string;
}

export interface Submission {
  applicationId: string;
  files: ReceivedFile[];
  metadataJson: string | null;
  caseName: string | null;
  idempotency: { key: string; fingerprint: string } | null;
}

export type SubmitOutcome = { kind: 'created'; jobId: string } | { kind: 'replayed'; jobId: string };

type ListQuery = { applicationId: string; caseName: string | null; page: number; pageSize: number };

/** Answers kept for polls (terminal jobs) and list pages: a few hundred, the oldest dropped first. */
const ANSWERS_KEPT = 256;

/** The app's version as shipped (package.json), printed in case reports. */

/** Long side of the previews the core serves and keeps (src/analysis PREVIEW_MAX_SIDE). */
const PREVIEW_SIDE = 2048;

/** A picture of a stored file made by the core, as served by GET .../preview. */
/** A case report: its data, where the report process gets it, and the picture of each of its files, made when asked for. */
export interface CollectedReport {
  /** The name the download is given after. */
  caseName: string | null;
  /** Where the report process gets the report's data: the rows it reads itself, or the data read here (NotFound when its jobs are gone). */
  source(): Promise<ReportSource>;
  picture(fileId: string, mediaType: MediaType): Promise<ReportPicture | null>;
}

export interface FilePreview {
  mediaType: 'image/png' | 'image/jpeg';
  data: Buffer;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

/** Freezes an answer kept for reuse, so that no caller can change what the next caller gets. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function keep<K, V>(map: Map<K, V>, key: K, value: V): V {
  if (map.size >= ANSWERS_KEPT) map.delete(map.keys().next().value as K);
  map.set(key, value);
  return value;
}

export interface JobServiceDeps {
  /** Jobs, files, idempotency records; a job whose metadata names a case joins it (made if missing). */
  store: JobsStore;
  blobs: BlobStore;
  queue: WorkQueue;
  events: JobEvents;
  /**
   * The database a report process opens (SQLite read-only, or PostgreSQL) to read a case's rows itself, off the event
   * loop; absent, the rows are read here and handed to it.
   */
  reportRows?: ReportRowsAt;
  /** The pool that analyses this node's files; with `analyse: false` (an API node of a team server) none run here. */
  pool: WorkerPool;
  analyse?: boolean;
  modelsDir: string;
  trustAnchorsFile?: string | null;
  threadsPerWorker: number;
  fileTimeoutMs: number;
  queueMaxFiles: number;
  idempotencyTtlMs: number;
  maxWaiters: number;
  /**
   * Keep finished jobs' answers and list pages between requests (default true). Right only where this service makes
   * every write to the jobs (the desktop); an API node beside others must pass false.
   */
  keepAnswers?: boolean;
  /** The stages recorded by the nodes analysing files (a team API node, which analyses none itself). */
  stages?: FileStages;
  /** Where previews are made (interactive: the probe pool, not the analysis queue); the analysis pool when absent. */
  previewPool?: WorkerPool;
  previewTimeoutMs?: number;
  now?: () => Date;
  log?: { error: (obj: object, msg: string) => void; info: (obj: object, msg: string) => void };
}

/** Why a stored file gives no preview, by how its worker task ended; absent: not the file's doing (500 or 503). */
const PREVIEW_FAILURES: Partial<Record<WorkerTaskError['reason'] | 'internal', string>> = {
  failed: 'its picture cannot be decoded',
  timeout: 'drawing it took longer than allowed',
  memory: 'drawing it needed more memory than allowed',
  crashed: 'the process drawing it stopped',
};

/** Why the tiles of a region cannot be scored, by how the worker task ended ('model': its own message says). */
const TILE_FAILURES: Partial<Record<WorkerTaskError['reason'] | 'internal', string>> = {
  failed: 'model',
  timeout: 'scoring them took longer than allowed',
  memory: 'scoring them needed more memory than allowed',
  crashed: 'the process scoring them stopped',
};

/** The job service's bounds as the configuration sets them: the same for the desktop core and a team API node. */
export function jobServiceSettings(config: CoreConfig) {
  return {
    previewTimeoutMs: config.probeTimeoutMs,
    modelsDir: config.modelsDir,
    trustAnchorsFile: trustAnchorsFileOf(config),
    threadsPerWorker: config.threadsPerWorker,
    fileTimeoutMs: config.fileTimeoutMs,
    queueMaxFiles: config.queueMaxFiles,
    idempotencyTtlMs: config.idempotencyTtlMs,
    maxWaiters: config.maxWaiters,
  } satisfies Partial<JobServiceDeps>;
}

export function createJobService(d: JobServiceDeps) {
  const now = d.now ?? (() => new Date());
  const jobsRepo = d.store.jobs;
  const keepAnswers = d.keepAnswers ?? true;
  let waiters = 0;
  const wakeOnShutdown = new Set<() => void>();
  // Keys are kept 24 h (DECISIONS 14): expired records are ignored at once and pruned hourly.
  /**
   * This service writes every job row (the CLI writes keys only, and one core owns a data dir: it sweeps the data
   * dir's temp files at start). So a terminal job's result, and a page of the list, stay what they were until this
   * service writes again: polls of a finished job and repeated list pages are answered from here, frozen, which
   * lets the server reuse their checked JSON too (src/server/route-schemas.ts). Any job write forgets the pages;
   * a job's own writes (a review, its last file finishing) forget its result.
   */
  const terminalResults = new Map<string, { applicationId: string; result: JobResult }>();
  const listPages = new Map<string, { version: number; list: JobList }>();
  let jobsVersion = 0;
  const jobsChanged = (jobId: string) => {
    jobsVersion++;
    terminalResults.delete(jobId);
  };
  const runner =
    d.analyse === false
      ? null
      : createAnalysisRunner({
          store: d.store,
          blobs: d.blobs,
          queue: d.queue,
          events: d.events,
          pool: d.pool,
          modelsDir: d.modelsDir,
          trustAnchorsFile: d.trustAnchorsFile,
          threadsPerWorker: d.threadsPerWorker,
          fileTimeoutMs: d.fileTimeoutMs,
          changed: jobsChanged,
          now,
          log: d.log,
        });
  const pruneTimer = setInterval(() => {
    jobsRepo.pruneIdempotency(now().getTime() - d.idempotencyTtlMs).catch((err: unknown) => d.log?.error({ err }, 'could not prune idempotency records'));
  }, 3_600_000);
  pruneTimer.unref();

  /** Room for `n` more files: the bound counts every file queued or under analysis (every node's), from the store. */
  async function queueHasRoom(n: number): Promise<boolean> {
    return (await jobsRepo.countProcessingFiles()) + n <= d.queueMaxFiles;
  }

  async function getJob(jobId: string): Promise<JobResult | undefined> {
    const found = await jobsRepo.getJobWithFiles(jobId);
    return found && toJobResult(found.job, found.files);
  }

  /**
   * The kept answer for a finished job of the caller's, without awaiting anything (the poll route answers from it in
   * the turn the request arrived); undefined when none is kept. Same refusal as getOwnedJob for another's job.
   */
  function keptJob(applicationId: string, jobId: string): JobResult | undefined {
    const kept = terminalResults.get(jobId);
    if (!kept) return undefined;
    if (kept.applicationId !== applicationId) throw new NotFound('job');
    return kept.result;
  }

  /** A job of the caller's application; another application's job is indistinguishable from none (DECISIONS 12). */
  async function getOwnedJob(applicationId: string, jobId: string): Promise<JobResult> {
    const kept = keptJob(applicationId, jobId);
    if (kept) return kept;
    const version = jobsVersion;
    const found = await jobsRepo.getJobWithFiles(jobId);
    if (!found || found.job.applicationId !== applicationId) throw new NotFound('job');
    const result = toJobResult(found.job, found.files);
    // Kept only if no write happened while it was read.
    if (keepAnswers && result.status !== 'processing' && version === jobsVersion) keep(terminalResults, jobId, { applicationId, result: deepFreeze(result) });
    return result;
  }

  /** A job just written by this service (submit, review): its absence is a fault, not the caller's. */
  async function readBack(jobId: string): Promise<JobResult> {
    const job = await getJob(jobId);
    if (!job) throw new JobVanished(jobId);
    return job;
  }

  async function getOwnedFile(applicationId: string, jobId: string, fileId: string): Promise<FileRecord> {
    await getOwnedJobRecord(applicationId, jobId);
    const file = await jobsRepo.getFile(jobId, fileId);
    if (!file) throw new NotFound('file');
    return file;
  }

  async function getOwnedJobRecord(applicationId: string, jobId: string) {
    const job = await jobsRepo.getJob(jobId);
    if (!job || job.applicationId !== applicationId) throw new NotFound('job');
    return job;
  }

  const listKey = (q: ListQuery) => `${q.applicationId}\n${q.page}\n${q.pageSize}\n${q.caseName ?? ''}\n${q.caseName === null ? 0 : 1}`;

  /** The kept page, when nothing was written since it was read, without awaiting anything (as keptJob). */
  function keptJobList(callerApplicationId: string, q: ListQuery): JobList | undefined {
    if (q.applicationId !== callerApplicationId) throw new ForeignApplication();
    const kept = listPages.get(listKey(q));
    return kept && kept.version === jobsVersion ? kept.list : undefined;
  }

  /**
   * One page of an application's jobs, newest first. A page beyond the last is empty; the offset is only used when it
   * is below the total, so SQLite never sees it overflow.
   */
  async function listJobs(callerApplicationId: string, q: ListQuery): Promise<JobList> {
    const kept = keptJobList(callerApplicationId, q);
    if (kept) return kept;
    const key = listKey(q);
    const version = jobsVersion;
    const total = await jobsRepo.countJobs(q.applicationId, q.caseName);
    const totalPages = Math.ceil(total / q.pageSize);
    const offset = (q.page - 1) * q.pageSize;
    const jobs = offset >= total ? [] : await jobsRepo.listJobs(q.applicationId, q.caseName, q.pageSize, offset);
    const list: JobList = {
      jobs: jobs.map(toJobListEntry),
      pagination: { page: q.page, pageSize: q.pageSize, total, totalPages, hasNextPage: q.page < totalPages },
    };
    // Kept only if no write happened while it was read (a stale page would otherwise be kept as current).
    if (!keepAnswers || version !== jobsVersion) return list;
    return keep(listPages, key, { version, list: deepFreeze(list) }).list;
  }

  /** Stores (or, with null, removes) the expert review of one file of the caller's job; returns the job. */
  async function reviewFile(applicationId: string, jobId: string, fileId: string, review: ExpertReview | null): Promise<JobResult> {
    await getOwnedFile(applicationId, jobId, fileId);
    await setReview(jobId, fileId, review);
    return readBack(jobId);
  }

  async function fileRegions(applicationId: string, jobId: string, fileId: string): Promise<FileRegions> {
    const file = await getOwnedFile(applicationId, jobId, fileId);
    return { fileId: file.id, modelVersion: file.modelVersion, aggregation: file.aggregation, grids: (await jobsRepo.getFileRegions(jobId, fileId)) ?? [] };
  }

  // ---- Tiles of a region, scored on demand for the viewer (issue 22) ----

  /** One scoring at a time per file: a second request for the same region waits and finds the first one's tiles. */
  const tilesUnderWay = new Map<string, Promise<unknown>>();

  /**
   * Every tile of the file's grid `req.grid` that overlaps the rectangle, scored: the analysis' own, those kept from
   * earlier requests, and the rest scored now in a worker (the interactive pool, the analysis' model) and kept in the
   * file's row. Refusals (a rectangle outside the picture, too many tiles, a grid that is not a photo) store nothing.
   */
  async function regionTiles(applicationId: string, jobId: string, fileId: string, req: RegionRequest): Promise<RegionTiles> {
    const file = await getOwnedFile(applicationId, jobId, fileId);
    const grids = (await jobsRepo.getFileRegions(jobId, fileId)) ?? [];
    const grid = grids[req.grid];
    if (!grid) throw new InvalidRegion('grid', grids.length ? `The file has ${grids.length} scored picture(s): grid must be below ${grids.length}.` : 'The file has no scored picture.');
    if (grid.source.kind !== 'image') throw new InvalidRegion('grid', 'Tiles on demand are scored for images only, not for the pictures of a PDF.');
    if (req.x + req.width > grid.width) throw new InvalidRegion(req.x >= grid.width ? 'x' : 'width', `The rectangle goes past the picture's width (${grid.width} pixels).`);
    if (req.y + req.height > grid.height) throw new InvalidRegion(req.y >= grid.height ? 'y' : 'height', `The rectangle goes past the picture's height (${grid.height} pixels).`);
    let tiling: { tileSize: number; stride: number };
    try {
      tiling = await modelTiling(d.modelsDir);
    } catch (err) {
      throw new TilesUnavailable((err as Error).message.replace(/\.$/, ''));
    }
    const wanted = originsInRect(grid.width, grid.height, tiling.tileSize, tiling.stride, req);
    if (wanted.length > REGION_TILES_MAX) {
      throw new InvalidRegion('width', `The rectangle covers ${wanted.length} tiles; at most ${REGION_TILES_MAX} are scored per request: ask for a smaller one.`);
    }
    const previous = tilesUnderWay.get(file.id) ?? Promise.resolve();
    const work = previous.catch(() => undefined).then(() => scoreMissing(file, req.grid, grid, tiling, wanted));
    tilesUnderWay.set(file.id, work);
    try {
      const { tiles, scoredNow } = await work;
      return { fileId: file.id, grid: req.grid, width: grid.width, height: grid.height, ...tiling, modelVersion: file.modelVersion, tiles, scoredNow };
    } finally {
      if (tilesUnderWay.get(file.id) === work) tilesUnderWay.delete(file.id);
    }
  }

  async function scoreMissing(
    file: FileRecord,
    gridIndex: number,
    grid: RegionGrid,
    tiling: { tileSize: number; stride: number },
    wanted: Array<[number, number]>,
  ): Promise<{ tiles: RegionGrid['tiles']; scoredNow: number }> {
    const key = (x: number, y: number): string => `${x},${y}`;
    const known = new Map<string, number>();
    // The analysis' own tiles are whole tiles for a picture at least a tile on each side (the only kind that has others).
    for (const t of grid.tiles) if (t.w === tiling.tileSize && t.h === tiling.tileSize) known.set(key(t.x, t.y), t.score);
    const kept = (await jobsRepo.getTileScores(file.jobId, file.id)) ?? [];
    for (const t of kept) if (t.grid === gridIndex) known.set(key(t.x, t.y), t.score);
    const missing = wanted.filter(([x, y]) => !known.has(key(x, y)));
    if (missing.length > 0) {
      if (!(await d.blobs.exists(file.id))) throw new NotFound('stored file');
      let scores: number[];
      try {
        scores = await d.blobs.withLocalFile(file.id, (path) =>
          (d.previewPool ?? d.pool).run<number[]>(
            { op: 'tiles', path, mediaType: file.mediaType, modelsDir: d.modelsDir, threads: d.threadsPerWorker, origins: missing },
            d.fileTimeoutMs,
          ),
        );
      } catch (err) {
        if (!(err instanceof WorkerTaskError)) throw err;
        const why = TILE_FAILURES[err.reason === 'failed' && err.code === 'internal_error' ? 'internal' : err.reason];
        if (!why) throw err;
        // A refusal of the worker (no model, a picture that no longer decodes) says why in its own words.
        throw new TilesUnavailable(why === 'model' ? err.message.replace(/\.$/, '') : why);
      }
      const fresh = missing.map(([x, y], i) => ({ grid: gridIndex, x, y, score: Math.round(scores[i] * 1e6) / 1e6 }));
      for (const t of fresh) known.set(key(t.x, t.y), t.score);
      // A failed write only costs the next request the same scoring.
      try {
        await jobsRepo.putTileScores(file.jobId, file.id, [...kept, ...fresh]);
      } catch (err) {
        d.log?.error({ err, fileId: file.id }, 'could not keep the tiles scored for the viewer');
      }
    }
    const tiles = wanted.map(([x, y]) => ({ x, y, w: tiling.tileSize, h: tiling.tileSize, score: known.get(key(x, y))! }));
    return { tiles, scoredNow: missing.length };
  }

  /** The stored original of one file of the caller's job, for download: opened here, so a missing one is a 404. */
  async function storedFile(
    applicationId: string,
    jobId: string,
    fileId: string,
  ): Promise<{ stream: Readable; name: string; mediaType: MediaType; size: number }> {
    const file = await getOwnedFile(applicationId, jobId, fileId);
    let stream: Readable;
    try {
      stream = await d.blobs.openRead(file.id);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFound('stored file');
      throw err;
    }
    return { stream, name: file.name, mediaType: file.mediaType, size: file.size };
  }

  /** Everything a case report needs: the job, plus each file's SHA-256 and model version. */
  async function report(applicationId: string, jobId: string): Promise<JobReport> {
    const job = await getOwnedJob(applicationId, jobId);
    return {
      generatedAt: now().toISOString(),
      applicationId,
      job,
      files: (await jobsRepo.getFiles(jobId)).map((f) => ({ fileId: f.id, name: f.name, sha256: f.sha256, modelVersion: f.modelVersion })),
    };
  }

  /** Each file's stage: queued, decoding, analysing (while work runs, from the workers), then done or error. */
  async function progress(applicationId: string, jobId: string): Promise<JobProgress> {
    await getOwnedJobRecord(applicationId, jobId);
    const files = await jobsRepo.getFiles(jobId);
    const processing = files.filter((f) => f.status === 'processing').map((f) => f.id);
    const shared = d.stages && processing.length ? await d.stages.get(processing) : undefined;
    return {
      jobId,
      files: files.map((f) => {
        if (f.status !== 'processing') return { fileId: f.id, stage: f.status === 'completed' ? 'done' : 'error', startedAt: f.startedAt };
        const running = runner?.stageOf(f.id) ?? shared?.get(f.id);
        return { fileId: f.id, stage: running?.stage ?? 'queued', startedAt: running?.startedAt ?? null };
      }),
    };
  }

  // ---- Previews and case reports (issue 13) ----

  const previewsUnderWay = new Map<string, Promise<FilePreview>>();

  /**
   * The picture of a stored file: made once in a worker process (never on this event loop: the original may be
   * hostile), then kept beside the stored file (0600, removed with it) and read from there. Two requests at once
   * share one decode. Measured on a 12-megapixel HEIC: 1.3-1.5 s to make, under 2 ms to read back.
   */
  async function preview(file: { id: string; mediaType: MediaType }): Promise<FilePreview> {
    const data = await d.blobs.readPreview(file.id);
    if (data) return { mediaType: data.subarray(0, 4).equals(PNG_SIGNATURE) ? 'image/png' : 'image/jpeg', data };
    const under = previewsUnderWay.get(file.id);
    if (under) return under;
    const made = makePreview(file.id, file.mediaType).finally(() => previewsUnderWay.delete(file.id));
    previewsUnderWay.set(file.id, made);
    return made;
  }

  async function makePreview(fileId: string, mediaType: MediaType): Promise<FilePreview> {
    const pool = d.previewPool ?? d.pool;
    const made = await d.blobs.withLocalFile(fileId, (path) =>
      pool.run<PreviewImage>({ op: 'preview', path, mediaType, maxSide: PREVIEW_SIDE }, d.previewTimeoutMs ?? d.fileTimeoutMs),
    );
    // Across the process boundary a Buffer arrives as a plain Uint8Array.
    const data = Buffer.from(made.data.buffer, made.data.byteOffset, made.data.byteLength);
    // A failed write only costs the next request a decode.
    try {
      await d.blobs.putPreview(fileId, data);
    } catch (err) {
      d.log?.error({ err, fileId }, 'could not keep a preview');
    }
    return { mediaType: made.mediaType, data };
  }

  /**
   * The preview of one file of the caller's job. A file that gives no picture (refused by the decoder, past its time
   * or memory, or fatal to its worker) is PreviewUnavailable; the core's own faults stay internal errors.
   */
  async function filePreview(applicationId: string, jobId: string, fileId: string): Promise<FilePreview> {
    const file = await getOwnedFile(applicationId, jobId, fileId);
    if (!(await d.blobs.exists(file.id))) throw new NotFound('stored file');
    try {
      return await preview(file);
    } catch (err) {
      const why = err instanceof WorkerTaskError ? PREVIEW_FAILURES[err.reason === 'failed' && err.code !== 'unprocessable' ? 'internal' : err.reason] : undefined;
      if (!why) throw err;
      d.log?.info({ fileId: file.id, err: (err as Error).message }, 'no preview of this file');
      throw new PreviewUnavailable(why);
    }
  }

  /**
   * A case report of these jobs: where the report process reads its rows itself (or its data, gathered here when it
   * cannot), with each file's picture made when asked for. Throws NotFound for no jobs.
   */
  async function collectCaseReport(of: CaseReportScope['of'], jobIds: string[], leaveOut: ReadonlySet<string> = new Set()): Promise<CollectedReport> {
    if (jobIds.length === 0) throw new NotFound('job');
    const scope: CaseReportScope = { of, jobIds, leaveOut: [...leaveOut] };
    const report = async () => {
      const assembled = await assembleCaseReport(jobsRepo, scope);
      if (!assembled) throw new NotFound('job');
      return assembled;
    };
    // Pictures are made when the PDF asks for them, one at a time (never for the JSON, never all held at once). A
    // preview kept as a file on this machine is named, not read: the report process reads it. One made for the report
    // is kept first (as GET .../preview keeps it), then named the same way; its bytes go to the process only where the
    // store keeps no local files.
    const picture = async (fileId: string, mediaType: MediaType): Promise<ReportPicture | null> => {
      if (!(await d.blobs.exists(fileId))) return null;
      const kept = d.blobs.previewFile?.(fileId);
      const isKept = async () => !!kept && (await fs.promises.stat(kept).then((st) => st.isFile(), () => false));
      if (kept && (await isKept())) return { path: kept };
      try {
        const made = await preview({ id: fileId, mediaType });
        return kept && (await isKept()) ? { path: kept } : { data: made.data };
      } catch (err) {
        d.log?.info({ fileId, err: (err as Error).message }, 'no picture of this file for the case report');
        return null;
      }
    };
    return {
      caseName: of.caseName,
      source: async () => (d.reportRows ? { ...d.reportRows, scope } : { kind: 'report', report: await report() }),
      picture,
    };
  }

  /** The case report of one job of the caller's application. */
  async function jobCaseReport(applicationId: string, jobId: string): Promise<CollectedReport> {
    const job = await getOwnedJobRecord(applicationId, jobId);
    return collectCaseReport({ caseId: null, caseName: job.caseName }, [job.id]);
  }

  /**
   * Creates the job (or finds the one an idempotency key already made). Files are moved into the store and the
   * job, its files and its idempotency record are committed in one transaction before this returns.
   */
  async function submit(s: Submission): Promise<SubmitOutcome> {
    const nowMs = now().getTime();
    const existing = s.idempotency && (await jobsRepo.findIdempotency(s.applicationId, s.idempotency.key, nowMs - d.idempotencyTtlMs));
    if (existing) return replayOrConflict(existing.fingerprint, existing.jobId, s);
    if (!(await queueHasRoom(s.files.length))) throw new QueueFull();

    const jobId = crypto.randomUUID();
    const createdAt = now().toISOString();
    const newFiles: NewFile[] = s.files.map((f, i) => ({
      id: crypto.randomUUID(),
      position: i,
      name: f.name,
      size: f.size,
      mediaType: f.mediaType,
      sha256: f.sha256,
    }));
    const moves = newFiles.map((f, i) => ({ tmpPath: s.files[i].tmpPath, fileId: f.id }));
    await d.blobs.put(moves);
    let outcome: SubmitOutcome;
    try {
      outcome = await d.store.withTransaction(async (tx): Promise<SubmitOutcome> => {
        // Re-checked inside the transaction: a concurrent request with the same key may have committed meanwhile.
        const raced = s.idempotency && (await tx.jobs.findIdempotency(s.applicationId, s.idempotency.key, nowMs - d.idempotencyTtlMs));
        if (raced) return replayOrConflict(raced.fingerprint, raced.jobId, s);
        const caseId = s.caseName === null ? null : await caseIdForName(tx.cases, s.caseName, createdAt);
        await tx.jobs.insertJob({ id: jobId, applicationId: s.applicationId, metadataJson: s.metadataJson, caseName: s.caseName, caseId, createdAt }, newFiles);
        jobsChanged(jobId);
        tx.onCommit(() => jobsChanged(jobId));
        if (s.idempotency) {
          await tx.jobs.insertIdempotency({ applicationId: s.applicationId, key: s.idempotency.key, fingerprint: s.idempotency.fingerprint, jobId, createdAtMs: nowMs });
        }
        // The files are queued with the job: both or neither.
        await d.queue.enqueue(
          tx,
          newFiles.map((f) => ({ fileId: f.id, jobId, mediaType: f.mediaType })),
        );
        return { kind: 'created', jobId };
      });
    } catch (err) {
      await d.blobs.removeFiles(newFiles.map((f) => f.id));
      throw err;
    }
    if (outcome.kind === 'replayed') await d.blobs.removeFiles(newFiles.map((f) => f.id));
    return outcome;
  }

  function replayOrConflict(fingerprint: string, jobId: string, s: Submission): SubmitOutcome {
    if (fingerprint !== s.idempotency!.fingerprint) throw new IdempotencyConflict();
    return { kind: 'replayed', jobId };
  }

  /** True if a live (unexpired) idempotency record exists: the upload then skips probing. */
  async function hasIdempotencyRecord(applicationId: string, key: string): Promise<boolean> {
    return !!(await jobsRepo.findIdempotency(applicationId, key, now().getTime() - d.idempotencyTtlMs));
  }

  /** Resolves when the job is terminal, `ms` elapsed, or `signal` aborted (client gone). Woken by completion events. */
  async function waitForTerminal(jobId: string, ms: number, signal?: AbortSignal): Promise<void> {
    const job = await jobsRepo.getJob(jobId);
    if (!job || job.status !== 'processing' || ms <= 0) return;
    if (waiters >= d.maxWaiters) return; // answer at once rather than hold another socket
    waiters++;
    try {
      await new Promise<void>((resolve) => {
        let settled = false;
        const done = () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          wakeOnShutdown.delete(done);
          unsubscribe();
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        const unsubscribe = d.events.onFinished(jobId, done);
        wakeOnShutdown.add(done);
        signal?.addEventListener('abort', done, { once: true });
        // The job may have finished between the read above and the subscription.
        jobsRepo.getJob(jobId).then(
          (j) => j?.status !== 'processing' && done(),
          () => done(),
        );
      });
    } finally {
      waiters--;
    }
  }

  async function setReview(jobId: string, fileId: string, review: ExpertReview | null): Promise<boolean> {
    const ok = await d.store.withTransaction(async (tx) => {
      const set = await tx.jobs.setReview(jobId, fileId, review);
      if (set) await tx.jobs.touchJob(jobId, now().toISOString());
      jobsChanged(jobId);
      return set;
    });
    jobsChanged(jobId);
    return ok;
  }

  /**
   * After a restart: sweep this node's leftovers, put this node's interrupted work back in the queue, then start
   * taking work. A file whose stored original is gone, or that used up its attempts, ends in error when taken.
   */
  async function recover(): Promise<{ requeued: number; swept: { tmp: number; orphans: number } }> {
    const swept = await d.blobs.sweepLeftovers(() => jobsRepo.allFileIds());
    await jobsRepo.pruneIdempotency(now().getTime() - d.idempotencyTtlMs);
    const requeued = await d.queue.recover();
    runner?.start();
    return { requeued, swept };
  }

  /** Resolves when no file taken by this node is under analysis or being recorded (tests, graceful shutdown). */
  function whenIdle(): Promise<void> {
    return runner ? runner.whenIdle() : Promise.resolve();
  }

  /** Answers every waiting request with the job's current state and stops background timers. */
  function shutdown(): void {
    runner?.stop();
    clearInterval(pruneTimer);
    for (const done of [...wakeOnShutdown]) done();
  }

  return {
    shutdown,
    submit,
    getJob,
    readBack,
    getOwnedJob,
    keptJob,
    listJobs,
    keptJobList,
    reviewFile,
    fileRegions,
    regionTiles,
    storedFile,
    report,
    progress,
    filePreview,
    collectCaseReport,
    jobCaseReport,
    waitForTerminal,
    setReview,
    recover,
    whenIdle,
    queueHasRoom,
    hasIdempotencyRecord,
  };
}
export type JobService = ReturnType<typeof createJobService>;
