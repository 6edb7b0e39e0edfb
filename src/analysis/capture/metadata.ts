// Reads what a file claims about its capture: EXIF (exifr), the maker note, the XMP edit history, the JPEG header
// and the HEIF box structure. One reader for the runtime checks and for the catalogue builder, so both see the same.
import exifr from 'exifr';
import { heifItemData } from '../image-headers.js';
import { readHeicStructure, type HeicStructure } from './heic-structure.js';
import { readJpegStructure, type JpegStructure } from './jpeg-structure.js';
import { canonicalMake } from './makes.js';
import { jpegTiff, readMakerNote, type MakerNoteInfo } from './maker-note.js';

export type CaptureMediaType = 'image/jpeg' | 'image/png' | 'image/heic' | 'image/heif';

export interface CaptureDates {
  DateTimeOriginal: string | null;
  CreateDate: string | null;
  ModifyDate: string | null;
  SubSecTimeOriginal: string | null;
  SubSecTimeDigitized: string | null;
  OffsetTimeOriginal: string | null;
  GPSDateStamp: string | null;
  GPSTimeStamp: number[] | null;
}

export interface CaptureMetadata {
  /** Any EXIF/TIFF block was found and read. */
  exif: boolean;
  make: string | null;
  model: string | null;
  software: string | null;
  /** Canonical maker (makes.ts), null when no Make. */
  maker: string | null;
  exifWidth: number | null;
  exifHeight: number | null;
  orientation: number | null;
  dates: CaptureDates;
  makerNote: MakerNoteInfo | null;
  /** An IFD1 (EXIF thumbnail) JPEG is declared. */
  thumbnailDeclared: boolean;
  /** XMP CreatorTool and every stEvt:softwareAgent of xmpMM:History. */
  xmpAgents: string[];
  xmpHistoryActions: string[];
  jpeg: JpegStructure | null;
  heic: HeicStructure | null;
}

const str = (v: unknown): string | null => {
  if (typeof v !== 'string') return null;
  const s = v.replace(/\0/g, '').trim();
  return s ? s.slice(0, 200) : null;
};
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The TIFF block of a HEIF file's Exif item: a 4-byte offset to the TIFF header, then the data (ISO/IEC 23008-12 A.2.1). */
export function heifTiff(buf: Buffer): Buffer | null {
  const item = heifItemData(buf, 'Exif');
  if (!item || item.length < 8) return null;
  const start = 4 + item.readUInt32BE(0);
  return start < item.length ? item.subarray(start) : null;
}

export async function readCaptureMetadata(buf: Buffer, mediaType: CaptureMediaType): Promise<CaptureMetadata> {
  const heif = mediaType === 'image/heic' || mediaType === 'image/heif';
  const jpeg = mediaType === 'image/jpeg' ? readJpegStructure(buf) : null;
  const heic = heif ? readHeicStructure(buf) : null;
  const tiff = heif ? heifTiff(buf) : mediaType === 'image/jpeg' ? jpegTiff(buf) : null;
  let blocks: Record<string, Record<string, unknown>> = {};
  try {
    // exifr misreads some HEIF Exif items, so for HEIF the TIFF block found above is handed over instead.
    const source = heif ? tiff : buf;
    if (source) {
      blocks =
        ((await exifr.parse(source, {
          tiff: true,
          ifd0: {},
          exif: true,
          gps: true,
          ifd1: true,
          interop: false,
          xmp: false,
          iptc: false,
          icc: false,
          makerNote: false,
          translateKeys: true,
          translateValues: false,
          reviveValues: false,
          mergeOutput: false,
        } as never)) as Record<string, Record<string, unknown>> | undefined) ?? {};
    }
  } catch {
    blocks = {};
  }
  // IFD1 (the thumbnail's IFD) is kept apart: its tags describe the thumbnail, not the image.
  const tags: Record<string, unknown> = { ...blocks.ifd0, ...blocks.exif, ...blocks.gps };
  const ifd1 = blocks.ifd1 ?? {};
  const make = str(tags.Make);
  let xmp = jpeg?.xmp ?? null;
  if (heif && !xmp) xmp = heifItemData(buf, 'mime', 512 * 1024)?.toString('utf8') ?? null;
  if (mediaType === 'image/png' && !xmp) {
    const at = buf.indexOf('<x:xmpmeta');
    if (at >= 0) xmp = buf.toString('utf8', at, Math.min(buf.length, at + 512 * 1024));
  }
  const agents: string[] = [];
  const actions: string[] = [];
  if (xmp) {
    const tool = /xmp:CreatorTool(?:="([^"]*)"|>([^<]*)<)/.exec(xmp);
    if (tool) agents.push((tool[1] ?? tool[2]).trim());
    for (const m of xmp.matchAll(/stEvt:softwareAgent(?:="([^"]*)"|>([^<]*)<)/g)) agents.push((m[1] ?? m[2]).trim());
    for (const m of xmp.matchAll(/stEvt:action(?:="([^"]*)"|>([^<]*)<)/g)) actions.push((m[1] ?? m[2]).trim());
  }
  const gpsTime = tags.GPSTimeStamp;
  return {
    exif: Object.keys(tags).length > 0 || Object.keys(ifd1).length > 0,
    make,
    model: str(tags.Model),
    software: str(tags.Software),
    maker: canonicalMake(make),
    exifWidth: num(tags.ExifImageWidth) ?? num(tags.PixelXDimension),
    exifHeight: num(tags.ExifImageHeight) ?? num(tags.PixelYDimension),
    orientation: num(tags.Orientation),
    dates: {
      DateTimeOriginal: str(tags.DateTimeOriginal),
      CreateDate: str(tags.CreateDate),
      ModifyDate: str(tags.ModifyDate),
      SubSecTimeOriginal: str(tags.SubSecTimeOriginal),
      SubSecTimeDigitized: str(tags.SubSecTimeDigitized),
      OffsetTimeOriginal: str(tags.OffsetTimeOriginal),
      GPSDateStamp: str(tags.GPSDateStamp),
      GPSTimeStamp: Array.isArray(gpsTime) && gpsTime.length === 3 && gpsTime.every((v) => typeof v === 'number') ? (gpsTime as number[]) : null,
    },
    makerNote: readMakerNote(tiff),
    thumbnailDeclared: num(ifd1.ThumbnailOffset) !== null && (num(ifd1.ThumbnailLength) ?? 0) > 0,
    xmpAgents: [...new Set(agents.filter(Boolean))].map((a) => a.slice(0, 200)),
    xmpHistoryActions: actions,
    jpeg,
    heic,
  };
}
