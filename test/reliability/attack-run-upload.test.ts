// The upload attacks of issue #10 ("found by an outside attack run" against `veracity serve`), replayed against the
// core in its own process over real HTTP so that they stay fixed: files whose headers are whole but whose data does
// not decode (refused at submission, never a job), metadata that must come back as the caller sent it or be refused
// (invalid UTF-8, 2,700 levels deep, integers beyond 2^53, duplicate keys), a file name cut inside a surrogate pair.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, JobResult } from '../../src/api/schemas.js';
import { buildPdf, makeJpeg, makePng, pngWithCorruptIdat } from '../unit/analysis/fixtures.js';
import { diskState, keysOf, multipartBody, removeTempDirs, serve, tempDir, writeReport, type Part, type Served } from './harness.js';
import { HEIC_FIXTURE } from './hostile-files.js';

const counts: Record<string, number> = { attackRequests: 0 };
const outcomes: Record<string, string> = {};
let server: Served;
let dataDir: string;
let keys: ReturnType<typeof keysOf>;

beforeAll(async () => {
  dataDir = tempDir('veracity-attack-');
  // No model: accepted files end result_unavailable at once; every attack here is decided before analysis.
  server = await serve({ dataDir, modelsDir: tempDir('veracity-nomodel-') });
  keys = keysOf(dataDir);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  writeReport({ suite: 'attack-run-upload', counts, lost: 0, notes: [], outcomes });
  removeTempDirs();
});

async function post(label: string, parts: Part[], opts: { kind?: 'images' | 'pdfs'; idempotencyKey?: string } = {}) {
  counts.attackRequests++;
  const { body, contentType } = multipartBody(parts);
  const res = await fetch(`${server.base}/v1/assess?wait=false`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${opts.kind === 'pdfs' ? keys.pdfs : keys.images}`,
      'content-type': contentType,
      ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
    },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  outcomes[label] = `${res.status} ${text.slice(0, 160)}`;
  return { status: res.status, text, headers: res.headers };
}

/** A refusal with this status, code and path, and nothing on disk that was not there before. */
async function expectRefused(label: string, parts: Part[], status: number, code: string, path: string, opts: { kind?: 'images' | 'pdfs' } = {}) {
  const before = diskState(dataDir);
  const res = await post(label, parts, opts);
  const err = ApiError.parse(JSON.parse(res.text));
  expect({ label, status: res.status, code: err.code, path: err.details?.issues?.[0]?.path }).toEqual({ label, status, code, path });
  expect(diskState(dataDir), label).toEqual({ ...before, tmp: [] });
  return err;
}

const file = (data: Buffer, filename: string): Part => ({ name: 'file', data, filename, contentType: 'application/octet-stream' });
const metadata = (data: Buffer | string): Part => ({ name: 'metadata', data });

describe('attack run on uploads (issue #10), real server over HTTP', () => {
  it('refuses at submission, with nothing left, files whose headers are whole but whose data does not decode', { timeout: 120_000 }, async () => {
    const good = await makeJpeg(96, 64);
    const png = pngWithCorruptIdat(await makePng(200, 150));
    let err = await expectRefused('png: valid IHDR, corrupt IDAT', [file(png, 'idat.png')], 422, 'unprocessable', 'file.0');
    expect(err.message).toMatch(/idat\.png.*cannot be decoded/);
    // The whole request is refused (rule 1), the good files before it are not kept.
    await expectRefused('two good jpegs then the corrupt png', [file(good, 'a.jpg'), file(good, 'b.jpg'), file(png, 'c.png')], 422, 'unprocessable', 'file.2');
    const jpeg = Buffer.from(await makeJpeg(200, 150));
    jpeg[jpeg.indexOf(Buffer.from([0xff, 0xc0])) + 12] = 3; // a component names an undefined quantisation table
    err = await expectRefused('jpeg: undefined quantisation table', [file(jpeg, 'q.jpg')], 422, 'unprocessable', 'file.0');
    expect(err.message).toMatch(/Quantization table/);
    const heic = Buffer.from(fs.readFileSync(HEIC_FIXTURE));
    const mdat = heic.indexOf('mdat');
    heic.fill(0, mdat + 4, mdat - 4 + heic.readUInt32BE(mdat - 4));
    await expectRefused('heic: boxes whole, HEVC data zeroed', [file(heic, 'z.heic')], 422, 'unprocessable', 'file.0');
    const pdf = buildPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '(not a page)']);
    err = await expectRefused('pdf: page tree points at a string', [file(pdf, 'kids.pdf')], 422, 'unprocessable', 'file.0', { kind: 'pdfs' });
    expect(err.message).toMatch(/page 1 of the PDF cannot be read/);
    // The probe worker is still there: a whole file is accepted next.
    const ok = await post('good jpeg after the attacks', [file(good, 'ok.jpg')]);
    expect(ok.status).toBe(202);
  });

  it('refuses metadata that is not UTF-8 or is nested 2,700 deep, each with its own message', { timeout: 60_000 }, async () => {
    const jpeg = await makeJpeg(64, 64);
    const bad = Buffer.concat([Buffer.from('{"case":"'), Buffer.from([0xed, 0xa0, 0x80, 0xff]), Buffer.from('"}')]);
    let err = await expectRefused('metadata with invalid UTF-8', [file(jpeg, 'a.jpg'), metadata(bad)], 400, 'invalid_request', 'metadata');
    expect(err.message).toMatch(/not valid UTF-8/);
    const deep = `${'{"a":'.repeat(2699)}{}${'}'.repeat(2699)}`;
    err = await expectRefused('metadata nested 2,700 deep', [file(jpeg, 'a.jpg'), metadata(deep)], 400, 'invalid_request', 'metadata');
    expect(err.message).toMatch(/nested 2700 levels deep; at most 64/);
  });

  it('keeps metadata as the caller sent it: payloads that differ beyond 2^53 or in a duplicate key are different', { timeout: 60_000 }, async () => {
    const jpeg = await makeJpeg(64, 64);
    const first = await post('metadata with a big integer and a duplicate key', [file(jpeg, 'a.jpg'), metadata('{"n": 9007199254740993, "k": 1, "k": 2}')], { idempotencyKey: 'attack-7' });
    expect(first.status).toBe(202);
    const jobId = JobResult.parse(JSON.parse(first.text)).jobId;
    // Same key, a payload that only a lossy parse would call the same: refused as a different payload (DECISIONS 16).
    for (const other of ['{"n":9007199254740992,"k":1,"k":2}', '{"n":9007199254740993,"k":2}']) {
      const res = await post(`same key, metadata ${other}`, [file(jpeg, 'a.jpg'), metadata(other)], { idempotencyKey: 'attack-7' });
      expect(res.status, other).toBe(422);
    }
    // Whitespace between tokens is not part of the payload: the same compact text replays the job.
    const replay = await post('same key, same compact metadata', [file(jpeg, 'a.jpg'), metadata('{ "n" : 9007199254740993 , "k" : 1 , "k" : 2 }')], { idempotencyKey: 'attack-7' });
    expect(replay.status).toBe(202);
    expect(JobResult.parse(JSON.parse(replay.text)).jobId).toBe(jobId);
  });

  // The reply serializer (src/server/app.ts) writes the stored compact text where the parsed object would lose
  // integers beyond 2^53 and duplicate keys (issue #10, item 7).
  it('echoes the metadata text verbatim in the job result', { timeout: 60_000 }, async () => {
    const jpeg = await makeJpeg(64, 64);
    const compact = '{"id":12345678901234567890123,"a":1,"a":2,"2":"\\u00e9","1":1.50}';
    const res = await post('metadata echo', [file(jpeg, 'a.jpg'), metadata(compact.replace(/,/g, ', '))]);
    expect(res.text).toContain(`"metadata":${compact}`);
    const jobId = JobResult.parse(JSON.parse(res.text)).jobId;
    const polled = await fetch(`${server.base}/v1/jobs/${jobId}?wait=false`, { headers: { authorization: `Bearer ${keys.images}` } });
    expect(await polled.text()).toContain(`"metadata":${compact}`);
  });

  it('cuts a 1,024-character file name on a code point boundary, never leaving half a surrogate pair', { timeout: 60_000 }, async () => {
    const jpeg = await makeJpeg(64, 64);
    const res = await post('file name with an emoji across the 1,024 cut', [file(jpeg, `${'n'.repeat(1023)}😀.jpg`)]);
    expect(res.status).toBe(202);
    const name = JobResult.parse(JSON.parse(res.text)).results[0].file.name;
    expect(name).toBe('n'.repeat(1023));
    expect(res.text).not.toContain('\\ufffd');
    expect(res.text).not.toContain('\ufffd');
  });
});
