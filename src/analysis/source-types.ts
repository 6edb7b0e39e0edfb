/**
 * IPTC NewsCodes digital source types (https://cv.iptc.org/newscodes/digitalsourcetype/), as both readers of them see
 * them: the C2PA reader (an action's `digitalSourceType`) and the XMP reader (`Iptc4xmpExt:DigitalSourceType`).
 */

/** Digital source types that mean the content was (partly) produced by a generative model. */
export const AI_SOURCE_TYPES = new Set([
  'trainedAlgorithmicMedia',
  'compositeWithTrainedAlgorithmicMedia',
  'algorithmicMedia',
  'compositeSynthetic',
]);
/** Generative source types that mean part of the content only (a composite). */
export const PARTLY_AI_TYPES = new Set(['compositeWithTrainedAlgorithmicMedia', 'compositeSynthetic']);
/** Digital source types of a capture (a camera, a scan of film or print), possibly lightly edited. */
export const CAPTURE_SOURCE_TYPES = new Set(['digitalCapture', 'negativeFilm', 'positiveFilm', 'print', 'minorHumanEdits']);

/** Every code above, by its lower-cased spelling. */
const KNOWN = new Map([...AI_SOURCE_TYPES, ...CAPTURE_SOURCE_TYPES].map((c) => [c.toLowerCase(), c]));

/**
 * A declared digital source type as its code, written the canonical way when it is one of the codes above. The
 * standard's value is the code's URI (`http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia`), but
 * writers also put the bare code, and capitalised: Google's Imagen and Gemini images carry
 * `TrainedAlgorithmicMedia` in XMP. So the URI's path is dropped and a known code is matched whatever its case;
 * anything else (another vocabulary, a value with spaces or markup) is kept as written, so that it matches no set
 * here. Case grants an attacker nothing: an XMP capture type earns nothing anyway, and a C2PA capture type counts only
 * under a valid signature, whose signer could as well have written the canonical spelling.
 */
export function sourceTypeCode(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const code = value.trim().replace(/^.*\//, '');
  if (!code) return undefined;
  return KNOWN.get(code.toLowerCase()) ?? code;
}
