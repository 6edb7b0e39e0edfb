// The provenance detector (images): what the file's own metadata declares, as findings. A generator named by the
// metadata decides on its own (weight 1); C2PA (Content Credentials) validation statuses are findings of their own,
// with the specification's codes; capture evidence is graded (a capture signed by a trusted signer above an untrusted
// one, above camera EXIF); absence of metadata is never evidence of authenticity.
import type { C2paValidation } from '../c2pa-validation.js';
import { TRUST_CODES } from '../c2pa-codes.js';
import { dimensionOf } from '../copy.js';
import type { Detector, DetectorOutput } from '../detector.js';
import type { Finding } from '../finding.js';
import { readProvenance, type AiSource, type ProvenanceMetadata } from '../provenance.js';
import { AI_SOURCE_TYPES, CAPTURE_SOURCE_TYPES, PARTLY_AI_TYPES as PARTLY_AI } from '../source-types.js';

/**
 * Actions that leave the pixels as captured: creating the asset, publishing, managing, repackaging it, editing its
 * metadata. Any other action in the active manifest (cropped, filtered, color_adjustments, edited, placed, ...) is
 * an edit after capture.
 */
const NON_EDITING_ACTIONS = new Set(['c2pa.created', 'c2pa.published', 'c2pa.managed', 'c2pa.repackaged', 'c2pa.edited.metadata']);

export const provenanceDetector: Detector = {
  key: 'provenance',
  appliesTo: (kind) => kind === 'image',
  run: async (ctx) => provenanceOutput(await readProvenance(ctx.bytes, ctx.mediaType, ctx.trustAnchors)),
};

/** The finding that decides `ai_generated` (weight 1); `embedded` when the metadata is a JPEG's inside a PDF. */
export function aiSourceFinding(source: AiSource, digitalSourceType: string | null, embedded = false): Finding {
  const partly = (digitalSourceType !== null && PARTLY_AI.has(digitalSourceType)) || source.facts.partly === true;
  return { code: source.code, facts: { ...source.facts, generator: source.name, partly, embedded }, weight: 1 };
}

/** The first digital source type a C2PA manifest's actions declare, and whether it is a generative-AI one. */
export function c2paSourceType(m: C2paValidation): { sourceType: string | null; ai: boolean } {
  const sourceType = m.actions.find((a) => a.digitalSourceType)?.digitalSourceType ?? null;
  return { sourceType, ai: sourceType !== null && AI_SOURCE_TYPES.has(sourceType) };
}

/** Who made the claim, who signed it and when, what it records: the manifest as a specialist reads it. */
export function c2paManifestFinding(m: C2paValidation): Finding {
  const actions = m.actions.map((a) => a.action + (a.digitalSourceType ? ` (${a.digitalSourceType})` : '')).join(', ');
  const { claimGenerator, signer, issuer, signedAt, ingredients, manifests, trust, signerValidUntil, timeTrusted } = m;
  return { code: 'provenance.c2pa.manifest', facts: { claimGenerator, signer, issuer, signedAt, actions, ingredients, manifests, trust, signerValidUntil, timeTrusted }, weight: 0 };
}

/**
 * One finding per C2PA status code of the active manifest (repeats, such as one `assertion.hashedURI.match` per
 * assertion, are counted), failures first; a failure found in an ingredient's manifest is a finding of its own, with
 * the ingredient's title and manifest label. A failure of the signature, a hash or a binding is evidence of tampering
 * (weight 0.6); the signer's and time-stamp's trust only lower what the manifest proves (weight 0).
 */
export function c2paStatusFindings(m: C2paValidation): Finding[] {
  const byCode = new Map<string, Finding>();
  for (const s of m.statuses) {
    const key = s.manifest === undefined ? s.code : `${s.code} ${s.manifest}`;
    const seen = byCode.get(key);
    if (seen) {
      seen.facts.count = Number(seen.facts.count) + 1;
      continue;
    }
    const tampering = !s.success && !TRUST_CODES.has(s.code);
    const of: Finding['facts'] = s.manifest === undefined ? {} : { ingredient: s.ingredient ?? null, manifest: s.manifest };
    byCode.set(key, {
      code: s.code,
      facts: { count: 1, url: s.url ?? null, explanation: s.explanation ?? null, signer: m.signer, issuer: m.issuer, signedAt: m.signedAt, anchors: m.anchors, signerValidUntil: m.signerValidUntil, timeTrusted: m.timeTrusted, ...of },
      weight: tampering ? 0.6 : 0,
    });
  }
  const rank = (f: Finding) => (f.weight > 0 ? 0 : TRUST_CODES.has(f.code) ? 1 : 2);
  return [...byCode.values()].sort((a, b) => rank(a) - rank(b));
}

/** Failing ingredients named at most (the manifest chain on the dimension lists every one). */
const MAX_INGREDIENT_FINDINGS = 4;

/**
 * One finding per ingredient, anywhere in the chain, whose own manifest fails validation or is missing from the
 * store (`recorded`: the claim that took it in recorded the failure then). Weight 0: what broke since is in the status
 * findings (0.6); this one says the chain has a failing link, which stops the manifest from proving authenticity.
 */
export function c2paIngredientFindings(m: C2paValidation): Finding[] {
  return m.ingredientFailures.slice(0, MAX_INGREDIENT_FINDINGS).map((g) => ({
    code: 'provenance.c2pa.ingredient_invalid',
    facts: { ingredient: g.title, manifest: g.manifest, failures: g.failures.join(', '), recorded: g.recorded },
    weight: 0,
  }));
}

/** A capture the active manifest records itself (`c2pa.created` with a capture source type), and whether it was edited since. */
function c2paCapture(m: C2paValidation): { captured: boolean; edited: boolean } {
  const captured = m.actions.some((a) => a.action === 'c2pa.created' && a.digitalSourceType !== undefined && CAPTURE_SOURCE_TYPES.has(a.digitalSourceType));
  const edited = m.parents > 0 || m.actions.some((a) => !NON_EDITING_ACTIONS.has(a.action));
  return { captured, edited };
}

/**
 * Findings in order of importance (fusion shows the first two): the generator, the C2PA manifest and its validation
 * statuses, generator chunks, the declared source type, editors, camera, then the capture evidence all this amounts
 * to (or `provenance.none`). Dimension score: 1 (0.9 for composites) = generated; 0.05 = a capture signed by a
 * trusted signer, unedited; 0.2 = the same, edited in the manifest; 0.3 = a capture signed by a signer not
 * established, or camera EXIF only; 0.6 = a C2PA manifest that fails validation; 0.5 = nothing either way, or a
 * valid manifest with an ingredient whose own manifest fails (recorded when it was taken in).
 */
export function provenanceOutput(f: ProvenanceMetadata): DetectorOutput {
  const out = provenanceReading(f);
  // The manifest chain rides on the dimension that validated it (the API's `dimensions[].manifests`).
  return f.c2pa && out.dimension ? { ...out, dimension: { ...out.dimension, manifests: f.c2pa.chain } } : out;
}

function provenanceReading(f: ProvenanceMetadata): DetectorOutput {
  const findings: Finding[] = [];
  const c2pa = f.c2pa;
  const dst = f.digitalSourceType;
  const aiSource: AiSource | null =
    f.aiGenerator ?? (dst && AI_SOURCE_TYPES.has(dst) ? { name: 'a generative model', code: 'provenance.ai.source_type', facts: { sourceType: dst, declaredIn: c2pa ? 'c2pa' : 'xmp' } } : null);
  if (aiSource) findings.push(aiSourceFinding(aiSource, dst));
  if (c2pa) findings.push(c2paManifestFinding(c2pa), ...c2paIngredientFindings(c2pa), ...c2paStatusFindings(c2pa));
  else if (f.c2paUnreadable) findings.push({ code: 'provenance.c2pa.unreadable', facts: { reason: f.c2paUnreadable.slice(0, 200) }, weight: 0 });
  if (f.pngGeneratorChunks.length > 1) findings.push({ code: 'provenance.png.generator_chunks', facts: { chunks: f.pngGeneratorChunks.join(', ') }, weight: 0 });
  if (dst && aiSource?.facts.sourceType !== dst) findings.push({ code: 'provenance.source_type', facts: { sourceType: dst }, weight: 0 });
  if (f.editors.length) findings.push({ code: 'provenance.editor', facts: { editors: f.editors.join(', ') }, weight: 0.2 });
  if (f.camera) {
    const { make = null, model = null, lens = null } = f.camera;
    findings.push({ code: 'provenance.camera', facts: { make, model, lens }, weight: 0 });
  }

  if (aiSource) return { dimension: dimensionOf('provenance', (dst && PARTLY_AI.has(dst)) || aiSource.facts.partly === true ? 0.9 : 1, 'likely_ai', 'high'), findings };
  if (c2pa && !c2pa.valid) {
    // A manifest that fails validation is evidence that the file or its claim changed after signing: no capture
    // evidence of any kind counts (fusion never answers `authentic` with a C2PA failure).
    return { dimension: dimensionOf('provenance', 0.6, 'inconclusive', 'low'), findings };
  }
  if (c2pa?.ingredientFailures.length) {
    // An ingredient whose own manifest fails, even a failure its signer disclosed when taking it in, is a broken link
    // in the history the manifest records: it proves nothing about where the file came from, and no capture evidence
    // of any kind counts (fusion never answers `authentic` beside it either).
    return { dimension: dimensionOf('provenance', 0.5, 'inconclusive', 'low'), findings };
  }
  const capture = c2pa ? c2paCapture(c2pa) : null;
  if (c2pa && capture?.captured) {
    const facts = { signer: c2pa.signer, claimGenerator: c2pa.claimGenerator, trust: c2pa.trust, anchors: c2pa.anchors };
    if (c2pa.trust === 'trusted' && !capture.edited) {
      findings.push({ code: 'provenance.capture.c2pa_trusted', facts, weight: -1 });
      return { dimension: dimensionOf('provenance', 0.05, 'likely_authentic', 'high'), findings };
    }
    if (c2pa.trust === 'trusted') {
      findings.push({ code: 'provenance.capture.c2pa_trusted_edited', facts, weight: -0.5 }, { code: 'provenance.c2pa.edited', facts: { actions: editsOf(c2pa), parents: c2pa.parents }, weight: 0.2 });
      return { dimension: dimensionOf('provenance', 0.2, 'likely_authentic', 'medium'), findings };
    }
    // Valid, but nobody vouches for the signer: anyone can make a certificate and sign a capture claim.
    findings.push({ code: 'provenance.capture.c2pa_signed', facts, weight: -0.2 });
    return { dimension: dimensionOf('provenance', 0.3, 'likely_authentic', 'low'), findings };
  }
  if (f.camera) {
    findings.push({ code: 'provenance.capture.camera_exif', facts: {}, weight: -0.2 });
    return { dimension: dimensionOf('provenance', 0.3, 'likely_authentic', 'low'), findings };
  }
  findings.push({ code: 'provenance.none', facts: {}, weight: 0 });
  return { dimension: dimensionOf('provenance', 0.5, 'inconclusive', 'low'), findings };
}

const editsOf = (m: C2paValidation) => [...new Set(m.actions.map((a) => a.action).filter((a) => !NON_EDITING_ACTIONS.has(a)))].join(', ');
