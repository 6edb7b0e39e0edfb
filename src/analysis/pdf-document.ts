// Opens PDFs with pdf.js configured for hostile input (no eval, no font faces, no system fonts, no network, an
// image-size ceiling, local wasm/cmap/font data only) and pulls out the raster images a generator or editor made.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/types/src/display/api.js';
import type { RgbImage } from './decode-image.js';
import { MIN_SIDE } from './decode-image.js';
import { imagePaints } from '../api/pdf-image-order.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsPromise: Promise<PdfJs> | null = null;
function pdfjs(): Promise<PdfJs> {
  pdfjsPromise ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjsPromise;
}

const require = createRequire(import.meta.url);
const PDFJS_ROOT = dirname(require.resolve('pdfjs-dist/package.json'));

/** Pages read per document at most (a 2 MiB PDF may declare 100,000 pages). */
export const MAX_PAGES = 50;
/** Raster images analysed per document at most. */
export const MAX_IMAGES = 24;
/** Embedded images smaller than this on a side (icons, rules, logos) are not scored: too little signal. */
export const MIN_PDF_IMAGE_SIDE = 64;
/** Decoded pixels scored per document at most (bounds memory and time with the image count). */
export const MAX_TOTAL_PIXELS = 200_000_000;
/** pdf.js decodes no image above this (a 2 MiB PDF has no business holding a larger raster). */
export const PDF_MAX_IMAGE_PIXELS = 50_000_000;
/** Long side of a rendered scan page at most. */
const MAX_RENDER_SIDE = 3000;

export class PdfRefusal extends Error {}

export async function openPdf(data: Uint8Array, signal?: AbortSignal): Promise<PDFDocumentProxy> {
  const { getDocument } = await pdfjs();
  const task = getDocument({
    data,
    isEvalSupported: false, // CVE-2024-4367 class: never compile PDF content into functions
    disableFontFace: true,
    useSystemFonts: false,
    fontExtraProperties: false,
    enableXfa: false,
    stopAtErrors: false, // recover what can be recovered from damaged files; the structure check reports damage
    maxImageSize: PDF_MAX_IMAGE_PIXELS,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    useWorkerFetch: false,
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
    wasmUrl: join(PDFJS_ROOT, 'wasm') + '/',
    cMapUrl: join(PDFJS_ROOT, 'cmaps') + '/',
    cMapPacked: true,
    standardFontDataUrl: join(PDFJS_ROOT, 'standard_fonts') + '/',
    verbosity: 0,
  });
  const onAbort = () => void task.destroy();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    const name = (err as Error).name;
    if (signal?.aborted) throw signal.reason ?? err;
    if (name === 'PasswordException') throw new PdfRefusal('the PDF is protected by a password: it cannot be opened without it, so it cannot be analysed');
    throw new PdfRefusal(`the PDF cannot be read (${(err as Error).message})`);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** A one-page PDF of nothing (warmPdfReader). */
const BLANK_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 8 8] >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
  'latin1',
);

/**
 * Loads pdf.js and its document reader (its first document costs about 2 s here, the modules' loading) by opening a
 * blank page, so that the first PDF a person drops is not the one that pays it.
 */
export async function warmPdfReader(): Promise<void> {
  const doc = await openPdf(new Uint8Array(BLANK_PDF));
  try {
    await doc.getPage(1);
  } finally {
    await doc.destroy();
  }
}

/** Whether the document is encrypted (pdf.js opens those with an empty user password, permissions only, without asking). */
export async function isEncrypted(doc: PDFDocumentProxy): Promise<boolean> {
  const { info } = await doc.getMetadata();
  return Boolean((info as Record<string, unknown>).EncryptFilterName);
}

export interface PdfRaster {
  kind: 'pdf_image' | 'pdf_page';
  page: number; // 1-based
  imageIndex?: number; // 0-based, in painting order on the page
  image: RgbImage;
  /** Fraction of the page area the image covers (1 for a rendered page). */
  coverage: number;
  /**
   * Fraction of the page a viewer sees of it: its box clipped to the page, 0 when an image painted later covers it
   * whole (1 for a rendered page). A picture drawn off the page, at a speck's size or under another is not one a
   * reviewer sees.
   */
  visible: number;
  /** One of several images that make up a page which is also rendered and scored as a scan. */
  inScan?: boolean;
}

type Box = [number, number, number, number];
/** The box (x0, y0, x1, y1) of the unit square under `ctm`: where an image lands on the page. */
function boxOf(ctm: readonly number[]): Box {
  const [a, b, c, d, e, f] = ctm;
  const xs = [e, a + e, c + e, a + c + e];
  const ys = [f, b + f, d + f, b + d + f];
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}
const clip = (x: Box, to: Box): Box => [Math.max(x[0], to[0]), Math.max(x[1], to[1]), Math.min(x[2], to[2]), Math.min(x[3], to[3])];
const areaOf = (x: Box) => Math.max(0, x[2] - x[0]) * Math.max(0, x[3] - x[1]);
const contains = (outer: Box, inner: Box) => outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] >= inner[2] && outer[3] >= inner[3];

export interface PdfImageSurvey {
  rasters: PdfRaster[];
  pagesRead: number;
  imagesSeen: number;
  /** Images present but not analysed, in words (bilevel masks, too small, over the cap). */
  skipped: string[];
}

// pdf.js ImageKind
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

interface PdfJsImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

/**
 * Walks the pages' operator lists: every painted raster image (image XObjects and inline images) is taken at its
 * native resolution; a page covered by images that cannot be taken alone (several strips, bilevel layers under a
 * colour layer) is rendered instead, at about the images' own resolution, as a scan.
 */
export async function surveyImages(
  doc: PDFDocumentProxy,
  opts: { signal?: AbortSignal; onRaster?: (r: PdfRaster) => Promise<void> } = {},
): Promise<PdfImageSurvey> {
  const { OPS } = await pdfjs();
  const { signal, onRaster } = opts;
  const rasters: PdfRaster[] = [];
  const skipped: string[] = [];
  let imagesSeen = 0;
  let taken = 0;
  let pixelsTaken = 0;
  // Each raster is handed over (and can be freed) before the next page is read: memory stays at one page's images.
  const take = async (r: PdfRaster): Promise<boolean> => {
    const px = r.image.width * r.image.height;
    if (taken >= MAX_IMAGES || pixelsTaken + px > MAX_TOTAL_PIXELS) {
      skipped.push(`page ${r.page}${r.imageIndex !== undefined ? ` image ${r.imageIndex}` : ''}: over the per-document limit (${MAX_IMAGES} images, ${MAX_TOTAL_PIXELS / 1e6} MP)`);
      return false;
    }
    taken++;
    pixelsTaken += px;
    if (onRaster) await onRaster(r);
    else rasters.push(r);
    return true;
  };
  const pages = Math.min(doc.numPages, MAX_PAGES);
  if (doc.numPages > MAX_PAGES) skipped.push(`pages ${MAX_PAGES + 1}-${doc.numPages} were not examined (limit ${MAX_PAGES})`);
  for (let p = 1; p <= pages; p++) {
    signal?.throwIfAborted();
    let page: PDFPageProxy;
    try {
      page = await doc.getPage(p);
    } catch {
      skipped.push(`page ${p} could not be read`);
      continue;
    }
    try {
      const [vx0, vy0, vx1, vy1] = page.view;
      const pageArea = Math.abs((vx1 - vx0) * (vy1 - vy0)) || 1;
      const ops = await page.getOperatorList();
      let coveredByImages = 0;
      let maxDensity = 0; // image pixels per page unit, to render scans at their own resolution
      const pageRasters: PdfRaster[] = [];
      const page0: Box = [Math.min(vx0, vx1), Math.min(vy0, vy1), Math.max(vx0, vx1), Math.max(vy0, vy1)];
      // Every image's box on the page in painting order, and where each raster taken was painted, to tell what a viewer sees.
      const painted: Box[] = [];
      const placed: { raster: PdfRaster; box: Box; order: number }[] = [];
      const seen = new Set<string>();
      // The images in painting order, as the window counts them too (src/api/pdf-image-order.ts: `imageIndex`).
      for (const { imageIndex, ctm, fn, args, op } of imagePaints(ops, OPS)) {
        imagesSeen++;
        const area = Math.abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]);
        const box = boxOf(ctm);
        painted.push(box);
        const img = await resolveImage(page, args[0]);
        if (!img) {
          skipped.push(`page ${p} image ${imageIndex}: not decodable`);
          continue;
        }
        const side = Math.sqrt(area) || 1;
        maxDensity = Math.max(maxDensity, Math.sqrt(img.width * img.height) / side);
        if (fn === OPS.paintImageMaskXObject || img.kind === GRAYSCALE_1BPP || !img.data) {
          skipped.push(`page ${p} image ${imageIndex}: ${img.width}x${img.height} bilevel mask, not scored`);
          continue;
        }
        // Only continuous-tone images count towards "the page is a picture": a bilevel fax/JBIG2 scan is text.
        coveredByImages += area;
        if (img.width < MIN_PDF_IMAGE_SIDE || img.height < MIN_PDF_IMAGE_SIDE) {
          skipped.push(`page ${p} image ${imageIndex}: ${img.width}x${img.height}, under ${MIN_PDF_IMAGE_SIDE} px`);
          continue;
        }
        const key = typeof args[0] === 'string' ? args[0] : `inline-${op}`;
        if (seen.has(key)) continue; // the same XObject painted twice
        seen.add(key);
        const rgb = toRgb(img);
        if (!rgb) continue;
        const colours = distinctColours(rgb);
        if (colours <= LINE_ART_COLOURS) {
          // Fax/JBIG2 scans arrive as RGB too: a handful of flat colours is line art, which the detector cannot read.
          skipped.push(`page ${p} image ${imageIndex}: ${img.width}x${img.height} with ${colours} colour${colours === 1 ? '' : 's'} (bilevel or line art), not scored`);
          coveredByImages -= area;
          continue;
        }
        const raster: PdfRaster = { kind: 'pdf_image', page: p, imageIndex, image: rgb, coverage: Math.min(1, area / pageArea), visible: 0 };
        placed.push({ raster, box, order: painted.length - 1 });
        pageRasters.push(raster);
      }
      for (const { raster, box, order } of placed) {
        const shown = clip(box, page0);
        const covered = painted.slice(order + 1).some((later) => contains(later, shown));
        raster.visible = covered ? 0 : Math.min(1, areaOf(shown) / pageArea);
      }
      const coverage = coveredByImages / pageArea;
      const wholeImage = pageRasters.some((r) => r.coverage >= 0.6);
      if (coverage >= 0.6 && !wholeImage && taken < MAX_IMAGES) {
        // A scan made of strips or layers: the page itself is the picture.
        const rendered = await renderPage(page, maxDensity, signal);
        if (rendered && distinctColours(rendered) > LINE_ART_COLOURS) {
          await take({ kind: 'pdf_page', page: p, image: rendered, coverage: 1, visible: 1 });
          for (const r of pageRasters) r.inScan = true;
        } else if (rendered) skipped.push(`page ${p}: rendered scan is bilevel or line art, not scored`);
      }
      for (const r of pageRasters) await take(r);
    } finally {
      page.cleanup();
    }
  }
  return { rasters, pagesRead: pages, imagesSeen, skipped };
}

/** Image objects arrive from pdf.js's worker after the operator list; wait for each, boundedly. */
const IMAGE_WAIT_MS = 5000;
function resolveImage(page: PDFPageProxy, ref: unknown): Promise<PdfJsImage | null> {
  if (ref && typeof ref === 'object' && 'width' in ref) return Promise.resolve(ref as PdfJsImage); // inline image data
  if (typeof ref !== 'string') return Promise.resolve(null);
  const objs = ref.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => resolvePromise(null), IMAGE_WAIT_MS);
    try {
      objs.get(ref, (data: unknown) => {
        clearTimeout(timer);
        resolvePromise(data && typeof data === 'object' && 'width' in data ? (data as PdfJsImage) : null);
      });
    } catch {
      clearTimeout(timer);
      resolvePromise(null);
    }
  });
}

/** Images with at most this many distinct colours (in a sample) are bilevel scans or line art: not scored. */
export const LINE_ART_COLOURS = 16;

/** Distinct colours among up to ~16k evenly spaced pixels, counting no further than LINE_ART_COLOURS + 1. */
export function distinctColours(img: RgbImage): number {
  const n = img.width * img.height;
  const step = Math.max(1, Math.floor(n / 16384));
  const seen = new Set<number>();
  for (let i = 0; i < n; i += step) {
    const o = i * 3;
    seen.add((img.data[o] << 16) | (img.data[o + 1] << 8) | img.data[o + 2]);
    if (seen.size > LINE_ART_COLOURS) break;
  }
  return seen.size;
}

function toRgb(img: PdfJsImage): RgbImage | null {
  const n = img.width * img.height;
  const src = img.data;
  if (!src || !(n > 0)) return null;
  if (img.kind === RGB_24BPP && src.length >= n * 3) {
    return { width: img.width, height: img.height, data: Buffer.from(src.buffer, src.byteOffset, n * 3) };
  }
  if (img.kind === RGBA_32BPP && src.length >= n * 4) {
    const out = Buffer.allocUnsafe(n * 3);
    for (let i = 0, j = 0; i < n; i++, j += 4) {
      out[i * 3] = src[j];
      out[i * 3 + 1] = src[j + 1];
      out[i * 3 + 2] = src[j + 2];
    }
    return { width: img.width, height: img.height, data: out };
  }
  return null;
}

async function renderPage(page: PDFPageProxy, density: number, signal?: AbortSignal): Promise<RgbImage | null> {
  const base = page.getViewport({ scale: 1 });
  const longSide = Math.max(base.width, base.height);
  const scale = Math.min(Math.max(density, 1), MAX_RENDER_SIDE / longSide);
  const viewport = page.getViewport({ scale });
  const width = Math.floor(viewport.width);
  const height = Math.floor(viewport.height);
  if (width < MIN_SIDE || height < MIN_SIDE) return null;
  const { createCanvas } = await import('@napi-rs/canvas');
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  const task = page.render({
    canvas: canvas as unknown as HTMLCanvasElement,
    canvasContext: ctx as unknown as CanvasRenderingContext2D,
    viewport,
    annotationMode: 0, // AnnotationMode.DISABLE: the page content only
  });
  const onAbort = () => task.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await task.promise;
  } catch {
    if (signal?.aborted) throw signal.reason;
    return null;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  const rgba = ctx.getImageData(0, 0, width, height).data;
  const n = width * height;
  const out = Buffer.allocUnsafe(n * 3);
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    out[i * 3] = rgba[j];
    out[i * 3 + 1] = rgba[j + 1];
    out[i * 3 + 2] = rgba[j + 2];
  }
  return { width, height, data: out };
}

/**
 * Page `pageNumber` drawn at most `maxSide` pixels on its longest side (the document's own size when smaller), for
 * previews: the same hostile-input settings as the analysis. Null when the page cannot be drawn.
 */
export async function renderPagePreview(doc: PDFDocumentProxy, pageNumber: number, maxSide: number, signal?: AbortSignal): Promise<RgbImage | null> {
  const page = await doc.getPage(pageNumber);
  try {
    const base = page.getViewport({ scale: 1 });
    // renderPage never scales below 1 and caps at MAX_RENDER_SIDE: a density under 1 draws the page at its own size.
    return await renderPage(page, Math.min(maxSide, MAX_RENDER_SIDE) / Math.max(base.width, base.height), signal);
  } finally {
    page.cleanup();
  }
}
