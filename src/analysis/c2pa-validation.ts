// Content Credentials (C2PA) validated by @trustnxt/c2pa-ts (claim signature, certificate profile and validity,
// time-stamp, hashed URIs of every assertion, hard bindings: data hash, BMFF hash; the box hash in c2pa-box-hash.ts),
// with one decision taken here: who is trusted. The library answers `signingCredential.trusted` for any well-formed
// certificate in its validity period, so that answer is replaced by the product's own chain check against the
// configured trust anchors (trust-anchors.ts), and a time-stamp counts as trusted only when its authority chains to an
// anchor too.
import { createHash } from 'node:crypto';
import { BasicConstraintsExtension, ExtendedKeyUsage, ExtendedKeyUsageExtension, KeyUsageFlags, KeyUsagesExtension, SubjectKeyIdentifierExtension, X509Certificate } from '@peculiar/x509';
import { BMFF, JPEG, PNG } from '@trustnxt/c2pa-ts/asset';
import { Signature as CoseSignature, TimestampVersion } from '@trustnxt/c2pa-ts/cose';
import { Crypto, type CryptoProvider, type HashAlgorithm } from '@trustnxt/c2pa-ts/crypto';
import { SuperBox } from '@trustnxt/c2pa-ts/jumbf';
import {
  ClaimVersion,
  IngredientAssertion,
  Manifest,
  ManifestStore,
  RelationshipType,
  ValidationResult,
  ValidationStatusCode,
  type ActionAssertion,
  type HashedURI,
  type ValidationStatusEntry,
} from '@trustnxt/c2pa-ts/manifest';
import * as pkijs from 'pkijs';
import type { C2paManifest, SignerTrust } from '../api/schemas.js';
import type { MediaType } from './analysis-results.js';
import { checkBoxHash } from './c2pa-box-hash.js';
import { TRUST_CODES } from './c2pa-codes.js';
import { readPdfC2paStore, type PdfStore } from './pdf-c2pa-store.js';
import { sourceTypeCode } from './source-types.js';
import { chainsToAnchor, type TrustAnchor } from './trust-anchors.js';

export interface C2paAction {
  action: string;
  /** The IPTC code without its URL, e.g. `trainedAlgorithmicMedia`. */
  digitalSourceType?: string;
  softwareAgent?: string;
}

/**
 * One validation status of the file's Content Credentials, its code verbatim from the C2PA specification (section
 * 15): the active manifest's own, or a failure of an ingredient's manifest (then `manifest` and `ingredient` say
 * which, and `url` is absolute: `self#jumbf=/c2pa/LABEL/...`).
 */
export interface C2paStatus {
  code: string;
  success: boolean;
  url?: string;
  explanation?: string;
  /** The label of the ingredient's manifest the failure is in; absent for the active manifest's own statuses. */
  manifest?: string;
  /** The title of the ingredient whose manifest it is (null: untitled); absent for the active manifest's own. */
  ingredient?: string | null;
}

/** An ingredient, anywhere in the chain, whose own manifest fails validation or is not in the store. */
export interface C2paIngredientFailure {
  title: string | null;
  /** The label of the manifest the ingredient's link names. */
  manifest: string;
  /** Its manifest's failures, trust codes left out; `claim.missing` when the store does not hold it. */
  failures: string[];
  /** Every one of them was recorded by the claim that took the ingredient in: known then, not a change since. */
  recorded: boolean;
}

export type { SignerTrust };

export interface C2paValidation {
  label: string;
  claimGenerator: string | null;
  actions: C2paAction[];
  /** Subject of the signing certificate (O / CN). */
  signer: string | null;
  issuer: string | null;
  /** Signing time from a time-stamp (ISO), when the signature carries one. */
  signedAt: string | null;
  /** Ingredients of the active manifest with the relationship `parentOf`: the asset this one was made from. */
  parents: number;
  ingredients: number;
  manifests: number;
  /**
   * Every status of the active manifest, after the product's trust decision, then the failures of its ingredients'
   * manifests that the claims taking them in did not record (c2patool's `validation_status`; see ingredientStatuses).
   */
  statuses: C2paStatus[];
  /**
   * No failure other than the signer's or time-stamp's trust: the signature, hashes and bindings hold, and no
   * ingredient's manifest has failed since it was taken in.
   */
  valid: boolean;
  /** Every ingredient whose own manifest fails or is missing, recorded failures included (the chain is not clean). */
  ingredientFailures: C2paIngredientFailure[];
  trust: SignerTrust;
  /** The end of the signing certificate's validity period (ISO); null without a certificate. */
  signerValidUntil: string | null;
  /**
   * A time-stamp whose authority chains to a configured anchor dates the signature, so the certificate was judged at
   * that time; otherwise it was judged now (C2PA 2.x, "validate the credential"), and `expired` means expired since.
   */
  timeTrusted: boolean;
  /** How many trust anchors were configured when the signer was judged. */
  anchors: number;
  /** The manifest chain: this manifest first, then back through its ingredients' manifests, each judged on its own. */
  chain: C2paManifest[];
}

export type C2paReading = { kind: 'manifest'; manifest: C2paValidation } | { kind: 'unreadable'; reason: string };


const MAX_STORE = 16 * 1024 * 1024;

/** DER length octets. */
function derLength(n: number): number[] {
  if (n < 0x80) return [n];
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return [0x80 | out.length, ...out];
}

/**
 * A v2 time-stamp as C2PA 2.x stores it: the TimeStampResp's `timeStampToken` alone ([GEN-CLAIMS-0023]), a CMS
 * ContentInfo whose first element is an OID. The library reads every stored token as a whole TimeStampResp, so a
 * bare token is wrapped in one with status `granted` (PKIStatusInfo 0): what the TSA answered, less what the spec
 * tells the signer to drop. A whole TimeStampResp (what 1.x time-stamps hold, and what some signers put in sigTst2
 * too) is kept as it is.
 */
export function asTimeStampResp(val: Uint8Array): Uint8Array {
  if (val.length < 4 || val[0] !== 0x30) return val;
  const lenBytes = val[1] < 0x80 ? 1 : 1 + (val[1] & 0x7f);
  if (val[1 + lenBytes] !== 0x06) return val; // not an OID first: a TimeStampResp (PKIStatusInfo first) or garbage
  const status = [0x30, 0x03, 0x02, 0x01, 0x00];
  const body = status.length + val.length;
  const out = new Uint8Array(1 + derLength(body).length + body);
  out.set([0x30, ...derLength(body), ...status]);
  out.set(val, out.length - val.length);
  return out;
}

// Microsoft's signers (Azure OpenAI's images) write JUMBF URIs without the leading slash, `self#jumbf=c2pa/<label>/...`.
// c2pa-rs reads such a URI as the absolute `/c2pa/<label>/...` (jumbf/labels.rs `to_normalized_uri`); the library
// looks it up as a path inside the manifest, finds nothing, and reports the claim signature and every assertion
// missing: tampering, on files nobody touched. The URI is normalised as c2pa-rs does before the lookup; the hashes
// are still checked against the boxes it names.
export const normalisedJumbfUri = (url: unknown): unknown => (typeof url === 'string' ? url.replace(/^self#jumbf=c2pa\//, 'self#jumbf=/c2pa/') : url);
const getComponentByURL = Manifest.prototype.getComponentByURL;
if (typeof getComponentByURL === 'function') {
  Manifest.prototype.getComponentByURL = function (this: Manifest, url: string | undefined, sameManifestOnly?: boolean) {
    return getComponentByURL.call(this, normalisedJumbfUri(url) as string | undefined, sameManifestOnly);
  };
}

/**
 * Extended key usages a manifest signer's certificate may carry (C2PA's certificate profile as c2pa-rs applies it,
 * its `valid_eku_oids.cfg`): email protection and document signing, which the library accepts, and also the C2PA
 * claim-signing EKU and Microsoft's C2PA-signing EKU, which it does not: Azure OpenAI's images were `invalid`.
 * (c2pa-rs also lists time-stamping and OCSP signing; as a manifest signer's only purpose they stay refused here.)
 */
export const MANIFEST_SIGNING_EKUS = new Set([ExtendedKeyUsage.emailProtection as string, '1.3.6.1.5.5.7.3.36', '1.3.6.1.4.1.62558.2.1', '1.3.6.1.4.1.311.76.59.1.9']);

/** The library's key-usage rules (validateCertificateKeyUsage), with MANIFEST_SIGNING_EKUS for a manifest signer. */
export function certificateKeyUsageError(certificate: X509Certificate, isUsedForManifestSigning: boolean): string | undefined {
  const invalid = 'signingCredential.invalid';
  const basic = certificate.getExtension(BasicConstraintsExtension);
  const keyUsages = certificate.getExtension(KeyUsagesExtension);
  const eku = certificate.getExtension(ExtendedKeyUsageExtension);
  if (!keyUsages?.critical) return invalid;
  if (isUsedForManifestSigning && !(keyUsages.usages & KeyUsageFlags.digitalSignature)) return invalid;
  if (keyUsages.usages & KeyUsageFlags.keyCertSign && !basic?.ca) return invalid;
  if (basic?.ca) return certificate.getExtension(SubjectKeyIdentifierExtension) ? undefined : invalid;
  if (!eku) return invalid;
  const usages = eku.usages.map(String);
  if (usages.includes('2.5.29.37.0')) return invalid; // anyExtendedKeyUsage
  if (isUsedForManifestSigning && !usages.some((u) => MANIFEST_SIGNING_EKUS.has(u))) return invalid;
  if (usages.includes(ExtendedKeyUsage.timeStamping) && usages.length !== 1) return invalid;
  if (usages.includes(ExtendedKeyUsage.ocspSigning) && usages.length !== 1) return invalid;
  return undefined;
}
const coseStatics = CoseSignature as unknown as { validateCertificateKeyUsage?: (c: X509Certificate, m: boolean) => string | undefined };
if (typeof coseStatics.validateCertificateKeyUsage === 'function') coseStatics.validateCertificateKeyUsage = certificateKeyUsageError;

// @trustnxt/c2pa-ts 0.9.4 expects a whole TimeStampResp in sigTst2 and calls a manifest whose v2 time-stamp is a bare
// token, as C2PA 2.x writes it (Google's signer and OpenAI's API do), unreadable ("Failed to deserialize signature
// content"). Its private reader is given the token as a TimeStampResp instead; validation (imprint, TSA signature,
// trust) is the library's own, unchanged. test/unit/analysis/c2pa-real-world.test.ts fails if the library stops
// calling the reader this way (as it does for the two patches above).
type TstContainer = { tstTokens?: { val: Uint8Array }[] } | undefined;
const readTimestamps = (CoseSignature as unknown as { readTimestamps: (c: TstContainer, v: TimestampVersion) => Iterable<unknown> }).readTimestamps;
if (typeof readTimestamps === 'function') {
  (CoseSignature as unknown as { readTimestamps: unknown }).readTimestamps = function* (container: TstContainer, version: TimestampVersion) {
    const tokens = container?.tstTokens;
    const fixed = version === TimestampVersion.V2 && Array.isArray(tokens)
      ? { ...container, tstTokens: tokens.map((t) => (t?.val instanceof Uint8Array ? { ...t, val: asTimeStampResp(t.val) } : t)) }
      : container;
    yield* readTimestamps.call(this, fixed, version);
  };
}

/**
 * The library hashes through WebCrypto, copying every range of the file into one buffer first and digesting it on
 * the thread pool: on a 12-MP JPEG that is most of its validation time. Its CryptoProvider is the documented place
 * to change that; hashes use node:crypto's streaming hash here (same algorithms, no copy), the rest is unchanged.
 */
const nodeHash = (a: HashAlgorithm) => a.replace('-', '').toLowerCase(); // 'SHA-256' -> 'sha256'
const webCrypto: CryptoProvider = Crypto.provider;
Crypto.provider = {
  digest: (data, algorithm) => Promise.resolve(new Uint8Array(createHash(nodeHash(algorithm)).update(data).digest())),
  streamingDigest: (algorithm) => {
    const hash = createHash(nodeHash(algorithm));
    return { update: (data) => void hash.update(data), final: () => Promise.resolve(new Uint8Array(hash.digest())) };
  },
  verifySignature: (payload, signature, publicKey, algorithm) => webCrypto.verifySignature(payload, signature, publicKey, algorithm),
  sign: (payload, privateKey, algorithm) => webCrypto.sign(payload, privateKey, algorithm),
  getRandomValues: (count) => webCrypto.getRandomValues(count),
};

/**
 * A claim is judged by the rules of its version. The library applies the C2PA 2.x rules of actions to every claim:
 * a standard manifest's actions start with c2pa.created or c2pa.opened (`assertion.action.malformed`), an opening,
 * placing, removing, repackaging or transcoding action names ingredient assertions that match
 * (`assertion.action.ingredientMismatch`), a c2pa.redacted action names what it redacted
 * (`assertion.action.redactionMismatch`). C2PA 1.x has none of these rules; its one rule on actions is a single
 * actions assertion per claim. c2pa-rs, the reference implementation, does the same (claim.rs `verify_actions`: "for
 * v1 claims check the single actions assertion", then no further checks unless strict v1 validation is asked for).
 * A 1.x claim (`c2pa.claim`) is therefore checked here by that one rule; a 2.x claim (`c2pa.claim.v2`) keeps the
 * library's checks. Replacing the check itself, not filtering codes afterwards, matters: the library stops before the
 * hard binding (the data hash) and the ingredients once a claim has failed, so a 2.x-only failure on a 1.x claim
 * would leave the file's bytes unchecked.
 */
type ActionCheck = (this: Manifest, reference: HashedURI, assertion: ActionAssertion) => Promise<ValidationResult>;
const manifestChecks = Manifest.prototype as unknown as { validateActionAssertion?: ActionCheck };
const v2ActionRules = manifestChecks.validateActionAssertion;
// Pinned library (0.9.4): fail loudly at start rather than validate 1.x claims by the wrong rules after an upgrade.
if (typeof v2ActionRules !== 'function') throw new Error('@trustnxt/c2pa-ts: Manifest.validateActionAssertion is gone; review the claim-version rules in c2pa-validation.ts');
manifestChecks.validateActionAssertion = function (this: Manifest, reference, assertion) {
  if (this.claim?.version !== ClaimVersion.V1) return v2ActionRules.call(this, reference, assertion);
  const result = new ValidationResult();
  if ((this.assertions?.getActionAssertions() ?? []).length > 1) {
    result.addError(ValidationStatusCode.AssertionActionMalformed, reference.uri, 'a C2PA 1.x claim has at most one actions assertion');
  }
  return Promise.resolve(result);
};

/**
 * A PDF as the library's Asset, read-only: the store is found by the document's structure and decoded by
 * pdf-c2pa-store.ts; the bytes hashed are the file's as stored.
 */
class PdfAsset {
  readonly mimeType = 'application/pdf';
  constructor(
    private readonly data: Uint8Array,
    private readonly store: PdfStore | undefined,
  ) {}
  getDataLength(): number {
    return this.data.length;
  }
  getDataRange(start = 0, length?: number): Promise<Uint8Array> {
    return Promise.resolve(this.data.subarray(start, length === undefined ? undefined : start + length));
  }
  getManifestJUMBF(): Uint8Array | undefined {
    return this.store?.jumbf;
  }
  dumpInfo(): string {
    return `PDF, ${this.data.length} bytes`;
  }
  /** The store's stream as stored in the file: what a data hash written for this layout excludes. */
  getHashExclusionRange(): { start: number; length: number } {
    if (!this.store) throw new Error('the PDF has no manifest store');
    return this.store.stored;
  }
  ensureManifestSpace(): Promise<void> {
    return Promise.reject(new Error('read-only PDF asset'));
  }
  writeManifestJUMBF(): Promise<void> {
    return Promise.reject(new Error('read-only PDF asset'));
  }
}

/** The file as the library's Asset; for a PDF, an `unreadable` reading when its store is there but cannot be read. */
function assetOf(bytes: Buffer, mediaType: MediaType): JPEG | PNG | BMFF | PdfAsset | { kind: 'unreadable'; reason: string } {
  if (mediaType === 'image/jpeg') return new JPEG(bytes);
  if (mediaType === 'image/png') return new PNG(bytes);
  if (mediaType === 'image/heic' || mediaType === 'image/heif') return new BMFF(bytes);
  const reading = readPdfC2paStore(bytes, MAX_STORE);
  return reading?.kind === 'unreadable' ? reading : new PdfAsset(bytes, reading?.store);
}

function subjectOf(cert: X509Certificate | undefined, field: 'subject' | 'issuer'): string | null {
  if (!cert) return null;
  const dn = cert[field];
  const o = /(?:^|,\s*)O=([^,]+)/.exec(dn)?.[1];
  const cn = /(?:^|,\s*)CN=([^,]+)/.exec(dn)?.[1];
  return [o, cn].filter(Boolean).join(' / ') || dn || null;
}

function actionsOf(m: Manifest): C2paAction[] {
  return (m.assertions?.getActionAssertions() ?? []).flatMap((a) =>
    a.actions.map((act) => ({
      action: String(act.action),
      digitalSourceType: sourceTypeCode(act.digitalSourceType),
      softwareAgent: act.softwareAgent?.name ?? (typeof act.softwareAgent === 'string' ? act.softwareAgent : undefined),
    })),
  );
}

function claimGeneratorOf(m: Manifest): string | null {
  const c = m.claim;
  if (!c) return null;
  const name = c.claimGeneratorName || null;
  return name && c.claimGeneratorVersion ? `${name} ${c.claimGeneratorVersion}` : name;
}

/**
 * The certificates carried in the signature's first time-stamp token, the authority's own first (the one its signer
 * info names); [] when the token names no certificate it carries.
 */
function timeStampCertificates(m: Manifest): X509Certificate[] {
  const token = m.signature?.signatureData.timestampTokens[0];
  if (!token) return [];
  try {
    const signed = new pkijs.SignedData({ schema: token.response.timeStampToken?.content });
    const certs = (signed.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
    const sid = signed.signerInfos[0]?.sid;
    const tsa = sid instanceof pkijs.IssuerAndSerialNumber ? certs.find((c) => c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber)) : undefined;
    if (!tsa) return [];
    return [tsa, ...certs.filter((c) => c !== tsa)].map((c) => new X509Certificate(c.toSchema().toBER()));
  } catch {
    return [];
  }
}

/** Replaces the library's trust answers with the product's: signer and time-stamp authority against the anchors. */
async function decideTrust(m: Manifest, entries: ValidationStatusEntry[], anchors: TrustAnchor[]): Promise<{ statuses: C2paStatus[]; trust: SignerTrust }> {
  const sig = m.signature?.signatureData;
  const statuses: C2paStatus[] = entries.map((e) => ({ code: String(e.code), success: e.success !== false, url: e.url, explanation: e.explanation }));
  const at = (i: number) => statuses[i];
  const noAnchors = 'no trust anchors are configured, so the signer cannot be established';

  // The time-stamp: the library calls it trusted when the authority's certificate is well formed.
  const tsIndex = statuses.findIndex((s) => s.code === 'timeStamp.trusted');
  let timeStampTrusted = false;
  if (tsIndex >= 0) {
    const [tsa, ...rest] = timeStampCertificates(m);
    const genTime = sig?.timestamp ?? new Date();
    timeStampTrusted = Boolean(tsa) && (await chainsToAnchor(tsa, rest, anchors, genTime));
    if (!timeStampTrusted) statuses[tsIndex] = { ...at(tsIndex), code: 'timeStamp.untrusted', success: false, explanation: anchors.length ? 'the time-stamp authority does not chain to a configured trust anchor' : noAnchors };
  }

  const credIndex = statuses.findIndex((s) => s.code.startsWith('signingCredential.') && !s.code.startsWith('signingCredential.ocsp'));
  const cred = credIndex >= 0 ? at(credIndex).code : null;
  if (!sig?.certificate || cred === null) return { statuses, trust: 'missing' };
  if (cred === 'signingCredential.expired') return { statuses, trust: 'expired' };
  if (cred === 'signingCredential.invalid') return { statuses, trust: 'invalid' };
  // `signingCredential.trusted` from the library means only "well formed and in its validity period" (judged at the
  // time-stamp's time even when the time-stamp's authority is trusted by nobody: then it is judged again, now).
  const when = timeStampTrusted && sig.timestamp ? sig.timestamp : new Date();
  if (when < sig.certificate.notBefore || when > sig.certificate.notAfter) {
    statuses[credIndex] = { ...at(credIndex), code: 'signingCredential.expired', success: false, explanation: 'the signing certificate is not valid now, and no trusted time-stamp dates the signature' };
    return { statuses, trust: 'expired' };
  }
  if (await chainsToAnchor(sig.certificate, sig.chainCertificates, anchors, when)) return { statuses, trust: 'trusted' };
  statuses[credIndex] = {
    ...at(credIndex),
    code: 'signingCredential.untrusted',
    success: false,
    explanation: anchors.length ? 'the signing certificate does not chain to a configured trust anchor' : noAnchors,
  };
  return { statuses, trust: anchors.length ? 'untrusted' : 'not_established' };
}

/** Hard bindings: an ingredient's manifest binds the ingredient's bytes, which are not in this file. */
const BINDING = /^assertion\.(dataHash|bmffHash|boxesHash|collectionHash)\./;
/** Manifests listed at most (a store may chain many; a specialist reads the first few). */
const MAX_CHAIN = 16;

/** An asset of no bytes, for an ingredient's manifest: its hard binding is of the ingredient's bytes, not here. */
const NO_BYTES = new PdfAsset(new Uint8Array(0), undefined) as unknown as Parameters<Manifest['validate']>[0];
const isValid = (statuses: C2paStatus[]) => statuses.every((s) => s.success || TRUST_CODES.has(s.code));
const manifestLabelOf = (uri: string | undefined) => /^self#jumbf=\/c2pa\/([^/]+)/.exec(uri ?? '')?.[1] ?? null;

/** What a claim recorded of an ingredient's manifest when it took the ingredient in: the failure codes. */
function recordedFailures(ingredient: IngredientAssertion): Set<string> {
  // C2PA 1.x: `validationStatus` (status maps, or bare codes); 2.x: `validationResults.activeManifest.failure`. Read
  // from the assertion's CBOR, since the library keeps the first only for v1 ingredient assertions.
  const content = (ingredient.sourceBox?.contentBoxes[0] as { content?: unknown } | undefined)?.content as
    | { validationStatus?: unknown; validationResults?: { activeManifest?: { failure?: unknown } } }
    | undefined;
  const list = [content?.validationStatus, content?.validationResults?.activeManifest?.failure].flatMap((v) => (Array.isArray(v) ? (v as unknown[]) : []));
  const code = (s: unknown) => (typeof s === 'string' ? s : typeof s === 'object' && s !== null && typeof (s as { code?: unknown }).code === 'string' ? (s as { code: string }).code : null);
  return new Set(list.map(code).filter((c): c is string => c !== null));
}

/** Every manifest's JUMBF superbox as read from the file: its payload, and its signature box's payload. */
interface ManifestBytes {
  box: Uint8Array;
  signature?: Uint8Array;
}

/**
 * The payloads of the manifests' superboxes, taken as the store is read. The library keeps each box's bytes as read
 * (`rawContent`) but overwrites them with a re-serialization when it is asked for a manifest's bytes, so they are
 * taken before anything else touches the store.
 */
function manifestBytes(store: ManifestStore): Map<Manifest, ManifestBytes> {
  const bytes = new Map<Manifest, ManifestBytes>();
  for (const m of store.manifests) {
    const box = m.sourceBox?.rawContent;
    if (!box) continue;
    const sig = m.sourceBox?.contentBoxes.find((b): b is SuperBox => b instanceof SuperBox && b.descriptionBox?.label === m.signature?.label);
    bytes.set(m, { box: new Uint8Array(box), signature: sig?.rawContent && new Uint8Array(sig.rawContent) });
  }
  return bytes;
}

const digestMatches = (ref: HashedURI, data: Uint8Array | undefined) =>
  data !== undefined && Buffer.from(ref.hash).equals(createHash(nodeHash(ref.algorithm)).update(data).digest());

/** The codes of an ingredient's hashed link to its manifest, in the words of each claim version's specification. */
const LINK_CODES = new Set(['ingredient.manifest.mismatch', 'ingredient.hashedURI.mismatch', 'ingredient.claimSignature.mismatch', 'ingredient.claimSignature.missing']);

/**
 * Whether an ingredient's hashed link still names the manifest the claim took in, as c2pa-rs checks it (store.rs
 * `ingredient_checks`): the link's hash is of the manifest's JUMBF superbox payload (its description box and content
 * boxes, the 8-byte box header left out: `calc_manifest_box_hash`), or, written before C2PA 1.3, of its claim's CBOR.
 * A mismatch is `ingredient.manifest.mismatch` under a 2.x claim and `ingredient.hashedURI.mismatch` under a 1.x claim
 * (the C2PA 1.x code, the one c2pa-rs reported for every claim until 2025 and that the reports beside the public test
 * files carry); a match by the box hash is `ingredient.manifest.validated`. Where a claim in the store redacted
 * assertions of the ingredient's manifest, its box no longer hashes as it did: a 2.x claim's link is then checked by
 * the ingredient's `claimSignature` link (the signature box's payload), a 1.x claim's is not checked (as c2pa-rs).
 * The library checks none of this: it reports `ingredient.manifest.validated` for any link it can parse.
 */
function linkStatus(holder: Manifest, ingredient: IngredientAssertion, own: Manifest, bytes: ManifestBytes | undefined, redacted: boolean): C2paStatus | null {
  const link = ingredient.activeManifest ?? ingredient.c2pa_manifest;
  if (!link || !bytes) return null;
  const url = link.uri;
  const v1 = holder.claim?.version === ClaimVersion.V1;
  if (!redacted) {
    if (digestMatches(link, bytes.box)) return { code: 'ingredient.manifest.validated', success: true, url, explanation: "the link's hash matches the ingredient's manifest" };
    if (digestMatches(link, own.claim?.getBytes(own.claim))) return null; // a link written before C2PA 1.3: the claim's hash
    return { code: v1 ? 'ingredient.hashedURI.mismatch' : 'ingredient.manifest.mismatch', success: false, url, explanation: "the ingredient's manifest does not hash to the value its link records" };
  }
  if (v1) return null;
  if (!ingredient.claimSignature) return { code: 'ingredient.claimSignature.missing', success: false, url, explanation: "the ingredient's manifest was redacted and its link names no claim signature" };
  return digestMatches(ingredient.claimSignature, bytes.signature)
    ? { code: 'ingredient.claimSignature.validated', success: true, url: ingredient.claimSignature.uri }
    : { code: 'ingredient.claimSignature.mismatch', success: false, url: ingredient.claimSignature.uri, explanation: "the ingredient's claim signature does not hash to the value its link records" };
}

/** A URL of a status found in manifest `label`, absolute (the library gives an assertion's relative to its manifest). */
const absoluteUrl = (url: string | undefined, label: string) =>
  url?.startsWith('self#jumbf=') && !url.startsWith('self#jumbf=/') ? `self#jumbf=/c2pa/${label}/${url.slice('self#jumbf='.length)}` : (url ?? `self#jumbf=/c2pa/${label}`);

interface ChainReading {
  chain: C2paManifest[];
  /** Failures of ingredients' manifests the claims that took them in did not record, as statuses (absolute URLs). */
  ingredientStatuses: C2paStatus[];
  ingredientFailures: C2paIngredientFailure[];
  /** The active manifest's links to its ingredients' manifests that hold (`ingredient.manifest.validated`). */
  linksValidated: C2paStatus[];
}

/**
 * The chain as a specialist reads it: from the active manifest back through its ingredients' manifests (breadth
 * first), each with its signer judged against the anchors, its time-stamp, tool, actions and ingredients. Every
 * manifest the ingredients reach is validated on its own (signature, hashed URIs; its hard binding cannot be, without
 * the ingredient's bytes), each once; the listing stops at MAX_CHAIN manifests, the validation does not (the store's
 * size, 16 MiB at most, bounds it).
 *
 * Each ingredient link is judged as c2pa-rs judges it (store.rs `ingredient_checks`, validation_status.rs
 * `status_for_store`): a link to a manifest the store does not hold is `claim.missing`; a link whose hash the
 * manifest no longer matches is a failure of that ingredient (linkStatus), never covered by what the claim recorded;
 * a linked manifest's failures are reported with its URL, except those the claim recorded for that ingredient when it
 * took it in (C2PA: the ingredient's `validationStatus`, 2.x `validationResults`): those were known and disclosed by
 * the signer then, not a change since. Trust codes are left out: an ingredient's signer is judged in the chain, not as
 * a failure of this file.
 */
async function chainOf(
  store: ManifestStore,
  active: Manifest,
  judged: { statuses: C2paStatus[]; trust: SignerTrust },
  anchors: TrustAnchor[],
  bytes: Map<Manifest, ManifestBytes>,
): Promise<ChainReading> {
  const checked = new Map<Manifest, { statuses: C2paStatus[]; trust: SignerTrust }>([[active, judged]]);
  const check = async (m: Manifest) => {
    let found = checked.get(m);
    if (!found) {
      let entries: ValidationStatusEntry[];
      try {
        // Against no bytes at all: the binding fails at once (and is left out) instead of hashing this file again.
        entries = withoutUncheckedLinks((await m.validate(NO_BYTES)).statusEntries.filter((e) => !BINDING.test(String(e.code))));
      } catch (err) {
        entries = [{ code: 'general.error' as ValidationStatusCode, explanation: (err as Error).message, success: false }];
      }
      found = await decideTrust(m, entries, anchors);
      checked.set(m, found);
    }
    return found;
  };
  const chain: C2paManifest[] = [];
  const ingredientStatuses: C2paStatus[] = [];
  const ingredientFailures: C2paIngredientFailure[] = [];
  const linksValidated: C2paStatus[] = [];
  const reported = new Set<string>();
  const redactedUrls = store.manifests.flatMap((x) => x.claim?.redactedAssertions.map((r) => r.uri) ?? []);
  const queue = [active];
  const queued = new Set(queue);
  while (queue.length) {
    const m = queue.shift()!;
    const { statuses, trust } = await check(m);
    const ingredients: C2paManifest['ingredients'] = [];
    for (const ingredient of m.assertions?.assertions.filter((a) => a instanceof IngredientAssertion) ?? []) {
      const uri = (ingredient.activeManifest ?? ingredient.c2pa_manifest)?.uri;
      const label = manifestLabelOf(uri);
      const own = label ? store.getManifestByLabel(label) : undefined;
      const title = ingredient.title ?? null;
      let validated: boolean | null = null;
      if (label) {
        const redacted = redactedUrls.some((r) => r.startsWith(`self#jumbf=/c2pa/${label}/`));
        const link = own ? linkStatus(m, ingredient, own, bytes.get(own), redacted) : null;
        if (link?.success && m === active) linksValidated.push(link);
        // The link's failure comes first: it says the manifest is not the one taken in, whatever else fails in it.
        const linkFailure = link && !link.success ? [{ ...link, url: link.url && absoluteUrl(link.url, label) }] : [];
        const failures = own
          ? [...linkFailure, ...(await check(own)).statuses.filter((s) => !s.success && !TRUST_CODES.has(s.code))]
          : [{ code: 'claim.missing', success: false, url: uri, explanation: "the ingredient's manifest is not in the store" }];
        validated = own ? isValid((await check(own)).statuses) && !linkFailure.length : false;
        // What the claim recorded of the ingredient's manifest cannot cover its own link to it: that hash is the claim's.
        const recorded = recordedFailures(ingredient);
        const known = (f: C2paStatus) => !LINK_CODES.has(f.code) && recorded.has(f.code);
        if (failures.length) ingredientFailures.push({ title, manifest: label, failures: [...new Set(failures.map((f) => f.code))], recorded: failures.every(known) });
        for (const f of failures.filter((x) => !known(x))) {
          const url = own && !LINK_CODES.has(f.code) ? absoluteUrl(f.url, label) : f.url;
          const key = `${f.code} ${url}`;
          if (reported.has(key)) continue;
          reported.add(key);
          ingredientStatuses.push({ code: f.code, success: false, url, explanation: f.explanation, manifest: label, ingredient: title });
        }
      }
      ingredients.push({ title, relationship: ingredient.relationship ?? null, manifest: label, validated });
      if (own && !queued.has(own)) {
        queued.add(own);
        queue.push(own);
      }
    }
    if (chain.length >= MAX_CHAIN) continue;
    const sig = m.signature?.signatureData;
    chain.push({
      label: m.label ?? '',
      signer: { subject: subjectOf(sig?.certificate, 'subject'), issuer: subjectOf(sig?.certificate, 'issuer'), trust },
      signedAt: sig?.timestamp?.toISOString() ?? null,
      claimGenerator: claimGeneratorOf(m),
      actions: actionsOf(m),
      ingredients,
      valid: isValid(statuses),
      failures: [...new Set(statuses.filter((s) => !s.success).map((s) => s.code))],
    });
  }
  return { chain, ingredientStatuses, ingredientFailures, linksValidated };
}

/**
 * What the active manifest's hard binding says of this file, where the library said nothing. The library checks the
 * binding only when nothing else failed, so a signer's lapsed or malformed certificate (a trust code: the claim still
 * counts, lowered) left it unchecked; it is checked here then. A box hash, which the library does not check, is
 * checked in c2pa-box-hash.ts. A manifest that no binding ties to these bytes fails with `claim.hardBindings.missing`.
 * A signature proves who signed a claim, only the binding ties it to these bytes: unchecked, the manifest would read
 * as valid in any file it was copied into. Nothing is added where the claim itself failed (it proves nothing anyway).
 */
async function bindingStatuses(m: Manifest, entries: ValidationStatusEntry[], asset: ValidatedAsset, bytes: Buffer, mediaType: MediaType): Promise<ValidationStatusEntry[]> {
  if (entries.some((e) => BINDING.test(String(e.code)))) return [];
  if (entries.some((e) => e.success === false && !TRUST_CODES.has(String(e.code)))) return [];
  const bindings = m.assertions?.getHardBindings() ?? [];
  const missing = { code: 'claim.hardBindings.missing' as ValidationStatusCode, success: false, explanation: 'no hard binding ties the claim to the file bytes' };
  if (bindings.length !== 1) return [missing];
  const [binding] = bindings;
  if (binding.label === 'c2pa.hash.boxes') {
    const content = (binding.sourceBox?.contentBoxes[0] as { content?: unknown } | undefined)?.content;
    const url = `self#jumbf=/c2pa/${m.label ?? ''}/c2pa.assertions/${binding.label}`;
    const alg = m.claim?.defaultAlgorithm ? String(m.claim.defaultAlgorithm) : undefined;
    return [checkBoxHash(content, bytes, mediaType, alg, url) as ValidationStatusEntry];
  }
  let found: ValidationStatusEntry[];
  try {
    found = (await binding.validateAgainstAsset(asset)).statusEntries;
  } catch (err) {
    found = [{ code: 'general.error' as ValidationStatusCode, explanation: (err as Error).message, success: false }];
  }
  return found.length ? found : [missing];
}

/**
 * The library's ingredient statuses left out: it reports `ingredient.manifest.validated` for every link it can parse,
 * hash unchecked; linkStatus checks the links instead.
 */
const withoutUncheckedLinks = (entries: ValidationStatusEntry[]) => entries.filter((e) => String(e.code) !== 'ingredient.manifest.validated');

/** What the library validates a manifest against: the file's asset. */
type ValidatedAsset = Parameters<ManifestStore['validate']>[0];

/** A JUMBF box (`jumb`) and the C2PA store's label (`c2pa`) in the file's bytes: what every embedded store holds. */
const holdsC2paBox = (bytes: Buffer) => bytes.includes('jumb') && bytes.includes('c2pa');

/**
 * Validates the file's C2PA manifest store (the active manifest, against the file's bytes) and judges its signer
 * against `anchors`. null when the file carries no store; `unreadable` when it carries one the library cannot read.
 */
export async function validateC2pa(bytes: Buffer, mediaType: MediaType, anchors: TrustAnchor[]): Promise<C2paReading | null> {
  let asset: JPEG | PNG | BMFF | PdfAsset;
  let jumbf: Uint8Array | undefined;
  try {
    const found = assetOf(bytes, mediaType);
    if ('kind' in found) return found;
    asset = found;
    jumbf = asset.getManifestJUMBF();
  } catch (err) {
    // The container itself could not be walked; a store may or may not be inside.
    return holdsC2paBox(bytes) ? { kind: 'unreadable', reason: (err as Error).message } : null;
  }
  // A store the library cannot find in a file that holds one (cut off, or its boxes broken): damaged Content
  // Credentials, never "no Content Credentials" (what they declared is unknown, so they must not vanish unsaid).
  if (!jumbf) return holdsC2paBox(bytes) ? { kind: 'unreadable', reason: 'the Content Credentials block is damaged or cut off' } : null;
  if (jumbf.length > MAX_STORE) return { kind: 'unreadable', reason: 'the manifest store is larger than 16 MiB' };
  let store: ManifestStore;
  try {
    store = ManifestStore.read(SuperBox.fromBuffer(jumbf as Uint8Array<ArrayBuffer>));
  } catch (err) {
    return { kind: 'unreadable', reason: (err as Error).message };
  }
  const m = store.getActiveManifest();
  if (!m) return { kind: 'unreadable', reason: 'the store has no manifest' };
  const boxes = manifestBytes(store);
  let entries: ValidationStatusEntry[];
  try {
    entries = withoutUncheckedLinks((await store.validate(asset as ValidatedAsset)).statusEntries);
  } catch (err) {
    entries = [{ code: 'general.error' as ValidationStatusCode, explanation: (err as Error).message, success: false }];
  }
  entries = [...entries, ...(await bindingStatuses(m, entries, asset as ValidatedAsset, bytes, mediaType))];
  const judged = await decideTrust(m, entries, anchors);
  const { chain, ingredientStatuses, ingredientFailures, linksValidated } = await chainOf(store, m, judged, anchors, boxes);
  const statuses = [...judged.statuses, ...linksValidated, ...ingredientStatuses];
  const ingredients = m.assertions?.assertions.filter((a) => a.label?.startsWith('c2pa.ingredient')) ?? [];
  const sig = m.signature?.signatureData;
  return {
    kind: 'manifest',
    manifest: {
      label: m.label ?? '',
      claimGenerator: claimGeneratorOf(m),
      actions: actionsOf(m),
      signer: subjectOf(sig?.certificate, 'subject'),
      issuer: subjectOf(sig?.certificate, 'issuer'),
      signedAt: sig?.timestamp?.toISOString() ?? null,
      parents: ingredients.filter((i) => (i as { relationship?: RelationshipType }).relationship === RelationshipType.ParentOf).length,
      ingredients: ingredients.length,
      manifests: store.manifests.length,
      statuses,
      valid: isValid(statuses),
      ingredientFailures,
      trust: judged.trust,
      signerValidUntil: sig?.certificate?.notAfter ? sig.certificate.notAfter.toISOString() : null,
      timeTrusted: statuses.some((s) => s.code === 'timeStamp.trusted' && s.success),
      anchors: anchors.length,
      chain,
    },
  };
}
