// The request logger made lazily (src/server/request-logger.ts), wired as the core wires it (createCoreLogger,
// fastifyLoggerOptions): a request with nothing to say writes nothing, and a line that is written is the one
// Fastify's own child would have written, request id included; at info, Fastify's two lines per request as before.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createCoreLogger, fastifyLoggerOptions } from '../../../src/server/request-logger.js';

async function appWith(level: 'warn' | 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const app = Fastify({ ...fastifyLoggerOptions(createCoreLogger(level, stream)), genReqId: () => 'req-1' });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/loud', async (req) => {
    req.log.info({ step: 1 }, 'info line');
    req.log.error({ step: 2 }, 'error line');
    return { ok: true };
  });
  app.get('/child', async (req) => {
    req.log.child({ part: 'x' }).warn('from a child');
    return { level: req.log.level };
  });
  app.get('/fail', async (req) => {
    req.log.error({ err: new Error('disk full') }, 'request failed');
    return { ok: false };
  });
  await app.ready();
  return { app, lines };
}

describe('request logger', () => {
  it('writes nothing for a request with nothing to say at warn', async () => {
    const { app, lines } = await appWith('warn');
    expect((await app.inject({ url: '/quiet' })).statusCode).toBe(200);
    expect(lines).toEqual([]);
  });

  it('writes the lines of enabled levels with the request id, and skips the others', async () => {
    const { app, lines } = await appWith('warn');
    await app.inject({ url: '/loud' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, reqId: 'req-1', step: 2, msg: 'error line' });
    const child = await app.inject({ url: '/child' });
    expect(child.json()).toEqual({ level: 'warn' });
    expect(lines[1]).toMatchObject({ level: 40, reqId: 'req-1', part: 'x', msg: 'from a child' });
  });

  it('writes an error with its stack through the error serialiser', async () => {
    const { app, lines } = await appWith('warn');
    await app.inject({ url: '/fail' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, reqId: 'req-1', msg: 'request failed', err: { type: 'Error', message: 'disk full' } });
    expect(String((lines[0].err as { stack: string }).stack)).toContain('disk full');
  });

  it('at info writes Fastify\'s request lines as before', async () => {
    const { app, lines } = await appWith('info');
    await app.inject({ url: '/quiet' });
    expect(lines.every((l) => l.level === 30)).toBe(true);
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
      ['incoming request', 'req-1'],
      ['request completed', 'req-1'],
    ]);
  });
});
