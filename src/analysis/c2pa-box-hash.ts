// The hard binding the C2PA library leaves unchecked: a general box hash (`c2pa.hash.boxes`, C2PA 1.x/2.x "General
// Boxes Hash"), which Azure OpenAI's older PNG manifests use. Unchecked, such a manifest read as valid in any file it
// was pasted into (a signature proves who signed the claim, only the binding ties the claim to these bytes). It is
// checked here for PNG, the layout c2pa-rs writes (png_io.rs `get_box_map`: the 8-byte signature as `PNGh`, then every
// chunk by its type, the store's `caBX` chunk as `C2PA`); a box hash in any other container is a failure, never a pass.
import { createHash } from 'node:crypto';
import type { MediaType } from './analysis-results.js';

/** One validation status, as the C2PA library writes them (c2pa-validation.ts turns them into C2paStatus). */
export interface BindingStatus {
  code: string;
  success: boolean;
  url?: string;
  explanation?: string;
}

interface Box {
  name: string;
  start: number;
  length: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** The name a box hash gives the box that holds the manifest store (excluded from every hash). */
const C2PA_BOX = 'C2PA';
const HASHES: Record<string, string> = { sha256: 'sha256', sha384: 'sha384', sha512: 'sha512' };

/** A PNG's boxes as a box hash names them, or null when its chunks do not walk to the end of the file. */
function pngBoxes(bytes: Buffer): Box[] | null {
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  const boxes: Box[] = [{ name: 'PNGh', start: 0, length: 8 }];
  let at = 8;
  while (at < bytes.length) {
    if (at + 12 > bytes.length) return null;
    const length = bytes.readUInt32BE(at) + 12;
    if (at + length > bytes.length) return null;
    const type = bytes.subarray(at + 4, at + 8).toString('latin1');
    boxes.push({ name: type === 'caBX' ? C2PA_BOX : type, start: at, length });
    at += length;
  }
  return boxes;
}

const failure = (code: string, url: string | undefined, explanation: string): BindingStatus => ({ code, success: false, url, explanation });

/**
 * The box hash assertion `content` (its CBOR, decoded) checked against the file's bytes: `assertion.boxesHash.match`
 * when every box of the file is hashed (the store's box aside) and every hash matches, otherwise the failure that says
 * why. `claimAlg` is the claim's default algorithm, for a box hash that names none.
 */
export function checkBoxHash(content: unknown, bytes: Buffer, mediaType: MediaType, claimAlg: string | undefined, url?: string): BindingStatus {
  if (mediaType !== 'image/png') {
    return failure('general.error', url, 'the file is bound to its Content Credentials by a box hash, which this version checks only in PNG files, so the file bytes are not shown to be the ones signed');
  }
  const boxes = pngBoxes(bytes);
  if (!boxes) return failure('assertion.boxesHash.mismatch', url, 'the PNG chunks do not walk to the end of the file');
  const map = content as { alg?: unknown; boxes?: unknown } | undefined;
  const entries = Array.isArray(map?.boxes) ? (map.boxes as unknown[]) : [];
  if (!entries.length) return failure('assertion.boxesHash.mismatch', url, 'the box hash lists no boxes');
  let next = 0;
  // Writers before the PNG signature was named hashed from the first chunk on (c2pa-rs allows it; 8 fixed bytes).
  const first = (entries[0] as { names?: unknown[] } | undefined)?.names?.[0];
  if (first !== 'PNGh') next = 1;
  for (const raw of entries) {
    const entry = raw as { names?: unknown; alg?: unknown; hash?: unknown; excluded?: unknown; exclusions?: unknown };
    const names = Array.isArray(entry.names) ? entry.names : [];
    if (!names.length || !names.every((n) => typeof n === 'string')) return failure('assertion.boxesHash.mismatch', url, 'a box hash entry names no box');
    let start = -1;
    let end = -1;
    for (const name of names) {
      const box = boxes[next];
      if (!box || box.name !== name) return failure('assertion.boxesHash.unknownBox', url, `the box hash names ${String(name)} where the file has ${box ? box.name : 'nothing more'}`);
      if (start < 0) start = box.start;
      end = box.start + box.length;
      next += 1;
    }
    if (names.length === 1 && names[0] === C2PA_BOX) continue;
    // Only the store's own box may be left out: anything else left out is bytes the signature does not cover.
    if (entry.excluded === true || entry.exclusions !== undefined || names.includes(C2PA_BOX)) {
      return failure('assertion.boxesHash.mismatch', url, 'the box hash leaves part of the file out of its hashes');
    }
    const alg = typeof entry.alg === 'string' ? entry.alg : typeof map?.alg === 'string' ? map.alg : claimAlg?.replace('-', '').toLowerCase();
    const algorithm = alg ? HASHES[alg] : undefined;
    if (!algorithm) return failure('algorithm.unsupported', url, `the box hash uses ${alg ?? 'no'} algorithm`);
    const expected = entry.hash instanceof Uint8Array ? Buffer.from(entry.hash) : null;
    const actual = createHash(algorithm).update(bytes.subarray(start, end)).digest();
    if (!expected || !expected.equals(actual)) return failure('assertion.boxesHash.mismatch', url, `the ${names.join(', ')} bytes do not match their signed hash`);
  }
  if (next !== boxes.length) return failure('assertion.boxesHash.unknownBox', url, `the file has boxes the box hash does not cover (${boxes.slice(next).map((b) => b.name).join(', ')})`);
  return { code: 'assertion.boxesHash.match', success: true, url, explanation: 'every box of the file matches its signed hash' };
}
