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

export function overlayTiles(grid: RegionGrid): OverlayTile[] {
  const pct = (v: number, total: number): number => Math.round((v / total) * 100_000) / 1000;
  return grid.tiles.map((t) => ({
    left: pct(t.x, grid.width),
    top: pct(t.y, grid.height),
    width: pct(Math.min(t.w, grid.width - t.x), grid.width),
    height: pct(Math.min(t.h, grid.height - t.y), grid.height),
    score: t.score,
    color: tileColor(t.score),
  }));
}

/** The grid to draw over a file's thumbnail: the image's own, or the first page/image of a PDF. */
export function pickGrid(grids: RegionGrid[]): RegionGrid | null {
  return grids.find((g) => g.source.kind === 'image') ?? grids.find((g) => g.source.kind === 'pdf_page' && g.source.page === 1) ?? null;
}
