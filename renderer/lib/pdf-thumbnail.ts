// Draws PDF pages in the window with pdf.js, loaded only when a PDF needs it: the first page as a card's thumbnail,
// every page in the evidence viewer, and where each embedded image lies on its page (for its heatmap).
// pdf.js parses in its own worker (served from the app's origin); eval and scripting are off, and the CSP forbids them.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import type { PDFDocumentLoadingTask, PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';
import { imagePaints, type Matrix } from '../../src/api/pdf-image-order.js';

type PdfJs = typeof import('pdfjs-dist');
let loading: Promise<PdfJs> | null = null;

function pdfjs(): Promise<PdfJs> {
  loading ??= import('pdfjs-dist').then((lib) => {
    lib.GlobalWorkerOptions.workerSrc = workerUrl;
    return lib;
  });
  return loading;
}

/**
 * pdf.js's data files, copied by vite.config.ts into the build and served from the app's own origin: the 14
 * standard fonts (a PDF that names Helvetica without embedding it) and the image decoders (JPEG 2000, JBIG2).
 * Absolute, because the worker resolves them from its own address.
 */
export function pdfjsAssetUrl(folder: 'standard_fonts' | 'wasm'): string {
  return new URL(`pdfjs/${folder}/`, document.baseURI).href;
}

/** Opens a PDF in pdf.js; the caller destroys the task when done. */
export function openPdf(data: ArrayBuffer): Promise<{ task: PDFDocumentLoadingTask; doc: Promise<PDFDocumentProxy> }> {
  return pdfjs().then((lib) => {
    const task = lib.getDocument({
      data: new Uint8Array(data),
      isEvalSupported: false,
      enableXfa: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
      standardFontDataUrl: pdfjsAssetUrl('standard_fonts'),
      wasmUrl: pdfjsAssetUrl('wasm'),
      // The decoders' plain-JavaScript builds, not WebAssembly: compiling WebAssembly needs 'wasm-unsafe-eval' in
      // the CSP of the page *and* of the worker (which the core serves), and a preview does not need the speed.
      // pdf.js loads openjpeg_nowasm_fallback.js from wasmUrl with import(), which script-src 'self' allows.
      useWasm: false,
    });
    return { task, doc: task.promise };
  });
}

/** Draws one page into a canvas at `scale` CSS pixels per PDF point, `density` device pixels per CSS pixel. */
export async function renderPage(page: PDFPageProxy, scale: number, density: number): Promise<{ canvas: HTMLCanvasElement; viewportTransform: Matrix; width: number; height: number }> {
  const viewport = page.getViewport({ scale });
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(viewport.width * density);
  canvas.height = Math.ceil(viewport.height * density);
  await page.render({ canvas, viewport, transform: density === 1 ? undefined : [density, 0, 0, density, 0, 0] }).promise;
  return { canvas, viewportTransform: viewport.transform as Matrix, width: viewport.width, height: viewport.height };
}

/**
 * The transformation matrix each image of a page is painted with, by its index in painting order: the walk the core
 * makes too (src/api/pdf-image-order.ts), so `imageIndex` of a `pdf_image` grid names the same image here.
 */
export async function imagePlacements(page: PDFPageProxy): Promise<Map<number, Matrix>> {
  const { OPS } = await pdfjs();
  const placements = new Map<number, Matrix>();
  for (const paint of imagePaints(await page.getOperatorList(), OPS)) placements.set(paint.imageIndex, paint.ctm);
  return placements;
}

/** A PNG blob of page 1, about `width` CSS pixels wide. Throws when the PDF cannot be drawn (the card shows an icon). */
export async function renderPdfThumbnail(data: ArrayBuffer, width = 320): Promise<Blob> {
  const { task, doc: opening } = await openPdf(data);
  try {
    const doc = await opening;
    const page = await doc.getPage(1);
    const unscaled = page.getViewport({ scale: 1 });
    const scale = Math.min(4, (width * (window.devicePixelRatio || 1)) / unscaled.width);
    const { canvas } = await renderPage(page, scale, 1);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('toBlob failed'))), 'image/png'));
  } finally {
    await task.destroy();
  }
}
