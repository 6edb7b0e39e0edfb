// Finds, reads and checks C2PA (Content Credentials) manifest stores in JPEG, PNG, HEIF and PDF bytes: which tool made
// the claim, which actions and digital source types it declares, who signed it, whether the COSE signature over the
// claim, the assertion hashes and the file's data hash hold. The signer's certificate is NOT checked against a trust
// list (offline, no list shipped): a valid signature shows integrity, not who the signer really is.
import { constants, createHash, verify as verifySignature, X509Certificate } from 'node:crypto';
import type { MediaType } from './analysis-results.js';
import { decodeCbor, encodeCbor, type CborValue } from './cbor-lite.js';

export interface C2paAction {
  action: string;
  digitalSourceType?: string; // the IPTC code, e.g. trainedAlgorithmicMedia
  softwareAgent?: string;
}

export interface C2paManifest {
  label: string;
  claimGenerator: string | null;
  actions: C2paAction[];
  /** Subject of the signing certificate (O / CN), when one could be read. */
  signer: string | null;
  /** true: the COSE signature over the claim verifies with the certificate's key; false: it does not; null: not checkable. */
  signatureValid: boolean | null;
  /** true: every assertion the claim lists is present with the hash the claim records. */
  assertionsValid: boolean | null;
  /** true: the file's bytes (outside the excluded ranges) hash to the claim's c2pa.hash.data; null: no data hash. */
  dataHashValid: boolean | null;
}

export interface C2paStore {
  /** The active manifest is the last one in the store (C2PA 2.x, 11.1). */
  manifests: C2paManifest[];
  active: C2paManifest | null;
}

const MAX_STORE = 16 * 1024 * 1024;

/** The raw JUMBF manifest store, or null when the file carries none. */
export function findJumbf(buf: Buffer, mediaType: MediaType): Buffer | null {
  try {
    if (mediaType === 'image/jpeg') return jumbfFromJpeg(buf);
    if (mediaType === 'image/png') return jumbfFromPng(buf);
    if (mediaType === 'image/heic' || mediaType === 'image/heif') return jumbfFromBmff(buf);
    return jumbfBySearch(buf);
  } catch {
    return null;
  }
}

function jumbfFromJpeg(buf: Buffer): Buffer | null {
  // APP11 segments: 'JP' CI, En (box instance), Z (sequence), then the box; continuation segments repeat LBox/TBox.
  const parts = new Map<number, Buffer[]>();
  let off = 2;
  while (off + 4 <= buf.length && buf[off] === 0xff) {
    const marker = buf[off + 1];
    if (marker === 0xda || marker === 0xd9) break;
    if (marker === 0xff) {
      off++;
      continue;
    }
    const len = buf.readUInt16BE(off + 2);
    const seg = buf.subarray(off + 4, Math.min(buf.length, off + 2 + len));
    if (marker === 0xeb && seg.length > 16 && seg[0] === 0x4a && seg[1] === 0x50) {
      const en = seg.readUInt16BE(2);
      const z = seg.readUInt32BE(4);
      const list = parts.get(en) ?? [];
      list.push(z === 1 ? seg.subarray(8) : seg.subarray(16));
      parts.set(en, list);
    }
    off += 2 + len;
  }
  for (const list of parts.values()) {
    const joined = Buffer.concat(list);
    if (joined.toString('latin1', 4, 8) === 'jumb' && joined.includes('c2pa')) return joined.subarray(0, MAX_STORE);
  }
  return null;
}

function jumbfFromPng(buf: Buffer): Buffer | null {
  let off = 8;
  while (off + 12 <= buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    if (type === 'caBX') return buf.subarray(off + 8, Math.min(buf.length, off + 8 + len, off + 8 + MAX_STORE));
    if (type === 'IEND') break;
    off += 12 + len;
  }
  return null;
}

const C2PA_UUID = Buffer.from('d8fec3d61b0e483c92975828877ec481', 'hex');

function jumbfFromBmff(buf: Buffer): Buffer | null {
  let off = 0;
  while (off + 8 <= buf.length) {
    let size = buf.readUInt32BE(off);
    let header = 8;
    if (size === 1) {
      size = Number(buf.readBigUInt64BE(off + 8));
      header = 16;
    } else if (size === 0) size = buf.length - off;
    if (size < header) break;
    if (buf.toString('latin1', off + 4, off + 8) === 'uuid' && buf.subarray(off + header, off + header + 16).equals(C2PA_UUID)) {
      // version/flags(4), purpose (NUL-terminated), for 'manifest' an 8-byte offset, then the JUMBF.
      let p = off + header + 16 + 4;
      const nul = buf.indexOf(0, p);
      if (nul < 0) return null;
      const purpose = buf.toString('latin1', p, nul);
      p = nul + 1 + (purpose === 'manifest' ? 8 : 0);
      return buf.subarray(p, Math.min(buf.length, off + size, p + MAX_STORE));
    }
    off += size;
  }
  return null;
}

/** Formats without a fixed home (PDF embeds the store as a stream): the first 'jumb' superbox labelled c2pa. */
function jumbfBySearch(buf: Buffer): Buffer | null {
  let at = buf.indexOf('jumb');
  while (at >= 4) {
    const desc = buf.subarray(at + 4, at + 64);
    if (desc.includes('jumd') && desc.includes('c2pa')) {
      const size = buf.readUInt32BE(at - 4);
      return buf.subarray(at - 4, Math.min(buf.length, at - 4 + size, at - 4 + MAX_STORE));
    }
    at = buf.indexOf('jumb', at + 4);
  }
  return null;
}

interface JBox {
  /** The superbox's payload after its own LBox/TBox: what an assertion's hash covers (C2PA 14.2.3). */
  body: Buffer;
  label: string;
  children: JBox[];
  content: Buffer | null; // payload of the content box (cbor/json) of a superbox
  contentType: string | null;
}

/** Parses a JUMBF superbox: a 'jumd' description (type UUID, toggles, label) then content boxes or superboxes. */
function parseSuperbox(buf: Buffer, depth = 0): JBox | null {
  if (depth > 16 || buf.length < 8 || buf.toString('latin1', 4, 8) !== 'jumb') return null;
  const end = Math.min(buf.length, buf.readUInt32BE(0) || buf.length);
  let off = 8;
  const box: JBox = { body: buf.subarray(8, end), label: '', children: [], content: null, contentType: null };
  while (off + 8 <= end) {
    const size = buf.readUInt32BE(off);
    if (size < 8 || off + size > end) break;
    const type = buf.toString('latin1', off + 4, off + 8);
    const payload = buf.subarray(off + 8, off + size);
    if (type === 'jumd' && payload.length >= 17) {
      const toggles = payload[16];
      if (toggles & 0x02) {
        const nul = payload.indexOf(0, 17);
        box.label = payload.toString('utf8', 17, nul < 0 ? payload.length : nul);
      }
    } else if (type === 'jumb') {
      const child = parseSuperbox(buf.subarray(off, off + size), depth + 1);
      if (child) box.children.push(child);
    } else if (!box.content) {
      box.content = payload;
      box.contentType = type;
    }
    off += size;
  }
  return box;
}

const asMap = (v: CborValue): Record<string, CborValue> | null =>
  v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array) ? (v as Record<string, CborValue>) : null;
const asString = (v: CborValue): string | undefined => (typeof v === 'string' ? v : undefined);

function cborOf(box: JBox | undefined): CborValue {
  if (!box?.content || box.contentType !== 'cbor') return undefined;
  try {
    return decodeCbor(box.content);
  } catch {
    return undefined;
  }
}

function claimGenerator(claim: Record<string, CborValue> | null): string | null {
  if (!claim) return null;
  const direct = asString(claim['claim_generator']);
  const info = claim['claim_generator_info'];
  const first = asMap(Array.isArray(info) ? info[0] : info);
  if (first) {
    const name = asString(first['name']);
    const version = asString(first['version']);
    if (name) return version ? `${name} ${version}` : name;
  }
  return direct ?? null;
}

interface CoseSign1 {
  protectedBytes: Uint8Array;
  headers: Array<Record<string, CborValue>>;
  signature: Uint8Array;
}

function readCose(sigBox: JBox | undefined): CoseSign1 | null {
  const cose = cborOf(sigBox);
  if (!Array.isArray(cose) || cose.length < 4 || !(cose[0] instanceof Uint8Array) || !(cose[3] instanceof Uint8Array)) return null;
  const headers: Array<Record<string, CborValue>> = [];
  if (cose[0].length) {
    try {
      const p = asMap(decodeCbor(cose[0]));
      if (p) headers.push(p);
    } catch {
      // unreadable protected header
    }
  }
  const u = asMap(cose[1]);
  if (u) headers.push(u);
  return { protectedBytes: cose[0], headers, signature: cose[3] };
}

function certificateOf(cose: CoseSign1 | null): X509Certificate | null {
  for (const h of cose?.headers ?? []) {
    const chain = h['33'];
    const first = Array.isArray(chain) ? chain[0] : chain;
    if (first instanceof Uint8Array) {
      try {
        return new X509Certificate(first);
      } catch {
        return null;
      }
    }
  }
  return null;
}

function subjectOf(cert: X509Certificate | null): string | null {
  if (!cert) return null;
  const o = /(?:^|\n)O=([^\n]+)/.exec(cert.subject)?.[1];
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.subject)?.[1];
  return [o, cn].filter(Boolean).join(' / ') || null;
}

/** COSE_Sign1 with a detached payload (the claim's CBOR bytes): Sig_structure = ["Signature1", protected, h'', claim]. */
function verifyCose(cose: CoseSign1 | null, cert: X509Certificate | null, claimBytes: Buffer | null): boolean | null {
  if (!cose || !cert || !claimBytes) return null;
  const alg = cose.headers.map((h) => h['1']).find((a) => typeof a === 'number');
  const toBeSigned = encodeCbor(['Signature1', cose.protectedBytes, new Uint8Array(0), claimBytes]);
  const key = cert.publicKey;
  try {
    switch (alg) {
      case -7:
        return verifySignature('sha256', toBeSigned, { key, dsaEncoding: 'ieee-p1363' }, cose.signature);
      case -35:
        return verifySignature('sha384', toBeSigned, { key, dsaEncoding: 'ieee-p1363' }, cose.signature);
      case -36:
        return verifySignature('sha512', toBeSigned, { key, dsaEncoding: 'ieee-p1363' }, cose.signature);
      case -37:
      case -38:
      case -39: {
        const hash = alg === -37 ? 'sha256' : alg === -38 ? 'sha384' : 'sha512';
        const saltLength = alg === -37 ? 32 : alg === -38 ? 48 : 64;
        return verifySignature(hash, toBeSigned, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, cose.signature);
      }
      case -8:
        return verifySignature(null, toBeSigned, key, cose.signature);
      default:
        return null;
    }
  } catch {
    return false;
  }
}

const HASH_ALGS: Record<string, string> = { sha256: 'sha256', sha384: 'sha384', sha512: 'sha512' };

function hashedUris(claim: Record<string, CborValue> | null): Array<{ url: string; hash: Uint8Array; alg: string | undefined }> {
  if (!claim) return [];
  const lists = [claim['assertions'], claim['created_assertions'], claim['gathered_assertions']];
  const out: Array<{ url: string; hash: Uint8Array; alg: string | undefined }> = [];
  for (const list of lists) {
    for (const item of Array.isArray(list) ? list : []) {
      const m = asMap(item);
      const url = asString(m?.['url']);
      const hash = m?.['hash'];
      if (url && hash instanceof Uint8Array) out.push({ url, hash, alg: asString(m?.['alg']) });
    }
  }
  return out;
}

/** Every hashed assertion reference of the claim resolves to an assertion box whose body has that hash. */
function verifyAssertions(claim: Record<string, CborValue> | null, assertions: JBox | undefined): boolean | null {
  const refs = hashedUris(claim);
  if (!refs.length || !assertions) return null;
  const defaultAlg = asString(claim?.['alg']) ?? 'sha256';
  for (const ref of refs) {
    const label = ref.url.replace(/^.*c2pa\.assertions\//, '');
    const box = assertions.children.find((c) => c.label === label);
    const alg = HASH_ALGS[ref.alg ?? defaultAlg];
    if (!box || !alg) return false;
    if (!createHash(alg).update(box.body).digest().equals(Buffer.from(ref.hash))) return false;
  }
  return true;
}

/** c2pa.hash.data: the hash of the file's bytes with the exclusion ranges (the manifest store itself) left out. */
function verifyDataHash(claim: Record<string, CborValue> | null, assertions: JBox | undefined, asset: Buffer | null): boolean | null {
  const box = assertions?.children.find((c) => c.label === 'c2pa.hash.data' || c.label.startsWith('c2pa.hash.data.'));
  const data = asMap(cborOf(box));
  if (!data || !asset) return null;
  const alg = HASH_ALGS[asString(data['alg']) ?? asString(claim?.['alg']) ?? 'sha256'];
  const expected = data['hash'];
  if (!alg || !(expected instanceof Uint8Array)) return false;
  const exclusions = (Array.isArray(data['exclusions']) ? data['exclusions'] : [])
    .map((e) => asMap(e))
    .map((e) => ({ start: Number(e?.['start']), length: Number(e?.['length']) }))
    .filter((e) => Number.isSafeInteger(e.start) && Number.isSafeInteger(e.length) && e.start >= 0 && e.length >= 0)
    .sort((a, b) => a.start - b.start);
  const h = createHash(alg);
  let pos = 0;
  for (const e of exclusions) {
    if (e.start > asset.length) return false;
    if (e.start > pos) h.update(asset.subarray(pos, e.start));
    pos = Math.max(pos, e.start + e.length);
  }
  if (pos < asset.length) h.update(asset.subarray(pos));
  return h.digest().equals(Buffer.from(expected));
}

/** Reads the store; with the file's bytes (`asset`), also checks the active manifest's data hash. */
export function readC2paStore(jumbf: Buffer, asset: Buffer | null = null): C2paStore | null {
  const root = parseSuperbox(jumbf);
  if (!root || root.label !== 'c2pa') return null;
  const manifests: C2paManifest[] = [];
  for (const m of root.children) {
    const claimBox = m.children.find((c) => c.label === 'c2pa.claim' || c.label === 'c2pa.claim.v2');
    const assertions = m.children.find((c) => c.label === 'c2pa.assertions');
    const sigBox = m.children.find((c) => c.label === 'c2pa.signature');
    const actions: C2paAction[] = [];
    for (const a of assertions?.children ?? []) {
      if (!a.label.startsWith('c2pa.actions')) continue;
      const list = asMap(cborOf(a))?.['actions'];
      for (const item of Array.isArray(list) ? list : []) {
        const act = asMap(item);
        if (!act) continue;
        const dst = asString(act['digitalSourceType']);
        const agent = act['softwareAgent'];
        actions.push({
          action: asString(act['action']) ?? '?',
          digitalSourceType: dst ? dst.replace(/^.*\//, '') : undefined,
          softwareAgent: asString(agent) ?? asString(asMap(agent)?.['name']),
        });
      }
    }
    const claim = asMap(cborOf(claimBox));
    const cose = readCose(sigBox);
    const cert = certificateOf(cose);
    const isActive = m === root.children[root.children.length - 1];
    manifests.push({
      label: m.label,
      claimGenerator: claimGenerator(claim),
      actions,
      signer: subjectOf(cert),
      signatureValid: verifyCose(cose, cert, claimBox?.contentType === 'cbor' ? claimBox.content : null),
      assertionsValid: verifyAssertions(claim, assertions),
      dataHashValid: isActive ? verifyDataHash(claim, assertions, asset) : null,
    });
  }
  return { manifests, active: manifests[manifests.length - 1] ?? null };
}
