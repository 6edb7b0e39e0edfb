// The artefact network's second runner in a thread of its own (tile-thread.ts): with one ONNX thread (each of the
// desktop's two analysis processes) a lone file's tiles were scored on one core while the other waited. The thread
// shares the tiles with the analysis thread; the scores must be exactly those of the analysis thread alone, and a
// thread that cannot start or dies costs time, never a score. The real model, real pictures.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisError, analyseFile } from '../../../src/analysis/index.js';
import { THREAD_QUEUE, gridOrigins, sampleIndices, scoreImage, scoreTiles } from '../../../src/analysis/ai-detection.js';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { closeModel, getModel, type LoadedModel, sessionOptions } from '../../../src/analysis/model-session.js';
import {
  CLAIMED_HERE,
  TILE_THREAD_RESTARTS,
  TileBatchTakenBack,
  lastingTileThread,
  startTileThread,
  type TileClaim,
  type TileThread,
} from '../../../src/analysis/tile-thread.js';
import { HAS_MODEL, MODELS_DIR, REPO, makeJpeg, tempDir } from './fixtures.js';

const tmp = tempDir();
afterAll(async () => {
  await closeModel();
  tmp.cleanup();
});

const MODEL_FILE = join(MODELS_DIR, 'veracity-detector', 'model.onnx');
const PORTRAIT = join(REPO, 'test', 'fixtures', 'portraits', 'official-portrait-910x1137.jpg');

/** The model as loaded, without its tile thread: the analysis thread scores every tile. */
const alone = (m: LoadedModel): LoadedModel => ({ ...m, tileThread: undefined });
/**
 * 64 tiles of a picture sampled as scoreImage samples them: eight batches, so that both threads take several (the
 * heatmap's own sample is the 32 tiles behind the score from 1.6.2, too few batches to show how they are shared).
 */
const manyOrigins = (m: LoadedModel, width: number, height: number): Array<[number, number]> => {
  const grid = gridOrigins(width, height, m.manifest.input.tileSize, m.manifest.tiling.stride);
  return sampleIndices(grid.length, 64).map((i) => grid[i]);
};
const spec = (m: LoadedModel) => ({ inputName: m.manifest.input.name, outputName: m.manifest.output.name, tileSize: m.manifest.input.tileSize, options: sessionOptions(1) });

describe.skipIf(!HAS_MODEL)('the tile thread', () => {
  it('with one ONNX thread the model has a tile thread, which scores some of the tiles: every score exactly as the analysis thread alone gives it', async () => {
    const m = await getModel(MODELS_DIR, 1);
    expect(m.tileThread).toBeDefined();
    const img = await decodeImageBuffer(readFileSync(tmp.write('big.jpg', await makeJpeg(2400, 1800))), 'image/jpeg');
    const origins = manyOrigins(m, img.width, img.height);
    expect(origins.length).toBe(64); // several batches
    let batchesThere = 0;
    const counting: TileThread = { run: (input, count) => (batchesThere++, m.tileThread!.run(input, count)), close: () => undefined };
    const shared = await scoreTiles({ ...m, tileThread: counting }, img, origins);
    expect(batchesThere).toBeGreaterThan(0);
    expect(shared).toEqual(await scoreTiles(alone(m), img, origins));
    // the whole score and heatmap too (the content models run on this thread meanwhile)
    const portrait = await decodeImageBuffer(readFileSync(PORTRAIT), 'image/jpeg');
    expect(await scoreImage(m, portrait, { kind: 'image' })).toEqual(await scoreImage(alone(m), portrait, { kind: 'image' }));
  });

  it('batches handed to the thread ahead of time that it has not begun are taken back by the analysis thread when it runs out of its own: each batch is run once, every score as the analysis thread alone gives it', async () => {
    const m = await getModel(MODELS_DIR, 1);
    const img = await decodeImageBuffer(readFileSync(tmp.write('big4.jpg', await makeJpeg(2400, 1800))), 'image/jpeg');
    const origins = manyOrigins(m, img.width, img.height);
    let handed = 0;
    let takenBack = 0;
    let ranThere = 0;
    // a thread that gets its first batch at once and every later one only once the analysis thread, out of its own,
    // has taken it back (as a thread still busy with a long batch would)
    const claimedHere = async (claim: TileClaim) => {
      while (Atomics.load(claim.claims, claim.index) !== CLAIMED_HERE) await new Promise((r) => setTimeout(r, 10));
    };
    const late: TileThread = {
      run: (input, count, claim) => {
        expect(claim).toBeDefined();
        return (handed++ === 0 ? Promise.resolve() : claimedHere(claim!)).then(() =>
          m.tileThread!.run(input, count, claim).then(
            (out) => (ranThere++, out),
            (err: unknown) => {
              if (err instanceof TileBatchTakenBack) takenBack++;
              throw err;
            },
          ),
        );
      },
      close: () => undefined,
    };
    expect(await scoreTiles({ ...m, tileThread: late }, img, origins)).toEqual(await scoreTiles(alone(m), img, origins));
    expect(ranThere).toBe(1);
    expect(takenBack).toBeGreaterThanOrEqual(THREAD_QUEUE - 1); // run here instead
    expect(ranThere + takenBack).toBe(handed); // and none twice
  });

  it('with as many ONNX threads as cores there is no tile thread (the sessions already use every core)', async () => {
    const m = await getModel(MODELS_DIR, availableParallelism());
    expect(m.tileThread).toBeUndefined();
    await closeModel();
  });

  it('a tile thread that is gone while the tiles are scored leaves its batches to the analysis thread: the same scores', async () => {
    const m = await getModel(MODELS_DIR, 1);
    const img = await decodeImageBuffer(readFileSync(tmp.write('big2.jpg', await makeJpeg(2400, 1800))), 'image/jpeg');
    const origins = manyOrigins(m, img.width, img.height);
    const thread = await startTileThread(new Uint8Array(readFileSync(MODEL_FILE)), spec(m));
    let runs = 0;
    const dying: TileThread = {
      run: (input, count) => {
        const r = thread!.run(input, count);
        if (++runs === 1) thread!.close(); // closed with its first batch in flight
        return r;
      },
      close: () => thread!.close(),
    };
    expect(await scoreTiles({ ...m, tileThread: dying }, img, origins)).toEqual(await scoreTiles(alone(m), img, origins));
    // the batch in flight was finished (a thread is never stopped inside onnxruntime's run: that can end the process);
    // the others handed over with it (THREAD_QUEUE in all) and the next one found the thread gone, were run here, and
    // this thread took the rest
    expect(runs).toBe(THREAD_QUEUE + 1);
    await expect(thread!.run(new Float32Array(3 * 192 * 192), 1)).rejects.toThrow(/the tile thread is closed/);
  });

  it('a tile thread that dies is started afresh for the files after it, a few times at most; every score as the analysis thread alone gives it', async () => {
    const m = await getModel(MODELS_DIR, 1);
    const img = await decodeImageBuffer(readFileSync(tmp.write('big3.jpg', await makeJpeg(2400, 1800))), 'image/jpeg');
    const origins = manyOrigins(m, img.width, img.height);
    const expected = await scoreTiles(alone(m), img, origins);
    const bytes = new Uint8Array(readFileSync(MODEL_FILE));
    // a thread that gets ready and then dies at its first batch (as a crash or an out-of-memory end would take it)
    const dies = tmp.write('dying-worker.mjs', "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage({ type: 'ready' });\nparentPort.on('message', () => process.exit(3));\n");
    let freshBatches = 0;
    const fresh = async (): Promise<TileThread | null> => {
      const t = await startTileThread(bytes, spec(m));
      return t && { run: (input, count) => (freshBatches++, t.run(input, count)), close: () => t.close(), gone: () => t.gone!() };
    };
    const lasting = lastingTileThread((await startTileThread(bytes, spec(m), dies))!, fresh);
    // the file during which it dies: its batches are scored here, and a fresh thread is asked for at once
    expect(await scoreTiles({ ...m, tileThread: lasting }, img, origins)).toEqual(expected);
    expect(lasting.restarts()).toBe(1);
    await lasting.settled();
    // the next file: the fresh thread takes batches again
    expect(await scoreTiles({ ...m, tileThread: lasting }, img, origins)).toEqual(expected);
    expect(freshBatches).toBeGreaterThan(0);
    expect(lasting.restarts()).toBe(1);
    lasting.close();
    await expect(lasting.run(new Float32Array(3 * 192 * 192), 1)).rejects.toThrow(/the tile thread is closed/);

    // a thread that dies at every batch is started afresh TILE_THREAD_RESTARTS times, then no more: the tiles stay here
    const alwaysDying = lastingTileThread((await startTileThread(bytes, spec(m), dies))!, () => startTileThread(bytes, spec(m), dies));
    for (let i = 0; i < TILE_THREAD_RESTARTS + 2; i++) {
      expect(await scoreTiles({ ...m, tileThread: alwaysDying }, img, origins)).toEqual(expected);
      await alwaysDying.settled();
    }
    expect(alwaysDying.restarts()).toBe(TILE_THREAD_RESTARTS);
    alwaysDying.close();
  });

  it('a thread that cannot start, a network that does not load in it, or a thread that never gets ready gives no tile thread; the analysis goes on', async () => {
    const m = await getModel(MODELS_DIR, 1);
    expect(await startTileThread(new Uint8Array(readFileSync(MODEL_FILE)), spec(m), join(REPO, 'no-such-entry.mjs'))).toBeNull();
    expect(await startTileThread(new Uint8Array(Buffer.from('not an onnx model')), spec(m))).toBeNull();
    // a thread that starts but never gets its network ready is given up in time (here 0.5 s; 60 s in the product)
    const stuck = tmp.write('stuck-worker.mjs', 'setInterval(() => undefined, 1000);\n');
    expect(await startTileThread(new Uint8Array(readFileSync(MODEL_FILE)), spec(m), stuck, 500)).toBeNull();
    const r = await analyseFile(tmp.write('small.jpg', await makeJpeg(640, 480)), 'image/jpeg', { modelsDir: MODELS_DIR });
    expect(r.verdict.dimensions.find((d) => d.key === 'ai_detection')).toBeDefined();
  });

  it('a batch the network refuses in the thread fails the file in onnxruntime\'s words (result_unavailable), as on the analysis thread', async () => {
    const m = await getModel(MODELS_DIR, 1);
    const t = await startTileThread(new Uint8Array(readFileSync(MODEL_FILE)), spec(m));
    const img = await decodeImageBuffer(readFileSync(tmp.write('mid.jpg', await makeJpeg(1200, 900))), 'image/jpeg');
    // a thread whose network takes tiles of another size: every batch it runs is refused
    const wrong: TileThread = { run: (input, count) => t!.run(input.subarray(0, input.length / 2).slice(), count), close: () => t!.close() };
    const err = await scoreTiles({ ...m, tileThread: wrong }, img, manyOrigins(m, img.width, img.height)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnalysisError);
    expect((err as AnalysisError).code).toBe('result_unavailable');
    expect((err as AnalysisError).message).toMatch(/^the detector model failed to run: /);
    t!.close();
  });
});
