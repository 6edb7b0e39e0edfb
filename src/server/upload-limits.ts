// Upload limits, declared once. Per-kind file sizes live in src/analysis/contract.ts (SIZE_LIMITS).
import { SIZE_LIMITS } from '../analysis/contract.js';

export const MAX_FILES = 20;
export const METADATA_MAX_BYTES = 16 * 1024; // compact JSON, UTF-8 (DECISIONS 23)
export const METADATA_RAW_MAX_BYTES = 256 * 1024; // as sent, whitespace included: larger is refused unparsed
/** Objects and arrays nested deeper than this in `metadata` are refused (src/api/README.md), before parsing. */
export const METADATA_MAX_DEPTH = 64;
/** File names are kept as display text up to this many UTF-16 code units, cut on a code point boundary. */
export const FILE_NAME_MAX = 1024;
export const IDEMPOTENCY_KEY_MAX = 255;

/** busboy limits: generous enough for our own checks to answer first, tight enough to stop floods. */
export const MULTIPART_LIMITS = {
  fieldNameSize: 200,
  fieldSize: METADATA_RAW_MAX_BYTES,
  fields: 10,
  fileSize: Math.max(SIZE_LIMITS.images, SIZE_LIMITS.pdfs) + 1,
  files: MAX_FILES + 2, // the metadata part is read as a stream too (raw bytes), plus one so our own check answers
  headerPairs: 20,
  parts: MAX_FILES + 12,
};
