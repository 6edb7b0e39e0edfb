// Parts the multipart parser (busboy) does not hand over as a named file or field: a part without a name, one with no
// Content-Disposition or one that is not form-data. Each refuses the request whole (400 invalid_request, path
// `part.N`), whatever its size, next to valid parts or alone, over inject() and real HTTP, and leaves nothing behind;
// before, a nameless part was a 500, and a skipped part was ignored, or of 16-64 KiB left the request unanswered.
// A part named "file" without a filename is a file.
import { describe, expect, it } from 'vitest';
import { JobResult } from '../../src/api/schemas.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { body, expectError, expectNothingLeft, footprint, rawHttp, startCore, startListening, type TestCore } from './helpers.js';

const BOUNDARY = '----framingTestBoundary';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** One part as sent: its raw header lines and its bytes. */
interface RawPart {
  headers: string[];
  data: Buffer;
}

function rawBody(parts: RawPart[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) chunks.push(Buffer.from(`--${BOUNDARY}\r\n${p.headers.map((h) => `${h}\r\n`).join('')}\r\n`, 'latin1'), p.data, Buffer.from('\r\n'));
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const fileOf = (data: Buffer, filename = 'a.jpg'): RawPart => ({
  headers: [`Content-Disposition: form-data; name="file"; filename="${filename}"`, 'Content-Type: image/jpeg'],
  data,
});

const post = (core: TestCore, payload: Buffer) =>
  core.app.inject({ method: 'POST', url: '/v1/assess?wait=false', payload, headers: { 'content-type': CONTENT_TYPE, authorization: `Bearer ${core.imagesKey}` } });

async function postHttp(core: TestCore, base: string, payload: Buffer) {
  const head = [
    'POST /v1/assess?wait=false HTTP/1.1',
    `Host: ${new URL(base).host}`,
    `Authorization: Bearer ${core.imagesKey}`,
    `Content-Type: ${CONTENT_TYPE}`,
    `Content-Length: ${payload.length}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  const res = await rawHttp(base, Buffer.concat([Buffer.from(head), payload]));
  return { statusCode: res.status, body: res.body };
}

/** Parts busboy skips: no Content-Disposition, or one that is not form-data. */
const skipped = (size: number): Record<string, RawPart> => ({
  'no Content-Disposition': { headers: ['Content-Type: text/plain'], data: Buffer.alloc(size, 0x61) },
  'Content-Disposition: attachment': { headers: ['Content-Disposition: attachment; name="file"; filename="a.jpg"', 'Content-Type: image/jpeg'], data: Buffer.alloc(size, 0x61) },
});

describe('POST /v1/assess: parts without a name, or that the parser skips', () => {
  it('refuses a part with a filename but no name, or a bare form-data, as invalid_request at part.N (not a 500)', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const before = await footprint(core);
    const cases: [RawPart[], string, RegExp][] = [
      [[{ headers: ['Content-Disposition: form-data; filename="a.jpg"', 'Content-Type: image/jpeg'], data: jpeg }], 'part.0', /Part 1 of the body \(file "a\.jpg"\) has no name/],
      [[{ headers: ['Content-Disposition: form-data'], data: Buffer.from('hello') }], 'part.0', /Part 1 of the body has no name/],
      [[fileOf(jpeg), { headers: ['Content-Disposition: form-data; filename="b.jpg"'], data: jpeg }], 'part.1', /Part 2 of the body \(file "b\.jpg"\) has no name/],
      [[{ headers: ['Content-Disposition: form-data; name="metadata"'], data: Buffer.from('{}') }, { headers: ['Content-Disposition: form-data'], data: Buffer.from('x') }, fileOf(jpeg)], 'part.1', /Part 2 of the body has no name/],
    ];
    for (const [parts, path, message] of cases) {
      const err = expectError(await post(core, rawBody(parts)), 400, 'invalid_request', path);
      expect(err.message).toMatch(message);
    }
    await expectNothingLeft(core, before);
  });

  it('refuses a skipped part of any size, alone or next to a valid file, and answers every request (inject)', { timeout: 30_000 }, async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const before = await footprint(core);
    for (const size of [5, 16 * 1024 + 100, 20_000, 40_000, 64 * 1024 - 10, 200_000]) {
      for (const [label, part] of Object.entries(skipped(size))) {
        for (const [parts, path] of [[[part], 'part.0'], [[part, fileOf(jpeg)], 'part.0'], [[fileOf(jpeg), part], 'part.1']] as const) {
          const res = await post(core, rawBody([...parts]));
          const err = expectError(res, 400, 'invalid_request', path);
          expect({ size, label, message: err.message }).toEqual({ size, label, message: expect.stringMatching(/Content-Disposition/) });
        }
      }
    }
    await expectNothingLeft(core, before);
  });

  it('answers a complete body whose only part is skipped (17-64 KB) over real HTTP, instead of never', { timeout: 30_000 }, async () => {
    const core = await startCore();
    const base = await startListening(core);
    const jpeg = await makeJpeg(64, 64);
    const before = await footprint(core);
    for (const size of [17_000, 20_000, 40_000, 60_000]) {
      for (const part of Object.values(skipped(size))) {
        expectError(await postHttp(core, base, rawBody([part])), 400, 'invalid_request', 'part.0');
        expectError(await postHttp(core, base, rawBody([fileOf(jpeg), part])), 400, 'invalid_request', 'part.1');
      }
    }
    await expectNothingLeft(core, before);
  });

  it('refuses a part whose header block never ends before the next delimiter', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const before = await footprint(core);
    const payload = Buffer.concat([rawBody([fileOf(jpeg)]).subarray(0, -`--${BOUNDARY}--\r\n`.length), Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"\r\n--${BOUNDARY}--\r\n`)]);
    expectError(await post(core, payload), 400, 'invalid_request', 'part.1');
    await expectNothingLeft(core, before);
  });

  it('takes a part named "file" sent without a filename as a file, named file-N', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    // What `curl -F 'file=<photo.jpg;type=image/jpeg'` sends.
    const res = await post(core, rawBody([fileOf(jpeg, 'first.jpg'), { headers: ['Content-Disposition: form-data; name="file"', 'Content-Type: image/jpeg'], data: jpeg }]));
    expect(res.statusCode).toBe(202);
    expect(body(res, JobResult).results.map((r) => r.file.name)).toEqual(['first.jpg', 'file-2']);
  });

  it('still takes the ordinary bodies: a preamble, folded and extra part headers, metadata, a boundary cut across chunks', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const payload = Buffer.concat([
      Buffer.from('a preamble line\r\n'),
      rawBody([
        { headers: ['Content-Disposition: form-data;', '\tname="metadata"', 'X-Extra: 1'], data: Buffer.from('{"case":"c"}') },
        { headers: ['content-disposition: FORM-DATA; NAME=file; filename="x.jpg"', 'Content-Type: image/jpeg'], data: jpeg },
      ]),
      Buffer.from('an epilogue'),
    ]);
    const res = await post(core, payload);
    expect(res.statusCode).toBe(202);
    expect(body(res, JobResult).metadata).toEqual({ case: 'c' });
    // Over real HTTP, the same body sent as many small writes: delimiters and header ends fall across chunks.
    const base = await startListening(core);
    const net = await import('node:net');
    const { hostname, port } = new URL(base);
    const head = `POST /v1/assess?wait=false HTTP/1.1\r\nHost: ${new URL(base).host}\r\nAuthorization: Bearer ${core.imagesKey}\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`;
    const answer = await new Promise<string>((resolve, reject) => {
      const s = net.connect(Number(port), hostname, async () => {
        s.setNoDelay(true);
        s.write(head);
        for (let i = 0; i < payload.length; i += 7) {
          s.write(payload.subarray(i, i + 7));
          if (i % 700 === 0) await new Promise((r) => setImmediate(r));
        }
      });
      let d = '';
      s.on('data', (c) => (d += c));
      s.on('error', reject);
      s.on('close', () => resolve(d));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 202/);
  });
});
