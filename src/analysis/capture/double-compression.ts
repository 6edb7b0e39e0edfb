// Double JPEG compression with the same table (a decoded-and-re-saved file at the camera's own libjpeg quality):
// quantization tables cannot show it, but the coefficients can. Re-compressing a once-compressed JPEG with its own
// table moves many coefficients by one step (the camera quantized sensor data, libjpeg now quantizes libjpeg's own
// decode of it); a file that already went through libjpeg's decode and encode barely moves: repeated JPEG
// compression converges (Huang, Huang and Shi, "Detecting double JPEG compression with the same quantization
// matrix", IEEE TIFS 5(4), 2010). The share of luma coefficients that change on one more round is the reading.
import sharp from 'sharp';
import { readLumaCoefficients, type LumaCoefficients } from './jpeg-coefficients.js';
import { ijgQuality } from './quant-tables.js';

export interface RecompressionReading {
  /** libjpeg quality of the file's luma table, which the extra round uses. */
  quality: number;
  /** Luma blocks compared (whole blocks inside the picture). */
  blocks: number;
  /** Share of the compared blocks' luma coefficients (all 64) that a further round changes. */
  changedShare: number;
}

/**
 * One more libjpeg round of the file at its own luma quality, compared coefficient by coefficient. Null when the
 * coefficients cannot be read (progressive, arithmetic coding, corrupt data) or the luma table is not libjpeg's.
 */
export async function recompressionReading(buf: Buffer, signal?: AbortSignal, coefficients?: LumaCoefficients | null): Promise<RecompressionReading | null> {
  const a = coefficients === undefined ? readLumaCoefficients(buf) : coefficients;
  if (!a) return null;
  const quality = ijgQuality(a.table, false);
  if (quality === null) return null;
  signal?.throwIfAborted();
  // No ICC conversion and no orientation: the same pixels libjpeg decodes, re-encoded with the same luma table.
  // Chroma is left whole: only luma is compared, and luma does not depend on the chroma sampling.
  const again = await sharp(buf, { failOn: 'none', ignoreIcc: true, limitInputPixels: 100_000_000 })
    .jpeg({ quality, chromaSubsampling: '4:4:4', optimiseCoding: false })
    .toBuffer();
  signal?.throwIfAborted();
  const b = readLumaCoefficients(again);
  if (!b || b.blocksW < 1 || b.table.some((v, i) => v !== a.table[i])) return null;
  // Whole blocks inside the picture only: the padding blocks at the right and bottom edges depend on the encoder.
  const fullW = Math.min(Math.floor(a.width / 8), a.blocksW, b.blocksW);
  const fullH = Math.min(Math.floor(a.height / 8), a.blocksH, b.blocksH);
  let changed = 0;
  for (let by = 0; by < fullH; by++) {
    for (let bx = 0; bx < fullW; bx++) {
      const ia = (by * a.blocksW + bx) * 64;
      const ib = (by * b.blocksW + bx) * 64;
      for (let k = 0; k < 64; k++) if (a.coef[ia + k] !== b.coef[ib + k]) changed++;
    }
  }
  const blocks = fullW * fullH;
  return { quality, blocks, changedShare: blocks ? changed / (blocks * 64) : 0 };
}
