// The evidence viewer's zoom and pan as plain arithmetic: a view is a scale and a translation of the content (the
// image at its native pixels, or the PDF pages), zoomed about a point so what is under the pointer stays there.
export interface View {
  scale: number;
  x: number;
  y: number;
}

export const MIN_SCALE = 0.05;
export const MAX_SCALE = 16;
export const ZOOM_STEP = 1.25;

export interface Size {
  width: number;
  height: number;
}

/** The whole content centred in the stage, never enlarged past 4× (a small image is not blown up to blur). */
export function fitView(stage: Size, content: Size, margin = 16): View {
  const scale = clamp(Math.min((stage.width - 2 * margin) / content.width, (stage.height - 2 * margin) / content.height, 4), MIN_SCALE, MAX_SCALE);
  return { scale, x: (stage.width - content.width * scale) / 2, y: (stage.height - content.height * scale) / 2 };
}

/** The content at its native resolution (1 image pixel = 1 CSS pixel), centred on the stage's centre point. */
export function nativeView(view: View, stage: Size): View {
  return zoomAbout(view, 1 / view.scale, stage.width / 2, stage.height / 2);
}

/** Zooms by `factor` about the stage point (px, py): that point of the content stays under it. */
export function zoomAbout(view: View, factor: number, px: number, py: number): View {
  const scale = clamp(view.scale * factor, MIN_SCALE, MAX_SCALE);
  const k = scale / view.scale;
  return { scale, x: px - (px - view.x) * k, y: py - (py - view.y) * k };
}

export function panBy(view: View, dx: number, dy: number): View {
  return { ...view, x: view.x + dx, y: view.y + dy };
}

/** The content point (in content pixels) under a stage point. */
export function toContent(view: View, px: number, py: number): { x: number; y: number } {
  return { x: (px - view.x) / view.scale, y: (py - view.y) / view.scale };
}

const EDGE = 1e-6;

/** The part of the content shown on the stage, in whole content pixels inside the content; null when none shows. */
export function visibleRect(view: View, stage: Size, content: Size): { x: number; y: number; width: number; height: number } | null {
  const a = toContent(view, 0, 0);
  const b = toContent(view, stage.width, stage.height);
  // Whole pixels, forgiving the float error of a view that landed on a pixel edge (1499.9999 is 1500).
  const x = Math.max(0, Math.floor(a.x + EDGE));
  const y = Math.max(0, Math.floor(a.y + EDGE));
  const right = Math.min(content.width, Math.ceil(b.x - EDGE));
  const bottom = Math.min(content.height, Math.ceil(b.y - EDGE));
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
