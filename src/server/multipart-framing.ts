// Reads the part headers of a POST /v1/assess body beside busboy, because busboy drops some parts without a word:
// a part with no Content-Disposition, with one that is not form-data (`attachment; name="file"`), or whose header
// block never ends, is skipped, and @fastify/multipart hands over the parts around it as if it had not been sent.
// Worse, busboy's parser (dicer) pauses for such a part once more than its high-water mark (16 KiB) of it is buffered,
// and waits for the part to be read to resume; a part it skips and has already ended is never read again, so when a
// write holds the rest of that part and the end of the body, the parser never resumes, the iteration of the parts
// never ends and the request is never answered. Every part busboy would skip is found here, from the same bytes, when
// its header block ends, so that the request is refused whole (400) before anything waits on it; a part with no name
// is refused here too, whatever busboy makes of it.
import type { Readable } from 'node:stream';
import { ApiHttpError, invalid } from './api-error.js';
import { MULTIPART_LIMITS } from './upload-limits.js';

/** busboy's own cap on a part's header block (its default, kept): bytes past it are not read as headers. */
const HEADER_BLOCK_MAX_BYTES = 80 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');

/**
 * `details.issues[].path` of a part refused for its framing: `part.N`, N counted from 0 over every part of the body
 * in the order sent (metadata included), as `file.N` counts the file parts. A part without a name has nothing else
 * to be named by.
 */
export const partPath = (index: number): string => `part.${index}`;

/** The refusal of a part sent without a name (Content-Disposition `form-data; filename="a.jpg"`, or bare `form-data`). */
export function namelessPart(index: number, filename: string | undefined): ApiHttpError {
  const which = filename === undefined ? `Part ${index + 1} of the body` : `Part ${index + 1} of the body (file "${filename}")`;
  return invalid(partPath(index), `${which} has no name: send files as Content-Disposition: form-data; name="file" and metadata as name="metadata".`);
}

const unframedPart = (index: number, why: string): ApiHttpError =>
  invalid(partPath(index), `Part ${index + 1} of the body ${why}: every part must have a Content-Disposition: form-data header with a name ("file" or "metadata").`);

/** `value` split at the semicolons outside quoted strings, each piece trimmed. */
function splitParams(value: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quoted && c === '\\' && i + 1 < value.length) {
      cur += c + value[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ';' && !quoted) {
      out.push(cur.trim());
      cur = '';
    } else {
      cur += c;
    }
  }
  out.push(cur.trim());
  return out;
}

/** The boundary parameter of a multipart Content-Type, unquoted; null when there is none. */
export function boundaryOf(contentType: string | undefined): string | null {
  if (!contentType) return null;
  for (const param of splitParams(contentType).slice(1)) {
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    const v = param.slice(eq + 1).trim();
    return v.startsWith('"') && v.endsWith('"') && v.length >= 2 ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v;
  }
  return null;
}

/**
 * A part's header block as busboy reads it (dicer's HeaderParser): lines split at CRLF, a line starting with a space
 * or tab continues the previous header, and reading stops (keeping what was read) at the first line that is not a
 * header or holds a bare CR or LF, or at the pair limit.
 */
function parseHeaderBlock(block: string, maxPairs: number): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  let last: string | undefined;
  let pairs = 0;
  let start = 0;
  while (start < block.length && pairs < maxPairs) {
    let end = block.indexOf('\r\n', start);
    if (end === -1) end = block.length;
    if (end === start) {
      start = end + 2;
      continue;
    }
    const line = block.slice(start, end);
    if (line.includes('\r') || line.includes('\n')) break;
    if ((line[0] === ' ' || line[0] === '\t') && last !== undefined) {
      const values = headers.get(last)!;
      values[values.length - 1] += line;
      start = end + 2;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) break;
    last = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1);
    if (!headers.has(last)) headers.set(last, []);
    headers.get(last)!.push(value[0] === ' ' || value[0] === '\t' ? value.slice(1) : value);
    pairs++;
    start = end + 2;
  }
  return headers;
}

/** Why busboy would not hand this part over with a name (null: it will, as a file or a field). */
function refusalOf(headers: Map<string, string[]>, index: number): ApiHttpError | null {
  const disposition = headers.get('content-disposition')?.[0];
  if (disposition === undefined) return unframedPart(index, 'has no Content-Disposition header');
  const [type, ...params] = splitParams(disposition);
  if (type.replace(/[ \t]/g, '').toLowerCase() !== 'form-data') return unframedPart(index, `has Content-Disposition "${type}", not form-data`);
  let name: string | undefined;
  let filename: string | undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq === -1) continue;
    const key = param.slice(0, eq).trim().toLowerCase();
    const value = param.slice(eq + 1).trim();
    // An RFC 5987 value (name*=utf-8''...) is percent-decoded by busboy, which skips the part if that gives a line break.
    if (key.endsWith('*') && /%0[ad]/i.test(value)) return unframedPart(index, 'has a line break in a Content-Disposition parameter');
    if (key === 'name' || key === 'name*') name = value;
    else if (key === 'filename' || key === 'filename*') filename = value.replace(/^"(.*)"$/s, '$1');
  }
  return name === undefined ? namelessPart(index, filename) : null;
}

export interface PartFraming {
  /** Rejects with the refusal of the first part busboy would skip or that has no name; never resolves. */
  readonly refused: Promise<never>;
  /** Throws that refusal once it is known. */
  check(): void;
  /** Parts whose header block has ended so far: every one of them is handed over by busboy. */
  parts(): number;
  /** Stops reading the body (call when the parts have been read or the request is refused). */
  stop(): void;
}

type State = 'preamble' | 'header' | 'body' | 'done';

/**
 * Starts reading the part headers of `raw` beside the multipart parser. Call it in the same turn as the parser is
 * piped from `raw` (so both see every chunk); it only adds a 'data' listener, and so neither starts nor pauses the flow.
 */
export function watchPartFraming(raw: Readable, contentType: string | undefined): PartFraming {
  let fail!: (err: ApiHttpError) => void;
  const refused = new Promise<never>((_resolve, reject) => (fail = reject));
  refused.catch(() => {}); // raced by the reader; never left unhandled
  let failure: ApiHttpError | null = null;
  const refuse = (err: ApiHttpError) => {
    if (failure) return;
    failure = err;
    state = 'done';
    fail(err);
  };

  const boundary = boundaryOf(contentType);
  // As dicer does: the delimiter is CRLF "--" boundary, and the body is read as if preceded by CRLF.
  const needle = Buffer.from(`\r\n--${boundary ?? ''}`);
  let carry: Buffer = Buffer.from('\r\n');
  let state: State = boundary === null ? 'done' : 'preamble';
  let index = 0; // the part being read
  let seen = 0; // parts whose header block has ended
  let head: Buffer[] = []; // the start of the current header block, up to HEADER_BLOCK_MAX_BYTES + 4 bytes
  let headKept = 0;
  let headLen = 0;
  let headTail = Buffer.alloc(0); // its last 3 bytes, to find a CRLFCRLF cut across chunks

  const headerBytes = (seg: Buffer) => {
    // The block ends at the first CRLFCRLF; what follows it in this section is the part's content.
    const joined = headTail.length ? Buffer.concat([headTail, seg]) : seg;
    const at = joined.indexOf(CRLFCRLF);
    const end = at === -1 ? joined.length : at; // in joined
    const fresh = joined.subarray(headTail.length, Math.max(headTail.length, end));
    if (headKept < HEADER_BLOCK_MAX_BYTES + 4 && fresh.length) {
      const take = fresh.subarray(0, HEADER_BLOCK_MAX_BYTES + 4 - headKept);
      head.push(Buffer.from(take));
      headKept += take.length;
    }
    if (at === -1) {
      headLen += seg.length;
      headTail = Buffer.from(joined.subarray(Math.max(0, joined.length - 3)));
      return;
    }
    const blockLen = headLen - headTail.length + at; // the block's length up to its CRLFCRLF
    const block = Buffer.concat(head).subarray(0, Math.min(blockLen, HEADER_BLOCK_MAX_BYTES)).toString('latin1');
    const err = refusalOf(parseHeaderBlock(block, MULTIPART_LIMITS.headerPairs), index);
    if (err) return refuse(err);
    seen++;
    state = 'body';
  };

  const section = (seg: Buffer) => {
    if (state !== 'header' || seg.length === 0) return;
    // The close delimiter is the delimiter followed by "--"; anything after it (an epilogue) is not read.
    if (headLen === 0 && seg.length >= 2 && seg[0] === 0x2d && seg[1] === 0x2d) {
      state = 'done';
      return;
    }
    headerBytes(seg);
  };

  const delimiter = () => {
    if (state === 'header') return refuse(unframedPart(index, 'ends before its headers do (no blank line after them)'));
    if (state === 'body') index++;
    state = 'header';
    head = [];
    headKept = headLen = 0;
    headTail = Buffer.alloc(0);
  };

  const onData = (chunk: Buffer) => {
    if (state === 'done') return;
    const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    let pos = 0;
    for (;;) {
      const hit = buf.indexOf(needle, pos);
      if (hit === -1) {
        // Keep what could still be the start of a delimiter, and the first two bytes after one until both have come
        // (whether they are the "--" of the close delimiter).
        let keep = Math.max(pos, buf.length - (needle.length - 1));
        if (state === 'header' && headLen === 0 && keep - pos < 2) keep = pos;
        section(buf.subarray(pos, keep));
        carry = Buffer.from(buf.subarray(keep));
        return;
      }
      section(buf.subarray(pos, hit));
      if ((state as State) === 'done') return; // the close delimiter, or a refusal
      delimiter();
      if ((state as State) === 'done') return;
      pos = hit + needle.length;
    }
  };

  raw.on('data', onData);
  return {
    refused,
    check: () => {
      if (failure) throw failure;
    },
    parts: () => seen,
    stop: () => {
      raw.off('data', onData);
    },
  };
}
