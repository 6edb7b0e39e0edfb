// The face finder in its own thread (face-finder-thread.ts): onnxruntime-node runs the networks synchronously on the
// analysis process's main thread, so the finder's WebAssembly waited for them there; in a worker thread it runs while
// they do. The same code and cascade read the same faces; its failures still cost only their own file. The real
// finder, the shipped cascade, real photos (test/fixtures/portraits/README.md).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisError } from '../../../src/analysis/index.js';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import type { FaceFinderParams } from '../../../src/analysis/face-finder.js';
import { loadFaceFinderThread } from '../../../src/analysis/face-finder-thread.js';
import { ModelManifest } from '../../../src/analysis/model-manifest.js';
import { closeModel, faceFinderParams, getModel } from '../../../src/analysis/model-session.js';
import { tilt } from '../../../models/training/tilt.js';
import { failed, lifted, strip } from './face-finder-strips.js';
import { HAS_MODEL, MODELS_DIR, REPO } from './fixtures.js';

const FIXTURES = join(REPO, 'test', 'fixtures');
const SELFIE = join(FIXTURES, 'portraits', 'phone-selfie-640x480.jpg');
const OFFICIAL = join(FIXTURES, 'portraits', 'official-portrait-910x1137.jpg');
const CHART = join(FIXTURES, 'capture', 'kodak-dc280-896x592.jpg');
const SHIPPED_DIR = join(MODELS_DIR, 'veracity-detector');
const manifest = (): ModelManifest => ModelManifest.parse(JSON.parse(readFileSync(join(SHIPPED_DIR, 'manifest.json'), 'utf8')));
const cascade = () => readFileSync(join(SHIPPED_DIR, manifest().portraits!.finder.file));
const shipped = (): FaceFinderParams => faceFinderParams(manifest().portraits!.finder, manifest().portraits!.minFace);
const jpeg = (path: string) => decodeImageBuffer(readFileSync(path), 'image/jpeg');
const openCvInThisThread = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('opencv-js'));

afterAll(() => closeModel());

describe.skipIf(!HAS_MODEL)('the face finder in its own thread', () => {
  it('the product loads its finder into a thread of its own: OpenCV never starts on the analysis thread, and the readings are those the calibration was made with', async () => {
    expect(openCvInThisThread()).toBe(false);
    const model = await getModel(MODELS_DIR, 1);
    const selfie = await jpeg(SELFIE);
    const reading = await model.faces!.find(selfie);
    expect(reading.faces).toBe(1);
    expect(reading.largest).toBeGreaterThan(0.3);
    expect((await model.faces!.find(await jpeg(OFFICIAL))).largest).toBeGreaterThan(0.2);
    expect(await model.faces!.find(await jpeg(CHART))).toEqual({ faces: 0, largest: 0, centre: null });
    // a camera held 20 degrees off level: a turned look in the thread finds the portrait the upright look misses
    const tilted = await tilt(selfie, 20);
    const turned = await model.faces!.find(tilted);
    expect(turned.largest).toBeGreaterThanOrEqual(0.15);
    expect(turned.angle).toBe(-25);
    // the upright look alone, then the turned looks when asked for: together exactly find()'s reading
    const upright = await model.faces!.lookUpright(tilted);
    expect(upright.reading.largest).toBeLessThan(0.15);
    expect(await upright.turn!()).toEqual(turned);
    // a portrait found upright: no turned look to make
    const straight = await model.faces!.lookUpright(selfie);
    expect(straight.turn).toBeNull();
    expect(straight.reading).toEqual(await model.faces!.find(selfie));
    // several pictures at once (a PDF's images, a worker's next file): each gets its own reading
    const [a, b, c] = await Promise.all([model.faces!.find(selfie), model.faces!.find(await jpeg(CHART)), model.faces!.find(selfie)]);
    expect([a, b, c]).toEqual([reading, { faces: 0, largest: 0, centre: null }, reading]);
    expect(openCvInThisThread()).toBe(false);
  });

  it('a look at which OpenCV fails (a trap or a C++ exception) fails that file only, in the finder\'s own words; the next selfie is found by the same finder', async () => {
    const finder = await loadFaceFinderThread(cascade(), { ...shipped(), search: undefined }, lifted);
    const selfie = await jpeg(SELFIE);
    const before = await finder.find(selfie);
    const err = await finder.find(strip(200_000, 20)).catch((e: unknown) => e);
    expect(failed(err)).toBe(true);
    // in the thread's fresh runtime this look traps ("memory access out of bounds"); in a runtime other looks have
    // used, OpenCV throws instead ("Insufficient memory"): either way the finder's own words, and the runtime or the
    // cascade is given up and a fresh one serves the next file (face-finder.ts)
    expect((err as Error).message).toMatch(/Insufficient memory|memory access out of bounds/);
    expect(await finder.find(selfie)).toEqual(before);
    expect(await finder.find(selfie)).toEqual(before);
    finder.close();
  });

  it('a cascade OpenCV cannot read is refused when the finder is loaded, by name', async () => {
    const err = await loadFaceFinderThread(Buffer.from('<opencv_storage></opencv_storage>'), shipped()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnalysisError);
    expect((err as AnalysisError).code).toBe('result_unavailable');
    expect((err as AnalysisError).message).toMatch(/cascade does not load/);
  });

  it('a cancelled analysis stops waiting for its look at once; the finder goes on serving the next file; a closed finder refuses', async () => {
    const finder = await loadFaceFinderThread(cascade(), shipped());
    const selfie = await jpeg(SELFIE);
    const ctl = new AbortController();
    const pending = finder.find(selfie, ctl.signal);
    const reason = new Error('the job was cancelled');
    ctl.abort(reason);
    expect(await pending.catch((e: unknown) => e)).toBe(reason);
    expect((await finder.find(selfie)).largest).toBeGreaterThan(0.3);
    finder.close();
    await expect(finder.find(selfie)).rejects.toMatchObject({ code: 'internal_error' });
  });

  it('where no worker thread can start, the finder runs on the calling thread instead: the same readings', async () => {
    const selfie = await jpeg(SELFIE);
    const threaded = await loadFaceFinderThread(cascade(), shipped());
    const fallback = await loadFaceFinderThread(cascade(), shipped(), undefined, join(REPO, 'no-such-entry.mjs'));
    expect(await fallback.find(selfie)).toEqual(await threaded.find(selfie));
    expect(await fallback.find(await jpeg(CHART))).toEqual({ faces: 0, largest: 0, centre: null });
    threaded.close();
    fallback.close();
  });
});
