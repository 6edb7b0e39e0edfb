// Multipart and HTTP-framing abuse over real sockets against a listening core: thousands of parts, huge part
// headers, unterminated part headers, bodies cut at seeded offsets (cleanly framed or with the socket torn down),
// a client that stalls mid-body or mid-headers, a trickling client. Every case: a documented refusal or a closed
// connection, answered before the rest of a flood is read, temp files gone, no job, the core still answering.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { footprint, startCore, startListening, type TestCore } from '../api/helpers.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { eventually, multipartBody, prng, rawRequest, suiteSeed, writeReport, type Part, type RawResponse } from './harness.js';

const seed = suiteSeed();
const counts: Record<string, number> = { abuseRequests: 0 };
const timings: Record<string, number> = {};
const failures: string[] = [];
const allFailures: string[] = [];
beforeEach(() => {
  failures.length = 0;
});
afterEach(() => {
  allFailures.push(...failures);
});

afterAll(() => writeReport({ suite: 'multipart-abuse', seed, counts, lost: 0, notes: allFailures, timings }));

const REQUEST_TIMEOUT_MS = 3000;
const HEADERS_TIMEOUT_MS = 2000;

async function listening(): Promise<{ core: TestCore; port: number }> {
  const core = await startCore({ requestTimeoutMs: REQUEST_TIMEOUT_MS, headersTimeoutMs: HEADERS_TIMEOUT_MS });
  const base = await startListening(core);
  return { core, port: Number(new URL(base).port) };
}

async function post(port: number, key: string, body: Buffer, contentType: string, extra: Partial<Parameters<typeof rawRequest>[0]> = {}): Promise<RawResponse> {
  counts.abuseRequests++;
  return rawRequest({
    port,
    path: '/v1/assess?wait=false',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType, 'content-length': String(body.length) },
    body,
    timeoutMs: 20_000,
    ...extra,
  });
}

/** Nothing stored and the core still answering (checked over HTTP, as a client would). */
async function expectClean(c: { core: TestCore; port: number }, label: string): Promise<void> {
  const ok = await eventually(async () => {
    const f = await footprint(c.core);
    return f.tmp.length === 0 && f.stored.length === 0 && f.jobs === 0 && f.files === 0;
  }, 5000);
  if (!ok) failures.push(`${label}: left ${JSON.stringify(await footprint(c.core))}`);
  const alive = await fetch(`http://127.0.0.1:${c.port}/v1/jobs?applicationId=${c.core.imagesAppId}`, { headers: { authorization: `Bearer ${c.core.imagesKey}` } });
  if (alive.status !== 200) failures.push(`${label}: core answered ${alive.status} afterwards`);
}

function expectRefusal(res: RawResponse, label: string, statuses: number[], code?: string): void {
  if (res.status === null || !statuses.includes(res.status)) failures.push(`${label}: expected ${statuses.join('/')}, got ${res.status} (${res.closedBy}) ${res.body.slice(0, 200)}`);
  else if (code && !res.body.includes(`"code":"${code}"`)) failures.push(`${label}: expected code ${code}: ${res.body.slice(0, 200)}`);
}

describe('multipart abuse over real HTTP', () => {
  it('refuses floods of parts long before the flood is read', { timeout: 60_000 }, async () => {
    const c = await listening();
    const jpeg = await makeJpeg(64, 64);
    const files: Part[] = Array.from({ length: 5000 }, (_, i) => ({ name: 'file', data: Buffer.concat([jpeg, Buffer.alloc(4096)]), filename: `f${i}.jpg` }));
    const flood = multipartBody(files);
    // Paced like a real upload (64 KiB every 5 ms, ~13 MB/s), so an early answer can arrive while the flood is still
    // being sent: the refusal comes at the 21st file, whatever follows.
    let res = await post(c.port, c.core.imagesKey, flood.body, flood.contentType, { chunk: 64 * 1024, pauseMs: 5 });
    expectRefusal(res, '5000 file parts', [400], 'invalid_request');
    timings['5000 file parts: body bytes sent before the answer'] = res.bodyBytesSent;
    timings['5000 file parts: total body bytes'] = flood.body.length;
    // Kernel socket buffers take a few MB whatever the server does; most of the 28 MB must never be sent.
    if (res.bodyBytesSent > flood.body.length * 0.75) failures.push(`5000 file parts: ${res.bodyBytesSent} of ${flood.body.length} bytes were taken before the refusal`);
    await expectClean(c, '5000 file parts');

    const fields = multipartBody(Array.from({ length: 10_000 }, (_, i) => ({ name: i % 2 ? 'x' : 'metadata', data: '{}' })));
    res = await post(c.port, c.core.imagesKey, fields.body, fields.contentType);
    expectRefusal(res, '10000 fields', [400], 'invalid_request');
    await expectClean(c, '10000 fields');
    expect(failures).toEqual([]);
  });

  it('refuses huge and unterminated part headers', { timeout: 60_000 }, async () => {
    const c = await listening();
    const jpeg = await makeJpeg(64, 64);
    const cases: [string, Part[]][] = [
      ['1 MiB file name', [{ name: 'file', data: jpeg, filename: `${'n'.repeat(2 ** 20)}.jpg` }]],
      ['5000 header lines in one part', [{ name: 'file', data: jpeg, filename: 'a.jpg', extraHeaders: Array.from({ length: 5000 }, (_, i) => `X-H${i}: v`) }]],
      ['one 512 KiB header value', [{ name: 'file', data: jpeg, filename: 'a.jpg', extraHeaders: [`X-Big: ${'v'.repeat(512 * 1024)}`] }]],
      ['part header starting with a space', [{ name: 'file', data: jpeg, filename: 'a.jpg', extraHeaders: [' folded: continuation'] }]],
      ['1 MiB part name', [{ name: 'f'.repeat(2 ** 20), data: jpeg, filename: 'a.jpg' }]],
    ];
    for (const [label, parts] of cases) {
      const before = await footprint(c.core);
      const { body, contentType } = multipartBody(parts);
      const res = await post(c.port, c.core.imagesKey, body, contentType);
      if (res.status === 202 || res.status === 200) {
        // busboy reads at most 80 KiB of part header and 20 header pairs and ignores the rest (bounded memory):
        // the file itself is intact, so taking it is fine, with its name capped as display text.
        counts.headerAbuseAccepted = (counts.headerAbuseAccepted ?? 0) + 1;
        const job = JSON.parse(res.body) as { results: { file: { name: string } }[] };
        if (job.results.length !== 1 || job.results[0].file.name.length > 1024) failures.push(`${label}: accepted with ${res.body.slice(0, 200)}`);
        await c.core.jobs.whenIdle();
      } else {
        expectRefusal(res, label, [400, 413, 431]);
        const settled = await eventually(async () => JSON.stringify(await footprint(c.core)) === JSON.stringify({ ...before, tmp: [] }));
        if (!settled) failures.push(`${label}: refusal left ${JSON.stringify(await footprint(c.core))}`);
      }
    }
    const afterHeaders = await footprint(c.core);
    const clean = async (label: string) => {
      const ok = await eventually(async () => JSON.stringify(await footprint(c.core)) === JSON.stringify({ ...afterHeaders, tmp: [] }));
      if (!ok) failures.push(`${label}: left ${JSON.stringify(await footprint(c.core))}`);
    };
    // A boundary that never ends the header block: the body runs out inside the part header.
    const boundary = 'unterminated';
    const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nX-Pad: ${'p'.repeat(100_000)}`);
    const res = await post(c.port, c.core.imagesKey, body, `multipart/form-data; boundary=${boundary}`);
    expectRefusal(res, 'unterminated part header', [400], 'invalid_request');
    await clean('unterminated part header');
    for (const [label, ct] of [
      ['no boundary', 'multipart/form-data'],
      ['empty boundary', 'multipart/form-data; boundary='],
      ['200-char boundary', `multipart/form-data; boundary=${'b'.repeat(200)}`],
    ]) {
      const r = await post(c.port, c.core.imagesKey, multipartBody([{ name: 'file', data: jpeg, filename: 'a.jpg' }]).body, ct);
      expectRefusal(r, label, [400], 'invalid_request');
      await clean(label);
    }
    expect(failures).toEqual([]);
  });

  it('leaves nothing for bodies cut at seeded offsets, framed or torn down', { timeout: 90_000 }, async () => {
    const c = await listening();
    const rnd = prng(seed ^ 0x5a5a);
    const jpeg = await makeJpeg(200, 150);
    const big = Buffer.concat([jpeg, Buffer.alloc(3 * 2 ** 20, 7)]);
    const { body, contentType } = multipartBody([
      { name: 'metadata', data: '{"case":"cut"}' },
      { name: 'file', data: jpeg, filename: 'a.jpg' },
      { name: 'file', data: big, filename: 'b.jpg' },
      { name: 'file', data: jpeg, filename: 'c.jpg' },
    ]);
    const cuts = Array.from({ length: Number(process.env.RELIABILITY_CUTS ?? 10) }, () => 1 + Math.floor(rnd() * (body.length - 2)));
    // Inside the closing delimiter (--boundary--) and just before it: the last file is never known to be complete.
    const closing = body.lastIndexOf(Buffer.from(`--${contentType.split('boundary=')[1]}--`));
    cuts.push(closing + 6, closing - 1);
    counts.cutPoints = cuts.length * 2;
    for (const at of cuts) {
      // Framed: Content-Length says the body ends here, and it does (a client that sent a broken body).
      const framed = body.subarray(0, at);
      const res = await post(c.port, c.core.imagesKey, framed, contentType);
      expectRefusal(res, `framed cut at ${at}`, [400, 422]);
      await expectClean(c, `framed cut at ${at}`);
      // Torn down: Content-Length promises the whole body; the socket dies after `at` bytes.
      await post(c.port, c.core.imagesKey, body, contentType, { cutAt: at, after: 'destroy', chunk: 64 * 1024 });
      await expectClean(c, `socket torn down at ${at}`);
    }
    expect(failures).toEqual([]);
  });

  it('cuts off a client that stalls mid-body, mid-headers or trickles, and cleans up', { timeout: 120_000 }, async () => {
    const c = await listening();
    const jpeg = await makeJpeg(200, 150);
    const { body, contentType } = multipartBody([{ name: 'file', data: Buffer.concat([jpeg, Buffer.alloc(2 ** 20, 1)]), filename: 'stall.jpg' }]);
    const started = Date.now();
    const [stalledBody, trickle, stalledHeaders] = await Promise.all([
      post(c.port, c.core.imagesKey, body, contentType, { cutAt: Math.floor(body.length / 2), after: 'stall', timeoutMs: 60_000 }),
      post(c.port, c.core.imagesKey, body, contentType, { chunk: 1024, pauseMs: 250, timeoutMs: 60_000 }),
      new Promise<RawResponse>((resolve) => {
        // Slowloris: a request line and half a header, then nothing.
        counts.abuseRequests++;
        import('node:net').then((net) => {
          const t0 = Date.now();
          const s = net.connect(c.port, '127.0.0.1', () => s.write(`POST /v1/assess HTTP/1.1\r\nHost: 127.0.0.1:${c.port}\r\nAuthorization: Bea`));
          let d = '';
          s.on('data', (x) => (d += x));
          const done = (closedBy: RawResponse['closedBy']) => resolve({ status: /^HTTP\/1\.1 (\d{3})/.exec(d) ? Number(/^HTTP\/1\.1 (\d{3})/.exec(d)![1]) : null, headers: d, body: '', bodyBytesSent: 0, closedBy, ms: Date.now() - t0 });
          s.on('close', () => done('server'));
          setTimeout(() => (s.destroy(), done('timeout')), 60_000);
        });
      }),
    ]);
    timings['stalled mid-body: cut after ms'] = stalledBody.ms;
    timings['trickling 4 KiB/s: cut after ms'] = trickle.ms;
    timings['stalled mid-headers: cut after ms'] = stalledHeaders.ms;
    timings['all three settled after ms'] = Date.now() - started;
    for (const [label, r] of [['stalled mid-body', stalledBody], ['trickling client', trickle], ['stalled mid-headers', stalledHeaders]] as const) {
      if (r.closedBy === 'timeout') failures.push(`${label}: the server never cut it off (waited ${r.ms} ms)`);
      else if (r.status !== null && r.status !== 408 && r.status !== 400) failures.push(`${label}: answered ${r.status}`);
    }
    await expectClean(c, 'stalled clients');
    expect(failures).toEqual([]);
  });
  it('keeps answering while 300 sockets trickle headers (slowloris), and closes them at the headers timeout', { timeout: 60_000 }, async () => {
    const c = await listening();
    const net = await import('node:net');
    const sockets = Array.from({ length: 300 }, () => {
      const s = net.connect(c.port, '127.0.0.1', () => s.write(`GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:${c.port}\r\nX-Slow: `));
      s.on('error', () => undefined);
      s.resume(); // read what the server sends (its 408 and FIN), or the socket never notices it was closed
      return s;
    });
    counts.slowlorisSockets = sockets.length;
    const drip = setInterval(() => sockets.forEach((s) => s.writable && s.write('a')), 500);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const lat: number[] = [];
      for (let i = 0; i < 30; i++) {
        const t0 = performance.now();
        const r = await fetch(`http://127.0.0.1:${c.port}/v1/jobs?applicationId=${c.core.imagesAppId}`, { headers: { authorization: `Bearer ${c.core.imagesKey}` } });
        lat.push(performance.now() - t0);
        if (r.status !== 200) failures.push(`legit request during slowloris: ${r.status}`);
        await r.text();
      }
      lat.sort((a, b) => a - b);
      timings['slowloris: legit request max ms'] = Math.round(lat.at(-1)!);
      if (lat.at(-1)! > 2000) failures.push(`a legit request took ${Math.round(lat.at(-1)!)} ms during the slowloris`);
      // Dripping headers does not reset the headers timeout: every socket is closed soon after it.
      const closed = await eventually(() => sockets.every((s) => s.destroyed || s.readyState === 'closed'), HEADERS_TIMEOUT_MS + 4000, 100);
      if (!closed) failures.push(`${sockets.filter((s) => !s.destroyed).length} slow sockets still open after the headers timeout`);
    } finally {
      clearInterval(drip);
      sockets.forEach((s) => s.destroy());
    }
    expect(failures).toEqual([]);
  });
});
