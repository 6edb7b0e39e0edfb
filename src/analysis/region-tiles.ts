// The viewer's regions (issue 22): the tiles of a part of an analysed picture that the analysis' even sample left
// out, scored on demand with the analysis' own decoder, model session and tiling. Runs in a worker process.
import { readFile } from 'node:fs/promises';
import { scoreTiles } from './ai-detection.js';
import { AnalysisError, type MediaType } from './analysis-results.js';
import { DecodeError, decodeImageBuffer } from './decode-image.js';
import { getModel } from './model-session.js';

export interface RegionTileOptions {
  modelsDir: string;
  threads?: number;
  /** Top-left corners of whole tiles inside the picture, in its pixels after EXIF orientation. */
  origins: Array<[number, number]>;
  signal?: AbortSignal;
}

/** P(AI) of each tile at `origins` of the image file, in order; AnalysisError when it cannot be scored. */
export async function scoreRegionTiles(path: string, mediaType: MediaType, opts: RegionTileOptions): Promise<number[]> {
  const { signal } = opts;
  if (mediaType === 'application/pdf') throw new AnalysisError('unprocessable', 'tiles on demand are scored for images, not PDF pages');
  const model = await getModel(opts.modelsDir, opts.threads ?? 1);
  let image;
  try {
    image = await decodeImageBuffer(await readFile(path, { signal }), mediaType, signal);
  } catch (err) {
    if (err instanceof DecodeError) throw new AnalysisError('unprocessable', err.message);
    throw err;
  }
  const tile = model.manifest.input.tileSize;
  const outside = opts.origins.find(([x, y]) => x < 0 || y < 0 || x + tile > image.width || y + tile > image.height);
  if (outside) throw new AnalysisError('internal_error', `the tile at ${outside[0]},${outside[1]} is not inside the ${image.width}x${image.height} picture`);
  return scoreTiles(model, image, opts.origins, signal);
}
