// One name per maker: EXIF Make strings vary by model and era ("NIKON CORPORATION", "NIKON", "Nikon"), and the
// catalogue, the maker-note rules and the size rules all key on the maker, not on the string.

const MAKERS: [RegExp, string][] = [
  [/pentax|asahi/i, 'pentax'], // before ricoh: "PENTAX RICOH IMAGING"
  [/canon/i, 'canon'],
  [/nikon/i, 'nikon'],
  [/olympus|om digital/i, 'olympus'],
  [/sony ericsson/i, 'sonyericsson'],
  [/sony/i, 'sony'],
  [/fuji/i, 'fujifilm'],
  [/kodak/i, 'kodak'],
  [/hewlett|^hp\b/i, 'hp'],
  [/samsung/i, 'samsung'],
  [/apple/i, 'apple'],
  [/google/i, 'google'],
  [/panasonic|matsushita/i, 'panasonic'],
  [/ricoh/i, 'ricoh'],
  [/casio/i, 'casio'],
  [/minolta/i, 'minolta'],
  [/leica/i, 'leica'],
  [/sanyo/i, 'sanyo'],
  [/epson/i, 'epson'],
  [/gopro/i, 'gopro'],
  [/huawei|honor/i, 'huawei'],
  [/xiaomi|redmi/i, 'xiaomi'],
  [/oneplus/i, 'oneplus'],
  [/oppo/i, 'oppo'],
  [/motorola/i, 'motorola'],
  [/^lg|lg electronics/i, 'lg'],
  [/htc/i, 'htc'],
  [/nokia|hmd/i, 'nokia'],
  [/blackberry|research in motion/i, 'blackberry'],
  [/polaroid/i, 'polaroid'],
  [/dji/i, 'dji'],
  [/sigma/i, 'sigma'],
];

/** The canonical maker for an EXIF Make (lower case), or null when empty. Unknown makers keep their first word. */
export function canonicalMake(make: string | null | undefined): string | null {
  const m = (make ?? '').replace(/\0/g, '').trim();
  if (!m) return null;
  for (const [re, name] of MAKERS) if (re.test(m)) return name;
  return m.toLowerCase().split(/[\s,]+/)[0] || null;
}

/** Makers whose phones are phones: a JPEG or HEIC from them comes from a phone camera pipeline. */
export const PHONE_MAKERS = new Set(['apple', 'samsung', 'google', 'huawei', 'xiaomi', 'oneplus', 'oppo', 'motorola', 'lg', 'htc', 'nokia', 'blackberry', 'sonyericsson']);
