// A file's thumbnail for the printed report with its heatmap drawn in: the picture the core made of the file
// (never the original), downscaled, and the tile scores of GET .../regions composited over it with the window's
// colours (src/api/detector-bands.ts): each tile in its band under the model's thresholds, red towards AI-generated,
// blue towards authentic, clear where it points neither way.
import sharp from 'sharp';
import { tileRgba, type DetectorThresholds } from '../api/detector-bands.js';
import type { RegionGrid } from '../api/schemas.js';

/** The grid drawn over a file's picture: the image's own, or the first page of a PDF drawn as a scan. */
export function pictureGrid(grids: RegionGrid[]): RegionGrid | null {
  return grids.find((g) => g.source.kind === 'image') ?? grids.find((g) => g.source.kind === 'pdf_page' && g.source.page === 1) ?? null;
}

/** [r, g, b, alpha 0..255] of a tile score in its band (src/api/detector-bands.ts); the window's tileColor() in bytes. */
export function scoreColour(score: number, thresholds?: DetectorThresholds | null): [number, number, number, number] {
  const [r, g, b, a] = tileRgba(score, thresholds);
  return [r, g, b, Math.round(a * 255)];
}

/**
 * Non-overlapping cells between consecutive tile edges, each with the mean score of the tiles covering it (the
 * model's tiles overlap; drawing them as they are would darken the overlaps). Coordinates in the grid's pixels.
 */
export function heatmapCells(grid: RegionGrid): { x0: number; y0: number; x1: number; y1: number; score: number }[] {
  const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), max);
  const xs = [...new Set(grid.tiles.flatMap((t) => [clamp(t.x, grid.width), clamp(t.x + t.w, grid.width)]))].sort((a, b) => a - b);
  const ys = [...new Set(grid.tiles.flatMap((t) => [clamp(t.y, grid.height), clamp(t.y + t.h, grid.height)]))].sort((a, b) => a - b);
  const cells = [];
  for (let j = 0; j + 1 < ys.length; j++) {
    for (let i = 0; i + 1 < xs.length; i++) {
      const cx = (xs[i] + xs[i + 1]) / 2;
      const cy = (ys[j] + ys[j + 1]) / 2;
      const covering = grid.tiles.filter((t) => t.x <= cx && cx < t.x + t.w && t.y <= cy && cy < t.y + t.h);
      if (covering.length) cells.push({ x0: xs[i], y0: ys[j], x1: xs[i + 1], y1: ys[j + 1], score: covering.reduce((s, t) => s + t.score, 0) / covering.length });
    }
  }
  return cells;
}

/**
 * A JPEG at most `maxSide` pixels on its longest side with the heatmap composited in (when a grid is given). The
 * picture is one the core made itself (src/analysis preview): decoding it here is decoding our own bounded output.
 */
export async function thumbnailWithHeatmap(picture: Buffer, grid: RegionGrid | null, maxSide: number): Promise<{ data: Buffer; width: number; height: number }> {
  const base = await sharp(picture, { limitInputPixels: 2048 * 2048 * 2 })
    .resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = base.info;
  let img = sharp(base.data, { raw: { width, height, channels: 3 } });
  if (grid && grid.tiles.length) {
    const overlay = Buffer.alloc(width * height * 4);
    const sx = width / grid.width;
    const sy = height / grid.height;
    for (const c of heatmapCells(grid)) {
      const [r, g, b, a] = scoreColour(c.score, grid.thresholds);
      const x0 = Math.round(c.x0 * sx);
      const x1 = Math.min(width, Math.round(c.x1 * sx));
      const y1 = Math.min(height, Math.round(c.y1 * sy));
      for (let y = Math.round(c.y0 * sy); y < y1; y++) {
        for (let x = x0; x < x1; x++) overlay.set([r, g, b, a], (y * width + x) * 4);
      }
    }
    img = img.composite([{ input: overlay, raw: { width, height, channels: 4 } }]);
  }
  return { data: await img.removeAlpha().jpeg({ quality: 82 }).toBuffer(), width, height };
}
