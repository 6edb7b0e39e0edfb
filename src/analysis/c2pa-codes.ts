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

/** Hard-binding mismatches: the bytes of the file are not the bytes that were signed. */
export const BYTES_CHANGED: ReadonlySet<string> = new Set(['assertion.dataHash.mismatch', 'assertion.bmffHash.mismatch', 'assertion.boxesHash.mismatch', 'assertion.collectionHash.mismatch']);

/**
 * A manifest not bound to these bytes: they changed since signing, the box hash names boxes the file does not have in
 * that order, or nothing binds it at all. Such a manifest may have been copied from another file.
 */
export const UNBOUND: ReadonlySet<string> = new Set([...BYTES_CHANGED, 'assertion.boxesHash.unknownBox', 'claim.hardBindings.missing']);
