// The request logger made lazily (src/server/request-logger.ts): a request with nothing to say writes nothing,
// and a line that is written is the one Fastify's own child would have written, request id included.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { lazyRequestLogger } from '../../../src/server/request-logger.js';

async function appWith(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const app = Fastify({ logger: { level, stream }, genReqId: () => 'req-1', childLoggerFactory: lazyRequestLogger });
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

  it('at info writes Fastify\'s request lines as before', async () => {
    const { app, lines } = await appWith('info');
    await app.inject({ url: '/quiet' });
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
      ['incoming request', 'req-1'],
      ['request completed', 'req-1'],
    ]);
  });
});
