// Scores decoded pixels with the detector model exactly as the model was evaluated (models/training/common.py):
// native-resolution tiles on a stride grid, evenly sampled down to maxTiles, per-tile P(AI), top-k mean per image;
// on large images the heatmap covers more tiles (heatmapMaxTiles) than the file score.
import type { RegionGrid } from '../api/schemas.js';
import type { LoadedModel } from './model-session.js';
import type { RgbImage } from './decode-image.js';
import { AnalysisError } from './analysis-results.js';

export interface ImageScore {
  /** Aggregated P(AI) of the image (top-k mean of its tile probabilities). */
  score: number;
  grid: RegionGrid;
}

/** Tiles scored per ONNX run when the model accepts a batch dimension. */
const BATCH = 16;

/** Indices of an even sample of n grid tiles down to max: floor(i*n/max), i = 0..max-1 (all of them when n <= max). */
export function sampleIndices(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: max }, (_, i) => Math.floor((i * n) / max));
}

/** Row-major grid origins [x, y] with the whole tile inside the image. */
export function gridOrigins(width: number, height: number, tile: number, stride: number): Array<[number, number]> {
  if (width < tile || height < tile) return [];
  const grid: Array<[number, number]> = [];
  for (let y = 0; y + tile <= height; y += stride) for (let x = 0; x + tile <= width; x += stride) grid.push([x, y]);
  return grid;
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

export async function scoreImage(
  model: LoadedModel,
  img: RgbImage,
  source: RegionGrid['source'],
  signal?: AbortSignal,
): Promise<ImageScore> {
  const { manifest, session } = model;
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
  const ort = await import('onnxruntime-node');
  const [m0, m1, m2] = manifest.input.mean;
  const [s0, s1, s2] = manifest.input.std;
  const plane = tile * tile;
  const batch = manifest.input.batchDynamic ? BATCH : 1;
  const probs: number[] = [];
  for (let b = 0; b < origins.length; b += batch) {
    signal?.throwIfAborted();
    const chunk = origins.slice(b, b + batch);
    const input = new Float32Array(chunk.length * 3 * plane);
    const W = padded.image.width;
    const src = padded.image.data;
    chunk.forEach(([ox, oy], t) => {
      const base = t * 3 * plane;
      for (let y = 0; y < tile; y++) {
        let s = ((oy + y) * W + ox) * 3;
        let d = base + y * tile;
        for (let x = 0; x < tile; x++, s += 3, d++) {
          input[d] = (src[s] / 255 - m0) / s0;
          input[d + plane] = (src[s + 1] / 255 - m1) / s1;
          input[d + 2 * plane] = (src[s + 2] / 255 - m2) / s2;
        }
      }
    });
    const tensor = new ort.Tensor('float32', input, [chunk.length, 3, tile, tile]);
    let out: Float32Array;
    try {
      const result = await session.run({ [manifest.input.name]: tensor });
      out = result[manifest.output.name].data as Float32Array;
    } catch (err) {
      throw new AnalysisError('result_unavailable', `the detector model failed to run: ${(err as Error).message}`);
    }
    if (out.length !== chunk.length) {
      throw new AnalysisError('result_unavailable', `the detector model returned ${out.length} values for ${chunk.length} tiles`);
    }
    for (const v of out) {
      const p = manifest.output.kind === 'logit' ? sigmoid(v) : v;
      if (!Number.isFinite(p)) throw new AnalysisError('result_unavailable', 'the detector model returned a non-finite score');
      probs.push(Math.min(1, Math.max(0, p)));
    }
  }
  const score = topKMean(
    probs.filter((_, i) => scoring.has(heat[i])),
    manifest.aggregation.k,
  );
  // Tile geometry in the analysed image's own pixels (padding removed and clipped), for the heatmap.
  const tiles = origins.map(([x, y], i) => {
    const x0 = Math.max(0, x - padded.offsetX);
    const y0 = Math.max(0, y - padded.offsetY);
    const x1 = Math.min(img.width, x - padded.offsetX + tile);
    const y1 = Math.min(img.height, y - padded.offsetY + tile);
    return { x: x0, y: y0, w: Math.max(1, x1 - x0), h: Math.max(1, y1 - y0), score: probs[i] };
  });
  return { score, grid: { source, width: img.width, height: img.height, tiles, thresholds: manifest.thresholds } };
}
