// Time limits of POST /v1/assess: a stalled upload answered 408 leaves no temp file behind while its client keeps the
// connection open.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { expectNothingLeft, filePart, footprint, multipart, startCore, startListening, tmpFiles } from './helpers.js';

const until = async (fn: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (fn()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return fn();
};

describe('POST /v1/assess time limits', () => {
  it('answers a stalled upload 408 and deletes its partial temp file at once, though the client keeps its socket open', { timeout: 30_000 }, async () => {
    const core = await startCore({ requestTimeoutMs: 1500, headersTimeoutMs: 1000 });
    const base = await startListening(core);
    const before = await footprint(core);
    const { body: payload, contentType } = await multipart([filePart(Buffer.concat([await makeJpeg(64, 64), Buffer.alloc(2 ** 20, 1)]), 'stall.jpg')]);
    const { hostname, port } = new URL(base);
    // allowHalfOpen: like a client that reads the answer and does not hang up when the server half-closes.
    const socket = net.connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (answer += c));
    socket.on('error', () => {});
    try {
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /v1/assess?wait=false HTTP/1.1\r\nHost: ${new URL(base).host}\r\nAuthorization: Bearer ${core.imagesKey}\r\nContent-Type: ${contentType}\r\nContent-Length: ${payload.length}\r\n\r\n`,
      );
      socket.write(payload.subarray(0, payload.length >> 1)); // then nothing more
      expect(await until(() => tmpFiles(core).length === 1, 5000)).toBe(true); // the upload is being written
      expect(await until(() => answer.includes('\r\n\r\n'), 10_000)).toBe(true);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'invalid_request', message: 'Request timed out.' });
      // The client has not closed its side: the temp file must go anyway, promptly.
      expect(await until(() => tmpFiles(core).length === 0, 2000)).toBe(true);
      await expectNothingLeft(core, before);
    } finally {
      socket.destroy();
    }
  });

});
