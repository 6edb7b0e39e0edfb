// The multipart parser's own bounds (busboy), derived from the spec's limits in src/api/limits.ts: loose enough that
// our checks answer first with the spec's error, tight enough to stop floods of parts, fields and headers.
import { MAX_FILE_BYTES, MAX_FILES_PER_REQUEST } from '../api/limits.js';

/** `metadata` as sent, whitespace included: larger is refused unparsed (its compact limit is METADATA_MAX_BYTES). */
export const METADATA_RAW_MAX_BYTES = 256 * 1024;

export const MULTIPART_LIMITS = {
  fieldNameSize: 200,
  fieldSize: METADATA_RAW_MAX_BYTES,
  fields: 10,
  fileSize: Math.max(MAX_FILE_BYTES.images, MAX_FILE_BYTES.pdfs) + 1,
  files: MAX_FILES_PER_REQUEST + 2, // the metadata part is read as a stream too (raw bytes), plus one so our own check answers
  headerPairs: 20,
  parts: MAX_FILES_PER_REQUEST + 12,
};
