// The provenance detector (images): what the file's own metadata declares, as findings. A generator named by the
// metadata decides on its own (weight 1); capture evidence is graded (an intact signed C2PA claim above camera EXIF);
// absence of metadata is never evidence of authenticity.
import type { C2paManifest } from '../c2pa-manifest.js';
import { dimensionOf } from '../copy.js';
import type { Detector, DetectorOutput } from '../detector.js';
import type { Finding } from '../finding.js';
import { AI_SOURCE_TYPES, CAPTURE_SOURCE_TYPES, readProvenance, type AiSource, type ProvenanceMetadata } from '../provenance.js';

const PARTLY_AI = new Set(['compositeWithTrainedAlgorithmicMedia', 'compositeSynthetic']);

export const provenanceDetector: Detector = {
  key: 'provenance',
  appliesTo: (kind) => kind === 'image',
  run: async (ctx) => provenanceOutput(await readProvenance(ctx.bytes, ctx.mediaType)),
};

/** The finding that decides `ai_generated` (weight 1); `embedded` when the metadata is a JPEG's inside a PDF. */
export function aiSourceFinding(source: AiSource, digitalSourceType: string | null, embedded = false): Finding {
  const partly = digitalSourceType !== null && PARTLY_AI.has(digitalSourceType);
  return { code: source.code, facts: { ...source.facts, generator: source.name, partly, embedded }, weight: 1 };
}

/** The first digital source type a C2PA manifest's actions declare, and whether it is a generative-AI one. */
export function c2paSourceType(m: C2paManifest): { sourceType: string | null; ai: boolean } {
  const sourceType = m.actions.find((a) => a.digitalSourceType)?.digitalSourceType ?? null;
  return { sourceType, ai: sourceType !== null && AI_SOURCE_TYPES.has(sourceType) };
}

export function c2paManifestFinding(m: C2paManifest): Finding {
  const actions = m.actions.map((a) => a.action + (a.digitalSourceType ? ` (${a.digitalSourceType})` : '')).join(', ');
  const { claimGenerator, signer, signatureValid, assertionsValid, dataHashValid } = m;
  return { code: 'provenance.c2pa.manifest', facts: { claimGenerator, signer, actions, signatureValid, assertionsValid, dataHashValid }, weight: 0 };
}

/**
 * Findings in order of importance (fusion shows the first two): the generator, the C2PA manifest, generator chunks,
 * the declared source type, editors, camera, then the capture evidence all this amounts to (or `provenance.none`).
 * Dimension score: 1 (0.9 for composites) = generated; 0.2 = intact signed capture claim; 0.35 = capture claim not
 * intact; 0.3 = camera EXIF only; 0.5 = nothing either way.
 */
export function provenanceOutput(f: ProvenanceMetadata): DetectorOutput {
  const findings: Finding[] = [];
  const active = f.c2pa?.active;
  const dst = f.digitalSourceType;
  const aiSource: AiSource | null =
    f.aiGenerator ?? (dst && AI_SOURCE_TYPES.has(dst) ? { name: 'a generative model', code: 'provenance.ai.source_type', facts: { sourceType: dst, declaredIn: active ? 'c2pa' : 'xmp' } } : null);
  if (aiSource) findings.push(aiSourceFinding(aiSource, dst));
  if (active) findings.push(c2paManifestFinding(active));
  else if (f.c2paUnreadable) findings.push({ code: 'provenance.c2pa.unreadable', facts: {}, weight: 0 });
  if (f.pngGeneratorChunks.length > 1) findings.push({ code: 'provenance.png.generator_chunks', facts: { chunks: f.pngGeneratorChunks.join(', ') }, weight: 0 });
  if (dst && aiSource?.facts.sourceType !== dst) findings.push({ code: 'provenance.source_type', facts: { sourceType: dst }, weight: 0 });
  if (f.editors.length) findings.push({ code: 'provenance.editor', facts: { editors: f.editors.join(', ') }, weight: 0.2 });
  if (f.camera) {
    const { make = null, model = null, lens = null } = f.camera;
    findings.push({ code: 'provenance.camera', facts: { make, model, lens }, weight: 0 });
  }

  if (aiSource) return { dimension: dimensionOf('provenance', dst && PARTLY_AI.has(dst) ? 0.9 : 1, 'likely_ai', 'high'), findings };
  if (dst && CAPTURE_SOURCE_TYPES.has(dst) && active) {
    // A capture claim counts only as far as it is intact: signature and data hash both verified.
    const intact = active.signatureValid === true && active.dataHashValid === true;
    findings.push({ code: intact ? 'provenance.capture.c2pa_signed' : 'provenance.capture.c2pa_unverified', facts: {}, weight: intact ? -0.5 : -0.2 });
    return { dimension: dimensionOf('provenance', intact ? 0.2 : 0.35, 'likely_authentic', intact ? 'medium' : 'low'), findings };
  }
  if (f.camera) {
    findings.push({ code: 'provenance.capture.camera_exif', facts: {}, weight: -0.2 });
    return { dimension: dimensionOf('provenance', 0.3, 'likely_authentic', 'low'), findings };
  }
  findings.push({ code: 'provenance.none', facts: {}, weight: 0 });
  return { dimension: dimensionOf('provenance', 0.5, 'inconclusive', 'low'), findings };
}
