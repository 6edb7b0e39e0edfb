// The analysis pipeline's public surface: the only module of src/analysis the core imports (probe at submission,
// analyse in the queue's worker, close on worker shutdown; sniffing is a spec rule, in src/api/media-kinds.ts).
// Decoders and the ONNX runtime are loaded on first use, so a process that only probes never loads onnxruntime.
import type { TrustAnchorInfo } from '../api/app-schemas.js';
import type { Sniffed } from '../api/media-kinds.js';
import type { AnalyseOptions } from './analyse.js';
import { AnalysisError, type MediaType, type ProbeResult, type FileAnalysis } from './analysis-results.js';
import type { PreviewImage } from './decode-image.js';
import type { RegionTileOptions } from './region-tiles.js';

export { AnalysisError };
export type { AnalysisErrorCode, FileAnalysis, ProbeResult } from './analysis-results.js';
export type { PreviewImage } from './decode-image.js';

/** The submission-time check (see probe.ts): { ok: false, code: 'unprocessable' } for files that cannot be analysed. */
export async function probeFile(path: string, sniffed: Sniffed, opts?: { signal?: AbortSignal }): Promise<ProbeResult> {
  const m = await import('./probe.js');
  return m.probeFile(path, sniffed, opts);
}

/** Full analysis of an accepted file (see analyse.ts); throws AnalysisError('result_unavailable' | 'internal_error'). */
export async function analyseFile(
  path: string,
  mediaType: MediaType,
  opts: AnalyseOptions,
): Promise<FileAnalysis> {
  const m = await import('./analyse.js');
  return m.analyseFile(path, mediaType, opts);
}

/**
 * A PNG or JPEG of the file made by the core (see preview.ts), at most `maxSide` on its longest side; throws
 * AnalysisError('unprocessable') when the file gives no picture.
 */
export async function previewFile(path: string, mediaType: MediaType, opts: { maxSide?: number; signal?: AbortSignal } = {}): Promise<PreviewImage> {
  const m = await import('./preview.js');
  const { DecodeError } = await import('./decode-image.js');
  const { PdfRefusal } = await import('./pdf-document.js');
  try {
    return await m.previewFile(path, mediaType, opts.maxSide, opts.signal);
  } catch (err) {
    if (err instanceof DecodeError || err instanceof PdfRefusal) throw new AnalysisError('unprocessable', err.message);
    throw err;
  }
}

/** The tiling of the installed model (tile size, stride): read from its checked manifest, the model not loaded. */
export async function modelTiling(modelsDir: string): Promise<{ tileSize: number; stride: number }> {
  const m = await import('./model-session.js');
  const manifest = await m.readManifest(modelsDir);
  return { tileSize: manifest.input.tileSize, stride: manifest.tiling.stride };
}

/** P(AI) of the tiles of an image file at these origins, with the analysis' model (see region-tiles.ts). */
export async function scoreRegionTiles(path: string, mediaType: MediaType, opts: RegionTileOptions): Promise<number[]> {
  const m = await import('./region-tiles.js');
  return m.scoreRegionTiles(path, mediaType, opts);
}

/**
 * The C2PA trust anchors of a PEM bundle (subject, expiry); [] when the file does not exist. Throws, naming the
 * file, when it exists and does not parse (a broken trust configuration must stop the core, not read as none).
 */
export async function readTrustAnchors(file: string): Promise<Array<{ subject: string; notAfter: string }>> {
  const m = await import('./trust-anchors.js');
  return m.describeAnchors(await m.loadTrustAnchors(file));
}

/** Checks the PEM bundle `source` and installs it as `target` (0600, atomic); throws when it does not parse. */
export async function installTrustAnchors(source: string, target: string): Promise<Array<{ subject: string; notAfter: string }>> {
  const m = await import('./trust-anchors.js');
  return m.describeAnchors(await m.installTrustAnchors(source, target));
}

/** The anchors of the bundle as Settings shows them (fingerprint, subject, expiry, authority or signer). */
export async function listTrustAnchors(file: string): Promise<TrustAnchorInfo[]> {
  const m = await import('./trust-anchors.js');
  return m.anchorInfo(await m.loadTrustAnchors(file));
}

/** Adds the PEM text's certificates to the bundle `file` (0600, atomic); throws, naming the certificate, when one does not parse. */
export async function addTrustAnchors(file: string, pem: string): Promise<TrustAnchorInfo[]> {
  const m = await import('./trust-anchors.js');
  return m.anchorInfo(await m.addTrustAnchors(file, pem));
}

/** Removes one anchor by its SHA-256 fingerprint; null when the bundle holds none such. */
export async function removeTrustAnchor(file: string, fingerprintSha256: string): Promise<TrustAnchorInfo[] | null> {
  const m = await import('./trust-anchors.js');
  const kept = await m.removeTrustAnchor(file, fingerprintSha256);
  return kept && m.anchorInfo(kept);
}

/**
 * What a worker process does before its first file, so that file does not wait for it. An analysis process (with
 * `modelsDir`): the model, with a made-up picture analysed end to end (warmAnalysis), then pdf.js if `idle()` says no
 * file is being worked on. A probe process: the probe's modules and pdf.js (a PDF's first probe otherwise takes about
 * 2 s longer). Resolves with the model's name (or null without one); rejects as getModel does (a model missing or
 * refused).
 */
export async function warmUp(opts: { modelsDir?: string; threads?: number } = {}, idle: () => boolean = () => true): Promise<string | null> {
  let model: string | null = null;
  if (opts.modelsDir) {
    const m = await import('./analyse.js');
    model = await m.warmAnalysis(opts.modelsDir, opts.threads);
  } else {
    await import('./probe.js');
  }
  // pdf.js only while nothing else runs here: loaded now, it would take its 2 s from a file already being analysed
  // (test/bench/first-file: the second file of a start 2.7 s instead of 1.0 s); a PDF then loads it as before
  if (!idle()) return model;
  const pdf = await import('./pdf-document.js');
  await pdf.warmPdfReader();
  // then the C2PA and X.509 code, which a file loads only if it has Content Credentials (c2pa-reading.ts); a probe
  // process never reads them
  if (opts.modelsDir && idle()) await (await import('./c2pa-reading.js')).loadC2paReader();
  return model;
}

/** Releases the ONNX session (the next analyseFile loads it again). */
export async function closeAnalysis(): Promise<void> {
  const m = await import('./model-session.js');
  await m.closeModel();
}
