// What the catalogue builder and the forgery evaluation record of one corpus file: the capture metadata the
// runtime reads (src/analysis/capture/metadata.ts) plus its tables and size.
import { CAPTURE_FLOOR_PIXELS } from '../../src/analysis/capture/index.js';
import { readCaptureMetadata } from '../../src/analysis/capture/metadata.js';
import { standardIjg, tablesHash, usedTables } from '../../src/analysis/capture/quant-tables.js';
import type { MakerNoteInfo } from '../../src/analysis/capture/maker-note.js';
import type { HeicStructure } from '../../src/analysis/capture/heic-structure.js';
import { editorIn } from '../../src/analysis/editing-software.js';

export interface FileSurvey {
  kind: 'jpeg' | 'heic';
  make: string | null;
  model: string | null;
  software: string | null;
  editedBy: string | null;
  width: number | null;
  height: number | null;
  /**
   * The file ends before its image data does (a header-only sample). A picture followed by other data (a phone's
   * debug trailer, a camera's appended preview, a card dump's leftovers) is whole when it decodes whole at a camera's
   * size (a 60x60 frame first in a broken dump is not).
   */
  truncated: boolean;
  progressive: boolean;
  /** A JFIF APP0 header, and the tables laid out one per marker as libjpeg writes them (jpeg-structure.ts). */
  jfif: boolean;
  libjpegLayout: boolean;
  /** The Exif segment before the JFIF header (jpeg-structure.ts). */
  exifBeforeJfif: boolean;
  /** The table, restart and frame markers in order (jpeg-structure.ts), e.g. 'Q2 H4 F'; null for HEIC. */
  layout: string | null;
  /** The APPn segments before the first scan, each named once ('APP1:Exif', 'APP2:MPF', ...; jpeg-structure.ts). */
  segments: string[];
  /** The used tables (quant-tables.ts usedTables), natural order. */
  tables: number[][];
  tablesHash: string | null;
  ijgQuality: number | null;
  thumbnail: boolean;
  makerNote: MakerNoteInfo | null;
  exifSize: boolean;
  exifSizeMatches: boolean;
  heic: HeicStructure | null;
}

/** The picture decodes to the end, at no less than VGA-ish (the capture check's floor). */
async function decodesWhole(buf: Buffer): Promise<boolean> {
  const { default: sharp } = await import('sharp');
  try {
    const { info } = await sharp(buf, { failOn: 'truncated' }).raw().toBuffer({ resolveWithObject: true });
    return info.width * info.height >= CAPTURE_FLOOR_PIXELS;
  } catch {
    return false;
  }
}

export async function surveyFile(buf: Buffer, path: string): Promise<FileSurvey | null> {
  const heif = /\.(heic|heif|hif)$/i.test(path);
  const md = await readCaptureMetadata(buf, heif ? 'image/heic' : 'image/jpeg');
  if (!heif && !md.jpeg?.frame) return null;
  let width = md.jpeg?.frame?.width ?? null;
  let height = md.jpeg?.frame?.height ?? null;
  if (heif) {
    const { readHeifHeader } = await import('../../src/analysis/image-headers.js');
    try {
      const h = readHeifHeader(buf);
      width = h.width;
      height = h.height;
    } catch {
      return null;
    }
  }
  const tables = md.jpeg ? usedTables(md.jpeg) : [];
  const ijg = tables.length ? standardIjg(tables) : null;
  const exifSize = md.exifWidth !== null && md.exifHeight !== null && md.exifWidth > 0;
  const eoi = Buffer.from([0xff, 0xd9]);
  const ended = buf.indexOf(eoi, md.jpeg?.scanStart ?? 0) >= 0;
  const truncated = heif ? false : !ended || (buf.lastIndexOf(eoi) < buf.length - 4096 && !(await decodesWhole(buf)));
  return {
    kind: heif ? 'heic' : 'jpeg',
    make: md.maker,
    model: md.model,
    software: md.software,
    editedBy: editorIn([md.software ?? '', ...md.xmpAgents]),
    width,
    height,
    truncated,
    progressive: md.jpeg?.frame?.progressive ?? false,
    jfif: md.jpeg?.jfif ?? false,
    libjpegLayout: md.jpeg?.libjpegLayout ?? false,
    exifBeforeJfif: md.jpeg?.exifBeforeJfif ?? false,
    layout: md.jpeg?.layout ?? null,
    segments: [...new Set(md.jpeg?.segments ?? [])],
    tables,
    tablesHash: tables.length ? tablesHash(tables) : null,
    ijgQuality: ijg?.quality ?? null,
    thumbnail: md.thumbnailDeclared,
    makerNote: md.makerNote,
    exifSize,
    exifSizeMatches:
      exifSize && width !== null && height !== null && ((md.exifWidth === width && md.exifHeight === height) || (md.exifWidth === height && md.exifHeight === width)),
    heic: md.heic,
  };
}
