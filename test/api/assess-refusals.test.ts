// Every refusal of POST /v1/assess in the spec's error table and limits, at and just past each boundary,
// and for each: the exact status, code and issue path, and nothing left behind (spec rule 1).
import { describe, expect, it } from 'vitest';
import { JobResult } from '../../src/api/schemas.js';
import { MAX_FILE_BYTES } from '../../src/api/limits.js';
import { makeJpeg, makePng, pngBomb, pngWithCorruptIdat, textPdf } from '../unit/analysis/fixtures.js';
import { assess, body, countRows, expectError, expectNothingLeft, filePart, footprint, multipart, rawHttp, startCore, startListening, type Part } from './helpers.js';

/** Pads a valid JPEG to exactly `size` bytes with bytes after its end marker (a common, harmless trailer). */
function padTo(buf: Buffer, size: number): Buffer {
  return Buffer.concat([buf, Buffer.alloc(size - buf.length, 0x20)]);
}

/** A valid PDF of exactly `size` bytes: padding goes into a comment line before the objects' offsets are computed. */
function pdfOfSize(size: number): Buffer {
  const base = textPdf();
  const header = '%PDF-1.7\n';
  const pad = size - base.length - 2;
  const padded = Buffer.concat([Buffer.from(header), Buffer.from(`%${'x'.repeat(pad - 1)}\n`), base.subarray(header.length)]);
  // Offsets in the xref shift by the padding; rebuild them.
  const text = padded.toString('latin1');
  const fixed = text.replace(/(\d{10}) 00000 n /g, (_m, o: string) => `${String(Number(o) + pad + 1).padStart(10, '0')} 00000 n `)
    .replace(/startxref\n(\d+)/, (_m, o: string) => `startxref\n${String(Number(o) + pad + 1)}`);
  const out = Buffer.from(fixed, 'latin1');
  // startxref digits may have grown by one character; trim the padding comment accordingly.
  return out.length === size ? out : pdfOfSizeTrim(out, out.length - size);
}
function pdfOfSizeTrim(buf: Buffer, extra: number): Buffer {
  const s = buf.toString('latin1');
  const i = s.indexOf('%x');
  return Buffer.from(s.slice(0, i + 1) + s.slice(i + 1 + extra), 'latin1');
}

describe('POST /v1/assess refusals', () => {
  it('accepts exactly 20 files and refuses 21 with invalid_request at path "file"', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const ok = await assess(core, Array.from({ length: 20 }, (_, i) => filePart(jpeg, `p${i}.jpg`)), { wait: 'false' });
    expect(ok.statusCode).toBe(202);
    expect(body(ok, JobResult).results).toHaveLength(20);
    const before = await footprint(core);
    const res = await assess(core, Array.from({ length: 21 }, (_, i) => filePart(jpeg, `p${i}.jpg`)));
    expectError(res, 400, 'invalid_request', 'file');
    await expectNothingLeft(core, before);
  });

  it('refuses a request without any file part', async () => {
    const core = await startCore();
    const before = await footprint(core);
    const res = await assess(core, [{ name: 'metadata', data: '{"case":"x"}' }]);
    expectError(res, 400, 'invalid_request', 'file');
    await expectNothingLeft(core, before);
  });

  it.each<[string, string, (jpeg: Buffer) => Part[]]>([
    ['a second metadata part', 'metadata', (jpeg) => [{ name: 'metadata', data: '{}' }, filePart(jpeg), { name: 'metadata', data: '{}' }]],
    ['a file part not named "file"', 'upload', (jpeg) => [filePart(jpeg), { name: 'upload', data: jpeg, filename: 'a.jpg' }]],
  ])('refuses %s with path "%s"', async (_label, path, parts) => {
    const core = await startCore();
    const before = await footprint(core);
    const jpeg = await makeJpeg(64, 64);
    const res = await assess(core, parts(jpeg));
    expectError(res, 400, 'invalid_request', path);
    await expectNothingLeft(core, before);
  });

  it('refuses an unknown text part with its name as path', async () => {
    const core = await startCore();
    const before = await footprint(core);
    const res = await assess(core, [filePart(await makeJpeg(64, 64)), { name: 'note', data: 'hello' }]);
    expectError(res, 400, 'invalid_request', 'note');
    await expectNothingLeft(core, before);
  });

  it.each([
    ['a GIF', Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;', 'latin1')],
    ['an empty file', Buffer.alloc(0)],
    ['HTML named .png', Buffer.from('<html><script>alert(1)</script></html>')],
    ['a PDF (images application)', textPdf()],
  ])('refuses %s as unsupported_format naming file.1 (the first refused file)', async (_label, bad) => {
    const core = await startCore();
    const before = await footprint(core);
    const res = await assess(core, [filePart(await makeJpeg(64, 64), 'ok.jpg'), filePart(bad, 'bad.png', 'image/png'), filePart(Buffer.from('x'), 'also-bad.gif')]);
    const err = expectError(res, 400, 'unsupported_format', 'file.1');
    expect(err.message).toContain('bad.png');
    await expectNothingLeft(core, before);
  });

  it('refuses an image sent to the PDF application', async () => {
    const core = await startCore();
    const before = await footprint(core);
    const res = await assess(core, [filePart(await makeJpeg(64, 64))], { key: core.pdfsKey });
    expectError(res, 400, 'unsupported_format', 'file.0');
    await expectNothingLeft(core, before);
  });

  it('takes an image of exactly 25 MiB and refuses one byte more with file_too_large', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const ok = await assess(core, [filePart(padTo(jpeg, MAX_FILE_BYTES.images))], { wait: 'false' });
    expect(ok.statusCode).toBe(202);
    expect(body(ok, JobResult).results[0].file.size).toBe(26_214_400);
    const before = await footprint(core);
    const res = await assess(core, [filePart(jpeg, 'small.jpg'), filePart(padTo(jpeg, MAX_FILE_BYTES.images + 1), 'big.jpg')]);
    const err = expectError(res, 413, 'file_too_large', 'file.1');
    expect(err.message).toContain('big.jpg');
    await expectNothingLeft(core, before);
  });

  it('takes a PDF of exactly 2 MiB and refuses one byte more with file_too_large', async () => {
    const core = await startCore();
    const exact = pdfOfSize(MAX_FILE_BYTES.pdfs);
    expect(exact.length).toBe(2_097_152);
    const ok = await assess(core, [filePart(exact, 'exact.pdf')], { key: core.pdfsKey, wait: 'false' });
    expect(ok.statusCode).toBe(202);
    const before = await footprint(core);
    const res = await assess(core, [filePart(pdfOfSize(MAX_FILE_BYTES.pdfs + 1), 'big.pdf')], { key: core.pdfsKey });
    expectError(res, 413, 'file_too_large', 'file.0');
    await expectNothingLeft(core, before);
  });

  it('applies the size limit of the kind detected from the bytes, not the name or Content-Type', async () => {
    const core = await startCore();
    const before = await footprint(core);
    // A 3 MiB PDF declared as a JPEG is still a PDF: unsupported for images, and it never counts as an image.
    const res = await assess(core, [filePart(pdfOfSize(3 * 1024 * 1024), 'photo.jpg', 'image/jpeg')]);
    expectError(res, 400, 'unsupported_format', 'file.0');
    await expectNothingLeft(core, before);
  });

  it.each([
    ['a truncated JPEG', async () => (await makeJpeg(256, 256)).subarray(0, 1500)],
    ['an image smaller than 32 px', async () => makePng(31, 200)],
    ['a PNG declaring 200 megapixels', async () => pngBomb(20000, 10000)],
    // issue #10: headers and checksums whole, image data that does not decode (DECISIONS 21: 422, never a job)
    ['a PNG whose IHDR is valid but whose IDAT is corrupt', async () => pngWithCorruptIdat(await makePng(200, 150))],
  ])('refuses %s as unprocessable', async (_label, make) => {
    const core = await startCore();
    const before = await footprint(core);
    const res = await assess(core, [filePart(await makeJpeg(64, 64), 'fine.jpg'), filePart(await make(), 'broken.img')]);
    expectError(res, 422, 'unprocessable', 'file.1');
    await expectNothingLeft(core, before);
  });

  it('refuses an encrypted-looking or page-less PDF as unprocessable', async () => {
    const core = await startCore();
    const before = await footprint(core);
    const pageless = Buffer.from(textPdf().toString('latin1').replace('/Count 1', '/Count 0').replace('/Kids [3 0 R]', '/Kids []'), 'latin1');
    const res = await assess(core, [filePart(pageless, 'empty.pdf')], { key: core.pdfsKey });
    expectError(res, 422, 'unprocessable', 'file.0');
    await expectNothingLeft(core, before);
  });

  describe('metadata', () => {
    const sized = (n: number) => {
      const base = JSON.stringify({ case: '' });
      return JSON.stringify({ case: 'x'.repeat(n - base.length) });
    };

    it('accepts 16384 bytes of compact JSON and refuses 16385', async () => {
      const core = await startCore();
      const jpeg = await makeJpeg(64, 64);
      expect(Buffer.byteLength(sized(16384))).toBe(16384);
      const ok = await assess(core, [filePart(jpeg), { name: 'metadata', data: sized(16384) }], { wait: 'false' });
      expect(ok.statusCode).toBe(202);
      expect(body(ok, JobResult).metadata).toEqual(JSON.parse(sized(16384)));
      const before = await footprint(core);
      const res = await assess(core, [filePart(jpeg), { name: 'metadata', data: sized(16385) }]);
      expectError(res, 400, 'invalid_request', 'metadata');
      await expectNothingLeft(core, before);
    });

    it('measures compact JSON: whitespace between values does not count, string contents do (UTF-8 bytes)', async () => {
      const core = await startCore();
      const jpeg = await makeJpeg(64, 64);
      const value = { case: 'x'.repeat(16384 - 11) }; // compact: {"case":"..."} = 16384 bytes
      const pretty = JSON.stringify(value, null, 40).replace('{', `{${' '.repeat(5000)}`);
      expect(Buffer.byteLength(pretty)).toBeGreaterThan(16384);
      const ok = await assess(core, [filePart(jpeg), { name: 'metadata', data: pretty }], { wait: 'false' });
      expect(ok.statusCode).toBe(202);
      const before = await footprint(core);
      const utf8 = JSON.stringify({ case: 'é'.repeat(8190) }); // 8190 chars, 16380 bytes + 11 > 16384
      const res = await assess(core, [filePart(jpeg), { name: 'metadata', data: utf8 }]);
      expectError(res, 400, 'invalid_request', 'metadata');
      await expectNothingLeft(core, before);
    });

    it.each([['an array', '[1,2]'], ['a string', '"x"'], ['null', 'null'], ['invalid JSON', '{"a":'], ['a __proto__ key', '{"__proto__":{"polluted":true}}']])(
      'refuses metadata that is %s',
      async (_label, data) => {
        const core = await startCore();
        const before = await footprint(core);
        const res = await assess(core, [filePart(await makeJpeg(64, 64)), { name: 'metadata', data }]);
        expectError(res, 400, 'invalid_request', 'metadata');
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        await expectNothingLeft(core, before);
      },
    );
  });

  it('refuses an Idempotency-Key of 256 characters and accepts 255', async () => {
    const core = await startCore();
    const jpeg = await makeJpeg(64, 64);
    const before = await footprint(core);
    const res = await assess(core, [filePart(jpeg)], { idempotencyKey: 'k'.repeat(256) });
    expectError(res, 400, 'invalid_request', 'Idempotency-Key');
    await expectNothingLeft(core, before);
    const ok = await assess(core, [filePart(jpeg)], { idempotencyKey: 'k'.repeat(255), wait: 'false' });
    expect(ok.statusCode).toBe(202);
  });

  it('refuses two Idempotency-Key headers (Node would join them into one key "x1, x2"), before storing anything', async () => {
    const core = await startCore();
    const base = await startListening(core);
    const { body: payload, contentType } = await multipart([filePart(await makeJpeg(64, 64))]);
    const post = (keyLines: string[]) =>
      rawHttp(
        base,
        Buffer.concat([
          Buffer.from(
            [
              'POST /v1/assess?wait=false HTTP/1.1',
              `Host: ${new URL(base).host}`,
              `Authorization: Bearer ${core.imagesKey}`,
              `Content-Type: ${contentType}`,
              `Content-Length: ${payload.length}`,
              ...keyLines,
              'Connection: close',
              '',
              '',
            ].join('\r\n'),
          ),
          payload,
        ]),
      );
    const before = await footprint(core);
    for (const lines of [['Idempotency-Key: x1', 'Idempotency-Key: x2'], ['Idempotency-Key: x1', 'idempotency-key: x1'], ['Idempotency-Key: x1, x2', 'IDEMPOTENCY-KEY: x3']]) {
      const res = await post(lines);
      expectError({ statusCode: res.status, body: res.body }, 400, 'invalid_request', 'Idempotency-Key');
    }
    await expectNothingLeft(core, before);
    // One header, even one whose value holds a comma, is one key.
    expect((await post(['Idempotency-Key: x1, x2'])).status).toBe(202);
    expect(await countRows(core, 'idempotency_keys')).toBe(1);
  });

  it('refuses wait values other than true/false', async () => {
    const core = await startCore();
    const before = await footprint(core);
    const res = await assess(core, [filePart(await makeJpeg(64, 64))], { wait: '1' });
    expectError(res, 400, 'invalid_request', 'wait');
    await expectNothingLeft(core, before);
  });

  it('refuses a body that is not multipart/form-data', async () => {
    const core = await startCore();
    const before = await footprint(core);
    const res = await core.app.inject({
      method: 'POST',
      url: '/v1/assess',
      payload: { file: 'x' },
      headers: { authorization: `Bearer ${core.imagesKey}` },
    });
    expectError(res, 400, 'invalid_request');
    await expectNothingLeft(core, before);
  });

  it('refuses any body that is not multipart/form-data for its Content-Type first, whatever its size (real HTTP)', async () => {
    const core = await startCore();
    const base = await startListening(core);
    const before = await footprint(core);
    const post = (contentType: string | null, size: number) =>
      rawHttp(
        base,
        Buffer.concat([
          Buffer.from(
            [
              'POST /v1/assess?wait=false HTTP/1.1',
              `Host: ${new URL(base).host}`,
              `Authorization: Bearer ${core.imagesKey}`,
              ...(contentType === null ? [] : [`Content-Type: ${contentType}`]),
              `Content-Length: ${size}`,
              'Connection: close',
              '',
              '',
            ].join('\r\n'),
          ),
          Buffer.alloc(size, 0x61),
        ]),
      );
    const answers = new Set<string>();
    for (const contentType of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', 'image/jpeg', 'multipart/mixed; boundary=x', null]) {
      // 5 bytes, one byte past the 64 KiB body limit of the other routes, and 1 MiB.
      for (const size of [5, 64 * 1024 + 1, 1024 * 1024]) {
        const res = await post(contentType, size);
        const err = expectError({ statusCode: res.status, body: res.body }, 400, 'invalid_request', 'Content-Type');
        answers.add(err.message);
        expect({ contentType, size, connection: res.headers.connection }).toEqual({ contentType, size, connection: 'close' });
      }
    }
    expect([...answers]).toEqual(['The body must be multipart/form-data with a boundary.']);
    await expectNothingLeft(core, before);
  });

  it('refuses a multipart body cut off in the middle of a file', async () => {
    const core = await startCore();
    const before = await footprint(core);
    const { multipart } = await import('./helpers.js');
    const { body: full, contentType } = await multipart([filePart(await makeJpeg(300, 300))]);
    const res = await core.app.inject({
      method: 'POST',
      url: '/v1/assess',
      payload: full.subarray(0, Math.floor(full.length / 2)),
      headers: { authorization: `Bearer ${core.imagesKey}`, 'content-type': contentType },
    });
    expect([400, 422]).toContain(res.statusCode);
    expectError(res, res.statusCode, res.statusCode === 400 ? 'invalid_request' : 'unprocessable');
    await expectNothingLeft(core, before);
  });
});

export type { Part };
