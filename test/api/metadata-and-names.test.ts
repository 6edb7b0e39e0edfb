// What the caller sends as text comes back as sent (issue #10): metadata is read as raw bytes and kept as the caller's
// own compact JSON (invalid UTF-8 refused, depth bounded with its own message), and a long file name is cut on a code
// point boundary. Bodies are built by hand where the platform's encoder would repair what is being tested.
import { describe, expect, it } from 'vitest';
import { JobResult } from '../../src/api/schemas.js';
import { serializeReply, toJobResult } from '../../src/jobs/job-result.js';
import { METADATA_MAX_DEPTH } from '../../src/api/limits.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { multipartBody, type Part } from '../reliability/harness.js';
import { assess, body, expectError, expectNothingLeft, filePart, footprint, sql, startCore, type TestCore } from './helpers.js';

async function post(core: TestCore, parts: Part[], headers: Record<string, string> = {}) {
  const { body: payload, contentType } = multipartBody(parts);
  return core.app.inject({
    method: 'POST',
    url: '/v1/assess?wait=false',
    payload,
    headers: { 'content-type': contentType, authorization: `Bearer ${core.imagesKey}`, ...headers },
  });
}

const jpegPart = async (): Promise<Part> => ({ name: 'file', data: await makeJpeg(64, 64), filename: 'a.jpg', contentType: 'image/jpeg' });
const storedMetadata = async (core: TestCore, jobId: string) => (await sql<{ metadata: string }>(core, 'SELECT metadata FROM jobs WHERE id = ?', [jobId]))[0].metadata;

describe('metadata is the caller\'s own text', () => {
  it('refuses metadata whose bytes are not valid UTF-8, whatever charset the part declares', async () => {
    const core = await startCore();
    const before = await footprint(core);
    const bad = Buffer.concat([Buffer.from('{"case":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    for (const extraHeaders of [undefined, ['Content-Type: application/json'], ['Content-Type: text/plain; charset=utf-8']]) {
      const res = await post(core, [await jpegPart(), { name: 'metadata', data: bad, extraHeaders }]);
      const err = expectError(res, 400, 'invalid_request', 'metadata');
      expect(err.message).toMatch(/UTF-8/);
    }
    await expectNothingLeft(core, before);
  });

  it(`refuses metadata nested deeper than ${METADATA_MAX_DEPTH} levels with its own message, accepts ${METADATA_MAX_DEPTH}`, async () => {
    const core = await startCore();
    const nested = (n: number) => `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;
    const ok = await post(core, [await jpegPart(), { name: 'metadata', data: nested(METADATA_MAX_DEPTH) }]);
    expect(ok.statusCode).toBe(202);
    // Brackets inside strings are text, not nesting.
    const inString = await post(core, [await jpegPart(), { name: 'metadata', data: JSON.stringify({ note: '[{'.repeat(5000) }) }]);
    expect(inString.statusCode).toBe(202);
    const before = await footprint(core);
    for (const depth of [METADATA_MAX_DEPTH + 1, 2700, 8000]) {
      const res = await post(core, [await jpegPart(), { name: 'metadata', data: nested(depth) }]);
      const err = expectError(res, 400, 'invalid_request', 'metadata');
      expect(err.message).toContain(`at most ${METADATA_MAX_DEPTH} levels`);
    }
    await expectNothingLeft(core, before);
  });

  it('keeps the exact compact text: integers beyond 2^53, duplicate keys, escapes and key order survive', async () => {
    const core = await startCore();
    const sent = '{ "id": 12345678901234567890123, "a": 1, "a": 2, "2": "\\u00e9\\/x", "1": 1.50, "big": -9007199254740993e0 }';
    const compact = '{"id":12345678901234567890123,"a":1,"a":2,"2":"\\u00e9\\/x","1":1.50,"big":-9007199254740993e0}';
    const res = await post(core, [await jpegPart(), { name: 'metadata', data: sent }]);
    expect(res.statusCode).toBe(202);
    const job = body(res, JobResult);
    expect(await storedMetadata(core, job.jobId)).toBe(compact);
    // The job result renders that text verbatim wherever the reply is serialised with serializeReply().
    const record = { ...(await core.jobsStore.jobs.getJob(job.jobId))!, metadataJson: await storedMetadata(core, job.jobId) };
    const text = serializeReply(toJobResult(record, await core.jobsStore.jobs.getFiles(job.jobId)));
    expect(text).toContain(`"metadata":${compact}`);
    expect(JobResult.parse(JSON.parse(text)).jobId).toBe(job.jobId);
  });

  it('echoes metadata keys that JavaScript gives a meaning to (toJSON, __proto__ refused elsewhere) in the poll and the list', async () => {
    const core = await startCore();
    const sent = '{"toJSON":{"x":1},"constructor":2,"case":"T"}';
    const job = body(await post(core, [await jpegPart(), { name: 'metadata', data: sent }]), JobResult);
    const poll = await core.app.inject({ method: 'GET', url: `/v1/jobs/${job.jobId}?wait=false`, headers: { authorization: `Bearer ${core.imagesKey}` } });
    expect(poll.body).toContain(`"metadata":${sent}`);
    const list = await core.app.inject({ method: 'GET', url: `/v1/jobs?applicationId=${core.imagesAppId}`, headers: { authorization: `Bearer ${core.imagesKey}` } });
    expect(list.body).toContain(`"metadata":${sent}`);
    // Outside a reply the job is its parsed self and no placeholder of the echo leaks into plain JSON (a toJSON key
    // is the one such a view cannot keep; every reply keeps it, above).
    const record = { ...(await core.jobsStore.jobs.getJob(job.jobId))!, metadataJson: await storedMetadata(core, job.jobId) };
    expect(JSON.parse(JSON.stringify(toJobResult(record, []))).metadata).toEqual({ constructor: 2, case: 'T' });
  });

  it('tells payloads apart that differ only beyond 2^53 or in a duplicate key (idempotency fingerprint)', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const first = await assess(core, [filePart(jpeg), { name: 'metadata', data: '{"n":9007199254740993,"k":1,"k":2}' }], { idempotencyKey: 'k1', wait: 'false' });
    expect(first.statusCode).toBe(202);
    for (const data of ['{"n":9007199254740992,"k":1,"k":2}', '{"n":9007199254740993,"k":2}']) {
      const again = await assess(core, [filePart(jpeg), { name: 'metadata', data }], { idempotencyKey: 'k1', wait: 'false' });
      expectError(again, 422, 'invalid_request', 'Idempotency-Key');
    }
    const same = await assess(core, [filePart(jpeg), { name: 'metadata', data: '{ "n" : 9007199254740993, "k":1, "k":2 }' }], { idempotencyKey: 'k1', wait: 'false' });
    expect(same.statusCode).toBe(202);
    expect(same.headers['idempotent-replayed']).toBe('true');
  });

  it('still refuses __proto__ keys, also when written with escapes', async () => {
    const core = await startCore();
    const before = await footprint(core);
    for (const data of ['{"__proto__":{"polluted":true}}', '{"a":{"\\u005f_proto__":{"polluted":true}}}']) {
      const res = await post(core, [await jpegPart(), { name: 'metadata', data }]);
      expectError(res, 400, 'invalid_request', 'metadata');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expectNothingLeft(core, before);
  });
});

describe('file names', () => {
  it('cuts a name at 1024 code units on a code point boundary, never inside a surrogate pair', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const split = `${'a'.repeat(1023)}😀tail.jpg`; // the pair straddles the cut
    const whole = `${'b'.repeat(1022)}😀tail.jpg`; // the pair ends exactly at the cut
    const res = await assess(core, [filePart(jpeg, split), filePart(jpeg, whole)], { wait: 'false' });
    expect(res.statusCode).toBe(202);
    const names = body(res, JobResult).results.map((r) => r.file.name);
    expect(names).toEqual(['a'.repeat(1023), `${'b'.repeat(1022)}😀`]);
    expect(names.join('')).not.toContain('\ufffd');
  });
});
