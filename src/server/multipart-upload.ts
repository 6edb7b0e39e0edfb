// Streams a POST /v1/assess multipart body to temp files, one part at a time, checking every rule of the spec as
// bytes arrive: the first refused part ends the request at once (the rest is never read). The temp files belong to
// the intake (src/jobs/intake.ts), which deletes every one not committed, whichever way the request ends.
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import { FILE_NAME_MAX, formatLimit, MAX_FILE_BYTES, MAX_FILES_PER_REQUEST, METADATA_MAX_BYTES, METADATA_MAX_DEPTH } from '../api/limits.js';
import { KIND_DESCRIPTIONS, SNIFF_BYTES, sniff, type Sniffed } from '../api/media-kinds.js';
import type { PipelineKind } from '../api/schemas.js';
import { probeUpload, type Intake } from '../jobs/intake.js';
import type { ReceivedFile } from '../jobs/job-service.js';
import type { WorkerPool } from '../jobs/worker-pool.js';
import { ApiHttpError, invalid } from './api-error.js';
import { namelessPart, watchPartFraming } from './multipart-framing.js';
import { METADATA_RAW_MAX_BYTES } from './upload-limits.js';

/** The refusal of a POST /v1/assess body of another type (or none), decided from its Content-Type alone. */
export const notMultipart = () => invalid('Content-Type', 'The body must be multipart/form-data with a boundary.');

export interface ParsedUpload {
  files: ReceivedFile[];
  metadataJson: string | null;
  metadata: Record<string, unknown> | null;
  fingerprint: string;
}

export interface UploadDeps {
  /** Where each file is streamed to (the intake owns and deletes those paths). */
  intake: Intake;
  probePool: WorkerPool;
  probeTimeoutMs: number;
  kind: PipelineKind;
  /** false when an idempotency record exists: a replay is only compared, never probed. */
  probe: boolean;
}

function noProto(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && 'prototype' in value)) {
    throw new SyntaxError('forbidden key');
  }
  return value;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The caller's JSON text without the whitespace between tokens (DECISIONS 23's "compact serialisation"): every
 * number, string escape, key order and duplicate key exactly as sent, so that the echo is what the caller sent.
 * Also measures nesting, so that a document too deep for JSON.parse's recursion is refused before it is parsed.
 */
function compactJson(text: string): { compact: string; depth: number } {
  let out = '';
  let depth = 0;
  let maxDepth = 0;
  let from = 0; // start of the run of non-whitespace being copied
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: copied whole, escapes included
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      maxDepth = Math.max(maxDepth, ++depth);
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return { compact: out + text.slice(from), depth: maxDepth };
}

/** Validates the bytes of a metadata part and returns the caller's compact JSON text and its parsed value. */
export function parseMetadata(raw: Buffer): { json: string; value: Record<string, unknown> } {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw invalid('metadata', 'metadata must be UTF-8 text: its bytes are not valid UTF-8.');
  }
  const { compact, depth } = compactJson(text);
  if (depth > METADATA_MAX_DEPTH) {
    throw invalid('metadata', `metadata is nested ${depth} levels deep; at most ${METADATA_MAX_DEPTH} levels of objects and arrays are accepted.`);
  }
  let parsed: unknown;
  try {
    // The text as sent is what must be valid JSON (removing whitespace could join two tokens into one).
    parsed = JSON.parse(text, noProto);
  } catch {
    throw invalid('metadata', 'metadata must be a JSON object (valid JSON, no __proto__ keys).');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('metadata', 'metadata must be a JSON object.');
  if (Buffer.byteLength(compact, 'utf8') > METADATA_MAX_BYTES) {
    throw invalid('metadata', `metadata is larger than ${METADATA_MAX_BYTES} bytes as compact JSON.`);
  }
  return { json: compact, value: parsed as Record<string, unknown> };
}

/** Reads a metadata part's raw bytes (never decoded by busboy, which would replace invalid UTF-8 silently). */
async function readMetadata(stream: AsyncIterable<Buffer> & { resume(): void }): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > METADATA_RAW_MAX_BYTES) {
      stream.resume();
      throw invalid('metadata', `metadata is larger than ${METADATA_MAX_BYTES} bytes as compact JSON.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A file name as display text, cut to FILE_NAME_MAX code units without splitting a surrogate pair. */
export function displayName(name: string, fallback: string): string {
  let end = Math.min(name.length, FILE_NAME_MAX);
  const last = name.charCodeAt(end - 1);
  if (end < name.length && last >= 0xd800 && last <= 0xdbff) end--;
  return name.slice(0, end) || fallback;
}

/**
 * busboy hands every part named "metadata" over as a stream of bytes, like a file, instead of decoding it; and every
 * part named "file" as a file, with or without a filename (the spec names file parts, the filename is optional:
 * `curl -F 'file=<photo.jpg'` sends none, and the file gets the default name).
 */
const isPartAFile = (name: string | undefined, contentType: string, filename: string | undefined): boolean =>
  name === 'metadata' || name === 'file' || contentType === 'application/octet-stream' || filename !== undefined;

export async function receiveUpload(req: FastifyRequest, d: UploadDeps): Promise<ParsedUpload> {
  const files: ReceivedFile[] = [];
  const fp = crypto.createHash('sha256');
  let metadata: { json: string; value: Record<string, unknown> } | null = null;
  let fileIndex = 0;
  let partIndex = 0;
  // The parts are read by hand, not with for await: the iteration is raced against the framing check, and a for await
  // left by a throw would wait on the iterator's return(), which waits for the pending next() of a stalled parser.
  const parts = req.parts({ isPartAFile } as Parameters<FastifyRequest['parts']>[0])[Symbol.asyncIterator]();
  const pull = () => {
    const p = parts.next();
    p.catch(() => {}); // left pending when the request is refused: its later rejection is of no interest
    return p;
  };
  let next = pull(); // starts the parser: @fastify/multipart pipes the request into busboy in this call
  const framing = watchPartFraming(req.raw, req.headers['content-type']); // so, in the same turn, sees every chunk too
  try {
    for (;;) {
      const step = await Promise.race([next, framing.refused]);
      framing.check();
      if (step.done) break;
      next = pull(); // busboy hands the next part over only once this one has been read
      const part = step.value;
      const index = partIndex++;
      if (part.fieldname === undefined) {
        if (part.type === 'file') part.file.resume();
        throw namelessPart(index, part.type === 'file' ? part.filename : undefined);
      }
      if (part.type === 'field') {
        throw invalid(part.fieldname, `Unexpected part "${part.fieldname}": only "file" and "metadata" parts are accepted.`);
      }
      if (part.fieldname === 'metadata' && part.filename === undefined) {
        if (metadata) {
          part.file.resume();
          throw invalid('metadata', 'Only one metadata part is allowed.');
        }
        metadata = parseMetadata(await readMetadata(part.file));
        fp.update(`field\0metadata\0${metadata.json}\0`);
        continue;
      }
      const fileNumber = fileIndex++;
      const path = `file.${fileNumber}`;
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw invalid(part.fieldname, `Unexpected file part "${part.fieldname}": files must be sent as parts named "file".`);
      }
      if (fileNumber >= MAX_FILES_PER_REQUEST) {
        part.file.resume();
        throw invalid('file', `Too many files: at most ${MAX_FILES_PER_REQUEST} per request.`);
      }
      const name = displayName(part.filename ?? '', `file-${fileNumber + 1}`);
      const tmpPath = d.intake.tempPath();
      const received = await streamFile(part.file, tmpPath, d.kind, name, path);
      fp.update(`file\0${name}\0${received.sha256}\0`);
      if (d.probe) await probe(d, tmpPath, received.sniffed, name, path);
      files.push({ tmpPath, name, size: received.size, mediaType: received.sniffed.mediaType, sha256: received.sha256 });
    }
    // Every part whose headers were read was handed over: none was dropped unseen (nor left out of the digest).
    if (framing.parts() !== partIndex) throw invalid('body', 'Malformed multipart body: a part could not be read.');
    if (files.length === 0) throw invalid('file', 'At least one part named "file" is required.');
    return { files, metadataJson: metadata?.json ?? null, metadata: metadata?.value ?? null, fingerprint: fp.digest('hex') };
  } catch (err) {
    void parts.return?.(undefined).catch(() => {}); // not awaited: it waits for a pending next()
    throw mapMultipartError(err);
  } finally {
    framing.stop();
  }
}

async function streamFile(
  stream: AsyncIterable<Buffer> & { truncated?: boolean; resume(): void },
  tmpPath: string,
  kind: PipelineKind,
  name: string,
  path: string,
): Promise<{ size: number; sha256: string; sniffed: Sniffed }> {
  const fh = await fsp.open(tmpPath, 'wx', 0o600);
  const hash = crypto.createHash('sha256');
  let size = 0;
  let head = Buffer.alloc(0);
  let sniffed: Sniffed | null = null;
  const limit = MAX_FILE_BYTES[kind];
  const check = (final: boolean) => {
    if (sniffed || (!final && head.length < SNIFF_BYTES)) return;
    sniffed = sniff(head);
    if (!sniffed || sniffed.kind !== kind) {
      throw new ApiHttpError('unsupported_format', `File "${name}" is not one of the ${KIND_DESCRIPTIONS[kind]} this application accepts.`, {
        issues: [{ path, message: 'Unsupported file type.' }],
      });
    }
  };
  try {
    for await (const chunk of stream) {
      size += chunk.length;
      if (head.length < SNIFF_BYTES) head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
      check(false);
      if (size > limit) {
        throw new ApiHttpError('file_too_large', `File "${name}" is larger than the ${formatLimit(limit)} allowed for this kind of file.`, {
          issues: [{ path, message: 'File too large.' }],
        });
      }
      hash.update(chunk);
      await fh.write(chunk);
    }
    check(true);
    if (stream.truncated) {
      throw new ApiHttpError('file_too_large', `File "${name}" is too large.`, { issues: [{ path, message: 'File too large.' }] });
    }
    await fh.sync();
  } catch (err) {
    stream.resume();
    throw err;
  } finally {
    await fh.close();
  }
  return { size, sha256: hash.digest('hex'), sniffed: sniffed! };
}

async function probe(d: UploadDeps, tmpPath: string, sniffed: Sniffed, name: string, path: string): Promise<void> {
  const result = await probeUpload(d.probePool, tmpPath, sniffed, d.probeTimeoutMs, name);
  if (!result.ok) {
    const code = result.code === 'unsupported_format' ? 'unsupported_format' : 'unprocessable';
    throw new ApiHttpError(code, result.message.includes(name) ? result.message : `File "${name}": ${result.message}`, {
      issues: [{ path, message: result.message }],
    });
  }
}

function mapMultipartError(err: unknown): unknown {
  if (err instanceof ApiHttpError) return err;
  const code = (err as { code?: string })?.code;
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') return invalid('metadata', 'metadata must be valid JSON.');
  if (code === 'FST_PROTO_VIOLATION') return invalid('body', 'Forbidden part name.');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_FILES_LIMIT') {
    return invalid('file', 'Too many parts in the multipart body.');
  }
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return notMultipart();
  if (err instanceof Error && /Unexpected end of (form|multipart)|Malformed|boundary|Part terminated|premature|Unexpected end/i.test(err.message)) {
    return invalid('body', 'Malformed multipart body.');
  }
  return err;
}
