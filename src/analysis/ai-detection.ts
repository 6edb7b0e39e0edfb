// Scores decoded pixels with the detector model exactly as the model was evaluated (models/training/common.py):
// native-resolution tiles on a stride grid, evenly sampled down to maxTiles, per-tile P(AI), top-k mean per image;
// on large images the heatmap covers more tiles (heatmapMaxTiles) than the file score. From 1.1 the file score fuses
// that artefact score with a content model's logit of the whole picture resized (manifest `semantic` + `fusion`), and
// with a second content model's (manifest `semantic2`) where the manifest has one.
import sharp from 'sharp';
import type { RegionGrid } from '../api/schemas.js';
import type { LoadedModel } from './model-session.js';
import { MAX_PIXELS, RESIZE_TIMEOUT_S, type RgbImage } from './decode-image.js';
import type { ContentBranch, FusionFeatureName, ModelManifest } from './model-manifest.js';
import { AnalysisError } from './analysis-results.js';
import { CLAIMED_HERE, CLAIMED_THERE, TileBatchTakenBack, TileRunFailure, TileThreadGone } from './tile-thread.js';
import { gridOrigins } from '../api/tile-grid.js';

export { gridOrigins };

export interface ImageScore {
  /** The file's P(AI): the fused score when the model has a semantic branch, else the artefact score. */
  score: number;
  /** The artefact model's P(AI) of the image (top-k mean of its tile probabilities; what the heatmap shows). */
  artefactScore: number;
  /** The semantic model's P(AI) of the whole picture (sigmoid of its logit); absent before 1.1. */
  semanticScore?: number;
  /** The second content model's P(AI) of the whole picture (manifest `semantic2`); absent when the model has none. */
  semantic2Score?: number;
  grid: RegionGrid;
}

/** Tiles scored per ONNX run when the model accepts a batch dimension. */
const BATCH = 8;
/** The first batch's size: at least the aggregation's k of any shipped manifest (3), so that it alone gives a floor. */
const FIRST_BATCH = 4;
/** Batches the tile thread may be handed ahead of time (scoreTiles). */
export const THREAD_QUEUE = 3;

/** Indices of an even sample of n grid tiles down to max: floor(i*n/max), i = 0..max-1 (all of them when n <= max). */
export function sampleIndices(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: max }, (_, i) => Math.floor((i * n) / max));
}

/**
 * Row-major grid origins with the whole tile inside the image; when the grid has N > maxTiles tiles the tiles at
 * indices floor(i*N/maxTiles) are kept (the same even sampling the model card's figures were computed with).
 */
export function tileOrigins(width: number, height: number, tile: number, stride: number, maxTiles: number): Array<[number, number]> {
  const grid = gridOrigins(width, height, tile, stride);
  return sampleIndices(grid.length, maxTiles).map((i) => grid[i]);
}

/** numpy 'reflect' padding (mirror without repeating the edge), repeated for pads wider than the image. */
function reflectIndex(i: number, n: number): number {
  if (n === 1) return 0;
  const period = 2 * (n - 1);
  let m = ((i % period) + period) % period;
  if (m >= n) m = period - m;
  return m;
}

/** Centre-pads an image smaller than a tile by reflection so that it still gets one tile (as in evaluation). */
export function padToTile(img: RgbImage, tile: number): { image: RgbImage; offsetX: number; offsetY: number } {
  const ph = Math.max(0, tile - img.height);
  const pw = Math.max(0, tile - img.width);
  if (ph === 0 && pw === 0) return { image: img, offsetX: 0, offsetY: 0 };
  const top = Math.floor(ph / 2);
  const left = Math.floor(pw / 2);
  const W = img.width + pw;
  const H = img.height + ph;
  const data = Buffer.allocUnsafe(W * H * 3);
  for (let y = 0; y < H; y++) {
    const sy = reflectIndex(y - top, img.height);
    for (let x = 0; x < W; x++) {
      const sx = reflectIndex(x - left, img.width);
      const s = (sy * img.width + sx) * 3;
      const d = (y * W + x) * 3;
      data[d] = img.data[s];
      data[d + 1] = img.data[s + 1];
      data[d + 2] = img.data[s + 2];
    }
  }
  return { image: { width: W, height: H, data }, offsetX: left, offsetY: top };
}

export function topKMean(values: number[], k: number): number {
  const sorted = [...values].sort((a, b) => b - a);
  const top = sorted.slice(0, Math.min(k, sorted.length));
  return top.reduce((s, v) => s + v, 0) / top.length;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * P(AI) of each tile of `img` whose top-left corner is at `origins` (whole tiles inside the image), in the order
 * given, batched as the model allows: the one place pixels meet the model (the analysis, and the viewer's regions).
 * Where the model has a tile thread (model-session.ts), it takes batches from the start and this thread joins it once
 * `beforeHere` (other work of this thread, such as the content models) is done; without one, this thread does all.
 */
export async function scoreTiles(
  model: LoadedModel,
  img: RgbImage,
  origins: Array<[number, number]>,
  signal?: AbortSignal,
  /** Told after each batch, with the probabilities known so far (in `origins`' order; undefined where not yet known). */
  onBatch?: (probs: ReadonlyArray<number | undefined>) => void,
  /** Told how to read the probabilities known so far (as onBatch is given them), for a reading before its own batches. */
  beforeHere?: (known: () => ReadonlyArray<number | undefined>) => Promise<void>,
  /** Asked before the tile thread takes each batch: false leaves the rest to this thread (the spare core has other work). */
  threadMayTake: () => boolean = () => true,
): Promise<number[]> {
  const { manifest, session } = model;
  const tile = manifest.input.tileSize;
  const ort = await import('onnxruntime-node');
  // Each channel's normalised value of every byte, computed as the per-pixel expression would be and rounded to float32
  // as the input stores it: the same floats.
  const [l0, l1, l2] = [0, 1, 2].map((c) => Float32Array.from({ length: 256 }, (_, v) => (v / 255 - manifest.input.mean[c]) / manifest.input.std[c]));
  const plane = tile * tile;
  const batch = manifest.input.batchDynamic ? BATCH : 1;
  const probs: Array<number | undefined> = new Array<number | undefined>(origins.length).fill(undefined);
  // The first batch is small (FIRST_BATCH): the tile thread takes it at once, and its scores give the analysis a floor
  // under the file's score (scoreImage's onBatch) while this thread still runs the content models. A tile's score
  // does not depend on the batch it is run in (checked: bit-identical at 1, 2, 4 and 8).
  const first = Math.min(batch, FIRST_BATCH);
  const starts = origins.length <= first ? [0] : [0, ...Array.from({ length: Math.ceil((origins.length - first) / batch) }, (_, i) => first + i * batch)];
  const helper = model.tileThread;
  // Who runs each batch handed to the tile thread (tile-thread.ts TileClaim). The thread is handed up to THREAD_QUEUE
  // batches ahead: this thread cannot hand it the next one while onnxruntime or the pixel checks hold it, and the
  // tile thread would otherwise wait idle meanwhile. A batch it has not begun when this thread runs out of its own is
  // taken back and run here, so that neither thread waits for the other's queue at the end.
  const claims = helper ? new Int32Array(new SharedArrayBuffer(4 * starts.length)) : null;
  const handedOver: number[] = [];
  let next = 0;
  let failed = false; // once a batch fails, no other is started
  const take = (): number | null => (!failed && next < starts.length ? next++ : null);
  /** A batch handed to the thread that it has not begun (the last handed first), now this thread's; null if none. */
  const takeBack = (): number | null => {
    for (let k = handedOver.length - 1; k >= 0 && !failed; k--) {
      if (Atomics.compareExchange(claims!, handedOver[k], 0, CLAIMED_HERE) === 0) return handedOver.splice(k, 1)[0];
    }
    return null;
  };
  const stopOnFailure = (work: Promise<void>) =>
    work.catch((err: unknown) => {
      failed = true;
      throw err;
    });
  const count = (b: number) => Math.min(b === 0 ? first : batch, origins.length - b);
  const inputOf = (b: number): Float32Array => {
    const n = count(b);
    const input = new Float32Array(n * 3 * plane);
    const W = img.width;
    const src: Uint8Array = img.data;
    for (let t = 0; t < n; t++) {
      const [ox, oy] = origins[b + t];
      for (let y = 0; y < tile; y++) {
        let s = ((oy + y) * W + ox) * 3;
        let d0 = t * 3 * plane + y * tile;
        let d1 = d0 + plane;
        let d2 = d1 + plane;
        for (const end = d0 + tile; d0 < end; s += 3) {
          input[d0++] = l0[src[s]];
          input[d1++] = l1[src[s + 1]];
          input[d2++] = l2[src[s + 2]];
        }
      }
    }
    return input;
  };
  const runHere = async (b: number): Promise<Float32Array> => {
    const tensor = new ort.Tensor('float32', inputOf(b), [count(b), 3, tile, tile]);
    try {
      const result = await session.run({ [manifest.input.name]: tensor });
      return result[manifest.output.name].data as Float32Array;
    } catch (err) {
      throw new AnalysisError('result_unavailable', `the detector model failed to run: ${(err as Error).message}`);
    }
  };
  const keep = (b: number, out: Float32Array) => {
    if (out.length !== count(b)) {
      throw new AnalysisError('result_unavailable', `the detector model returned ${out.length} values for ${count(b)} tiles`);
    }
    out.forEach((v, i) => {
      const p = manifest.output.kind === 'logit' ? sigmoid(v) : v;
      if (!Number.isFinite(p)) throw new AnalysisError('result_unavailable', 'the detector model returned a non-finite score');
      probs[b + i] = Math.min(1, Math.max(0, p));
    });
    onBatch?.(probs);
    // the spare core is wanted elsewhere now (threadMayTake): what the thread has not begun comes back here
    if (claims && !threadMayTake()) for (let i = takeBack(); i !== null; i = takeBack()) takenBack.push(i);
  };
  /** Batches taken back from the thread when the spare core was wanted elsewhere: this thread runs them first. */
  const takenBack: number[] = [];
  const mine = (): number | null => (failed ? null : (takenBack.shift() ?? take() ?? (claims && takeBack())));
  const here = async () => {
    await beforeHere?.(() => probs);
    for (let i = mine(); i !== null; i = mine()) {
      signal?.throwIfAborted();
      keep(starts[i], await runHere(starts[i]));
    }
  };
  // the thread's batches; one it cannot run because it is gone is run here (unless this thread took it back), and this
  // thread takes the rest
  const feed = async () => {
    for (let i = threadMayTake() ? take() : null; i !== null; i = threadMayTake() ? take() : null) {
      signal?.throwIfAborted();
      const b = starts[i];
      handedOver.push(i);
      let out: Float32Array;
      try {
        out = await helper!.run(inputOf(b), count(b), { claims: claims!, index: i });
      } catch (err) {
        if (err instanceof TileBatchTakenBack) continue; // run here
        if (err instanceof TileRunFailure) throw new AnalysisError('result_unavailable', `the detector model failed to run: ${err.message}`);
        if (!(err instanceof TileThreadGone)) throw err;
        if (Atomics.compareExchange(claims!, i, 0, CLAIMED_HERE) !== CLAIMED_HERE) keep(b, await runHere(b));
        return;
      }
      // (a thread that ran it without its claim, and this thread took it back meanwhile: kept there, not twice)
      if (Atomics.compareExchange(claims!, i, 0, CLAIMED_THERE) !== CLAIMED_HERE) keep(b, out);
    }
  };
  const there = () => Promise.all(Array.from({ length: THREAD_QUEUE }, feed)).then(() => undefined);
  // both settle before a failure is thrown, so that no batch is left running
  const settled = await Promise.allSettled(helper ? [stopOnFailure(here()), stopOnFailure(there())] : [here()]);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return probs as number[];
}

/** What the analysis does while a picture is scored (detectors/ai-detection.ts). */
export interface ScoreHooks {
  /**
   * Told, as the tiles are scored, a score the file's can no longer fall below (the content models run first, and the
   * top-k mean of the scoring tiles only rises as tiles are added): the analysis starts work the final score will need
   * before it is known.
   */
  onAtLeast?: (score: number) => void;
  /** Passed to scoreTiles: whether the tile thread may take another batch. */
  threadMayTake?: () => boolean;
  /** Other work for this thread, done after the content models and before its share of the tiles (the tile thread scores meanwhile). */
  alsoHere?: () => Promise<void> | void;
  /**
   * Told, once the first content model has run (the second one, about twice its time, still to run), a guess at the
   * file's score: the fusion with the second content model's feature taken as the first's and the artefact feature at
   * its mean. No bound, only a hint for work worth starting early (it depends on the picture alone, never on timing).
   * Awaited before the second content model: what it starts can be handed to another thread first (this one cannot
   * hand anything over while onnxruntime holds it).
   */
  onFirstGuess?: (guess: number) => Promise<void> | void;
}

export async function scoreImage(
  model: LoadedModel,
  img: RgbImage,
  source: RegionGrid['source'],
  signal?: AbortSignal,
  hooks: ScoreHooks = {},
): Promise<ImageScore> {
  const { manifest } = model;
  const tile = manifest.input.tileSize;
  const padded = padToTile(img, tile);
  // The file score uses the calibrated sample (maxTiles); the heatmap a denser one (heatmapMaxTiles, a multiple of
  // maxTiles, so it contains every scoring tile: floor(i*N/M) = floor(c*i*N/(c*M))). Each tile is run once.
  const grid = gridOrigins(padded.image.width, padded.image.height, tile, manifest.tiling.stride);
  const { maxTiles, heatmapMaxTiles = maxTiles } = manifest.tiling;
  const heat = sampleIndices(grid.length, heatmapMaxTiles); // >= maxTiles: the manifest checks it is a multiple
  const scoring = new Set(sampleIndices(grid.length, maxTiles));
  const origins = heat.map((i) => grid[i]);
  if (origins.length === 0) throw new AnalysisError('internal_error', 'the image yields no tile to score');
  const k = manifest.aggregation.k;
  // The content models before this thread's tiles (one after the other, not concurrently: each has the worker's
  // threads to itself), so that the tiles' running top-k mean gives a floor under the fused score.
  let semanticLogit: number | undefined;
  let semantic2Logit: number | undefined;
  const fused = contentFusion(model);
  let contentDone = false;
  const contentModels = async (known: () => ReadonlyArray<number | undefined>) => {
    if (fused) {
      semanticLogit = await semanticLogitOf(model, img, signal);
      if (hooks.onFirstGuess) await hooks.onFirstGuess(firstGuess(fused, semanticLogit));
      if (manifest.semantic2 && model.semantic2) semantic2Logit = await semanticLogitOf(model, img, signal, 'semantic2');
    }
    contentDone = true;
    // the floor from the tiles the tile thread scored meanwhile, before this thread's other work holds it: one turn of
    // the event loop first, to hear a batch the tile thread finished while the content models held this thread
    if (onBatch) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      onBatch(known());
    }
    await hooks.alsoHere?.();
  };
  const scoreOf = (artefact: number) => (fused ? fuseScores(fused, { semantic: semanticLogit!, semantic2: semantic2Logit, artefact }) : artefact);
  // the fused score rises with the artefact score only where the fusion weighs it positively
  const rising = !fused || (fused.features.find((f) => f.name === 'artefact')?.weight ?? 0) > 0;
  const { onAtLeast, threadMayTake } = hooks;
  const onBatch =
    onAtLeast && rising
      ? (sofar: ReadonlyArray<number | undefined>) => {
          if (!contentDone) return; // the floor needs the content models' logits
          const seen = sofar.flatMap((p, i) => (p !== undefined && scoring.has(heat[i]) ? [p] : []));
          // below k scoring tiles the mean is of all of them, which a later, lower tile can pull down
          if (seen.length >= k && seen.length < scoring.size) onAtLeast(scoreOf(topKMean(seen, k)));
        }
      : undefined;
  // The content models on this thread (and alsoHere), then its share of the tiles; the tile thread (if any) scores
  // tiles meanwhile.
  const probs = await scoreTiles(model, padded.image, origins, signal, onBatch, contentModels, threadMayTake);
  const artefactScore = topKMean(
    probs.filter((_, i) => scoring.has(heat[i])),
    k,
  );
  const score = scoreOf(artefactScore);
  const semanticScore = semanticLogit === undefined ? undefined : sigmoid(semanticLogit);
  const semantic2Score = semantic2Logit === undefined ? undefined : sigmoid(semantic2Logit);
  // Tile geometry in the analysed image's own pixels (padding removed and clipped), for the heatmap.
  const tiles = origins.map(([x, y], i) => {
    const x0 = Math.max(0, x - padded.offsetX);
    const y0 = Math.max(0, y - padded.offsetY);
    const x1 = Math.min(img.width, x - padded.offsetX + tile);
    const y1 = Math.min(img.height, y - padded.offsetY + tile);
    return { x: x0, y: y0, w: Math.max(1, x1 - x0), h: Math.max(1, y1 - y0), score: probs[i] };
  });
  // The tiles are the artefact model's: their bands come from its own calibration where the file score is fused.
  const thresholds = manifest.tileThresholds ?? manifest.thresholds;
  return { score, artefactScore, semanticScore, semantic2Score, grid: { source, width: img.width, height: img.height, tiles, thresholds } };
}

/**
 * The whole picture resized to size x size (aspect not kept, nothing cropped), antialiased linear: sharp's closest
 * kernel to the training resize (PIL bilinear); their agreement is measured in MODEL_CARD.md.
 */
export async function resizeForSemantic(img: RgbImage, size: number): Promise<Buffer> {
  const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 }, limitInputPixels: MAX_PIXELS })
    .timeout({ seconds: RESIZE_TIMEOUT_S })
    .resize(size, size, { fit: 'fill', kernel: 'linear' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.width !== size || info.height !== size || info.channels !== 3) {
    throw new AnalysisError('internal_error', `the semantic resize gave ${info.width}x${info.height}x${info.channels}`);
  }
  return data;
}

/**
 * A content model's logit of the whole picture (resized as its manifest section says): `semantic` by default,
 * `semantic2` for the second one.
 */
export async function semanticLogitOf(model: LoadedModel, img: RgbImage, signal?: AbortSignal, branch: ContentBranch = 'semantic'): Promise<number> {
  const spec = model.manifest[branch];
  const session = model[branch];
  if (!spec || !session) throw new AnalysisError('internal_error', `the detector model has no ${branch} branch`);
  const { size, scale } = spec.input;
  signal?.throwIfAborted();
  const pixels = await resizeForSemantic(img, size);
  signal?.throwIfAborted();
  const input = new Float32Array(pixels.length);
  for (let i = 0; i < pixels.length; i++) input[i] = pixels[i] * scale;
  const ort = await import('onnxruntime-node');
  let out: Float32Array;
  try {
    const result = await session.run({ [spec.input.name]: new ort.Tensor('float32', input, [1, size, size, 3]) });
    out = result[spec.output.name].data as Float32Array;
  } catch (err) {
    throw new AnalysisError('result_unavailable', `the ${branch} model failed to run: ${(err as Error).message}`);
  }
  if (out.length !== 1 || !Number.isFinite(out[0])) {
    throw new AnalysisError('result_unavailable', `the ${branch} model returned no finite score`);
  }
  return out[0];
}

/** The fusion a model's file score is made with (its content model loaded); null where the score is the tiles' alone. */
export function contentFusion(model: LoadedModel): NonNullable<ModelManifest['fusion']> | null {
  return model.manifest.semantic && model.manifest.fusion && model.semantic ? model.manifest.fusion : null;
}

/** ScoreHooks.onFirstGuess's guess: the fusion with semantic2 taken as `semantic` (same scale) and the artefact at its mean. */
export function firstGuess(fusion: NonNullable<ModelManifest['fusion']>, semantic: number): number {
  const artefactMean = fusion.features.find((f) => f.name === 'artefact')?.mean ?? 0;
  return fuseScores(fusion, { semantic, semantic2: semantic, artefact: sigmoid(artefactMean) });
}

/**
 * The manifest's logistic regression: sigmoid(bias + sum weight * (feature - mean) / std). `semantic2` is the second
 * content model's logit, needed only by a fusion that names it; a feature the fusion names but that is not given is an
 * internal error (the manifest's schema pairs each feature with its model).
 */
export function fuseScores(fusion: NonNullable<ModelManifest['fusion']>, x: { semantic: number; semantic2?: number; artefact: number }): number {
  const c = fusion.clip;
  const p = Math.min(1 - c, Math.max(c, x.artefact));
  const features: Record<FusionFeatureName, number | undefined> = { semantic: x.semantic, semantic2: x.semantic2, artefact: Math.log(p / (1 - p)) };
  const z = fusion.features.reduce((s, f) => {
    const value = features[f.name];
    if (value === undefined) throw new AnalysisError('internal_error', `the fusion needs the feature '${f.name}', which was not computed`);
    return s + (f.weight * (value - f.mean)) / f.std;
  }, fusion.bias);
  return sigmoid(z);
}
