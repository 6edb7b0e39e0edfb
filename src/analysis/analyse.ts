// The analysis of one accepted file: decode, run the registered detectors that apply, fuse their findings into a
// verdict, write its copy. Runs inside a worker process owned by the core; it still bounds its own work and honours
// the abort signal between every expensive step.
import { readFile } from 'node:fs/promises';
import type { Dimension, RegionGrid } from '../api/schemas.js';
import { AnalysisError, type FileAnalysis, type MediaType } from './analysis-results.js';
import { aggregationCopy, dimensionFindings, writeVerdict } from './copy.js';
import { DecodeError, decodeImageBuffer } from './decode-image.js';
import type { DetectorContext, DetectorOutput, FileKind } from './detector.js';
import { DETECTORS } from './detectors/index.js';
import type { Finding } from './finding.js';
import { fuse } from './fusion.js';
import { getModel } from './model-session.js';
import { openPdf, PdfRefusal } from './pdf-document.js';
import type { TrustAnchor } from './trust-anchors.js';

export interface AnalyseOptions {
  modelsDir: string;
  signal?: AbortSignal;
  threads?: number;
  /** PEM bundle of the C2PA trust anchors (trust-anchors.ts); absent or missing file: no anchors configured. */
  trustAnchorsFile?: string | null;
  /** Told when the file is decoded and the detectors begin (the core shows each file's stage). */
  onStage?: (stage: 'analysing') => void;
}

export async function analyseFile(path: string, mediaType: MediaType, opts: AnalyseOptions): Promise<FileAnalysis> {
  return analyse(() => readFile(path, { signal: opts.signal }), mediaType, opts);
}

/**
 * Readies an analysis process before its first file (src/jobs/warm-up.ts): the model loaded, and a made-up picture
 * (1024 x 768 of noise, JPEG) analysed end to end, so that what a first analysis sets up on every path (libvips,
 * each network's first run at the batch sizes files use, the tile and face finder threads) is done before a person's
 * file arrives. Its reading is thrown away; nothing is stored. Returns the model's name.
 */
export async function warmAnalysis(modelsDir: string, threads = 1): Promise<string> {
  const { default: sharp } = await import('sharp');
  const picture = await sharp({ create: { width: 1024, height: 768, channels: 3, background: { r: 120, g: 130, b: 110 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } })
    .jpeg({ quality: 90 })
    .toBuffer();
  await analyse(() => Promise.resolve(picture), 'image/jpeg', { modelsDir, threads, trustAnchorsFile: null });
  return (await getModel(modelsDir, threads)).version;
}

async function analyse(read: () => Promise<Buffer>, mediaType: MediaType, opts: AnalyseOptions): Promise<FileAnalysis> {
  const { signal } = opts;
  try {
    // The model first: without it there is no result to give (DECISIONS 22), whatever the metadata says.
    const model = await getModel(opts.modelsDir, opts.threads ?? 1);
    // Read when a file's Content Credentials are judged, at most once per file (with the X.509 code they need).
    let anchors: Promise<TrustAnchor[]> | undefined;
    const trustAnchors = () => (anchors ??= import('./trust-anchors.js').then((m) => m.loadTrustAnchors(opts.trustAnchorsFile)));
    signal?.throwIfAborted();
    const bytes = await read();
    const kind: FileKind = mediaType === 'application/pdf' ? 'pdf' : 'image';
    const image = kind === 'image' ? await decodeImageBuffer(bytes, mediaType, signal) : null;
    const pdf = kind === 'pdf' ? await openPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length).slice(), signal) : null;
    opts.onStage?.('analysing');
    try {
      const earlier = new Map<string, DetectorOutput>();
      const ctx = { kind, mediaType, bytes, image, pdf, model, trustAnchors, signal, earlier } satisfies DetectorContext;
      const outputs = kind === 'image' ? await runAtOnce(ctx) : await runInTurn(ctx);
      const findings: Finding[] = outputs.flatMap((o) => o.findings);
      // Each dimension lists the checks behind it, as codes and sentences (v1 extension `dimensions[].findings`).
      const dimensions = outputs.flatMap((o): Dimension[] => (o.dimension ? [{ ...o.dimension, findings: dimensionFindings(o.findings) }] : []));
      const regions: RegionGrid[] = outputs.flatMap((o) => o.regions ?? []);
      const verdict = writeVerdict(fuse({ dimensions, findings }));
      const pixelSize = image ? { width: image.width, height: image.height } : null;
      return { verdict, regions, modelVersion: model.version, aggregation: aggregationCopy(model.manifest, kind), pixelSize, findings };
    } finally {
      await pdf?.destroy().catch(() => undefined);
    }
  } catch (err) {
    if (err instanceof AnalysisError) throw err;
    if (signal?.aborted) throw new AnalysisError('internal_error', 'the analysis was cancelled');
    if (err instanceof DecodeError || err instanceof PdfRefusal) throw new AnalysisError('internal_error', err.message);
    throw new AnalysisError('internal_error', `the analysis failed: ${(err as Error).message ?? String(err)}`);
  }
}

/** A PDF's detectors one after the other (they share the document's pdf.js worker), each seeing those before it. */
async function runInTurn(ctx: DetectorContext & { earlier: Map<string, DetectorOutput> }): Promise<DetectorOutput[]> {
  for (const detector of DETECTORS) {
    if (!detector.appliesTo(ctx.kind)) continue;
    ctx.signal?.throwIfAborted();
    ctx.earlier.set(detector.key, await detector.run(ctx));
  }
  return [...ctx.earlier.values()];
}

/**
 * A picture's detectors all started at once: the networks hold the main thread (onnxruntime runs synchronously), and
 * the capture checks' decoding (sharp) and the face finder (its own thread) go on beside them on the other core. A
 * detector that reads another's output (`reads`) starts when that one is done; the outputs keep the registry's order.
 * Every detector settles before the first failure (in the registry's order) is thrown, so none is left running.
 */
async function runAtOnce(ctx: DetectorContext & { earlier: Map<string, DetectorOutput> }): Promise<DetectorOutput[]> {
  const started = new Map<string, Promise<DetectorOutput>>();
  for (const detector of DETECTORS) {
    if (!detector.appliesTo(ctx.kind)) continue;
    const before = (detector.reads ?? []).flatMap((k) => started.get(k) ?? []);
    started.set(
      detector.key,
      Promise.all(before).then(async () => {
        ctx.signal?.throwIfAborted();
        const out = await detector.run(ctx);
        ctx.earlier.set(detector.key, out);
        return out;
      }),
    );
  }
  const settled = await Promise.allSettled(started.values());
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<DetectorOutput>).value);
}
