// Finds and reads C2PA (Content Credentials) manifest stores in JPEG, PNG, HEIF and PDF bytes: which tool made the
// claim, which actions and digital source types it declares, who signed it. Signatures and hashes are NOT verified.
import { X509Certificate } from 'node:crypto';
import type { MediaType } from './contract.js';
import { decodeCbor, type CborValue } from './cbor-lite.js';

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
  const box: JBox = { label: '', children: [], content: null, contentType: null };
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

function signerOf(sigBox: JBox | undefined): string | null {
  const cose = cborOf(sigBox);
  if (!Array.isArray(cose) || cose.length < 2) return null;
  const headers: CborValue[] = [cose[1]];
  if (cose[0] instanceof Uint8Array && cose[0].length) {
    try {
      headers.unshift(decodeCbor(cose[0]));
    } catch {
      // unreadable protected header
    }
  }
  for (const h of headers) {
    const map = asMap(h);
    const chain = map?.['33'];
    const first = Array.isArray(chain) ? chain[0] : chain;
    if (first instanceof Uint8Array) {
      try {
        const cert = new X509Certificate(first);
        const o = /(?:^|\n)O=([^\n]+)/.exec(cert.subject)?.[1];
        const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.subject)?.[1];
        return [o, cn].filter(Boolean).join(' / ') || null;
      } catch {
        return null;
      }
    }
  }
  return null;
}

export function readC2paStore(jumbf: Buffer): C2paStore | null {
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
    manifests.push({ label: m.label, claimGenerator: claimGenerator(asMap(cborOf(claimBox))), actions, signer: signerOf(sigBox) });
  }
  return { manifests, active: manifests[manifests.length - 1] ?? null };
}
