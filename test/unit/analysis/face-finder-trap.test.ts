// A look at which OpenCV's WebAssembly runtime traps costs only its own file (face-finder.ts: the runtime is given up
// and a fresh one started). In a file of its own: the trap needs a runtime in the state this sequence of looks leaves
// it in, and other tests' looks in the same runtime turn it into a C++ exception instead (portraits.test.ts tests
// that kind). The real finder, the shipped cascade, a real selfie.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { loadFaceFinder, type FaceFinderParams } from '../../../src/analysis/face-finder.js';
import { ModelManifest } from '../../../src/analysis/model-manifest.js';
import { failed, lifted, strip } from './face-finder-strips.js';
import { HAS_MODEL, MODELS_DIR, REPO } from './fixtures.js';

const SHIPPED_DIR = join(MODELS_DIR, 'veracity-detector');
const SELFIE = join(REPO, 'test', 'fixtures', 'portraits', 'phone-selfie-640x480.jpg');

describe.skipIf(!HAS_MODEL)('the face finder after OpenCV traps', () => {
  it('a look at which OpenCV traps ("memory access out of bounds") fails that file only: the finder starts a fresh runtime and the next selfie is found', async () => {
    const spec = ModelManifest.parse(JSON.parse(readFileSync(join(SHIPPED_DIR, 'manifest.json'), 'utf8'))).portraits!.finder;
    const { search: _s, searchNeighbors: _n, ...upright }: FaceFinderParams = spec;
    const xml = readFileSync(join(SHIPPED_DIR, spec.file));
    const finder = await loadFaceFinder(xml, upright, lifted);
    const opencv = () => createRequire(import.meta.url)('@techstark/opencv-js') as object;
    const trapped = opencv(); // the runtime the finder was loaded into
    const selfie = await decodeImageBuffer(readFileSync(SELFIE), 'image/jpeg');
    expect(await finder.find(strip(10_954, 91))).toMatchObject({ largest: expect.any(Number) });
    const err = await finder.find(strip(200_000, 20)).catch((e: unknown) => e);
    expect(failed(err)).toBe(true);
    expect((err as Error).message).toMatch(/memory access out of bounds/);
    expect((await finder.find(selfie)).largest).toBeGreaterThan(0.3);
    // its heap is not trusted after a trap: the selfie was looked at in a fresh instance of OpenCV
    expect(opencv() === trapped).toBe(false); // (compared as a boolean: printing the module would exhaust memory)
    // and a finder loaded after it works on the fresh runtime too
    const next = await loadFaceFinder(xml, upright);
    expect((await next.find(selfie)).largest).toBeGreaterThan(0.3);
    finder.close();
    next.close();
  });
});
