// The accepted kinds, decided from a file's first bytes (DECISIONS 20) by the one function the core and the window
// share: plain Uint8Array input (the window has no Buffer), the same answer for a Node Buffer.
import { describe, expect, it } from 'vitest';
import { sniff } from '../../../src/api/media-kinds.js';

const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));
const ftyp = (major: string, ...compatible: string[]): Uint8Array => {
  const size = 16 + compatible.length * 4;
  return bytes([0, 0, 0, size], 'ftyp', major, [0, 0, 0, 0], compatible.join(''));
};

describe('sniff', () => {
  it('recognises the accepted kinds by content', () => {
    expect(sniff(bytes([0xff, 0xd8, 0xff, 0xe0]))).toEqual({ mediaType: 'image/jpeg', kind: 'images' });
    expect(sniff(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toEqual({ mediaType: 'image/png', kind: 'images' });
    expect(sniff(bytes('%PDF-1.7\n'))).toEqual({ mediaType: 'application/pdf', kind: 'pdfs' });
    expect(sniff(ftyp('heic', 'mif1', 'heic'))).toEqual({ mediaType: 'image/heic', kind: 'images' });
    expect(sniff(ftyp('mif1', 'heic'))).toEqual({ mediaType: 'image/heic', kind: 'images' });
    expect(sniff(ftyp('mif1', 'miaf'))).toEqual({ mediaType: 'image/heif', kind: 'images' });
  });

  it('refuses everything else, whatever the name would say', () => {
    expect(sniff(new Uint8Array())).toBeNull();
    expect(sniff(bytes('GIF89a'))).toBeNull();
    expect(sniff(bytes('RIFF\0\0\0\0WEBP'))).toBeNull();
    expect(sniff(bytes(' %PDF-1.4'))).toBeNull();
    expect(sniff(ftyp('avif', 'mif1', 'miaf'))).toBeNull();
    expect(sniff(bytes('<html><script>'))).toBeNull();
  });
});

describe('sniff in the core and in the window', () => {
  it('gives a Node Buffer and a plain Uint8Array of the same bytes the same answer', () => {
    const heads = [bytes([0xff, 0xd8, 0xff, 0xdb]), bytes('%PDF-2.0'), ftyp('msf1', 'hevc'), ftyp('isom', 'mp41'), bytes('GIF89a')];
    for (const head of heads) expect(sniff(Buffer.from(head))).toEqual(sniff(head));
  });
});
