// The analysis of one accepted file: decode, run every detector, fuse into a verdict. Runs inside a worker process
// owned by the core; it still bounds its own work and honours the abort signal between every expensive step.
import { readFile } from 'node:fs/promises';
import type { Dimension, RegionGrid } from '../api/schemas.js';
import { scoreImage } from './ai-detection.js';
import { AnalysisError, type FileAnalysis, type MediaType } from './contract.js';
import { DecodeError, decodeImageBuffer } from './decode-image.js';
import { aiDimension, fuse, type PixelEvidence } from './fusion.js';
import { getModel } from './model-session.js';
import { distinctColours, LINE_ART_COLOURS, openPdf, PdfRefusal, surveyImages } from './pdf-document.js';
import { readPdfStructure, structureDimension } from './pdf-structure.js';
import { c2paIntegrity, provenanceDimension, readProvenance } from './provenance.js';
import { readC2paStore, findJumbf } from './c2pa-manifest.js';

export interface AnalyseOptions {
  modelsDir: string;
  signal?: AbortSignal;
  threads?: number;
}

export async function analyseFile(path: string, mediaType: MediaType, opts: AnalyseOptions): Promise<FileAnalysis> {
  try {
    // The model first: without it there is no result to give (DECISIONS 22), whatever the metadata says.
    const model = await getModel(opts.modelsDir, opts.threads ?? 1);
    opts.signal?.throwIfAborted();
    const buf = await readFile(path, { signal: opts.signal });
    return mediaType === 'application/pdf'
      ? await analysePdf(buf, model, opts.signal)
      : await analyseImage(buf, mediaType, model, opts.signal);
  } catch (err) {
    if (err instanceof AnalysisError) throw err;
    if (opts.signal?.aborted) throw new AnalysisError('internal_error', 'the analysis was cancelled');
    if (err instanceof DecodeError || err instanceof PdfRefusal) throw new AnalysisError('internal_error', err.message);
    throw new AnalysisError('internal_error', `the analysis failed: ${(err as Error).message ?? String(err)}`);
  }
}

type Model = Awaited<ReturnType<typeof getModel>>;

async function analyseImage(buf: Buffer, mediaType: MediaType, model: Model, signal?: AbortSignal): Promise<FileAnalysis> {
  const provenance = provenanceDimension(await readProvenance(buf, mediaType));
  signal?.throwIfAborted();
  const image = await decodeImageBuffer(buf, mediaType, signal);
  const scored = await scoreImage(model, image, { kind: 'image' }, signal);
  let ai = aiDimension(scored.score, model.manifest.thresholds);
  const notes: string[] = [];
  const colours = distinctColours(image);
  if (colours <= LINE_ART_COLOURS) {
    // Flat graphics (logos, line art, bilevel scans) lack the photographic texture the detector reads.
    ai = { ...ai, assessment: 'inconclusive', confidence: 'low' };
    notes.push(`The image has only ${colours} colour${colours === 1 ? '' : 's'} (line art or a bilevel scan), which the pixel detector cannot read reliably.`);
  }
  const dimensions: Dimension[] = [ai, provenance.dimension];
  const verdict = fuse({
    dimensions,
    pixel: { score: scored.score, where: null, count: 1 },
    strongAiProvenance: provenance.strongAi,
    provenanceNotes: provenance.notes,
    structureNotes: notes,
    structureDimension: null,
    isPdf: false,
  });
  return { verdict, regions: [scored.grid], modelVersion: model.version, aggregation: aggregationText(model) };
}

async function analysePdf(buf: Buffer, model: Model, signal?: AbortSignal): Promise<FileAnalysis> {
  const doc = await openPdf(new Uint8Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length)), signal);
  try {
    const structure = structureDimension(await readPdfStructure(buf, doc));
    const regions: RegionGrid[] = [];
    let worst: { score: number; where: string } | null = null;
    const survey = await surveyImages(doc, {
      signal,
      onRaster: async (r) => {
        signal?.throwIfAborted();
        const source: RegionGrid['source'] =
          r.kind === 'pdf_page' ? { kind: 'pdf_page', page: r.page } : { kind: 'pdf_image', page: r.page, imageIndex: r.imageIndex };
        const s = await scoreImage(model, r.image, source, signal);
        regions.push(s.grid);
        const where =
          r.kind === 'pdf_page'
            ? `page ${r.page} (scanned page, ${r.image.width}x${r.image.height})`
            : `page ${r.page}, image ${(r.imageIndex ?? 0) + 1} (${r.image.width}x${r.image.height})`;
        if (!worst || s.score > worst.score) worst = { score: s.score, where };
      },
    });
    const worstFound = worst as { score: number; where: string } | null;
    const pixel: PixelEvidence = { score: worstFound?.score ?? null, where: worstFound?.where ?? null, count: regions.length };
    // C2PA in a PDF is an embedded manifest store; read it like an image's.
    const jumbf = findJumbf(buf, 'application/pdf');
    const store = jumbf ? safeStore(jumbf, buf) : null;
    const c2paNotes: string[] = [];
    let strongAi = structure.aiProducer;
    if (store?.active) {
      const dst = store.active.actions.find((a) => a.digitalSourceType)?.digitalSourceType;
      c2paNotes.push(`Content Credentials (C2PA) manifest present, claim generator ${store.active.claimGenerator ?? 'unnamed'}; ${c2paIntegrity(store.active)}.`);
      if (dst && /trainedAlgorithmicMedia|algorithmicMedia|compositeSynthetic/.test(dst)) strongAi = true;
    }
    // Embedded JPEGs keep their own metadata (EXIF, XMP, C2PA): a generator's mark there is the document's too.
    const embedded = await embeddedJpegProvenance(buf, signal);
    if (embedded.strongAi) {
      strongAi = true;
      c2paNotes.push(...embedded.notes);
    }
    const dimensions: Dimension[] = [];
    if (worstFound) dimensions.push(aiDimension(worstFound.score, model.manifest.thresholds));
    dimensions.push(structure.dimension);
    const structureNotes = [...structure.notes];
    if (!embedded.strongAi && embedded.notes.length) structureNotes.push(...embedded.notes);
    if (survey.skipped.length) structureNotes.push(`Not scored: ${survey.skipped.slice(0, 4).join('; ')}${survey.skipped.length > 4 ? '; ...' : ''}.`);
    const verdict = fuse({
      dimensions,
      pixel,
      strongAiProvenance: strongAi,
      provenanceNotes: c2paNotes.concat(structure.aiProducer ? structure.notes.slice(0, 1) : []),
      structureNotes: structure.aiProducer ? structureNotes.slice(1) : structureNotes,
      structureDimension: structure.dimension,
      isPdf: true,
    });
    return { verdict, regions, modelVersion: model.version, aggregation: aggregationText(model, true) };
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

/** Raw DCTDecode streams start with a JPEG SOI; at most this many are examined per document. */
const MAX_EMBEDDED_JPEGS = 32;

async function embeddedJpegProvenance(pdf: Buffer, signal?: AbortSignal): Promise<{ strongAi: boolean; notes: string[] }> {
  const notes: string[] = [];
  let strongAi = false;
  let seen = 0;
  const cameras = new Set<string>();
  for (let at = pdf.indexOf(SOI); at >= 0 && seen < MAX_EMBEDDED_JPEGS; at = pdf.indexOf(SOI, at + 3)) {
    signal?.throwIfAborted();
    seen++;
    const end = pdf.indexOf('endstream', at);
    const jpeg = pdf.subarray(at, end < 0 ? pdf.length : end);
    const found = await readProvenance(jpeg, 'image/jpeg');
    const out = provenanceDimension(found);
    if (out.strongAi && !strongAi) {
      strongAi = true;
      notes.push(`An image embedded in the PDF carries its own metadata: ${out.notes[0].replace(/^The file's own metadata/, 'it')}`);
    }
    if (found.camera) cameras.add([found.camera.make, found.camera.model].filter(Boolean).join(' '));
  }
  if (cameras.size) notes.push(`Embedded images carry camera data (${[...cameras].slice(0, 3).join(', ')}), which can be copied or forged.`);
  return { strongAi, notes };
}
const SOI = Buffer.from([0xff, 0xd8, 0xff]);

function safeStore(jumbf: Buffer, asset: Buffer) {
  try {
    return readC2paStore(jumbf, asset);
  } catch {
    return null;
  }
}

function aggregationText(model: Model, pdf = false): string {
  const m = model.manifest;
  const base =
    `${m.input.tileSize}px tiles at native resolution every ${m.tiling.stride}px (at most ${m.tiling.maxTiles}, evenly sampled), ` +
    `image score = mean of the ${m.aggregation.k} highest tile probabilities` +
    ((m.tiling.heatmapMaxTiles ?? 0) > m.tiling.maxTiles ? `; the heatmap shows up to ${m.tiling.heatmapMaxTiles} tiles, sampled the same way` : '');
  return pdf ? `${base}; document score = the highest image or scanned-page score` : base;
}
