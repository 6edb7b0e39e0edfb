// Streams a POST /v1/assess multipart body to temp files, one part at a time, checking every rule of the spec as
// bytes arrive: the first refused part ends the request at once (the rest is never read) and every temp file this
// upload created is deleted on every path out of it. This module owns those temp files until they are handed to
// the job service.
import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import type { FastifyRequest } from 'fastify';
import { SIZE_LIMITS, SNIFF_BYTES, type ProbeResult, type Sniffed } from '../analysis/contract.js';
import { sniff } from '../analysis/index.js';
import type { PipelineKind } from '../api/schemas.js';
import type { ReceivedFile } from '../jobs/job-service.js';
import type { FileStore } from '../jobs/file-store.js';
import { WorkerTaskError, type WorkerPool } from '../jobs/worker-pool.js';
import { ApiHttpError, invalid } from './api-error.js';
import { MAX_FILES, METADATA_MAX_BYTES } from './upload-limits.js';

export interface ParsedUpload {
  files: ReceivedFile[];
  metadataJson: string | null;
  metadata: Record<string, unknown> | null;
  fingerprint: string;
}

export interface UploadDeps {
  store: FileStore;
  probePool: WorkerPool;
  probeTimeoutMs: number;
  kind: PipelineKind;
  /** false when an idempotency record exists: a replay is only compared, never probed. */
  probe: boolean;
}

const KIND_NAMES: Record<PipelineKind, string> = { images: 'JPEG, PNG or HEIC/HEIF images', pdfs: 'PDF documents' };

function noProto(key: string, value: unknown): unknown {
  if (key === '__proto__' || (key === 'constructor' && value !== null && typeof value === 'object' && 'prototype' in value)) {
    throw new SyntaxError('forbidden key');
  }
  return value;
}

export function parseMetadata(value: unknown): { json: string; value: Record<string, unknown> } {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value, noProto);
    } catch {
      throw invalid('metadata', 'metadata must be a JSON object (valid JSON, no __proto__ keys).');
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalid('metadata', 'metadata must be a JSON object.');
  const json = JSON.stringify(parsed);
  if (Buffer.byteLength(json, 'utf8') > METADATA_MAX_BYTES) {
    throw invalid('metadata', `metadata is larger than ${METADATA_MAX_BYTES} bytes as compact JSON.`);
  }
  return { json, value: parsed as Record<string, unknown> };
}

export async function receiveUpload(req: FastifyRequest, d: UploadDeps): Promise<ParsedUpload> {
  const owned: string[] = []; // temp files created by this upload: deleted unless handed over
  const files: ReceivedFile[] = [];
  const fp = crypto.createHash('sha256');
  let metadata: { json: string; value: Record<string, unknown> } | null = null;
  let fileIndex = 0;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'field') {
        if (part.fieldname !== 'metadata') throw invalid(part.fieldname, `Unexpected part "${part.fieldname}": only "file" and "metadata" parts are accepted.`);
        if (metadata) throw invalid('metadata', 'Only one metadata part is allowed.');
        if (part.valueTruncated) throw invalid('metadata', `metadata is larger than ${METADATA_MAX_BYTES} bytes as compact JSON.`);
        metadata = parseMetadata(part.value);
        fp.update(`field\0metadata\0${metadata.json}\0`);
        continue;
      }
      const index = fileIndex++;
      const path = `file.${index}`;
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw invalid(part.fieldname, `Unexpected file part "${part.fieldname}": files must be sent as parts named "file".`);
      }
      if (index >= MAX_FILES) {
        part.file.resume();
        throw invalid('file', `Too many files: at most ${MAX_FILES} per request.`);
      }
      const name = (part.filename ?? '').slice(0, 1024) || `file-${index + 1}`;
      const tmpPath = d.store.tempPath();
      owned.push(tmpPath);
      const received = await streamFile(part.file, tmpPath, d.kind, name, path);
      fp.update(`file\0${name}\0${received.sha256}\0`);
      if (d.probe) await probe(d, tmpPath, received.sniffed, name, path);
      files.push({ tmpPath, name, size: received.size, mediaType: received.sniffed.mediaType, sha256: received.sha256 });
    }
    if (files.length === 0) throw invalid('file', 'At least one part named "file" is required.');
    const result = { files, metadataJson: metadata?.json ?? null, metadata: metadata?.value ?? null, fingerprint: fp.digest('hex') };
    owned.length = 0; // handed over to the caller
    return result;
  } catch (err) {
    throw mapMultipartError(err);
  } finally {
    if (owned.length) await d.store.remove(owned);
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
  const limit = SIZE_LIMITS[kind];
  const check = (final: boolean) => {
    if (sniffed || (!final && head.length < SNIFF_BYTES)) return;
    sniffed = sniff(head);
    if (!sniffed || sniffed.kind !== kind) {
      throw new ApiHttpError('unsupported_format', `File "${name}" is not one of the ${KIND_NAMES[kind]} this application accepts.`, {
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
        throw new ApiHttpError('file_too_large', `File "${name}" is larger than the ${limit / 2 ** 20} MiB allowed for this kind of file.`, {
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
  let result: ProbeResult;
  try {
    result = await d.probePool.run<ProbeResult>({ op: 'probe', path: tmpPath, sniffed }, d.probeTimeoutMs);
  } catch (err) {
    if (err instanceof WorkerTaskError && (err.reason === 'timeout' || err.reason === 'crashed' || err.reason === 'memory')) {
      // A file that hangs, crashes or floods the probe cannot be analysed safely.
      result = { ok: false, code: 'unprocessable', message: `File "${name}" cannot be analysed: ${err.message}` };
    } else throw err;
  }
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
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return invalid('Content-Type', 'The body must be multipart/form-data with a boundary.');
  if (err instanceof Error && /Unexpected end of (form|multipart)|Malformed|boundary|Part terminated|premature|Unexpected end/i.test(err.message)) {
    return invalid('body', 'Malformed multipart body.');
  }
  return err;
}
