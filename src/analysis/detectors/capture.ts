// The capture-consistency detector (images): whether the file is built the way the camera its metadata names builds
// its files (src/analysis/capture/). Its contradictions take away camera evidence in fusion, and camera EXIF counts
// towards `authentic` only when this detector found the capture consistent.
import type { MediaType } from '../../api/schemas.js';
import { CAPTURE_CONTRADICTED_LABEL, CAPTURE_RESAVED_LABEL } from '../../api/vocabulary.js';
import { readCapture, type CaptureReport } from '../capture/index.js';
import { dimensionOf } from '../copy.js';
import type { Detector, DetectorOutput } from '../detector.js';

export const captureDetector: Detector = {
  key: 'capture',
  appliesTo: (kind) => kind === 'image',
  run: async (ctx) => {
    if (!ctx.image) return { dimension: null, findings: [] };
    const report = await readCapture({
      buf: ctx.bytes,
      mediaType: ctx.mediaType as Exclude<MediaType, 'application/pdf'>,
      // Oriented size: the size checks accept either orientation, and the thumbnail check reads the stored size itself.
      width: ctx.image.width,
      height: ctx.image.height,
      signal: ctx.signal,
    });
    return captureOutput(report);
  },
};

/**
 * The `capture` dimension: nothing to show without capture metadata; a contradiction scores towards manipulation by
 * its strongest finding and is named in the label (CAPTURE_CONTRADICTED_LABEL): evidence of manipulation after
 * capture, not of AI generation, so its assessment stays inconclusive, at low confidence like every check that points
 * neither way (a "high confidence" beside an inconclusive reading and a low-confidence verdict read as a
 * contradiction of its own); a file a program only saved again (capture/signs.ts) is named so
 * (CAPTURE_RESAVED_LABEL) and scores 0.5, since a re-save points neither way; a consistent capture is likely
 * authentic at medium confidence (a forger who also copies a maker's tables and rebuilds the thumbnail is not ruled
 * out).
 */
export function captureOutput(report: CaptureReport): DetectorOutput {
  const { findings, status } = report;
  if (status === 'absent') return { dimension: null, findings };
  if (status === 'contradicted') {
    const worst = Math.max(...findings.map((f) => f.weight));
    return { dimension: dimensionOf('capture', round(0.5 + worst / 2), 'inconclusive', 'low', CAPTURE_CONTRADICTED_LABEL), findings };
  }
  if (status === 'resaved') return { dimension: dimensionOf('capture', 0.5, 'inconclusive', 'low', CAPTURE_RESAVED_LABEL), findings };
  if (status === 'consistent') return { dimension: dimensionOf('capture', 0.2, 'likely_authentic', 'medium'), findings };
  return { dimension: dimensionOf('capture', 0.5, 'inconclusive', 'low'), findings };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
