// Draws the first page of a PDF into a small PNG for its card, with pdf.js loaded only when a PDF card needs it.
// pdf.js parses in its own worker (served from the app's origin); eval and scripting are off, and the CSP forbids them.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

type PdfJs = typeof import('pdfjs-dist');
let loading: Promise<PdfJs> | null = null;

function pdfjs(): Promise<PdfJs> {
  loading ??= import('pdfjs-dist').then((lib) => {
    lib.GlobalWorkerOptions.workerSrc = workerUrl;
    return lib;
  });
  return loading;
}

/** A PNG blob of page 1, about `width` CSS pixels wide. Throws when the PDF cannot be drawn (the card shows an icon). */
export async function renderPdfThumbnail(data: ArrayBuffer, width = 320): Promise<Blob> {
  const lib = await pdfjs();
  const task = lib.getDocument({
    data: new Uint8Array(data),
    isEvalSupported: false,
    enableXfa: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  try {
    const doc = await task.promise;
    const page = await doc.getPage(1);
    const unscaled = page.getViewport({ scale: 1 });
    const scale = Math.min(4, (width * (window.devicePixelRatio || 1)) / unscaled.width);
    const viewport = page.getViewport({ scale });
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(viewport.width);
    canvas.height = Math.ceil(viewport.height);
    await page.render({ canvas, viewport }).promise;
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('toBlob failed'))), 'image/png'));
  } finally {
    await task.destroy();
  }
}
