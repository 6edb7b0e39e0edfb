// Portraits (issue 21, veracity-detector 1.5.0): the detector's scores run higher on real portraits than on other
// photographs, so a picture whose largest face spans at least the manifest's `portraits.minFace` of its shorter side
// is read against thresholds calibrated on portraits. The real face finder (OpenCV's Haar cascade in WebAssembly, the
// shipped cascade), the real model, real photos of people (test/fixtures/portraits/README.md).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectorReading } from '../../../src/api/detector-bands.js';
import { AnalysisError, analyseFile, closeAnalysis } from '../../../src/analysis/index.js';
import { decodeImageBuffer } from '../../../src/analysis/decode-image.js';
import { EARLY_LOOK_GUESS, groupCanMatter, groupMattersFrom, thresholdGroup } from '../../../src/analysis/detectors/ai-detection.js';
import { firstGuess, semanticLogitOf } from '../../../src/analysis/ai-detection.js';
import { greyForFaces, loadFaceFinder, MAX_FACE_ASPECT, MAX_GREY_PIXELS, MAX_TURNED_PIXELS, turnGrey, type FaceFinderParams } from '../../../src/analysis/face-finder.js';
import { FINDING_COPY } from '../../../src/analysis/copy.js';
import { ModelManifest } from '../../../src/analysis/model-manifest.js';
import { faceFinderParams, getModel } from '../../../src/analysis/model-session.js';
import { FFHQ_FRAMING, ffhqFramed } from '../../../src/analysis/face-framing.js';
import sharp from 'sharp';
import { HAS_MODEL, MODELS_DIR, REPO, makeJpeg, pdfWithJpeg, tempDir } from './fixtures.js';
// a camera held off level, turned as the calibration's tilted validation and face_tilt.ts turn pictures
import { tilt } from '../../../models/training/tilt.js';
import { failed, lifted, strip } from './face-finder-strips.js';

const FIXTURES = join(REPO, 'test', 'fixtures');
const SELFIE = join(FIXTURES, 'portraits', 'phone-selfie-640x480.jpg');
const OFFICIAL = join(FIXTURES, 'portraits', 'official-portrait-910x1137.jpg');
const CHART = join(FIXTURES, 'capture', 'kodak-dc280-896x592.jpg');
const SHIPPED_DIR = join(MODELS_DIR, 'veracity-detector');

const tmp = tempDir();
afterAll(async () => {
  await closeAnalysis();
  tmp.cleanup();
});

const shippedManifest = (): ModelManifest => ModelManifest.parse(JSON.parse(readFileSync(join(SHIPPED_DIR, 'manifest.json'), 'utf8')));
/** The shipped finder as the product loads it (model-session.ts): turned looks when no face reaches a portrait's size. */
const shippedFinderParams = (): FaceFinderParams => {
  const m = shippedManifest();
  return faceFinderParams(m.portraits!.finder, m.portraits!.minFace);
};
/** The same finder without its turned looks: the upright look alone (1.5.0). */
const uprightParams = (): FaceFinderParams => {
  const { search: _s, searchNeighbors: _n, ...upright } = shippedManifest().portraits!.finder;
  return upright;
};
const asRgb = ({ data, info }: { data: Buffer; info: { width: number; height: number } }) => ({ width: info.width, height: info.height, data });

describe.skipIf(!HAS_MODEL)('the face finder (OpenCV Haar cascade, the shipped cascade and parameters)', () => {
  it('finds the face of a phone selfie and of an official portrait, and none on a colour chart; starting OpenCV leaves the process error handlers as they were', async () => {
    const spec = shippedManifest().portraits!.finder;
    const handlers = [process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')];
    const finder = await loadFaceFinder(readFileSync(join(SHIPPED_DIR, spec.file)), spec);
    // OpenCV's Emscripten glue adds an 'unhandledRejection' handler that aborts its runtime: it must not stay
    expect([process.listenerCount('uncaughtException'), process.listenerCount('unhandledRejection')]).toEqual(handlers);
    const read = async (path: string) => finder.find(await decodeImageBuffer(readFileSync(path), 'image/jpeg'));
    const selfie = await read(SELFIE);
    expect(selfie.faces).toBe(1);
    expect(selfie.largest).toBeGreaterThan(0.3); // a selfie: the face fills much of the frame
    expect((await read(OFFICIAL)).largest).toBeGreaterThan(0.2);
    expect(await read(CHART)).toEqual({ faces: 0, largest: 0, centre: null });
    // the same reading every time (the calibration's tags were made by this code)
    expect(await read(SELFIE)).toEqual(selfie);
  });

  it('pictures of extreme proportions are not looked at (they broke OpenCV for every later file); up to 8:1 every look, upright or turned, stays within its pixel bound', async () => {
    const spec = shippedFinderParams();
    expect(spec.search?.length).toBeGreaterThan(0); // the shipped finder turns pictures where the upright look finds no portrait
    const finder = await loadFaceFinder(readFileSync(join(SHIPPED_DIR, shippedManifest().portraits!.finder.file)), spec);
    const flat = (width: number, height: number) => ({ width, height, data: Buffer.alloc(width * height * 3, 128) });
    // this run of strips ended in "memory access out of bounds" in OpenCV's WebAssembly heap, after which every look
    // failed, the selfie's included; now they are read as pictures without a portrait, and the finder keeps working
    for (const [w, h] of [[6000, 320], [12000, 320], [20000, 320], [400_000, 40], [60_000, 500], [500, 60_000]]) {
      expect(w / h > MAX_FACE_ASPECT || h / w > MAX_FACE_ASPECT).toBe(true);
      expect(await finder.find(flat(w, h)), `${w}x${h}`).toEqual({ faces: 0, largest: 0, centre: null });
    }
    expect((await finder.find(await decodeImageBuffer(readFileSync(SELFIE), 'image/jpeg'))).largest).toBeGreaterThan(0.3);
    // the longest picture still looked at: 8:1, its grey look and every turned look within bounds
    const long = flat(8 * 400, 400);
    const grey = await greyForFaces(long, spec.shortSide);
    expect([grey.width, grey.height]).toEqual([2560, 320]);
    expect(grey.width * grey.height).toBeLessThanOrEqual(MAX_GREY_PIXELS);
    for (const angle of spec.search!) {
      const { turned, base } = await turnGrey(grey, angle);
      expect(turned.width * turned.height, `${angle}`).toBeLessThanOrEqual(MAX_TURNED_PIXELS);
      expect(base.width / base.height).toBeCloseTo(8, 0); // brought down whole, proportions kept
    }
    expect(await finder.find(long)).toEqual({ faces: 0, largest: 0, centre: null });
    // a picture of ordinary proportions is turned as it is (the calibration's tags were made so)
    expect((await turnGrey({ width: 427, height: 320, data: Buffer.alloc(427 * 320, 100) }, 25)).scale).toBe(1);
  });

  it('turned looks (the shipped finder.search) find a selfie tilted 20 or 30 degrees or turned on its side, which the upright look misses; the centre comes back in the upright picture; none finds a face on a colour chart', async () => {
    const spec = shippedManifest().portraits!.finder;
    // 1.5.1 and 1.6.0 ship turned looks at -25, 25, 90 and 270 degrees, asking 8 neighbours of a face in them (the upright look 5)
    expect(spec).toMatchObject({ search: [-25, 25, 90, 270], searchNeighbors: 8, minNeighbors: 5 });
    const upright = await loadFaceFinder(readFileSync(join(SHIPPED_DIR, spec.file)), uprightParams());
    const searching = await loadFaceFinder(readFileSync(join(SHIPPED_DIR, spec.file)), shippedFinderParams());
    const img = await decodeImageBuffer(readFileSync(SELFIE), 'image/jpeg');
    const raw = () => sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } });
    // a camera held 20 degrees off level one way, 30 the other: the turned picture's centre at the original size
    const tilted = await tilt(img, 20);
    expect((await upright.find(tilted)).largest).toBeLessThan(0.15);
    const t = await searching.find(tilted);
    expect(t.largest).toBeGreaterThanOrEqual(0.15);
    expect(t.angle).toBe(-25);
    const other = await tilt(img, -30);
    expect((await upright.find(other)).largest).toBeLessThan(0.15);
    expect(await searching.find(other)).toMatchObject({ angle: 25 });
    expect((await searching.find(other)).largest).toBeGreaterThanOrEqual(0.15);
    // on its side (a stripped orientation tag): found by the 270-degree look, its centre where the face is in it
    const u = await upright.find(img);
    const side = asRgb(await raw().rotate(90).raw().toBuffer({ resolveWithObject: true }));
    expect((await upright.find(side)).largest).toBeLessThan(0.15);
    const s = await searching.find(side);
    expect(s.angle).toBe(270);
    expect(s.largest).toBeCloseTo(u.largest, 1);
    // turning 90 degrees clockwise takes the point (x, y) of the upright picture to (1 - y, x)
    expect(s.centre![0]).toBeCloseTo(1 - u.centre![1], 1);
    expect(s.centre![1]).toBeCloseTo(u.centre![0], 1);
    // an upright face is read as before: no turned look is made, no angle is reported
    expect(await searching.find(img)).toEqual(u);
    // turned looks can ask more of a face than the upright one (finder.searchNeighbors): asked 50 neighbours they find
    // nothing in the tilted selfie, while the upright look keeps its own 5
    const strict = await loadFaceFinder(readFileSync(join(SHIPPED_DIR, spec.file)), { ...shippedFinderParams(), searchNeighbors: 50 });
    expect((await strict.find(tilted)).largest).toBeLessThan(0.15);
    expect(await strict.find(img)).toEqual(u);
    expect(await searching.find(await decodeImageBuffer(readFileSync(CHART), 'image/jpeg'))).toEqual({ faces: 0, largest: 0, centre: null });
    // FFHQ's faces are aligned upright: a face only a turned look found is never framed as GAN faces are
    expect(ffhqFramed(1024, 1024, { faces: 1, largest: 0.65, centre: [0.5, 0.545], angle: 25 })).toBe(false);
  });

  it('a cascade OpenCV cannot read is refused by name', async () => {
    const spec = shippedManifest().portraits!.finder;
    const err = await loadFaceFinder(Buffer.from('<opencv_storage></opencv_storage>'), spec).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnalysisError);
    expect((err as AnalysisError).code).toBe('result_unavailable');
    expect((err as AnalysisError).message).toMatch(/cascade does not load/);
  });

  // The finder's bounds (MAX_FACE_ASPECT, MAX_GREY_PIXELS) keep the looks known to break OpenCV away from it; this
  // lifts them to reach such a look for real (face-finder-trap.test.ts reaches the other kind, a WebAssembly trap). It
  // must cost only its own file: before the finder gave up a failed cascade, every later look in the process failed,
  // a selfie's included.
  it('a look at which OpenCV throws (its cascade then asked 2.6 GB at every later look) fails that file only: the next selfie is found', async () => {
    const spec = shippedManifest().portraits!.finder;
    const finder = await loadFaceFinder(readFileSync(join(SHIPPED_DIR, spec.file)), uprightParams(), lifted);
    const selfie = await decodeImageBuffer(readFileSync(SELFIE), 'image/jpeg');
    const before = await finder.find(selfie);
    expect(before.largest).toBeGreaterThan(0.3);
    const err = await finder.find(strip(200_000, 20)).catch((e: unknown) => e);
    expect(failed(err)).toBe(true);
    expect((err as Error).message).toMatch(/Insufficient memory/); // OpenCV's own words, not a pointer
    expect(await finder.find(selfie)).toEqual(before);
    expect(await finder.find(selfie)).toEqual(before);
  });
});

describe('threshold groups', () => {
  const m = ModelManifest.parse({
    ...JSON.parse(readFileSync(join(SHIPPED_DIR, 'manifest.json'), 'utf8')),
  });
  it('a face of at least minFace of the shorter side makes a portrait, read against the portrait thresholds and calibration; anything less, or no face check, the rest', () => {
    const p = m.portraits!;
    const at = thresholdGroup(m, { faces: 1, largest: p.minFace, centre: [0.5, 0.5] });
    expect(at.portrait).toBe(true);
    expect(at.thresholds).toEqual(p.thresholds);
    expect(at.calibration).toMatchObject({ pixelsDecide: m.calibration!.pixelsDecide, realAtHighAi: p.calibration.realAtHighAi });
    const below = thresholdGroup(m, { faces: 3, largest: p.minFace - 0.0001, centre: [0.5, 0.5] });
    expect(below.portrait).toBe(false);
    expect(below.thresholds).toEqual(m.thresholds);
    expect(thresholdGroup(m, null).thresholds).toEqual(m.thresholds);
    expect(thresholdGroup({ ...m, portraits: undefined }, { faces: 1, largest: 0.9, centre: [0.5, 0.5] }).portrait).toBe(false);
    // what the split is for: the portraits' bar to an accusation is the higher one
    expect(p.thresholds.highAi).toBeGreaterThan(m.thresholds.highAi);
  });

  it('the group can change a reading only where the two groups\' thresholds read a score differently, or where it is a high-AI reading (which quotes its group\'s calibration): the turned looks are made only there', () => {
    const rest = m.thresholds;
    const p = m.portraits!.thresholds;
    // the shipped thresholds: both groups read every score up to the rest's highAi alike
    for (const s of [0, 0.1, rest.highAuthentic, 0.5, rest.highAi]) {
      expect(detectorReading(s, rest)).toEqual(detectorReading(s, p));
      expect(groupCanMatter(m, s), `${s}`).toBe(false);
    }
    for (const s of [rest.highAi + 1e-6, (rest.highAi + p.highAi) / 2, p.highAi, 0.99, 1]) expect(groupCanMatter(m, s), `${s}`).toBe(true);
    expect(groupCanMatter({ ...m, portraits: undefined }, 0.99)).toBe(false);
    // a floor from which every score can depend on the group (the turned looks can start before the score is known)
    expect(groupMattersFrom(m, rest.highAi + 1e-6)).toBe(true);
    expect(groupMattersFrom(m, rest.highAi)).toBe(false);
    expect(groupMattersFrom(m, 0.5)).toBe(false);
    // thresholds that differ at the authentic end too: there the group matters at low scores, and not in between
    const low = { ...p, highAuthentic: 0.1, inconclusiveBand: [0.1, p.highAi] as [number, number] };
    const m2 = { ...m, portraits: { ...m.portraits!, thresholds: low } };
    expect(groupCanMatter(m2, 0.15)).toBe(true);
    expect(groupCanMatter(m2, 0.05)).toBe(false);
    expect(groupMattersFrom(m2, 0.15)).toBe(false); // the scores between the two highAuthentic and the rest's highAi do not
  });

  it('a portrait found in a turned look says how the picture was turned, in plain words; an upright one says nothing of it', () => {
    const facts = { faceShare: 0.3, highAi: 0.95, otherHighAi: 0.83 };
    expect(FINDING_COPY['pixels.portrait'](facts)).toMatch(/^A face spans 30% of the picture's shorter side, so it is read as a portrait/);
    expect(FINDING_COPY['pixels.portrait']({ ...facts, faceAngle: -25 })).toMatch(/^A face \(found with the picture turned 25 degrees anticlockwise: a tilted camera or a lost orientation tag\) spans 30%/);
    expect(FINDING_COPY['pixels.portrait']({ ...facts, faceAngle: 25 })).toContain('turned 25 degrees clockwise');
    expect(FINDING_COPY['pixels.portrait']({ ...facts, faceAngle: 270 })).toContain('turned 90 degrees anticlockwise');
    expect(FINDING_COPY['pixels.portrait']({ ...facts, faceAngle: 90 })).toContain('turned 90 degrees clockwise');
  });

  it('the schema refuses a finder that looks only for faces larger than a portrait, naming the field', () => {
    const bad = { ...m, portraits: { ...m.portraits!, finder: { ...m.portraits!.finder, minFace: 0.3 } } };
    const r = ModelManifest.safeParse(bad);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toEqual(['portraits', 'finder', 'minFace']);
  });

  it('the schema takes turned looks for the finder, and refuses an upright one among them, naming the field', () => {
    const withSearch = (search: number[]) => ({ ...m, portraits: { ...m.portraits!, finder: { ...m.portraits!.finder, search } } });
    expect(ModelManifest.parse(withSearch([-25, 25, 90, 270])).portraits!.finder.search).toEqual([-25, 25, 90, 270]);
    const r = ModelManifest.safeParse(withSearch([25, 0]));
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toEqual(['portraits', 'finder', 'search', 1]);
    // the turned looks' neighbours only with turned looks
    const { search: _none, ...upright } = m.portraits!.finder;
    const lone = ModelManifest.safeParse({ ...m, portraits: { ...m.portraits!, finder: { ...upright, searchNeighbors: 8 } } });
    expect(lone.success).toBe(false);
    expect(lone.error!.issues[0].path).toEqual(['portraits', 'finder', 'searchNeighbors']);
  });
});

/** A photo turned `degrees` as a camera held off level turns it, saved as a JPEG (q95), and that file decoded. */
async function tiltedJpeg(photo: string, degrees: number, name: string) {
  const t = await tilt(await decodeImageBuffer(readFileSync(photo), 'image/jpeg'), degrees);
  const path = tmp.write(name, await sharp(t.data, { raw: { width: t.width, height: t.height, channels: 3 } }).jpeg({ quality: 95 }).toBuffer());
  return { path, tilted: await decodeImageBuffer(readFileSync(path), 'image/jpeg') };
}

describe.skipIf(!HAS_MODEL)('portraits through the whole analysis (the shipped model)', () => {
  it('a genuine official portrait that the pixels score above the rest\'s highAi is read as a portrait: not called AI, and the verdict says why', async () => {
    const model = await getModel(MODELS_DIR, 1);
    const { thresholds, portraits } = model.manifest;
    const r = await analyseFile(OFFICIAL, 'image/jpeg', { modelsDir: MODELS_DIR });
    const d = r.verdict.dimensions.find((x) => x.key === 'ai_detection')!;
    // The fixture was chosen for this: a real photo (a White House portrait, camera EXIF) whose fused score lies
    // between the two highAi. Read as any other photo it would be an accusation; as a portrait it is not.
    expect(d.score).toBeGreaterThanOrEqual(thresholds.highAi);
    expect(d.score).toBeLessThan(portraits!.thresholds.highAi);
    expect(detectorReading(d.score, thresholds)).toEqual({ assessment: 'likely_ai', confidence: 'high' });
    expect({ assessment: d.assessment, confidence: d.confidence }).toEqual(detectorReading(d.score, portraits!.thresholds));
    expect(r.verdict.assessment).not.toBe('ai_generated');
    expect(r.findings.map((f) => f.code)).not.toContain('pixels.score.generated');
    const note = r.findings.find((f) => f.code === 'pixels.portrait')!;
    expect(note.facts).toMatchObject({ highAi: portraits!.thresholds.highAi, otherHighAi: thresholds.highAi });
    expect(note.facts.faceShare).toBeGreaterThanOrEqual(portraits!.minFace);
    // the dimension lists the note in words
    const words = d.findings!.map((f) => f.message).join(' ');
    expect(words).toContain(FINDING_COPY['pixels.portrait'](note.facts));
    expect(words).toMatch(/read as a portrait: .* portraits point to AI with high confidence only from 96% \(other photos from 86%\)/);
    // and what the detector cannot do for portraits (MODEL_CARD.md: 1 of 160 GAN-made faces called AI)
    expect(words).toMatch(/rarely catches faces made by GANs .*: that a portrait is not called AI does not clear it\./);
  });

  it('a genuine portrait taken with the camera 22 degrees off level, scored between the two highAi: the upright look misses its face, a turned look finds it, and it is read as a portrait, not called AI; the verdict says how the face was found', async () => {
    const model = await getModel(MODELS_DIR, 1);
    const { thresholds, portraits } = model.manifest;
    const { path, tilted } = await tiltedJpeg(OFFICIAL, 22, 'tilted-portrait.jpg');
    expect((await model.faces!.lookUpright(tilted)).reading.largest).toBeLessThan(portraits!.minFace); // the upright look alone would miss it
    const r = await analyseFile(path, 'image/jpeg', { modelsDir: MODELS_DIR });
    const d = r.verdict.dimensions.find((x) => x.key === 'ai_detection')!;
    // where the group decides: read as any other photo, this genuine portrait would be called AI
    expect(d.score).toBeGreaterThan(thresholds.highAi);
    expect(d.score).toBeLessThan(portraits!.thresholds.highAi);
    expect(detectorReading(d.score, thresholds)).toEqual({ assessment: 'likely_ai', confidence: 'high' });
    expect({ assessment: d.assessment, confidence: d.confidence }).toEqual(detectorReading(d.score, portraits!.thresholds));
    expect(r.verdict.assessment).not.toBe('ai_generated');
    const note = r.findings.find((f) => f.code === 'pixels.portrait')!;
    expect(note.facts).toMatchObject({ faceAngle: -25, highAi: portraits!.thresholds.highAi, otherHighAi: thresholds.highAi });
    expect(d.findings!.map((f) => f.message).join(' ')).toContain('found with the picture turned 25 degrees anticlockwise: a tilted camera or a lost orientation tag');
  });

  it('a tilted selfie scored below the rest\'s highAi reads the same in either group: the turned looks are not made (about three upright looks of time saved), so no portrait note', async () => {
    const model = await getModel(MODELS_DIR, 1);
    const { thresholds, portraits } = model.manifest;
    const { path, tilted } = await tiltedJpeg(SELFIE, 20, 'tilted-selfie.jpg');
    // every look would find its face (found turned: the picture is a portrait)
    expect(await model.faces!.find(tilted)).toMatchObject({ angle: -25 });
    const finder = model.faces!;
    const lookUpright = finder.lookUpright;
    let turned = 0;
    finder.lookUpright = async (im, signal) => {
      const l = await lookUpright(im, signal);
      return { ...l, turn: l.turn && ((s?: AbortSignal) => (turned++, l.turn!(s))) };
    };
    try {
      const r = await analyseFile(path, 'image/jpeg', { modelsDir: MODELS_DIR });
      const d = r.verdict.dimensions.find((x) => x.key === 'ai_detection')!;
      expect(d.score).toBeLessThanOrEqual(thresholds.highAi);
      // the same reading in either group: nothing the turned looks could change
      expect(detectorReading(d.score, thresholds)).toEqual(detectorReading(d.score, portraits!.thresholds));
      expect({ assessment: d.assessment, confidence: d.confidence }).toEqual(detectorReading(d.score, thresholds));
      expect(turned).toBe(0);
      expect(r.findings.map((f) => f.code)).not.toContain('pixels.portrait');
    } finally {
      finder.lookUpright = lookUpright;
    }
  });

  it('a large selfie scored below the rest\'s highAi reads the same in either group: the calibrated looks are not made, a coarse look finds its face for the portrait note; the same selfie small, or cut square, gets the calibrated look', async () => {
    const model = await getModel(MODELS_DIR, 1);
    const { thresholds, portraits } = model.manifest;
    const finder = model.faces!;
    // the phone selfie upright (its EXIF turns it) brought up to 1200 x 1600 (1.9 MP: above COARSE_ABOVE_PIXELS)
    const large = tmp.write('selfie-1600.jpg', await sharp(SELFIE).rotate().resize(1200, 1600).jpeg({ quality: 92 }).toBuffer());
    const calibrated = (await finder.find(await decodeImageBuffer(readFileSync(large), 'image/jpeg'))).largest;
    const [lookUpright, lookCoarse] = [finder.lookUpright, finder.lookCoarse];
    const calls = { upright: 0, coarse: 0 };
    finder.lookUpright = (im, signal, onGrey) => (calls.upright++, lookUpright(im, signal, onGrey));
    finder.lookCoarse = (im, signal) => (calls.coarse++, lookCoarse(im, signal));
    try {
      const r = await analyseFile(large, 'image/jpeg', { modelsDir: MODELS_DIR });
      const d = r.verdict.dimensions.find((x) => x.key === 'ai_detection')!;
      expect(d.score).toBeLessThan(thresholds.highAi);
      expect(detectorReading(d.score, thresholds)).toEqual(detectorReading(d.score, portraits!.thresholds));
      expect(calls).toEqual({ upright: 0, coarse: 1 });
      const note = r.findings.find((f) => f.code === 'pixels.portrait')!;
      expect(note.facts.faceShare).toBeGreaterThanOrEqual(portraits!.minFace);
      expect(Math.abs((note.facts.faceShare as number) - calibrated)).toBeLessThan(0.05); // near the calibrated look's share
      expect(d.findings!.map((f) => f.message).join(' ')).toMatch(/rarely catches faces made by GANs/);
      // the selfie as taken (640 x 480, 0.3 MP) and cut square (a GAN face's framing is read from the calibrated look)
      const square = tmp.write('square-selfie.jpg', await sharp(SELFIE).resize(480, 480, { fit: 'cover' }).jpeg({ quality: 95 }).toBuffer());
      for (const path of [SELFIE, square]) {
        calls.upright = calls.coarse = 0;
        const small = await analyseFile(path, 'image/jpeg', { modelsDir: MODELS_DIR });
        expect(small.verdict.dimensions.find((x) => x.key === 'ai_detection')!.score).toBeLessThan(thresholds.highAi);
        expect(calls).toEqual({ upright: 1, coarse: 0 });
      }
    } finally {
      Object.assign(finder, { lookUpright, lookCoarse });
    }
  });

  it('a portrait scored above the rest\'s highAi is grouped by the calibrated looks, never by the coarse one', async () => {
    const model = await getModel(MODELS_DIR, 1);
    const finder = model.faces!;
    const [lookCoarse, lookUpright] = [finder.lookCoarse, finder.lookUpright];
    let coarse = 0;
    const handedOver: boolean[] = [];
    // a coarse look that sees no face: where the group can matter its reading must not count
    finder.lookCoarse = async () => (coarse++, { faces: 0, largest: 0, centre: null });
    finder.lookUpright = (im, signal, onGrey) => (handedOver.push(!!onGrey), lookUpright(im, signal, onGrey));
    try {
      const r = await analyseFile(OFFICIAL, 'image/jpeg', { modelsDir: MODELS_DIR });
      const d = r.verdict.dimensions.find((x) => x.key === 'ai_detection')!;
      expect(d.score).toBeGreaterThan(model.manifest.thresholds.highAi);
      // the first content model already guessed it high: its calibrated look was started then, handed to the finder's
      // thread before the second content model ran, and no coarse look was made
      const guess = firstGuess(model.manifest.fusion!, await semanticLogitOf(model, await decodeImageBuffer(readFileSync(OFFICIAL), 'image/jpeg')));
      expect(guess).toBeGreaterThanOrEqual(EARLY_LOOK_GUESS);
      expect(coarse).toBe(0);
      expect(handedOver).toEqual([true]);
      expect({ assessment: d.assessment, confidence: d.confidence }).toEqual(detectorReading(d.score, model.manifest.portraits!.thresholds));
      expect(r.findings.map((f) => f.code)).toContain('pixels.portrait');
    } finally {
      Object.assign(finder, { lookCoarse, lookUpright });
    }
  });

  it('a picture without a face is read against the rest\'s thresholds, with no portrait note', async () => {
    const model = await getModel(MODELS_DIR, 1);
    const path = tmp.write('no-face.jpg', await makeJpeg(640, 480));
    const r = await analyseFile(path, 'image/jpeg', { modelsDir: MODELS_DIR });
    const d = r.verdict.dimensions.find((x) => x.key === 'ai_detection')!;
    expect({ assessment: d.assessment, confidence: d.confidence }).toEqual(detectorReading(d.score, model.manifest.thresholds));
    expect(r.findings.map((f) => f.code)).not.toContain('pixels.portrait');
  });

  it('the loader refuses a missing or tampered cascade, naming the file', async () => {
    const real = JSON.parse(readFileSync(join(SHIPPED_DIR, 'manifest.json'), 'utf8')) as ModelManifest;
    const files: Record<string, Buffer> = {};
    for (const f of [real.file, real.semantic?.file, real.semantic2?.file]) if (f) files[f] = readFileSync(join(SHIPPED_DIR, f));
    const dirWith = (name: string, cascade: Buffer | null) => {
      const dir = join(tmp.dir, name, 'veracity-detector');
      mkdirSync(dir, { recursive: true });
      for (const [f, data] of Object.entries(files)) tmp.write(join(name, 'veracity-detector', f), data);
      tmp.write(join(name, 'veracity-detector', 'manifest.json'), JSON.stringify(real));
      if (cascade) tmp.write(join(name, 'veracity-detector', real.portraits!.finder.file), cascade);
      return join(tmp.dir, name);
    };
    const jpeg = tmp.write('x.jpg', await makeJpeg(64, 64));
    const fail = (dir: string) => analyseFile(jpeg, 'image/jpeg', { modelsDir: dir }).then(() => null, (e: unknown) => e as AnalysisError);
    const missing = await fail(dirWith('no-cascade', null));
    expect(missing?.code).toBe('result_unavailable');
    expect(missing?.message).toMatch(/no-cascade\/veracity-detector\/haarcascade_frontalface_alt2\.xml is missing/);
    const tampered = readFileSync(join(SHIPPED_DIR, real.portraits!.finder.file));
    tampered[tampered.length - 20] ^= 1;
    const bad = await fail(dirWith('bad-cascade', tampered));
    expect(bad?.message).toMatch(new RegExp(`haarcascade_frontalface_alt2\\.xml does not match its manifest \\(sha256 ${createHash('sha256').update(tampered).digest('hex')}`));
    await closeAnalysis(); // the next test loads the shipped model again
  });
});

describe('FFHQ framing (the square, centred face StyleGAN generators draw)', () => {
  const at = (x: number, y: number, side: number) => ({ faces: 1, largest: side, centre: [x, y] as [number, number] });
  it('fires only for a square picture whose largest face sits at FFHQ\'s place and size', () => {
    const f = FFHQ_FRAMING;
    expect(ffhqFramed(1024, 1024, at(0.5, 0.545, 0.65))).toBe(true);
    expect(ffhqFramed(1024, 1024, at(f.centreX + f.toleranceX - 0.001, f.centreY - f.toleranceY + 0.001, f.minSide))).toBe(true);
    expect(ffhqFramed(1024, 1024, at(f.centreX + f.toleranceX + 0.002, 0.545, 0.65))).toBe(false);
    expect(ffhqFramed(1024, 1024, at(0.5, f.centreY + f.toleranceY + 0.002, 0.65))).toBe(false);
    expect(ffhqFramed(1024, 1024, at(0.5, 0.545, f.minSide - 0.01))).toBe(false);
    expect(ffhqFramed(1024, 1024, at(0.5, 0.545, f.maxSide + 0.01))).toBe(false);
    // not square (a 4:3 photo, or a square with 2 % more height)
    expect(ffhqFramed(1024, 768, at(0.5, 0.545, 0.65))).toBe(false);
    expect(ffhqFramed(1000, 1021, at(0.5, 0.545, 0.65))).toBe(false);
    expect(ffhqFramed(1000, 1009, at(0.5, 0.545, 0.65))).toBe(true);
    expect(ffhqFramed(1024, 1024, { faces: 0, largest: 0, centre: null })).toBe(false);
    expect(ffhqFramed(1024, 1024, null)).toBe(false);
  });
});

describe.skipIf(!HAS_MODEL)('FFHQ framing through the whole analysis (the real finder and model)', () => {
  /** The official portrait cut square around its face: FFHQ's place and size (framed) or the face in a corner. */
  async function squareCrop(framed: boolean): Promise<Buffer> {
    const spec = shippedManifest().portraits!.finder;
    const finder = await loadFaceFinder(readFileSync(join(SHIPPED_DIR, spec.file)), spec);
    const buf = readFileSync(OFFICIAL);
    const img = await decodeImageBuffer(buf, 'image/jpeg');
    const r = await finder.find(img);
    finder.close();
    const faceSide = r.largest * Math.min(img.width, img.height);
    const side = Math.round(faceSide / (framed ? 0.65 : 0.45));
    const [cx, cy] = [r.centre![0] * img.width, r.centre![1] * img.height];
    const left = Math.round(cx - (framed ? 0.5 : 0.7) * side);
    const top = Math.round(cy - (framed ? 0.545 : 0.3) * side);
    return sharp(buf).extract({ left, top, width: side, height: side }).resize(512, 512).jpeg({ quality: 90 }).toBuffer();
  }

  it('a real portrait cut as FFHQ frames faces is said to be framed as GAN faces are; the same portrait whole, or cut square with the face elsewhere, is not', async () => {
    const framedPath = tmp.write('framed.jpg', await squareCrop(true));
    const r = await analyseFile(framedPath, 'image/jpeg', { modelsDir: MODELS_DIR });
    const note = r.findings.find((f) => f.code === 'pixels.ffhq_framing')!;
    expect(note).toBeDefined();
    expect(note.facts.faceShare as number).toBeGreaterThanOrEqual(FFHQ_FRAMING.minSide);
    expect(Math.abs((note.facts.centreX as number) - 0.5)).toBeLessThanOrEqual(FFHQ_FRAMING.toleranceX);
    expect(r.verdict.assessment).not.toBe('authentic');
    const d = r.verdict.dimensions.find((x) => x.key === 'ai_detection')!;
    const words = d.findings!.map((f) => f.message).join(' ');
    expect(words).toContain(FINDING_COPY['pixels.ffhq_framing'](note.facts));
    expect(words).toMatch(/^.*The picture is square and its face is centred at \d+% of its side, exactly where StyleGAN's face generators/);
    for (const path of [OFFICIAL, tmp.write('corner.jpg', await squareCrop(false))]) {
      const other = await analyseFile(path, 'image/jpeg', { modelsDir: MODELS_DIR });
      expect(other.findings.map((f) => f.code)).toContain('pixels.portrait'); // a face was found and read as a portrait
      expect(other.findings.map((f) => f.code)).not.toContain('pixels.ffhq_framing');
    }
  });

  it('a PDF whose image is framed as GAN faces are says so, naming the page and image', async () => {
    const jpeg = await squareCrop(true);
    const path = tmp.write('framed.pdf', pdfWithJpeg(jpeg, 512, 512));
    const r = await analyseFile(path, 'application/pdf', { modelsDir: MODELS_DIR });
    const note = r.findings.find((f) => f.code === 'pixels.ffhq_framing')!;
    expect(note).toBeDefined();
    expect(note.facts).toMatchObject({ page: 1, image: 1 });
    expect(FINDING_COPY['pixels.ffhq_framing'](note.facts)).toMatch(/^Page 1 image 1 is square and its face is centred/);
  });
});
