// Every numeric rule of the v1 spec and of DECISIONS (sizes, counts, lengths), declared once for the server, the
// analysis, the CLI, the OpenAPI document and the window. Pure: the renderer bundles it (no Node imports).
import type { PipelineKind } from './schemas.js';

const MiB = 1024 * 1024;

/** Largest accepted file per kind, in bytes (DECISIONS 19: "25 MB" and "2 MB" read as MiB). */
export const MAX_FILE_BYTES: Readonly<Record<PipelineKind, number>> = Object.freeze({
  images: 25 * MiB,
  pdfs: 2 * MiB,
});

/** Files in one POST /v1/assess (the spec: 1 to 20). */
export const MAX_FILES_PER_REQUEST = 20;

/** `metadata` as compact JSON, in UTF-8 bytes (DECISIONS 23). */
export const METADATA_MAX_BYTES = 16 * 1024;

/** Objects and arrays nested deeper than this in `metadata` are refused, before parsing (src/api/README.md). */
export const METADATA_MAX_DEPTH = 64;

/** File names are kept as display text up to this many UTF-16 code units, cut on a code point boundary. */
export const FILE_NAME_MAX = 1024;

/** `metadata.case` is kept (and `GET /v1/jobs?case=` compared) up to this many characters. */
export const CASE_NAME_MAX = 500;

/** A case's notes (`PATCH /app/cases/{caseId}`), in characters. */
export const CASE_NOTES_MAX = 20_000;

/** A part of a name searched for (`GET /app/cases?q=`, `GET /app/history?case=&name=`), in characters. */
export const SEARCH_TEXT_MAX = 500;

/** `Idempotency-Key`: 1 to this many printable ASCII characters. */
export const IDEMPOTENCY_KEY_MAX = 255;

/** `pageSize` of `GET /v1/jobs`: its default, and the value larger ones are clamped to. */
export const PAGE_SIZE_MAX = 100;

/** The name of an application or an API key (Settings, `keys create --name`), in characters once trimmed. */
export const KEY_NAME_MAX = 100;

/** A key's lifetime, when it has one, in whole days (`keys create --expires-in-days`, `POST /app/.../keys`). */
export const KEY_EXPIRES_IN_DAYS_MAX = 3650;

/**
 * Model tiles scored per `POST /v1/jobs/{jobId}/files/{fileId}/regions` at most (the viewer asks for what it shows
 * zoomed in): 256 tiles of 192 px every 96 px cover about 1,600 x 1,600 pixels, a second or two of inference.
 */
export const REGION_TILES_MAX = 256;

/** A size limit as people read it: "25 MB" (DECISIONS 19 reads MB as MiB, so 25 MiB is shown as 25 MB). */
export function formatLimit(bytes: number): string {
  return `${bytes / MiB} MB`;
}
