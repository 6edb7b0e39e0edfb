// The submission-time check (DECISIONS 21): can this accepted-kind file really be analysed? Sizes are read from the
// headers first (a bomb is refused before any pixel is decoded); then the file is decoded as the analysis will decode
// it, at a reduced size where the format allows, so that a file the probe accepts never ends a job in a decode error.
import { open } from 'node:fs/promises';
import { MAX_FILE_BYTES } from '../api/limits.js';
import type { Sniffed } from '../api/media-kinds.js';
import type { ProbeResult } from './analysis-results.js';
import { checkDecodes, checkHeader, DecodeError, readImageHeader } from './decode-image.js';
import { HeaderError } from './image-headers.js';
import { isEncrypted, MAX_PAGES, openPdf, PdfRefusal } from './pdf-document.js';

const unprocessable = (message: string): ProbeResult => ({ ok: false, code: 'unprocessable', message });

export async function probeFile(path: string, sniffed: Sniffed, opts: { signal?: AbortSignal } = {}): Promise<ProbeResult> {
  const { signal } = opts;
  let buf: Buffer;
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    // The core enforces the limits first; reading more than the limit here would only be a memory hazard.
    if (size > MAX_FILE_BYTES[sniffed.kind]) return unprocessable('the file is larger than its kind allows');
    buf = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await fh.read(buf, read, size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    buf = buf.subarray(0, read);
  } finally {
    await fh.close();
  }
  signal?.throwIfAborted();
  if (sniffed.kind === 'pdfs') return probePdf(buf, signal);
  let header;
  try {
    header = readImageHeader(buf, sniffed.mediaType);
  } catch (err) {
    if (err instanceof HeaderError || err instanceof RangeError) return unprocessable(`the image cannot be decoded: ${err.message}`);
    throw err;
  }
  // Size before integrity: a bomb is refused as a bomb even when it is also cut short.
  const refusal = checkHeader(header);
  if (refusal) return unprocessable(refusal);
  try {
    await checkDecodes(buf, sniffed.mediaType, signal);
  } catch (err) {
    if (err instanceof DecodeError) return unprocessable(err.message);
    throw err;
  }
  return { ok: true, mediaType: sniffed.mediaType, width: header.width, height: header.height };
}

/** A trailer or xref-stream dictionary naming an /Encrypt dictionary (pdf.js ignores some broken ones). */
function declaresEncryption(buf: Buffer): boolean {
  return /\/Encrypt\s*(?:\d+\s+\d+\s+R|<<)/.test(buf.toString('latin1'));
}

async function probePdf(buf: Buffer, signal?: AbortSignal): Promise<ProbeResult> {
  let doc;
  try {
    doc = await openPdf(new Uint8Array(buf.buffer, buf.byteOffset, buf.length), signal);
  } catch (err) {
    if (err instanceof PdfRefusal) return unprocessable(err.message);
    throw err;
  }
  try {
    // A PDF encrypted with an empty user password (permissions only) opens without asking, as in every PDF reader:
    // pdf.js decrypts its strings and streams, and the analysis reads it like any other (issue 22). One that needs a
    // password was refused by openPdf. An /Encrypt entry pdf.js did not apply would leave the content unreadable.
    if (declaresEncryption(buf) && !(await isEncrypted(doc))) return unprocessable('the PDF declares an encryption that cannot be read');
    if (!(doc.numPages >= 1)) return unprocessable('the PDF has no pages');
    // Every page the analysis will read must load: a page tree pointing at missing or broken objects is a document
    // that cannot be analysed. (Damaged content streams and images are the analysis' to report, per page.)
    for (let p = 1; p <= Math.min(doc.numPages, MAX_PAGES); p++) {
      signal?.throwIfAborted();
      try {
        const page = await doc.getPage(p);
        page.cleanup();
      } catch (err) {
        if (signal?.aborted) throw err;
        return unprocessable(`page ${p} of the PDF cannot be read (${(err as Error).message})`);
      }
    }
    return { ok: true, mediaType: 'application/pdf', pages: doc.numPages };
  } finally {
    await doc.destroy();
  }
}
