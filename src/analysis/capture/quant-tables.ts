// Quantization tables: the standard IJG (libjpeg) tables at every quality, and the catalogue of tables seen in real
// camera and phone originals (quant-tables.json, built by test/tools/build-quant-tables.ts from public corpora).
import { createHash } from 'node:crypto';
import type { JpegStructure } from './jpeg-structure.js';

// ITU T.81 Annex K.1, tables K.1 (luminance) and K.2 (chrominance), natural order; libjpeg's jcparam.c uses them.
export const ANNEX_K_LUMA = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22,
  37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
export const ANNEX_K_CHROMA = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99,
  99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];

/** libjpeg's jpeg_quality_scaling + jpeg_add_quant_table with force_baseline (values clamped to 1..255). */
export function ijgTable(base: readonly number[], quality: number): number[] {
  const q = Math.max(1, Math.min(100, quality));
  const scale = q < 50 ? Math.floor(5000 / q) : 200 - q * 2;
  return base.map((v) => Math.max(1, Math.min(255, Math.floor((v * scale + 50) / 100))));
}

const LUMA_BY_Q = Array.from({ length: 100 }, (_, i) => ijgTable(ANNEX_K_LUMA, i + 1));
const CHROMA_BY_Q = Array.from({ length: 100 }, (_, i) => ijgTable(ANNEX_K_CHROMA, i + 1));

const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The IJG quality whose table equals this one exactly, or null. */
export function ijgQuality(table: readonly number[], chroma: boolean): number | null {
  const set = chroma ? CHROMA_BY_Q : LUMA_BY_Q;
  // From high to low quality: at q >= 98 several qualities can give the same all-ones-ish table; keep the highest.
  for (let i = 99; i >= 0; i--) if (same(set[i], table)) return i + 1;
  return null;
}

/** The tables a frame actually uses, in component order, de-duplicated (a greyscale image has one). */
export function usedTables(s: JpegStructure): number[][] {
  const ids = s.frame ? [...new Set(s.frame.components.map((c) => c.table))] : [...s.tables.keys()].sort();
  return ids.map((id) => s.tables.get(id)).filter((t): t is number[] => Array.isArray(t));
}

/** A stable identity for a file's set of used tables: sha256 of their values, first 16 hex digits. */
export function tablesHash(tables: number[][]): string {
  return createHash('sha256').update(tables.map((t) => t.join(',')).join('|')).digest('hex').slice(0, 16);
}

export interface IjgMatch {
  /** Luma quality; chroma quality when it differs (cjpeg -quality a,b). */
  quality: number;
  chromaQuality: number | null;
}

/** The file's tables are the standard IJG ones (luma table 0 at some quality, the chroma table(s) at some quality). */
export function standardIjg(tables: number[][]): IjgMatch | null {
  if (tables.length === 0) return null;
  const ql = ijgQuality(tables[0], false);
  if (ql === null) return null;
  let qc: number | null = null;
  for (const t of tables.slice(1)) {
    const q = ijgQuality(t, true);
    if (q === null) return null;
    qc = q;
  }
  return { quality: ql, chromaQuality: qc !== null && qc !== ql ? qc : null };
}
