// Geometry and colour of the heatmap overlay: tile scores of the analysed image, as percentages of its size so the
// overlay fits the thumbnail at any zoom.
import type { RegionGrid } from '../../src/api/schemas.js';
import { multiply, type Matrix } from '../../src/api/pdf-image-order.js';
import { tileColor } from './score-bands.js';

export type { Matrix };

export interface OverlayTile {
  left: number;
  top: number;
  width: number;
  height: number;
  score: number;
  /** Its band's colour under the thresholds of the model that scored the grid (renderer/lib/score-bands.ts). */
  color: string;
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
        color: tileColor(score, grid.thresholds),
      });
    }
  }
  return cells;
}

/**
 * The grid with tiles scored later for the viewer (POST .../regions) added: one tile per origin, the analysis' own
 * first. The added tiles fill the gaps of the analysis' sample; the file's score never rests on them.
 */
export function withTiles(grid: RegionGrid, extra: RegionGrid['tiles']): RegionGrid {
  if (extra.length === 0) return grid;
  const at = (t: { x: number; y: number }): string => `${t.x},${t.y}`;
  const seen = new Set(grid.tiles.map(at));
  const added = extra.filter((t) => !seen.has(at(t)));
  return added.length === 0 ? grid : { ...grid, tiles: [...grid.tiles, ...added] };
}

/** The grid to draw over a file's thumbnail: the image's own, or the first page/image of a PDF. */
export function pickGrid(grids: RegionGrid[]): RegionGrid | null {
  return grids.find((g) => g.source.kind === 'image') ?? grids.find((g) => g.source.kind === 'pdf_page' && g.source.page === 1) ?? null;
}

/** A rectangle in the analysed image's pixels. */
export interface PixelRect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface GridCoverage {
  /** Share of the image's area that at least one scored tile covers (0..1). */
  scoredFraction: number;
  /** The strip at the right that no tile reaches (the tiling keeps whole tiles inside the image), in pixels wide. */
  rightStrip: number;
  /** The strip at the bottom that no tile reaches, in pixels high. */
  bottomStrip: number;
  /** Every part of the image no tile covers: the two strips, then the gaps between tiles that were not sampled. */
  unscored: PixelRect[];
  /** True when the gaps inside come from sampling (large images are scored on an even sample of the tile grid). */
  sampled: boolean;
}

/**
 * What the heatmap covers and what it leaves out. The model scores whole tiles only, so a strip at the right and
 * bottom narrower than a stride is never scored, and on a large image only an even sample of the grid is scored:
 * both are drawn and said in words, so an unscored area is never read as "clean".
 */
export function gridCoverage(grid: RegionGrid): GridCoverage {
  const { width, height } = grid;
  if (grid.tiles.length === 0) {
    return { scoredFraction: 0, rightStrip: width, bottomStrip: height, unscored: [{ x: 0, y: 0, w: width, h: height }], sampled: false };
  }
  const right = Math.min(width, Math.max(...grid.tiles.map((t) => t.x + t.w)));
  const bottom = Math.min(height, Math.max(...grid.tiles.map((t) => t.y + t.h)));
  const unscored: PixelRect[] = [];
  if (right < width) unscored.push({ x: right, y: 0, w: width - right, h: height });
  if (bottom < height) unscored.push({ x: 0, y: bottom, w: right, h: height - bottom });
  // Inside the scored box, the cells (cut at every tile edge) that no tile covers.
  const xs = edges(grid.tiles.flatMap((t) => [t.x, t.x + t.w]), right);
  const ys = edges(grid.tiles.flatMap((t) => [t.y, t.y + t.h]), bottom);
  let gapArea = 0;
  for (let j = 0; j + 1 < ys.length; j++) {
    let run: PixelRect | null = null;
    for (let i = 0; i + 1 < xs.length; i++) {
      const cx = (xs[i] + xs[i + 1]) / 2;
      const cy = (ys[j] + ys[j + 1]) / 2;
      const covered = grid.tiles.some((t) => t.x <= cx && cx < t.x + t.w && t.y <= cy && cy < t.y + t.h);
      if (covered) {
        run = null;
        continue;
      }
      const cell = { x: xs[i], y: ys[j], w: xs[i + 1] - xs[i], h: ys[j + 1] - ys[j] };
      gapArea += cell.w * cell.h;
      // Neighbouring gaps of a row are merged: fewer rectangles to draw.
      if (run && run.x + run.w === cell.x) run.w += cell.w;
      else {
        run = cell;
        unscored.push(run);
      }
    }
  }
  const scoredArea = right * bottom - gapArea;
  return {
    scoredFraction: Math.max(0, Math.min(1, scoredArea / (width * height))),
    rightStrip: width - right,
    bottomStrip: height - bottom,
    unscored,
    sampled: gapArea > 0,
  };
}

function edges(values: number[], max: number): number[] {
  return [...new Set(values.map((v) => Math.min(Math.max(v, 0), max)))].sort((a, b) => a - b);
}

/** The coverage in one or two sentences, for the viewer's side panel. */
export function coverageWords(c: GridCoverage, grid: Pick<RegionGrid, 'width' | 'height'>): string {
  const pct = Math.round(c.scoredFraction * 1000) / 10;
  const parts: string[] = [`Scored tiles cover ${pct} % of the ${grid.width} × ${grid.height} pixels.`];
  const strips: string[] = [];
  if (c.rightStrip > 0) strips.push(`a ${c.rightStrip}-pixel strip at the right`);
  if (c.bottomStrip > 0) strips.push(`a ${c.bottomStrip}-pixel strip at the bottom`);
  if (strips.length > 0) parts.push(`Not scored: ${strips.join(' and ')}, which the tiling does not reach (the detector reads whole tiles only).`);
  if (c.sampled) parts.push('This image is large, so the detector scored an even sample of its tiles: the gaps between them were not scored.');
  if (strips.length > 0 || c.sampled) parts.push('Hatched areas were not scored by the tile model (the models that read the whole picture still saw them): they are neither clean nor suspicious.');
  return parts.join(' ');
}

/** The overlay cell under a point of the image (in its pixels), for the tile score shown on hover. */
export function cellAt(cells: OverlayTile[], grid: Pick<RegionGrid, 'width' | 'height'>, x: number, y: number): OverlayTile | null {
  const px = (x / grid.width) * 100;
  const py = (y / grid.height) * 100;
  return cells.find((c) => c.left <= px && px < c.left + c.width && c.top <= py && py < c.top + c.height) ?? null;
}

/** How many tiles of the grid cover a point (overlapping tiles: a cell's score is their mean). */
export function tilesAt(grid: RegionGrid, x: number, y: number): number {
  return grid.tiles.filter((t) => t.x <= x && x < t.x + t.w && t.y <= y && y < t.y + t.h).length;
}

/**
 * Where an embedded PDF image's grid lies on the drawn page: a PDF paints an image into the unit square of its
 * current transformation matrix (`ctm`), with the image's first row at the top (y = 1); the viewport maps PDF
 * space to the page's CSS pixels. The result maps the grid's pixels (0..width, 0..height) onto the page, as a CSS
 * `matrix()` for an overlay box of width × height pixels with its origin at the page's top-left corner.
 */
export function pdfImageOverlayMatrix(viewportTransform: Matrix, ctm: Matrix, width: number, height: number): Matrix {
  return multiply(multiply(viewportTransform, ctm), [1 / width, 0, 0, -1 / height, 0, 1]);
}

/** The page-space box (CSS pixels) an overlay matrix covers: for the list of images and for tests. */
export function matrixBounds(m: Matrix, width: number, height: number): PixelRect {
  const corners = [
    [0, 0],
    [width, 0],
    [0, height],
    [width, height],
  ].map(([x, y]) => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]]);
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  return { x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) };
}
