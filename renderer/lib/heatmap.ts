// Geometry and colour of the heatmap overlay: tile scores of the analysed image, as percentages of its size so the
// overlay fits the thumbnail at any zoom.
import type { RegionGrid } from '../../src/api/schemas.js';

export interface OverlayTile {
  left: number;
  top: number;
  width: number;
  height: number;
  score: number;
  color: string;
}

/** Colour of a score: transparent blue for likely authentic, through clear, to strong red for likely AI. */
export function tileColor(score: number): string {
  const s = Math.min(1, Math.max(0, score));
  if (s >= 0.5) return `rgba(220, 38, 38, ${((s - 0.5) * 1.3).toFixed(3)})`;
  return `rgba(37, 99, 235, ${((0.5 - s) * 0.9).toFixed(3)})`;
}

/**
 * The overlay as non-overlapping cells: the model's tiles overlap (stride < tile size), and drawing them as they
 * are would darken the overlaps, a pattern of the tiling rather than of the scores. Each cell between consecutive
 * tile edges takes the mean score of the tiles that cover it.
 */
export function overlayTiles(grid: RegionGrid): OverlayTile[] {
  const clampX = (v: number): number => Math.min(Math.max(v, 0), grid.width);
  const clampY = (v: number): number => Math.min(Math.max(v, 0), grid.height);
  const xs = [...new Set(grid.tiles.flatMap((t) => [clampX(t.x), clampX(t.x + t.w)]))].sort((a, b) => a - b);
  const ys = [...new Set(grid.tiles.flatMap((t) => [clampY(t.y), clampY(t.y + t.h)]))].sort((a, b) => a - b);
  const pct = (v: number, total: number): number => Math.round((v / total) * 100_000) / 1000;
  const cells: OverlayTile[] = [];
  for (let j = 0; j + 1 < ys.length; j++) {
    for (let i = 0; i + 1 < xs.length; i++) {
      const cx = (xs[i] + xs[i + 1]) / 2;
      const cy = (ys[j] + ys[j + 1]) / 2;
      const covering = grid.tiles.filter((t) => t.x <= cx && cx < t.x + t.w && t.y <= cy && cy < t.y + t.h);
      if (covering.length === 0) continue;
      const score = covering.reduce((sum, t) => sum + t.score, 0) / covering.length;
      cells.push({
        left: pct(xs[i], grid.width),
        top: pct(ys[j], grid.height),
        width: pct(xs[i + 1] - xs[i], grid.width),
        height: pct(ys[j + 1] - ys[j], grid.height),
        score,
        color: tileColor(score),
      });
    }
  }
  return cells;
}

/** The grid to draw over a file's thumbnail: the image's own, or the first page/image of a PDF. */
export function pickGrid(grids: RegionGrid[]): RegionGrid | null {
  return grids.find((g) => g.source.kind === 'image') ?? grids.find((g) => g.source.kind === 'pdf_page' && g.source.page === 1) ?? null;
}
