// Where the detector's tiles lie on a picture: whole tiles on a stride grid, row-major. Pure, shared by the analysis
// (which scores them), the core (which scores a region's on demand) and the window (which asks for them).

/** Row-major grid origins [x, y] with the whole tile inside the image. */
export function gridOrigins(width: number, height: number, tile: number, stride: number): Array<[number, number]> {
  if (width < tile || height < tile) return [];
  const grid: Array<[number, number]> = [];
  for (let y = 0; y + tile <= height; y += stride) for (let x = 0; x + tile <= width; x += stride) grid.push([x, y]);
  return grid;
}

/** A rectangle of a picture, in its pixels. */
export interface PixelRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The origins of the grid's tiles that overlap the rectangle, row-major: what "every tile of that region" means for
 * the viewer. A picture under a tile on a side is padded by the analysis and has no tiles but the analysis' own.
 */
export function originsInRect(width: number, height: number, tile: number, stride: number, rect: PixelRegion): Array<[number, number]> {
  return gridOrigins(width, height, tile, stride).filter(
    ([ox, oy]) => ox < rect.x + rect.width && ox + tile > rect.x && oy < rect.y + rect.height && oy + tile > rect.y,
  );
}
