// Issue 22, item 8: POST /v1/jobs/{jobId}/files/{fileId}/regions scores every model tile of a rectangle of a large
// photo that the analysis' even sample left out, with the real model, keeps them with the file (a second request
// scores nothing), leaves the verdict and GET .../regions as the analysis made them, and refuses a bad rectangle with
// the spec's ApiError naming the field, storing nothing. Over real HTTP; on SQLite and, with VERACITY_TEST_BACKEND=pg,
// on PostgreSQL. Its OpenAPI description is checked with the others' (openapi-and-responses.test.ts).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { FileRegions, JobResult, RegionTiles } from '../../src/api/schemas.js';
import { REGION_TILES_MAX } from '../../src/api/limits.js';
import { readManifest } from '../../src/analysis/model-session.js';
import { MODELS_DIR, photoRgb } from '../unit/analysis/fixtures.js';
import { assessOverHttp, expectError, sql, startCore, startListening, type TestCore } from './helpers.js';

/**
 * A photo of 2400 x 1600: 24 x 15 = 360 tiles of 192 px every 96, of which the analysis scores the manifest's sample
 * for the heatmap (1.6.2: the 32 behind the score; 1.6.1: 64).
 */
const W = 2400;
const H = 1600;

async function largePhoto(): Promise<Buffer> {
  return sharp(await photoRgb(W, H), { raw: { width: W, height: H, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
}

const keptTiles = async (core: TestCore, fileId: string) => (await sql<{ tile_scores: unknown }>(core, 'SELECT tile_scores FROM job_files WHERE id = ?', [fileId]))[0].tile_scores;

describe('POST /v1/jobs/{jobId}/files/{fileId}/regions (real model, real HTTP)', () => {
  it('scores every tile of the rectangle once, keeps them, and changes neither the verdict nor the analysis\' heatmap; refusals store nothing', { timeout: 300_000 }, async () => {
    const core = await startCore({ modelsDir: MODELS_DIR, probeTimeoutMs: 60_000, fileTimeoutMs: 240_000 });
    const base = await startListening(core);
    const job = await assessOverHttp(base, core.imagesKey, [{ name: 'large.jpg', data: await largePhoto(), type: 'image/jpeg' }]);
    const [result] = job.results;
    expect(result.status).toBe('completed');
    const auth = { authorization: `Bearer ${core.imagesKey}` };
    const regionsUrl = `${base}/v1/jobs/${job.jobId}/files/${result.file.id}/regions`;
    const analysed = FileRegions.parse(await (await fetch(regionsUrl, { headers: auth })).json());
    const grid = analysed.grids[0];
    const { tiling } = await readManifest(MODELS_DIR);
    expect({ width: grid.width, height: grid.height, tiles: grid.tiles.length }).toEqual({ width: W, height: H, tiles: tiling.heatmapMaxTiles ?? tiling.maxTiles });

    const post = (body: unknown, headers: Record<string, string> = auth) =>
      fetch(regionsUrl, { method: 'POST', body: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } });

    // A rectangle of 600 x 400 at the top left: tiles at x = 0..576 and y = 0..384 (step 96) overlap it, 7 x 5.
    const rect = { grid: 0, x: 0, y: 0, width: 600, height: 400 };
    const first = await post(rect);
    expect(first.status).toBe(200);
    const tiles = RegionTiles.parse(await first.json());
    expect({ tileSize: tiles.tileSize, stride: tiles.stride, width: tiles.width, height: tiles.height }).toEqual({ tileSize: 192, stride: 96, width: W, height: H });
    expect(tiles.tiles.map((t) => `${t.x},${t.y}`).sort()).toEqual(
      [0, 96, 192, 288, 384].flatMap((y) => [0, 96, 192, 288, 384, 480, 576].map((x) => `${x},${y}`)).sort(),
    );
    const fromAnalysis = tiles.tiles.filter((t) => grid.tiles.some((g) => g.x === t.x && g.y === t.y));
    expect(fromAnalysis.length).toBeGreaterThan(0);
    expect(tiles.scoredNow).toBe(tiles.tiles.length - fromAnalysis.length);
    expect(tiles.scoredNow).toBeGreaterThan(20);
    // The analysis' own tiles come back with the analysis' scores: the same picture, model and tiling.
    for (const t of fromAnalysis) expect(t.score).toBeCloseTo(grid.tiles.find((g) => g.x === t.x && g.y === t.y)!.score, 5);

    // Asked again: nothing is scored, the same scores come back (from the file's row).
    const again = RegionTiles.parse(await (await post(rect)).json());
    expect(again.scoredNow).toBe(0);
    expect(again.tiles).toEqual(tiles.tiles);
    // An overlapping rectangle scores only the tiles it adds.
    const shifted = RegionTiles.parse(await (await post({ ...rect, x: 96 })).json());
    expect(shifted.scoredNow).toBe(5 - shifted.tiles.filter((t) => t.x === 672 && grid.tiles.some((g) => g.x === t.x && g.y === t.y)).length);

    // The verdict and GET .../regions stay what the analysis made.
    const polled = JobResult.parse(await (await fetch(`${base}/v1/jobs/${job.jobId}`, { headers: auth })).json());
    expect(polled.results[0].verdict).toEqual(result.verdict);
    expect(FileRegions.parse(await (await fetch(regionsUrl, { headers: auth })).json())).toEqual(analysed);

    // Refusals: the spec's ApiError naming the field, and the tiles kept stay as they were.
    const kept = await keptTiles(core, result.file.id);
    const refusals: Array<[unknown, number, string, string]> = [
      [{ ...rect, width: W + 1 }, 400, 'invalid_request', 'width'],
      [{ ...rect, x: W }, 400, 'invalid_request', 'x'],
      [{ ...rect, y: H - 10, height: 20 }, 400, 'invalid_request', 'height'],
      [{ ...rect, grid: 1 }, 400, 'invalid_request', 'grid'],
      [{ grid: 0, x: 0, y: 0, width: W, height: H }, 400, 'invalid_request', 'width'],
      [{ ...rect, x: -1 }, 400, 'invalid_request', 'x'],
      [{ ...rect, extra: true }, 400, 'invalid_request', ''],
    ];
    for (const [body, status, code, path] of refusals) {
      const res = await post(body);
      const text = await res.text();
      const err = expectError({ statusCode: res.status, body: text }, status, code);
      if (path) expect(err.details?.issues?.map((i) => i.path), JSON.stringify(body)).toContain(path);
    }
    const tooMany = await post({ grid: 0, x: 0, y: 0, width: W, height: H });
    expect((await tooMany.json()).message).toContain(`at most ${REGION_TILES_MAX}`);
    // Another application's key, an unknown file, no key: nothing is told, nothing is scored.
    expect((await post(rect, { authorization: `Bearer ${core.pdfsKey}` })).status).toBe(404);
    expect((await fetch(regionsUrl.replace(result.file.id, crypto.randomUUID()), { method: 'POST', body: JSON.stringify(rect), headers: { ...auth, 'content-type': 'application/json' } })).status).toBe(404);
    expect((await post(rect, {})).status).toBe(401);
    expect(await keptTiles(core, result.file.id)).toEqual(kept);
  });
});
