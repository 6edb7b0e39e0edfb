// Trust anchors for Content Credentials: the certificates (a PEM bundle) whose signers the product believes: CA
// certificates whose chains are trusted, and signers' own certificates, trusted as they are (an allowed signer, as
// c2pa-rs's allowed list: for a signer whose CA is not to be trusted for anything else). The
// C2PA library checks a signature and the signing certificate's profile, but reports every signer as trusted; who is
// trusted is decided here, by building and checking the signer's chain up to one of these anchors (pkijs).
import { createHash } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { BasicConstraintsExtension, X509Certificate } from '@peculiar/x509';
import * as pkijs from 'pkijs';
import type { TrustAnchorInfo } from '../api/app-schemas.js';

export interface TrustAnchor {
  subject: string;
  notAfter: string;
  certificate: X509Certificate;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle; throws, naming the block, when one does not parse or the bundle holds none. */
export function parseTrustAnchors(pem: string, source = 'the trust anchors'): TrustAnchor[] {
  const out: TrustAnchor[] = [];
  let n = 0;
  for (const m of pem.matchAll(PEM_BLOCK)) {
    n++;
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(Buffer.from(m[1].replace(/\s+/g, ''), 'base64'));
    } catch (err) {
      throw new Error(`${source}: certificate ${n} is not a valid X.509 certificate (${(err as Error).message})`);
    }
    out.push({ subject: certificate.subject, notAfter: certificate.notAfter.toISOString(), certificate });
  }
  if (!n) throw new Error(`${source} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return out;
}

const cache = new Map<string, { key: string; anchors: TrustAnchor[] }>();

/**
 * The anchors in `file`, re-read when the file changes; [] when the file does not exist (no anchors configured).
 * A file that exists but does not parse throws: a broken trust configuration must not read as "no anchors".
 */
export async function loadTrustAnchors(file: string | null | undefined): Promise<TrustAnchor[]> {
  if (!file) return [];
  let key: string;
  try {
    const s = await stat(file);
    key = `${s.mtimeMs}:${s.size}`;
  } catch {
    cache.delete(file);
    return [];
  }
  const hit = cache.get(file);
  if (hit?.key === key) return hit.anchors;
  const anchors = parseTrustAnchors(await readFile(file, 'utf8'), file);
  cache.set(file, { key, anchors });
  return anchors;
}

/** What a person is shown of an anchor: its subject and when it expires. */
export const describeAnchors = (anchors: TrustAnchor[]) => anchors.map(({ subject, notAfter }) => ({ subject, notAfter }));

/** Writes `pem` as the bundle `target`, readable by its user only, in one step (temporary file, flush, rename). */
async function writeBundle(target: string, pem: string): Promise<void> {
  const tmp = `${target}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(pem);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  cache.delete(target);
}

/**
 * Checks the PEM bundle `source` and writes it to `target` (the data dir's bundle), readable by its user only,
 * replacing the previous one in one step (temporary file, flush, rename). Throws, leaving `target` as it was, when
 * the bundle does not parse.
 */
export async function installTrustAnchors(source: string, target: string): Promise<TrustAnchor[]> {
  const pem = await readFile(source, 'utf8');
  const anchors = parseTrustAnchors(pem, source);
  await writeBundle(target, pem);
  return anchors;
}

const fingerprintOf = (c: X509Certificate) => (createHash('sha256').update(Buffer.from(c.rawData)).digest('hex').toUpperCase().match(/../g) ?? []).join(':');

/** What Settings shows of each anchor: a CA (its chains are trusted) or a signer's own certificate (an allowed signer). */
export const anchorInfo = (anchors: TrustAnchor[]): TrustAnchorInfo[] =>
  anchors.map((a) => ({
    fingerprintSha256: fingerprintOf(a.certificate),
    subject: a.subject,
    notAfter: a.notAfter,
    role: a.certificate.getExtension(BasicConstraintsExtension)?.ca ? 'authority' : 'signer',
  }));

/** Edits of one bundle run one after another: two at once must not both read the old bundle and one win. */
let editing: Promise<unknown> = Promise.resolve();

/**
 * Applies `edit` to the bundle `target` and writes the result (0600, in one step); with no anchor left, the file is
 * removed (absent is "no anchors"; an empty bundle would not parse). `edit` answers null anchors for "no change".
 */
function editTrustAnchors<T>(target: string, edit: (anchors: TrustAnchor[]) => { anchors: TrustAnchor[] | null; result: T }): Promise<T> {
  const run = editing.then(async () => {
    const { anchors, result } = edit(await loadTrustAnchors(target));
    if (!anchors) return result; // unchanged
    if (anchors.length) await writeBundle(target, `${anchors.map((a) => a.certificate.toString('pem')).join('\n')}\n`);
    else {
      await rm(target, { force: true });
      cache.delete(target);
    }
    return result;
  });
  editing = run.catch(() => undefined);
  return run;
}

/**
 * Adds the certificates of the PEM text to the bundle `target` (one already there is kept once). Throws, naming the
 * certificate, when the text holds none or one does not parse; the bundle is then left as it was.
 */
export function addTrustAnchors(target: string, pem: string): Promise<TrustAnchor[]> {
  const added = parseTrustAnchors(pem, 'The PEM text');
  return editTrustAnchors(target, (anchors) => {
    const known = new Set(anchors.map((a) => fingerprintOf(a.certificate)));
    const merged = [...anchors, ...added.filter((a) => !known.has(fingerprintOf(a.certificate)) && known.add(fingerprintOf(a.certificate)))];
    return { anchors: merged, result: merged };
  });
}

/** Removes the anchor with this SHA-256 fingerprint; null when the bundle holds none such (nothing is written). */
export function removeTrustAnchor(target: string, fingerprintSha256: string): Promise<TrustAnchor[] | null> {
  return editTrustAnchors(target, (anchors) => {
    const kept = anchors.filter((a) => fingerprintOf(a.certificate) !== fingerprintSha256.toUpperCase());
    if (kept.length === anchors.length) return { anchors: null, result: null };
    return { anchors: kept, result: kept };
  });
}

const toPkijs = (c: X509Certificate) => pkijs.Certificate.fromBER(c.rawData);

/**
 * Whether `leaf` is an allowed signer (its own certificate is in the bundle) or chains, through the certificates the
 * manifest carries, to one of the anchors, every certificate valid at `at` (the signing time from a trusted
 * time-stamp, else now) and every signature in the path checked.
 */
export async function chainsToAnchor(leaf: X509Certificate, chain: X509Certificate[], anchors: TrustAnchor[], at: Date): Promise<boolean> {
  if (!anchors.length) return false;
  const raw = Buffer.from(leaf.rawData);
  if (anchors.some((a) => raw.equals(Buffer.from(a.certificate.rawData)))) return at >= leaf.notBefore && at <= leaf.notAfter;
  try {
    const engine = new pkijs.CertificateChainValidationEngine({
      trustedCerts: anchors.map((a) => toPkijs(a.certificate)),
      certs: [leaf, ...chain].map(toPkijs),
      checkDate: at,
    });
    const result = await engine.verify();
    return result.result === true;
  } catch {
    return false;
  }
}
