// A picture of a stored file that the core makes itself, in a worker process, for clients that cannot safely or
// cannot at all decode the original (browsers and HEIC; the case report's thumbnails): the image decoded with the
// analysis' bounded decoder, or a PDF's first page drawn by pdf.js with the analysis' hostile-input settings.
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import type { MediaType } from './analysis-results.js';
import { DecodeError, PREVIEW_MAX_SIDE, renderImagePreview, type PreviewImage } from './decode-image.js';
import { HeaderError } from './image-headers.js';
import { openPdf, PdfRefusal, renderPagePreview } from './pdf-document.js';

export type { PreviewImage };
export { PREVIEW_MAX_SIDE };

/** Throws DecodeError (or PdfRefusal) when the file gives no picture, its headers unreadable included. */
export async function previewFile(path: string, mediaType: MediaType, maxSide = PREVIEW_MAX_SIDE, signal?: AbortSignal): Promise<PreviewImage> {
  const bytes = await readFile(path, { signal });
  if (mediaType !== 'application/pdf') {
    try {
      return await renderImagePreview(bytes, mediaType, maxSide, signal);
    } catch (err) {
      if (err instanceof HeaderError) throw new DecodeError(`the image cannot be read: ${err.message}`);
      throw err;
    }
  }
  const doc = await openPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length).slice(), signal);
  try {
    if (!(doc.numPages >= 1)) throw new PdfRefusal('the PDF has no pages');
    const page = await renderPagePreview(doc, 1, maxSide, signal);
    if (!page) throw new DecodeError('the first page of the PDF cannot be drawn');
    const { data, info } = await sharp(page.data, { raw: { width: page.width, height: page.height, channels: 3 } })
      .resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true })
      .png({ compressionLevel: 6 })
      .toBuffer({ resolveWithObject: true });
    return { mediaType: 'image/png', width: info.width, height: info.height, data };
  } finally {
    await doc.destroy();
  }
}
