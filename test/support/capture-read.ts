// The capture check read as the analysis reads a file: its bytes with the decoded size (sharp's, stored orientation).
import sharp from 'sharp';
import { readCapture, type CaptureReport } from '../../src/analysis/capture/index.js';

export async function captureOf(buf: Buffer, mediaType: 'image/jpeg' | 'image/heic' = 'image/jpeg', read = readCapture): Promise<CaptureReport> {
  const m = await sharp(buf).metadata();
  return read({ buf, mediaType, width: m.width!, height: m.height! });
}

export const codesOf = (r: CaptureReport): string[] => r.findings.map((f) => f.code);

/** The report's finding with this code, if any. */
export const findingOf = (r: CaptureReport, code: string) => r.findings.find((f) => f.code === code);
