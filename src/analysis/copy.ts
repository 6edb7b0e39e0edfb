// The one module that writes what people read: every finding code's sentence, the verdict's label, title and
// description, the dimensions' labels and the aggregation note. Detectors and fusion deal in codes and facts only.
// Names of verdicts, confidences and checks come from the vocabulary the window and the report share
// (src/api/vocabulary.ts).
import type { ConfidenceLevel, Dimension, DimensionAssessment, Verdict } from '../api/schemas.js';
import { CHECK_WORDS, VERDICT_WORDS, confidencePhrase, verdictTitle, type CheckKey } from '../api/vocabulary.js';
import type { FileKind } from './detector.js';
import { isC2paStatus, type FactValue, type Finding } from './finding.js';
import type { FusedVerdict } from './fusion.js';
import type { ContentModel, ModelManifest } from './model-manifest.js';

type Facts = Finding['facts'];

const text = (f: Facts, k: string): string | null => {
  const v = f[k];
  return v === null || v === undefined || v === '' ? null : String(v);
};
const num = (f: Facts, k: string): number => Number(f[k] ?? 0);
/** A turn in degrees clockwise (any sign, 270 = 90 anticlockwise) in words. */
const turn = (deg: number): string => {
  const a = ((((deg + 180) % 360) + 360) % 360) - 180;
  return a < 0 ? `${-a} degrees anticlockwise` : `${a} degrees clockwise`;
};
/** "a Canon camera", "an Apple camera". */
/** The opening of the sentences on libjpeg's standard tables. */
const standardSettings = (f: Facts) =>
  `The photo was compressed with the standard settings of common software${text(f, 'quality') ? ` (quality ${text(f, 'quality')})` : ''}`;
const an = (phrase: string) => `${/^[aeiou]/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
/** "Canon PowerShot S50 camera": the make is left out when the model already starts with it, as most makers write it. */
const camera = (f: Facts) => {
  const make = text(f, 'make');
  const model = text(f, 'model');
  const both = make && model && model.toLowerCase().startsWith(make.toLowerCase()) ? [model] : [make, model];
  return both.filter(Boolean).join(' ').concat(' camera').trim();
};
const pct = (x: number) => `${Math.round(x * 100)}%`;
/** An ISO date as people read it: "2024-03-05 09:30 UTC". */
const human = (iso: string) => iso.replace('T', ' ').replace(/:\d\d\.\d{3}Z$/, ' UTC');
/** A duration given in seconds, in the largest unit that keeps it readable; a duration already in words is kept. */
const duration = (v: FactValue | undefined): string => {
  if (typeof v !== 'number') return String(v ?? 'an unknown amount');
  const s = Math.abs(v);
  if (s < 120) return `${Math.round(s)} seconds`;
  if (s < 7200) return `${Math.round(s / 60)} minutes`;
  if (s < 172800) return `${Math.round(s / 3600)} hours`;
  return `${Math.round(s / 86400)} days`;
};

// ------------------------------------------------------------------------------------------------ pixel detector

const PIXEL_READING = {
  high_ai: 'is at the high end of its scale and points to AI generation, but this model is not reliable enough on images from recent generators to decide on its own',
  leans_ai: 'leans towards AI generation, but below the level at which it is reliable on its own',
  uncertain: 'is in the uncertain band and points neither way',
  leans_authentic: 'leans away from AI generation, which on its own does not show a file is authentic',
};

const pixelScore = (reading: keyof typeof PIXEL_READING) => (f: Facts) => {
  const page = text(f, 'page');
  const size = `${num(f, 'width')}x${num(f, 'height')}`;
  const where = !page
    ? ''
    : ` (highest on ${f.scannedPage ? `page ${page} (scanned page, ${size})` : `page ${page}, image ${text(f, 'image')} (${size})`}, of ${num(f, 'count')} analysed)`;
  if (f.setAside) return `The pixel detector's AI score is ${pct(num(f, 'score'))}${where}, but it is set aside for this picture.`;
  const why = page && reading === 'high_ai' ? pdfUndecided(f) : PIXEL_READING[reading];
  return `The pixel detector's AI score is ${pct(num(f, 'score'))}${where}; it ${why}.`;
};

/** Why a PDF's highest pixel reading does not decide (detectors/ai-detection.ts, scorePdf), from its facts. */
function pdfUndecided(f: Facts): string {
  const high = 'points to AI generation, but';
  if (f.photos === undefined) return `${high} the detector was not calibrated on images inside PDFs or on page renders, so in a document it does not decide on its own`;
  if (f.scannedPage || f.inScan) {
    return `${high} ${f.inScan ? 'the image is part of a page made of several images, read as a scan' : 'a page made of several images is read as a scan'}, a composite the detector was not calibrated on, so it does not decide on its own`;
  }
  if (f.unseen) return `${high} the image is drawn where a reader of the document does not see it (off the page, tiny or covered by another image), so it does not decide on its own`;
  if (num(f, 'photos') > 1) {
    return `${high} the document shows ${num(f, 'photos')} photographs, and one high score among several can be chance (each real photo has a small chance of reaching it), so it does not decide on its own`;
  }
  if (!f.calibratedPixels) return `${high} the image is stored in a way the detector was not calibrated on (its compression or colours), so it does not decide on its own`;
  return `${high} the image carries camera data that its structure confirms, so the pixels do not decide against it on their own`;
}

// ------------------------------------------------------------------------------------------------ provenance

/** "The file's own metadata names X as its source: <how>." (or, for a JPEG inside a PDF, "An image embedded ...") */
const aiSource = (how: (f: Facts) => string) => (f: Facts) =>
  `${f.embedded ? 'An image embedded in the PDF carries its own metadata: it' : "The file's own metadata"} names ` +
  `${text(f, 'generator') ?? 'a generative model'} as its source: ${how(f)}${f.partly ? ', for part of the content' : ''}.`;

/** What the product makes of a C2PA signer, in words (c2pa-validation.ts SignerTrust). */
const SIGNER_TRUST: Record<string, string> = {
  trusted: 'a signer that chains to a configured trust anchor',
  untrusted: 'a signer that chains to none of the configured trust anchors',
  not_established: 'a signer whose identity is not established (no trust anchors are configured)',
  expired: 'a certificate outside its validity period',
  invalid: 'a certificate that does not meet the C2PA certificate rules',
  missing: 'no usable signature',
};

/** " (valid until 2026-08-10)" for a signing certificate whose end date is known, else "". */
const validUntil = (f: Facts) => (text(f, 'signerValidUntil') ? ` (valid until ${text(f, 'signerValidUntil')!.slice(0, 10)})` : '');

/**
 * Why an `expired` signer is one, in words: judged at a trusted time-stamp's time, it was not valid when it signed;
 * without one it is judged today (C2PA 2.x), so a certificate that has lapsed since is expired though it may have
 * been valid when it signed.
 */
const expiredSigner = (f: Facts) =>
  f.timeTrusted === true
    ? 'a certificate that was not valid when it signed (at the time of its trusted time-stamp)'
    : `a certificate that is not valid today${validUntil(f)}, with no trusted time-stamp to show it signed while it was`;

/** "Veracity tests / Test Camera" or "the signer". */
const signerName = (f: Facts) => text(f, 'signer') ?? 'the signer';

/** "the ingredient “IMG_0001.jpg”", or "an untitled ingredient". */
const ingredientName = (f: Facts) => (text(f, 'ingredient') ? `the ingredient “${text(f, 'ingredient')}”` : 'an untitled ingredient');

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The codes of an ingredient's hashed link that no longer matches its manifest (C2PA 2.x, and 1.x's name for it). */
const INGREDIENT_LINK = new Set(['ingredient.manifest.mismatch', 'ingredient.hashedURI.mismatch', 'ingredient.claimSignature.mismatch']);

/** An ingredient whose own manifest fails or is missing: which, what failed, and whether the claim recorded it. */
function ingredientInvalid(f: Facts): string {
  const failures = text(f, 'failures');
  const what = failures ? ` (${failures})` : '';
  const after = 'A chain with a failing link cannot show where the file came from.';
  if (failures === 'claim.missing') return `The Content Credentials link ${ingredientName(f)} to a manifest the file does not carry (claim.missing). ${after}`;
  if (failures && INGREDIENT_LINK.has(failures.split(', ')[0])) {
    return `The Content Credentials of ${ingredientName(f)} are not the ones the signed claim took in${what}: they were changed or replaced since, while their hash in the claim's link stayed as it was. ${after}`;
  }
  if (f.recorded) return `${upperFirst(ingredientName(f))} has Content Credentials that do not validate${what}; the signer of this file recorded that when it took the ingredient in. ${after}`;
  return `The Content Credentials of ${ingredientName(f)} do not validate${what}, and the signed claim that took it in did not record that: they changed after it was taken in. ${after}`;
}

/** The sentence of a C2PA validation status (codes verbatim from the C2PA specification). */
const C2PA_STATUS_COPY: Record<string, (f: Facts) => string> = {
  'claimSignature.validated': (f) => `The Content Credentials signature by ${signerName(f)} verifies: the claim is exactly what was signed.`,
  'claimSignature.mismatch': () => 'The Content Credentials signature does NOT verify: the claim was changed after it was signed.',
  'claimSignature.missing': () => 'The Content Credentials claim has no signature.',
  'claimSignature.insideValidity': () => "The Content Credentials were signed inside the signing certificate's validity period.",
  'claimSignature.outsideValidity': () => "The Content Credentials were signed outside the signing certificate's validity period.",
  'signingCredential.trusted': (f) => `The signer, ${signerName(f)}, chains to a configured trust anchor${text(f, 'issuer') ? ` (issued by ${text(f, 'issuer')})` : ''}.`,
  'signingCredential.untrusted': (f) =>
    num(f, 'anchors') > 0
      ? `The signer, ${signerName(f)}, does not chain to any configured trust anchor, so who signed is not established.`
      : `The signer, ${signerName(f)}, is not established: no trust anchors are configured, so a valid signature shows the file is unchanged, not who signed it.`,
  'signingCredential.expired': (f) =>
    f.timeTrusted === true
      ? `The signing certificate of ${signerName(f)} was not valid at the time of signing, as its trusted time-stamp dates it (expired or not yet valid).`
      : `The signing certificate of ${signerName(f)} is not valid today${validUntil(f)}, and no trusted time-stamp shows that it signed while it was valid, so the signature vouches for nobody.`,
  'signingCredential.invalid': (f) => `The signing certificate of ${signerName(f)} does not meet the C2PA certificate rules.`,
  'signingCredential.ocsp.revoked': () => 'The signing certificate has been revoked.',
  'timeStamp.trusted': (f) => `A trusted time-stamp dates the signature${text(f, 'signedAt') ? ` at ${human(text(f, 'signedAt')!)}` : ''}.`,
  'timeStamp.validated': (f) => `A time-stamp dates the signature${text(f, 'signedAt') ? ` at ${human(text(f, 'signedAt')!)}` : ''}.`,
  'timeStamp.untrusted': () => 'The time-stamp on the signature comes from an authority that chains to no configured trust anchor, so the signing time is not established.',
  'timeStamp.mismatch': () => 'The time-stamp does not match the signature it claims to date.',
  'timeStamp.malformed': () => 'The time-stamp on the signature could not be read.',
  'timeStamp.outsideValidity': () => "The time-stamp falls outside the signing certificate's validity period.",
  'assertion.hashedURI.match': (f) => `${num(f, 'count') > 1 ? `All ${num(f, 'count')} assertions` : 'The assertion'} of the Content Credentials match the hashes the signed claim records.`,
  'assertion.hashedURI.mismatch': () => 'An assertion of the Content Credentials was changed after signing: its hash no longer matches the signed claim.',
  'assertion.missing': () => 'An assertion the signed claim lists is missing from the Content Credentials.',
  'assertion.dataHash.match': () => 'The file bytes match the hash the Content Credentials signed: the file is unchanged since it was signed.',
  'assertion.dataHash.mismatch': () => 'The file bytes do NOT match the hash the Content Credentials signed: the file was edited after it was signed.',
  'assertion.dataHash.malformed': () => 'The data hash of the Content Credentials is malformed.',
  'assertion.bmffHash.match': () => 'The file bytes match the hash the Content Credentials signed: the file is unchanged since it was signed.',
  'assertion.bmffHash.mismatch': () => 'The file bytes do NOT match the hash the Content Credentials signed: the file was edited after it was signed.',
  'assertion.boxesHash.match': () => 'The file bytes match the hash the Content Credentials signed: the file is unchanged since it was signed.',
  'assertion.boxesHash.mismatch': () => 'The file bytes do NOT match the hash the Content Credentials signed: the file was edited after it was signed.',
  'claim.hardBindings.missing': () => 'The Content Credentials do not bind the claim to the file bytes (no hard binding), so they do not show the file is unchanged.',
  'claim.missing': () => 'The Content Credentials have no claim.',
  'claim.cbor.invalid': () => 'The Content Credentials claim could not be decoded.',
  'algorithm.unsupported': () => 'The Content Credentials use an algorithm C2PA does not allow.',
  'ingredient.manifest.validated': (f) =>
    `The Content Credentials of ${num(f, 'count') > 1 ? `all ${num(f, 'count')} ingredients are` : 'the ingredient are'} the ones the signed claim took in: their hash matches the claim's link.`,
  'ingredient.claimSignature.validated': () => "The ingredients' Content Credentials signatures are the ones the signed claim took in.",
  'ingredient.manifest.mismatch': () => "An ingredient's Content Credentials are not the ones the signed claim took in: their hash no longer matches the claim's link.",
  'ingredient.hashedURI.mismatch': () => "An ingredient's Content Credentials are not the ones the signed claim took in: their hash no longer matches the claim's link.",
  'ingredient.claimSignature.mismatch': () => "An ingredient's Content Credentials signature is not the one the signed claim took in: its hash no longer matches the claim's link.",
  'ingredient.claimSignature.missing': () => "An ingredient's Content Credentials were redacted and the claim's link to them names no signature to check them by.",
  'general.error': (f) => `The Content Credentials could not be validated${text(f, 'explanation') ? ` (${text(f, 'explanation')!.replace(/\.$/, '')})` : ''}.`,
};

/**
 * A status's sentence: the table's, or, for one the table does not word, by whether it passed, with the library's
 * explanation when it gives one. A failure found in an ingredient's manifest (facts `manifest`) says whose it is.
 */
function c2paStatusSentence(f: Finding): string {
  if (text(f.facts, 'manifest') !== null) {
    if (f.code === 'claim.missing') {
      return `The Content Credentials link ${ingredientName(f.facts)} to a manifest (${text(f.facts, 'manifest')}) the file does not carry, so its history cannot be checked.`;
    }
    if (INGREDIENT_LINK.has(f.code)) {
      return `The Content Credentials of ${ingredientName(f.facts)} (${text(f.facts, 'manifest')}) are not the ones the signed claim took in: their hash no longer matches the claim's link (${f.code}), so they were changed or replaced since.`;
    }
    const sentence = c2paOwnSentence(f);
    return `In the Content Credentials of ${ingredientName(f.facts)}: ${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`;
  }
  return c2paOwnSentence(f);
}

function c2paOwnSentence(f: Finding): string {
  const own = C2PA_STATUS_COPY[f.code];
  if (own) return own(f.facts);
  const why = text(f.facts, 'explanation');
  return f.weight > 0
    ? `A Content Credentials check failed${why ? ` (${why.replace(/\.$/, '')})` : ''}, so the manifest cannot be relied on.`
    : `A Content Credentials check passed${why ? ` (${why.replace(/\.$/, '')})` : ''}.`;
}

function cameraBody(f: Facts): string {
  const make = text(f, 'make');
  const model = text(f, 'model');
  return make && model?.toLowerCase().startsWith(make.toLowerCase()) ? model : [make, model].filter(Boolean).join(' ');
}

// ------------------------------------------------------------------------------------------------ PDF structure

const ACTIVE_CONTENT: Array<[string, string]> = [
  ['javascript', 'JavaScript'],
  ['openAction', 'an action run on opening (/OpenAction)'],
  ['launch', 'a launch action'],
  ['embeddedFiles', 'embedded files'],
];

function pdfChanged(f: Facts): string {
  const signals: string[] = [];
  const revisions = num(f, 'revisions');
  if (revisions > 1) signals.push(`it was saved ${revisions} times (${revisions - 1} incremental update${revisions > 2 ? 's' : ''})`);
  const mod = text(f, 'modDate');
  const created = text(f, 'creationDate');
  if (mod && created) signals.push(`its modification date (${human(mod)}) is later than its creation date (${human(created)})`);
  if (num(f, 'historySteps') > 1) signals.push(`its XMP history records ${num(f, 'historySteps')} steps (${text(f, 'history')})`);
  return `The document was changed after it was first written: ${signals.join('; ')}.`;
}

// ------------------------------------------------------------------------------------------------ every code

/** Every finding code the product emits, and the sentence it shows for it. A code missing here is never shown. */
export const FINDING_COPY = {
  // ai-detection
  'pixels.score.generated': (f) =>
    text(f, 'page')
      ? `The pixel detector's AI score of the document's only photograph (page ${text(f, 'page')}, image ${text(f, 'image')}, ${num(f, 'width')}x${num(f, 'height')}) is ${pct(num(f, 'score'))}, a level that ${pct(num(f, 'realAtHighAi'))} of real photos reached in its validation: its pixels carry the traces an image generator leaves.`
      : `The pixel detector's AI score is ${pct(num(f, 'score'))}, a level that ${pct(num(f, 'realAtHighAi'))} of real photos reached in its validation: the pixels carry the traces an image generator leaves.`,
  'pixels.score.high_ai': pixelScore('high_ai'),
  'pixels.score.leans_ai': pixelScore('leans_ai'),
  'pixels.score.uncertain': pixelScore('uncertain'),
  'pixels.score.leans_authentic': pixelScore('leans_authentic'),
  'pixels.no_raster': () =>
    'The document has no raster image the pixel detector can read: none large enough, or only line art, text, charts or screenshots.',
  'pixels.none': () => 'The pixel detector gave no score.',
  'pixels.line_art': (f) => {
    const n = num(f, 'colours');
    return `The image has only ${n} colour${n === 1 ? '' : 's'} (line art or a bilevel scan), which the pixel detector cannot read reliably.`;
  },
  'pixels.not_photographic': (f) =>
    `The picture is mostly flat colour and hard edges (${pct(num(f, 'flat'))} of it flat), as screenshots, charts, logos and pages are, or a studio shot on a plain background: the pixel detector was calibrated on photographs, so its score here is not used either way.`,
  'pixels.document': (f) =>
    `The picture is a page of text, photographed or scanned: paper covers ${pct(num(f, 'paper'))} of it and ${pct(num(f, 'strokes'))} of its dark pixels are thin strokes beside paper. The pixel detector was calibrated on photographs of scenes and people and reads most genuine document photos and scans as AI, so its score here is not used either way: check the document by other means.`,
  'pixels.thermal': (f) =>
    `A thermal camera picture: its colours are the camera's palette over the temperatures recorded in the file (${text(f, 'maker') ?? 'the camera'}'s radiometric data${num(f, 'rawWidth') ? `, ${num(f, 'rawWidth')}x${num(f, 'rawHeight')},` : ''} explains ${pct(num(f, 'agreement'))} of the picture's colour variation). The pixel detector was not trained or calibrated on thermal imaging, so its score here is not used either way; the recorded data can be rebuilt by a determined forger, so this says nothing for or against the picture's authenticity.`,
  'pixels.portrait': (f) =>
    `A face${f.faceAngle == null ? '' : ` (found with the picture turned ${turn(num(f, 'faceAngle'))}: a tilted camera or a lost orientation tag)`} spans ${pct(num(f, 'faceShare'))} of the picture's shorter side, so it is read as a portrait: the pixel detector's scores run higher on real portraits than on other photos, and portraits point to AI with high confidence only from ${pct(num(f, 'highAi'))} (other photos from ${pct(num(f, 'otherHighAi'))}). It rarely catches faces made by GANs (the "this person does not exist" kind): that a portrait is not called AI does not clear it.`,
  'pixels.ffhq_framing': (f) =>
    `${f.page == null ? 'The picture' : `Page ${num(f, 'page')}${f.image == null ? '' : ` image ${num(f, 'image')}`}`} is square and its face is centred at ${pct(num(f, 'faceShare'))} of its side, exactly where StyleGAN's face generators (the "this person does not exist" kind) put every face. Face-dataset crops of real people are framed the same way, and camera or phone photos almost never are: check the person by other means: camera metadata alone does not clear it.`,
  'pixels.skipped': (f) => `Not scored: ${text(f, 'items')}${num(f, 'count') > 4 ? '; ...' : ''}.`,

  // provenance: a generator named by the metadata (weight 1: decides on its own)
  'provenance.ai.c2pa_generator': aiSource((f) => `its Content Credentials (C2PA) manifest declares ${text(f, 'sourceType')}`),
  'provenance.ai.c2pa_ingredient': aiSource(
    (f) =>
      `its Content Credentials (C2PA) record that it was made from ${text(f, 'relationship') === 'componentOf' ? 'a component, ' : ''}` +
      `${text(f, 'ingredient') ? `“${text(f, 'ingredient')}”` : 'an untitled ingredient'}, whose own manifest declares ${text(f, 'sourceType')}` +
      (text(f, 'softwareAgent') ? ` (created by ${text(f, 'softwareAgent')})` : ''),
  ),
  'provenance.ai.source_type': aiSource((f) => `its ${f.declaredIn === 'c2pa' ? 'C2PA manifest' : 'XMP'} declares the IPTC digital source type ${text(f, 'sourceType')}`),
  'provenance.ai.png_chunk': aiSource((f) => `it carries a PNG "${text(f, 'chunk')}" text chunk (${text(f, 'writer')})`),
  'provenance.ai.png_text': aiSource((f) => `its PNG "${text(f, 'chunk')}" text chunk reads "${text(f, 'value')}"`),
  'provenance.ai.xmp_aigc': aiSource(() => 'its XMP carries an AIGC generated-content label'),
  'provenance.ai.exif_field': aiSource((f) => `its EXIF ${text(f, 'field')} field reads "${text(f, 'value')}"`),
  'provenance.ai.exif_sd_parameters': aiSource(() => 'its EXIF UserComment holds Stable Diffusion generation parameters'),
  'provenance.ai.software': aiSource((f) => `its software field reads "${text(f, 'value')}"`),
  'provenance.ai.pdf_producer': (f) => `The PDF names an AI service as its maker (${text(f, 'producer')}).`,
  // provenance: what else the metadata says
  'provenance.c2pa.manifest': (f) =>
    `Content Credentials (C2PA) manifest made by ${text(f, 'claimGenerator') ?? 'an unnamed tool'}` +
    (text(f, 'signer') ? `, signed by ${text(f, 'signer')}` : '') +
    (text(f, 'issuer') ? ` (certificate issued by ${text(f, 'issuer')})` : '') +
    (text(f, 'signedAt') ? ` at ${human(text(f, 'signedAt')!)}` : '') +
    (text(f, 'actions') ? `, actions: ${text(f, 'actions')}` : '') +
    (num(f, 'ingredients') ? `, ${num(f, 'ingredients')} ingredient${num(f, 'ingredients') > 1 ? 's' : ''}` : '') +
    (text(f, 'trust') ? `; ${text(f, 'trust') === 'expired' ? expiredSigner(f) : (SIGNER_TRUST[text(f, 'trust')!] ?? 'signer not judged')}` : '') +
    '.',
  'provenance.c2pa.edited': (f) => `The Content Credentials record edits after capture${text(f, 'actions') ? ` (${text(f, 'actions')})` : ''}${num(f, 'parents') ? ', made from an earlier file' : ''}.`,
  'provenance.c2pa.ingredient_invalid': (f) => ingredientInvalid(f),
  'provenance.c2pa.unreadable': (f) => `A Content Credentials (C2PA) block is present but could not be read${text(f, 'reason') ? ` (${text(f, 'reason')!.replace(/\.$/, '')})` : ''}, so it proves nothing.`,
  'provenance.png.generator_chunks': (f) => `PNG generator text chunks: ${text(f, 'chunks')}.`,
  'provenance.source_type': (f) => `Declared IPTC digital source type: ${text(f, 'sourceType')}.`,
  'provenance.editor': (f) => `Edited with: ${text(f, 'editors')}.`,
  'provenance.camera': (f) => `Camera data: ${cameraBody(f)}${text(f, 'lens') ? `, lens ${text(f, 'lens')}` : ''}.`,
  'pdf.embedded_camera': (f) => `Embedded images carry camera data (${text(f, 'cameras')}), which can be copied or forged.`,
  // provenance: the capture evidence it amounts to (fusion rule 3), or none
  'provenance.capture.c2pa_trusted': (f) =>
    `The Content Credentials record a camera capture signed by ${signerName(f)}, a trusted signer, and nothing edited since: the file is the capture as signed.`,
  'provenance.capture.c2pa_trusted_edited': (f) =>
    `The Content Credentials record a camera capture signed by ${signerName(f)}, a trusted signer, with edits after capture.`,
  'provenance.capture.c2pa_signed': (f) =>
    `The Content Credentials declare a camera capture and the signature is valid, but ${text(f, 'trust') === 'expired' ? `it is signed with ${expiredSigner(f)}` : 'nobody vouches for the signer'}, so it counts no more than camera metadata.`,
  'provenance.capture.camera_exif': () => 'Camera metadata can be copied or forged, so it supports but does not establish authenticity.',
  'provenance.none': () =>
    'No provenance metadata points either way; metadata is often stripped, so its absence is not evidence of authenticity.',

  // pdf-structure
  'pdf.tools': (f) => {
    const tools = [text(f, 'creator') && `created with ${text(f, 'creator')}`, text(f, 'producer') && `produced by ${text(f, 'producer')}`].filter(Boolean);
    return tools.length ? `The PDF was ${tools.join(', ').replace(/\.+$/, '')}.` : 'The PDF does not name the tools that made it.';
  },
  'pdf.changed': pdfChanged,
  'pdf.encrypted': () =>
    'The PDF is encrypted with permissions only (it opens without a password) and was read as a PDF reader reads it; camera data or Content Credentials inside its encrypted streams could not be examined.',
  'pdf.active_content': (f) => `It contains ${ACTIVE_CONTENT.filter(([k]) => f[k]).map(([, w]) => w).join(', ')} (not executed by Veracity).`,

  // capture consistency (src/analysis/capture/): how the file is built against the camera it claims. Its facts come
  // from another module, so each sentence still reads when a fact is missing.
  'capture.exif.absent': () => 'The photo carries no camera data to check against the way the file is built.',
  'capture.consistent': (f) => `The way the file is built matches what ${an(camera(f))} writes.`,
  'capture.jpeg.software_layout': () =>
    'The file is laid out as libjpeg-based software writes JPEGs (a JFIF header, one table per marker), not as cameras write them: a program saved it, so its camera data no longer shows what the camera wrote.',
  'capture.jpeg.phone_libjpeg': (f) =>
    `The file is laid out as libjpeg-based software writes JPEGs, which is how the ${text(f, 'model') ?? 'phone it names'}'s camera app writes its photos (its camera data first, then the JFIF header), with that phone's own compression tables.`,
  'capture.jpeg.model_layout': (f) =>
    text(f, 'like')
      ? `The file's tables are laid out one per marker with no JFIF header, which is how the ${text(f, 'like')}, a model of the same maker, writes its photos; we hold no original of the ${text(f, 'model') ?? 'phone it names'} itself.`
      : `The file's tables are laid out one per marker with no JFIF header, which is how the ${text(f, 'model') ?? 'phone it names'} writes its photos.`,
  'capture.jpeg.parts_missing': (f) =>
    `The file lacks parts that every original of the ${text(f, 'like') ?? text(f, 'model') ?? 'phone it names'} we hold carries (${text(f, 'missing') ?? 'segments of its own'}): a program may have written it with the phone's camera data copied in, or a setting left them out, so the camera data is not confirmed.`,
  'capture.jpeg.layout_unlike_model': (f) =>
    `The file is not laid out as the ${text(f, 'model') ?? 'phone it names'} writes its photos (${f.jfif === false ? 'one table per marker, no JFIF header' : 'a JFIF header after its camera data, one table per marker'}): a program saved it, so its camera data no longer shows what the phone wrote.`,
  'capture.jpeg.layout_unlike_maker': (f) =>
    `The file's tables are laid out one per marker, as libjpeg-based software writes JPEGs; ${text(f, 'make') ?? 'this maker'}'s cameras put them together: a program saved it, so its camera data no longer shows what the camera wrote.`,
  'capture.jpeg.layout_unlike_tables': (f) =>
    `The file's tables are laid out one per marker, as libjpeg-based software writes JPEGs; the ${text(f, 'make') ?? 'camera'} originals we hold with these very tables put them together: a program saved it with the camera's tables, so its camera data no longer shows what the camera wrote.`,
  'capture.qtable.standard_ijg': (f) =>
    f.camerasToo === true
      ? `${standardSettings(f)}, which programs write and some cameras and phones also use: this alone does not show which of them wrote it.`
      : `${standardSettings(f)} rather than a camera's own, so a program saved it after any camera did.`,
  'capture.qtable.camera_ijg': (f) =>
    `${standardSettings(f)}, which the ${text(f, 'model') ?? 'camera it names'} also uses, and the file is laid out as that camera lays out its files, not as a program would.`,
  'capture.qtable.maker_mismatch': (f) =>
    `The photo says it comes from ${an(`${text(f, 'claimedMake') ?? ''} camera`.trim())}, but it is compressed the way ${text(f, 'tableMake') ?? 'another maker or a program'} compresses photos.`,
  'capture.qtable.known_maker': (f) => `The photo is compressed the way ${text(f, 'make') ?? 'its camera maker'} compresses photos.`,
  'capture.qtable.model_range': (f) =>
    `The photo's compression tables are not ones we have seen before, but they are of the kind the ${text(f, 'like') ?? text(f, 'model') ?? 'phone it names'} picks for each photo${text(f, 'like') ? ' (a model of the same maker: we hold no original of the ' + (text(f, 'model') ?? 'phone it names') + ' itself)' : ''}.`,
  'capture.qtable.unknown': () => "The photo's compression settings match no camera we know of, which shows nothing either way.",
  'capture.thumbnail.mismatch': () => "The photo's embedded thumbnail shows a different picture from the photo itself.",
  'capture.thumbnail.aspect_mismatch': (f) =>
    `The photo's embedded thumbnail has a different shape${text(f, 'thumbAspect') && text(f, 'imageAspect') ? ` (${text(f, 'thumbAspect')}) from the photo (${text(f, 'imageAspect')})` : ' from the photo'}, so the photo was cropped or replaced after it was taken.`,
  'capture.thumbnail.match': () => "The photo's embedded thumbnail shows the same picture as the photo.",
  'capture.thumbnail.software': () =>
    "The EXIF thumbnail was encoded by a program (it carries a JFIF header, which cameras do not write there): the thumbnail was made again after the camera, so it no longer shows what the camera wrote.",
  'capture.thumbnail.turned': () =>
    "The photo's embedded thumbnail shows the same picture turned or mirrored: a program turned the photo after it was taken.",
  'capture.thumbnail.squeezed': () =>
    "The photo's embedded thumbnail has another shape but shows the same picture squeezed, as some cameras write it; this shows nothing either way.",
  'capture.thumbnail.as_shown': () =>
    "The photo's embedded thumbnail shows the same picture as it is displayed rather than as it is stored, which shows nothing either way.",
  'capture.thumbnail.absent': () => 'The photo has no embedded thumbnail to compare with it.',
  'capture.size.exif_mismatch': (f) =>
    `The camera data records a ${num(f, 'exifWidth')}x${num(f, 'exifHeight')} photo, but the photo is ${num(f, 'width')}x${num(f, 'height')}.`,
  'capture.size.resized': (f) =>
    `The camera data records a ${num(f, 'exifWidth')}x${num(f, 'exifHeight')} photo, but the photo is the same picture at ${num(f, 'width')}x${num(f, 'height')}: it was resized after it was taken.`,
  'capture.size.not_device': (f) =>
    `The photo's size (${num(f, 'width')}x${num(f, 'height')}) is not one ${an(`${text(f, 'make') ?? 'the named'} camera`)} produces.`,
  'capture.makernote.missing': (f) => `The camera data lacks the maker's own section that ${text(f, 'make') ?? 'the named maker\'s'} cameras write.`,
  'capture.makernote.malformed': (f) =>
    `The maker's own section of the camera data is damaged or not laid out the way ${text(f, 'make') ?? 'the named maker\'s'} cameras write it.`,
  'capture.software.edited': (f) => `The camera data records that ${text(f, 'software') ?? 'editing software'} saved the photo.`,
  'capture.dates.inconsistent': (f) =>
    `The dates recorded in the photo disagree${text(f, 'field') ? `: ${text(f, 'field')} is off by ${duration(f.delta)}` : ''}.`,
  'capture.jpeg.double_quantization': () => 'The photo shows signs of having been compressed twice, as happens when a photo is edited and saved again.',
  'capture.xmp.edit_history': (f) => `The photo's editing history records changes${text(f, 'agent') ? ` made with ${text(f, 'agent')}` : ''}.`,
  'capture.heic.structure_mismatch': (f) => `The HEIC file is not built the way phones build them${text(f, 'detail') ? ` (${text(f, 'detail')})` : ''}.`,
  'capture.format.not_capture': (f) =>
    `This ${text(f, 'format') ?? 'file'} carries camera data${text(f, 'make') ? ` (${text(f, 'make')})` : ''}, but cameras and phones do not save photos in this format: the picture was converted or assembled after capture.`,
  'capture.heic.software_encoder': (f) =>
    `The picture inside the HEIC file was coded by software such as libheif's x265 (it uses asymmetric partitions, which the encoders of phones and cameras${text(f, 'make') ? `, ${text(f, 'make')}'s among them,` : ''} do not): a program saved it, so its camera data no longer shows what the device wrote.`,
  'capture.heic.phone_structure': (f) => `The HEIC file is built the way ${text(f, 'make') ? `${text(f, 'make')} phones` : 'phones'} build them.`,

  // fusion's own notes
  'verdict.metadata_decided': () => 'The pixels do not look generated; the metadata claim is what decided.',
  'verdict.capture_vs_pixels': () => 'A signed camera-capture claim and a high AI pixel score disagree.',
  'verdict.pixels_vs_capture': () =>
    'The pixels look generated, but the file is built as a camera builds its files (which someone who copies a camera file\'s structure can imitate): the two disagree.',
  'verdict.capture_unconfirmed': () =>
    "The capture it claims could not be confirmed by the way the file is built (the maker's own compression, a matching thumbnail or a phone's file layout), so it does not count as capture evidence.",
  'verdict.capture_contradicted': () => "The capture evidence is contradicted by the way the file itself is built, so it does not count.",
  'verdict.c2pa_edited_after_signing': () => 'The file was edited after it was signed, so its Content Credentials no longer describe it and it cannot be called authentic.',
  'verdict.c2pa_ingredient_invalid': () => "An ingredient's Content Credentials fail validation, so the file's Content Credentials cannot show it is authentic.",
  'verdict.c2pa_invalid': () => 'The Content Credentials fail validation (tampered with or damaged), so the file cannot be called authentic.',
  'verdict.c2pa_unreadable': () => 'The file holds Content Credentials that cannot be read, so what they declared is unknown and the file cannot be called authentic.',
  'verdict.c2pa_decided': () => 'A trusted signature decided: the pixel reading does not override the cryptography.',
  'verdict.capture_vs_framing': () =>
    "The camera metadata would make this picture authentic, but its face is framed as generated faces are, so the metadata does not clear it.",
  'verdict.capture_resaved': () =>
    "A program saved the file again after the camera did, so the camera data no longer shows an unedited capture and does not count; a re-save alone does not show that the picture was changed.",
} satisfies Record<string, (facts: Facts) => string>;

export type FindingCode = keyof typeof FINDING_COPY;

const ownCopy = (code: string): code is FindingCode => Object.hasOwn(FINDING_COPY, code);
/** C2PA validation statuses (their codes are the specification's) all have copy: their own, or their family's. */
export const hasCopy = (code: string): boolean => ownCopy(code) || isC2paStatus(code);

/** The sentence for one finding; null for a code without copy (never shown raw: copy.test.ts keeps the table full). */
export function findingSentence(f: Finding): string | null {
  if (ownCopy(f.code)) return FINDING_COPY[f.code](f.facts);
  return isC2paStatus(f.code) ? c2paStatusSentence(f) : null;
}

/** The codes and sentences of a detector's findings, as the v1 result lists them on its dimension. */
export function dimensionFindings(findings: Finding[]): Array<{ code: string; message: string }> {
  return findings.flatMap((f) => {
    const message = findingSentence(f);
    return message ? [{ code: f.code, message }] : [];
  });
}

// ------------------------------------------------------------------------------------------------ verdicts

/** What each verdict adds after its evidence: what it does not show. Its name and reason are the vocabulary's. */
const VERDICT_CAVEATS = {
  // `ai_generated` from provenance: its caveat is about metadata (from the pixels: PIXEL_CAVEAT).
  ai_generated: 'Metadata can be added to any file, so this shows what the file declares, not who made it.',
  authentic:
    'The capture evidence points to a photograph and the pixels show no clear sign of AI generation; this does not prove the content is true or unedited by hand.',
  inconclusive: 'The evidence is not strong enough either way; a specialist should review the file.',
};

/** The caveat of an `authentic` verdict whose pixel score a pixel check set aside (a thermal picture, a page, a chart). */
const SET_ASIDE_CAVEAT =
  'The capture evidence points to a photograph; the pixel detector cannot read this kind of picture, so its score was not used either way. This does not prove the content is true or unedited by hand.';
/** Pixel checks that set the score aside (detectors/ai-detection.ts). */
const SET_ASIDE = new Set(['pixels.thermal', 'pixels.document', 'pixels.not_photographic', 'pixels.line_art']);

/** The caveat of an `ai_generated` verdict the pixels decided (fusion rule 2): a statistical reading. */
const PIXEL_CAVEAT = 'The pixel detector is a statistical reading, not proof: a specialist should confirm it before acting on it.';
/**
 * Verdicts a trusted Content Credentials signature decided (fusion rule 0) say so in their title and caveat: the
 * pixels did not decide them, and what the signature proves is who signed and that the bytes are unchanged.
 */
const SIGNED_VERDICTS = {
  authentic: {
    reason: 'signed at capture by a trusted signer',
    caveat: 'A trusted signature shows who captured the file and that it is unchanged since; it does not prove the scene is true.',
  },
  ai_generated: {
    reason: 'declared by Content Credentials from a trusted signer',
    caveat: 'A trusted signature shows who declared the file generated; it says nothing about any other file.',
  },
};

function signedVerdict(fused: FusedVerdict): (typeof SIGNED_VERDICTS)[keyof typeof SIGNED_VERDICTS] | null {
  const codes = new Set(fused.evidence.map((f) => f.code));
  if (fused.assessment === 'authentic' && codes.has('provenance.capture.c2pa_trusted')) return SIGNED_VERDICTS.authentic;
  if (fused.assessment === 'ai_generated' && codes.has('signingCredential.trusted')) return SIGNED_VERDICTS.ai_generated;
  return null;
}

/** The v1 verdict: fusion's decision with its display copy written from the evidence's codes. */
export function writeVerdict(fused: FusedVerdict): Verdict {
  const sentences = fused.evidence.map(findingSentence).filter((s): s is string => Boolean(s));
  const signed = signedVerdict(fused);
  const byPixels = fused.assessment === 'ai_generated' && !fused.evidence.some((f) => f.code.startsWith('provenance.') && f.weight >= 1);
  const setAside = fused.assessment === 'authentic' && fused.evidence.some((f) => SET_ASIDE.has(f.code));
  const caveat = signed?.caveat ?? (byPixels ? PIXEL_CAVEAT : setAside ? SET_ASIDE_CAVEAT : VERDICT_CAVEATS[fused.assessment]);
  return {
    assessment: fused.assessment,
    confidence: fused.confidence,
    display: {
      label: VERDICT_WORDS[fused.assessment],
      title: signed ? `${VERDICT_WORDS[fused.assessment]}: ${signed.reason} (${confidencePhrase(fused.confidence)})` : verdictTitle(fused.assessment, fused.confidence),
      description: [...sentences, caveat].join(' '),
    },
    dimensions: fused.dimensions,
  };
}

// ------------------------------------------------------------------------------------------------ dimensions

/** Each dimension's label: the vocabulary's name of its check. */
export const DIMENSION_LABELS: Record<CheckKey, string> = CHECK_WORDS;
export type DimensionKey = CheckKey;

/** A dimension; `label` replaces the check's name when the finding itself must be named (a contradicted capture). */
export function dimensionOf(key: DimensionKey, score: number, assessment: DimensionAssessment, confidence: ConfidenceLevel, label = DIMENSION_LABELS[key]): Dimension {
  return { key, label, score, assessment, confidence };
}

/** Who reads the whole picture for the file score: one content model or two, with the size each resizes it to. */
function contentModelsCopy(first: ContentModel, second: ContentModel | undefined): string {
  const size = (c: ContentModel) => `${c.input.size}x${c.input.size}`;
  if (!second) return `a second model reads it resized to ${size(first)}`;
  return `two more models read it resized to ${size(first) === size(second) ? size(first) : `${size(first)} and ${size(second)}`}`;
}

/** How tile scores became the file score, in words (FileAnalysis.aggregation, served with the region grids). */
export function aggregationCopy(m: ModelManifest, kind: FileKind): string {
  const base =
    `${m.input.tileSize}px tiles at native resolution every ${m.tiling.stride}px (at most ${m.tiling.maxTiles}, evenly sampled), ` +
    `image score = mean of the ${m.aggregation.k} highest tile probabilities` +
    ((m.tiling.heatmapMaxTiles ?? 0) > m.tiling.maxTiles
      ? `; the heatmap shows up to ${m.tiling.heatmapMaxTiles} tiles, sampled the same way`
      : '; the heatmap shows those same tiles, and any other tile of a part of the picture is scored on request') +
    (m.semantic ? `; the file score also weighs the whole picture's content (${contentModelsCopy(m.semantic, m.semantic2)}), so it is not the heatmap's tile scores alone` : '');
  return kind === 'pdf' ? `${base}; document score = the highest image or scanned-page score` : base;
}
