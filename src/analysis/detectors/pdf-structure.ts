// The PDF detector: what a PDF's own structure says about its making and later changes (tools, dates, incremental
// updates, XMP history, active content), plus the provenance it carries: its own C2PA manifest and the metadata of
// the JPEGs embedded in it (a DCTDecode stream is a whole JPEG file, EXIF, XMP and C2PA included).
import type { C2paManifest } from '../../api/schemas.js';
import { readC2pa, type TrustAnchorSource } from '../c2pa-reading.js';
import { dimensionOf } from '../copy.js';
import type { Detector, DetectorOutput } from '../detector.js';
import type { Finding } from '../finding.js';
import { readPdfStructure, type PdfStructure } from '../pdf-structure.js';
import { aiIngredientOf, readProvenance } from '../provenance.js';
import { aiSourceFinding, c2paIngredientFindings, c2paManifestFinding, c2paSourceType, c2paStatusFindings, provenanceOutput } from './provenance.js';

export const pdfStructureDetector: Detector = {
  key: 'pdf-structure',
  appliesTo: (kind) => kind === 'pdf',
  async run(ctx) {
    const structure = structureOutput(await readPdfStructure(ctx.bytes, ctx.pdf!));
    const embedded = await embeddedJpegFindings(ctx.bytes, ctx.signal);
    const c2pa = await pdfC2pa(ctx.bytes, ctx.trustAnchors);
    // Order of importance: provenance first (fusion leads with it), then structure, then embedded camera data.
    return {
      dimension: c2pa.manifests ? { ...structure.dimension, manifests: c2pa.manifests } : structure.dimension,
      findings: [...c2pa.findings, ...embedded.ai, ...structure.findings, ...embedded.camera],
    };
  },
};

/**
 * pdf_structure score: 0.2 = written once by one tool, dates agree; +0.25 per sign of later change (incremental
 * updates, later modification date, editing history), +0.1 for active content, at most 0.9; 1 = produced by an AI
 * service. Being edited is not evidence of AI, so without an AI producer it is never likely_ai.
 */
export function structureOutput(s: PdfStructure): DetectorOutput & { dimension: NonNullable<DetectorOutput['dimension']> } {
  const findings: Finding[] = [];
  if (s.aiProducer) findings.push({ code: 'provenance.ai.pdf_producer', facts: { producer: s.aiProducer }, weight: 1 });
  findings.push({ code: 'pdf.tools', facts: { creator: s.creator, producer: s.producer }, weight: 0 });
  const modifiedLater = Boolean(
    s.creationDate && s.modDate && new Date(s.modDate).getTime() - new Date(s.creationDate).getTime() > 60_000,
  );
  const signals = [s.revisions > 1, modifiedLater, s.xmpHistory.length > 1].filter(Boolean).length;
  if (signals) {
    findings.push({
      code: 'pdf.changed',
      facts: {
        revisions: s.revisions,
        modDate: modifiedLater ? s.modDate : null,
        creationDate: modifiedLater ? s.creationDate : null,
        historySteps: s.xmpHistory.length,
        history: s.xmpHistory.slice(0, 3).join('; '),
      },
      weight: 0.3,
    });
  }
  // What an encrypted file's raw bytes would show (embedded camera data, C2PA) is ciphertext: say so rather than
  // let its absence read as a clean file.
  if (s.encrypted) findings.push({ code: 'pdf.encrypted', facts: {}, weight: 0 });
  if (s.activeContent.length) {
    const has = (k: PdfStructure['activeContent'][number]) => s.activeContent.includes(k);
    const facts = { javascript: has('javascript'), openAction: has('open_action'), launch: has('launch'), embeddedFiles: has('embedded_files') };
    findings.push({ code: 'pdf.active_content', facts, weight: 0.1 });
  }
  if (s.aiProducer) return { dimension: dimensionOf('pdf_structure', 1, 'likely_ai', 'medium'), findings };
  const score = Math.min(0.9, 0.2 + 0.25 * signals + (s.activeContent.length ? 0.1 : 0));
  // Structure can show editing, not generation.
  return { dimension: dimensionOf('pdf_structure', Math.round(score * 100) / 100, signals ? 'inconclusive' : 'likely_authentic', 'low'), findings };
}

/**
 * C2PA in a PDF is an embedded manifest store, validated like an image's (the data hash over the document's bytes);
 * a generative source type decides (weight 1), its validation statuses follow the manifest.
 */
async function pdfC2pa(pdf: Buffer, anchors: TrustAnchorSource): Promise<{ findings: Finding[]; manifests?: C2paManifest[] }> {
  const reading = await readC2pa(pdf, 'application/pdf', anchors);
  if (reading?.kind === 'unreadable') return { findings: [{ code: 'provenance.c2pa.unreadable', facts: { reason: reading.reason.slice(0, 200) }, weight: 0 }] };
  if (!reading) return { findings: [] };
  const active = reading.manifest;
  const { sourceType, ai } = c2paSourceType(active);
  const name = active.claimGenerator ?? 'a generative model';
  // the active manifest's own declaration, or else one of a parent's or component's manifest in its chain (provenance.ts)
  const inChain = ai ? null : aiIngredientOf(active);
  const source = ai
    ? [aiSourceFinding({ name, code: 'provenance.ai.c2pa_generator', facts: { sourceType } }, sourceType)]
    : inChain
      ? [aiSourceFinding(inChain, null)]
      : [];
  return { findings: [...source, c2paManifestFinding(active), ...c2paIngredientFindings(active), ...c2paStatusFindings(active)], manifests: active.chain };
}

/** Raw DCTDecode streams start with a JPEG SOI; at most this many are examined per document. */
const MAX_EMBEDDED_JPEGS = 32;
const SOI = Buffer.from([0xff, 0xd8, 0xff]);

/** The first embedded JPEG whose metadata names a generator, and the cameras the embedded JPEGs name. */
async function embeddedJpegFindings(pdf: Buffer, signal?: AbortSignal): Promise<{ ai: Finding[]; camera: Finding[] }> {
  let ai: Finding | null = null;
  let seen = 0;
  const cameras = new Set<string>();
  for (let at = pdf.indexOf(SOI); at >= 0 && seen < MAX_EMBEDDED_JPEGS; at = pdf.indexOf(SOI, at + 3)) {
    signal?.throwIfAborted();
    seen++;
    const end = pdf.indexOf('endstream', at);
    const found = await readProvenance(pdf.subarray(at, end < 0 ? pdf.length : end), 'image/jpeg');
    const source = provenanceOutput(found).findings.find((f) => f.code.startsWith('provenance.ai.'));
    if (source && !ai) ai = { ...source, facts: { ...source.facts, embedded: true } };
    if (found.camera) cameras.add([found.camera.make, found.camera.model].filter(Boolean).join(' '));
  }
  return {
    ai: ai ? [ai] : [],
    camera: cameras.size ? [{ code: 'pdf.embedded_camera', facts: { cameras: [...cameras].slice(0, 3).join(', ') }, weight: 0 }] : [],
  };
}
