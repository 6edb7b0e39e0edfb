// The one vocabulary of Veracity: one name per verdict, per confidence and per check, and the sentences built from
// them, used by the core's copy (verdict.display, dimension labels: src/analysis/copy.ts), the case report
// (src/report/) and every screen of the window (renderer/lib/words.ts). A pure module with no imports but types,
// so the renderer may bundle it. The API's fixed values (`ai_generated`, `likely_ai`, `high`, ...) never change;
// only the words shown for them live here.
import type { C2paManifest, CaseStatus, ConfidenceLevel, Dimension, DimensionAssessment, SignerTrust, VerdictAssessment } from './schemas.js';

/** The status of a case, as the specialist sets it in the case header (and the case report prints it). */
export const CASE_STATUS_WORDS: Record<CaseStatus, string> = {
  open: 'Open',
  in_review: 'In review',
  closed: 'Closed',
};

/** The verdict of a file, one name each (badge, table cell, history, report, `verdict.display.label`). */
export const VERDICT_WORDS: Record<VerdictAssessment, string> = {
  ai_generated: 'AI-generated',
  authentic: 'Authentic',
  inconclusive: 'Inconclusive',
};

/** Why the verdict is what it is, in one phrase (the card's and report's line under the badge; the title's tail). */
export const VERDICT_REASONS: Record<VerdictAssessment, string> = {
  ai_generated: "Its own metadata or its pixels show an image generator",
  authentic: 'Capture evidence and no sign of AI generation',
  inconclusive: 'The checks cannot decide',
};

export const CONFIDENCE_WORDS: Record<ConfidenceLevel, string> = {
  high: 'High confidence',
  medium: 'Medium confidence',
  low: 'Low confidence',
};

/** "medium confidence": the confidence inside a sentence. */
export const confidencePhrase = (c: ConfidenceLevel): string => CONFIDENCE_WORDS[c].toLowerCase();

/**
 * `verdict.display.title`: "Authentic: capture evidence and no sign of AI generation (medium confidence)". An
 * inconclusive verdict states no confidence: it decides nothing.
 */
export function verdictTitle(assessment: VerdictAssessment, confidence: ConfidenceLevel): string {
  const reason = VERDICT_REASONS[assessment].replace(/^\w/, (c) => c.toLowerCase());
  return `${VERDICT_WORDS[assessment]}: ${reason}${assessment === 'inconclusive' ? '' : ` (${confidencePhrase(confidence)})`}`;
}

/** The name of each check (a dimension's key), as the glossary explains it. */
export const CHECK_WORDS = {
  ai_detection: 'AI-generation detector',
  provenance: 'Provenance metadata',
  pdf_structure: 'PDF structure',
  capture: 'Capture consistency',
} as const;
export type CheckKey = keyof typeof CHECK_WORDS;

/**
 * The `capture` dimension's label when the file's camera data and its pixels do not belong together (a thumbnail of
 * another picture or shape, a recorded size of another shape, another maker's compression): a sign that the picture
 * was changed after capture, or that its camera data was copied in. It is evidence of manipulation, not of AI
 * generation, so the dimension's assessment stays `inconclusive` (at low confidence, like every check that points
 * neither way) and the label says what was found. A file a program only saved again is never labelled so
 * (CAPTURE_RESAVED_LABEL).
 */
export const CAPTURE_CONTRADICTED_LABEL = `${CHECK_WORDS.capture}: contradicted, a sign of manipulation after capture`;

/**
 * The `capture` dimension's label when a program saved the file again after the camera did (an editor, a resize, a
 * conversion, new compression) and nothing says its camera data and pixels do not belong together: web photos and
 * files opened and saved in any editor. Not a sign of manipulation; the camera data simply no longer shows an
 * unedited capture.
 */
export const CAPTURE_RESAVED_LABEL = `${CHECK_WORDS.capture}: re-saved after capture`;

/** What one check found: the verdict's own names, said as a direction, since no check decides alone. */
export const DIMENSION_WORDS: Record<DimensionAssessment, string> = {
  likely_ai: 'Points to AI-generated',
  likely_authentic: 'Points to authentic',
  inconclusive: 'No evidence either way',
};

/**
 * The AI-generation detector's score inside its model's undecided band (src/api/detector-bands.ts). Unlike a check
 * that found nothing, the detector did read the picture: its score is a measurement that points neither way.
 */
export const DETECTOR_NEITHER_WORDS = 'Points neither way';

/** What the capture check says when the file's camera data and its pixels do not belong together (never for a re-save). */
export const CAPTURE_CONTRADICTED_WORDS =
  'Contradicted: the camera data and the picture do not belong together (for example, the embedded thumbnail shows another picture or another shape), so the picture was changed after capture or its camera data was copied in. A sign of manipulation, not of AI generation.';

const CONFIDENCE_RANK: Record<ConfidenceLevel, number> = { low: 0, medium: 1, high: 2 };

type DimensionLike = Partial<Pick<Dimension, 'key' | 'label'>> & Pick<Dimension, 'assessment' | 'confidence'>;

export function checkName(d: Pick<Dimension, 'key' | 'label'>): string {
  return Object.hasOwn(CHECK_WORDS, d.key) ? CHECK_WORDS[d.key as CheckKey] : d.label;
}

/** What the capture check says when a program saved the file again after the camera did, and nothing more. */
export const CAPTURE_RESAVED_WORDS =
  'Re-saved: a program saved the file again after the camera did (an editor, a resize, a conversion or new compression), so it is not the camera\'s original file and its camera data does not count. A re-save alone does not show that the picture was changed, nor that it was AI-generated.';

const isCaptureContradiction = (d: DimensionLike) => d.key === 'capture' && d.label === CAPTURE_CONTRADICTED_LABEL;
const isCaptureResave = (d: DimensionLike) => d.key === 'capture' && d.label === CAPTURE_RESAVED_LABEL;

/**
 * Whether a check's score is evidence worth a bar: only a check that leans one way with medium or high confidence.
 * A score of about 50 % from a check that found nothing is not a measurement and is said in words instead.
 */
export function isEvidence(d: Pick<Dimension, 'assessment' | 'confidence'>): boolean {
  return (d.assessment === 'likely_ai' || d.assessment === 'likely_authentic') && (d.confidence === 'medium' || d.confidence === 'high');
}

/** What a check found, in words: a direction and its confidence, "no evidence either way", or a contradiction. */
export function dimensionFinding(d: DimensionLike): string {
  if (isCaptureContradiction(d)) return CAPTURE_CONTRADICTED_WORDS;
  if (isCaptureResave(d)) return CAPTURE_RESAVED_WORDS;
  if (!d.assessment || d.assessment === 'inconclusive') return d.key === 'ai_detection' ? DETECTOR_NEITHER_WORDS : DIMENSION_WORDS.inconclusive;
  const direction = DIMENSION_WORDS[d.assessment];
  if (!isEvidence(d)) return `Weak hint only: ${direction.toLowerCase()} (low confidence)`;
  return `${direction} · ${confidencePhrase(d.confidence ?? 'low')}`;
}

/**
 * Why the verdict can be less certain than one of its checks, when a check states a higher confidence than the
 * verdict; null otherwise. The verdict weighs every check, and the pixel detector decides alone only at its highest
 * scores, at medium confidence (fusion.ts, rule 2).
 */
export function lessCertainWords(
  verdictConfidence: ConfidenceLevel,
  dimensions: Pick<Dimension, 'key' | 'label' | 'confidence' | 'assessment'>[],
): { summary: string; detail: string } | null {
  const surer = dimensions.filter((d) => d.confidence && CONFIDENCE_RANK[d.confidence] > CONFIDENCE_RANK[verdictConfidence]);
  if (surer.length === 0) return null;
  const names = `the ${surer.map((d) => `“${checkName(d)}”`).join(' and ')} check${surer.length > 1 ? 's' : ''}`;
  const parts = ["A check's confidence is about that check alone; the verdict weighs all the checks together."];
  const directions = new Set(dimensions.filter(isEvidence).map((d) => d.assessment));
  if (directions.size > 1) parts.push('Here the checks point different ways.');
  if (surer.some((d) => d.key === 'ai_detection')) {
    parts.push(
      `The ${CHECK_WORDS.ai_detection} decides alone only at its highest scores, which few real photos reach in its validation, and then with medium confidence at most: it can be wrong on generators it never saw, so below them, or where another check or the kind of picture stands in the way, on its own it can only make a file ${VERDICT_WORDS.inconclusive.toLowerCase()}.`,
    );
  }
  return { summary: `Why is the verdict less certain than ${names}?`, detail: parts.join(' ') };
}

/** The glossary shown in the window: the words above, each in one or two sentences. */
export const GLOSSARY: { term: string; meaning: string }[] = [
  { term: VERDICT_WORDS.ai_generated, meaning: 'The file itself declares it was made by an AI generator (provenance metadata such as C2PA or IPTC), or the AI-generation detector scored its pixels at a level few real photos reach in its validation (for a PDF, its one photograph); from the pixels alone the confidence is medium at most.' },
  { term: VERDICT_WORDS.authentic, meaning: 'Capture evidence (Content Credentials of a camera capture, or camera data that the file’s structure confirms) and pixels that do not point to AI; an unedited capture signed by a trusted signer is authentic whatever the pixels say. It does not prove the content is true or unedited by hand.' },
  { term: VERDICT_WORDS.inconclusive, meaning: 'The evidence is not strong enough either way; a specialist should look. The card says which way the detector leans.' },
  { term: 'High, medium, low confidence', meaning: 'How strongly the evidence supports the verdict (or, beside a check, that check’s own reading). A verdict can be less certain than one of its checks: it weighs all of them.' },
  { term: CHECK_WORDS.ai_detection, meaning: 'Local models: one scores tiles of the picture for traces of AI generation, others read the whole picture’s content; the score weighs them all. Weak on generators they never saw: it decides alone only at its highest scores (for a PDF, on its one photograph), and then with medium confidence at most.' },
  { term: CHECK_WORDS.provenance, meaning: 'What the file says about its origin: C2PA manifests, IPTC digital source type, editing-tool and generator tags.' },
  { term: CHECK_WORDS.capture, meaning: 'Whether the camera data in the file matches how that camera really builds files (its compression, thumbnail, layout). Copied camera tags do not pass. A file a program saved again (an editor, a resize, a conversion) is “re-saved”, which is not a sign of manipulation; only camera data and pixels that do not belong together (a thumbnail of another picture, another maker’s compression) are a sign of manipulation after capture, never of AI generation.' },
  { term: CHECK_WORDS.pdf_structure, meaning: 'How the PDF was produced and changed: producer, incremental updates, modification dates and editing history, encryption and active content.' },
  { term: DIMENSION_WORDS.inconclusive, meaning: 'The check ran but found nothing that points one way or the other: its 50 % is not a measurement.' },
  { term: 'Heatmap', meaning: 'The detector’s score of each tile of the picture: red tiles look generated, blue look authentic, clear tiles are undecided. Hatched areas were not scored. The file’s score also weighs the whole picture’s content, so it is not the tiles’ alone.' },
];

/** The kind of a file, from its detected media type. */
export const MEDIA_WORDS: Record<string, string> = {
  'image/jpeg': 'JPEG image',
  'image/png': 'PNG image',
  'image/heic': 'HEIC image',
  'image/heif': 'HEIF image',
  'application/pdf': 'PDF document',
};

// ---- Content Credentials (C2PA): the manifest chain as a specialist reads it (card, viewer, case report) ----

/** What the signer's certificate establishes, judged against the configured trust anchors. */
export const SIGNER_TRUST_WORDS: Record<SignerTrust, string> = {
  trusted: 'trusted: chains to a configured trust anchor',
  untrusted: 'not trusted: chains to no configured trust anchor',
  not_established: 'not established: no trust anchors are configured',
  expired: 'expired: not valid when it signed (by a trusted time-stamp), or not valid today with no trusted time-stamp to show it was when it signed',
  invalid: 'invalid: the certificate is not fit for C2PA signing',
  missing: 'no usable signature',
};

/** The manifest's place in the chain: the active one first, then the ingredients' own manifests. */
export function c2paManifestTitle(chain: C2paManifest[], i: number): string {
  if (i === 0) return `Manifest 1 of ${chain.length}: the active manifest`;
  const of = chain.findIndex((m) => m.ingredients.some((g) => g.manifest === chain[i].label));
  const ingredient = of >= 0 ? chain[of].ingredients.find((g) => g.manifest === chain[i].label) : undefined;
  return `Manifest ${i + 1} of ${chain.length}: of ${ingredient?.title ? `“${ingredient.title}”, ` : ''}an ingredient of manifest ${of + 1}`;
}

/** One manifest as label / value rows: signer and trust, signing time, tool, actions, ingredients, validation. */
export function c2paManifestRows(m: C2paManifest, time: (iso: string) => string): [string, string][] {
  const action = (a: C2paManifest['actions'][number]) =>
    a.action + (a.digitalSourceType || a.softwareAgent ? ` (${[a.digitalSourceType, a.softwareAgent && `by ${a.softwareAgent}`].filter(Boolean).join(', ')})` : '');
  const ingredient = (g: C2paManifest['ingredients'][number]) =>
    `${g.title ?? 'untitled'} (${g.relationship ?? 'relationship not stated'}): ` +
    (g.validated === null ? 'no manifest of its own' : g.validated ? 'its manifest validated' : 'its manifest did not validate');
  return [
    ['Signer', `${m.signer.subject ?? 'not named'}${m.signer.issuer ? `, issued by ${m.signer.issuer}` : ''}; ${SIGNER_TRUST_WORDS[m.signer.trust]}`],
    ['Signed', m.signedAt ? `${time(m.signedAt)}, from its time-stamp` : 'no time-stamp: the signing time is not established'],
    ['Tool', m.claimGenerator ?? 'not named'],
    ['Actions', m.actions.map(action).join('; ') || 'none recorded'],
    ['Ingredients', m.ingredients.map(ingredient).join('; ') || 'none'],
    ['Validation', m.valid ? `signature and hashes hold${m.failures.length ? ` (${m.failures.join(', ')})` : ''}` : `failed: ${m.failures.join(', ')}`],
  ];
}

/** The chain a file's result carries, on whichever dimension validated it; null without Content Credentials. */
export const c2paChainOf = (dimensions: readonly Pick<Dimension, 'manifests'>[]): C2paManifest[] | null => dimensions.find((d) => d.manifests?.length)?.manifests ?? null;
