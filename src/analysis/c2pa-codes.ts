// Validation status codes of the C2PA specification (section 15) that the product reads by meaning, kept apart from
// c2pa-validation.ts so that reading them does not load the C2PA library (c2pa-reading.ts).

/** Codes about who signed and when: they lower what a manifest proves, they do not say it was tampered with. */
export const TRUST_CODES: ReadonlySet<string> = new Set([
  'signingCredential.untrusted',
  'signingCredential.expired',
  'signingCredential.invalid',
  'signingCredential.ocsp.skipped',
  'signingCredential.ocsp.inaccessible',
  'signingCredential.ocsp.unknown',
  'timeStamp.untrusted',
  'timeStamp.outsideValidity',
  'timeStamp.malformed',
  'ingredient.unknownProvenance',
  'manifest.unknownProvenance',
  'algorithm.deprecated',
]);
