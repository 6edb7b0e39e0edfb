// Load: bursts of concurrent submissions larger than the analysis queue and the rate limit, over real HTTP, while
// clients poll. Every answer is 200, 202, 429 or 503 (with their headers), never a 500 or a hang; every accepted
// job completes; nothing is stored for a refused request.
import { afterAll, describe, expect, it } from 'vitest';
import { SLOW_WORKER, footprint, startCore, startListening } from '../api/helpers.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { eventually, multipartBody, prng, suiteSeed, writeReport } from './harness.js';

const seed = suiteSeed();
const counts: Record<string, number> = {};
const notes: string[] = [];
afterAll(() => writeReport({ suite: 'load-burst', seed, counts, lost: counts.acceptedNotCompleted ?? 0, notes }));

describe('load bursts', () => {
  it('answers a burst larger than the queue and the rate limit with 200/202/429/503 only, and completes every accepted job', { timeout: 180_000 }, async () => {
    process.env.VERACITY_TEST_ANALYSE_MS = '150';
    const QUEUE = 12;
    const core = await startCore({ queueMaxFiles: QUEUE, rateLimitMax: 90, rateLimitWindowMs: 60_000, maxWaiters: 8, waitWindowMs: 5000 }, { workerEntry: SLOW_WORKER });
    const base = await startListening(core);
    const rnd = prng(seed);
    const jpeg = await makeJpeg(64, 64);
    const BURST = Number(process.env.RELIABILITY_BURST ?? 120);
    const statuses: Record<string, number> = {};
    const accepted: { jobId: string; files: number }[] = [];
    let hung = 0;
    let polls = 0;
    let pollErrors = 0;

    const submitOne = async (i: number) => {
      const n = 1 + Math.floor(rnd() * 3);
      const { body, contentType } = multipartBody(Array.from({ length: n }, (_, k) => ({ name: 'file', data: jpeg, filename: `b${i}-${k}.jpg` })));
      const wait = rnd() < 0.5;
      try {
        const res = await fetch(`${base}/v1/assess?wait=${wait}`, {
          method: 'POST',
          body: new Uint8Array(body),
          headers: { authorization: `Bearer ${core.imagesKey}`, 'content-type': contentType },
          signal: AbortSignal.timeout(45_000),
        });
        const text = await res.text();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 200 || res.status === 202) accepted.push({ jobId: (JSON.parse(text) as { jobId: string }).jobId, files: n });
        else if (res.status === 429) {
          if (!res.headers.get('retry-after') || !res.headers.get('ratelimit-limit') || !/"retryAfter":\d+/.test(text)) notes.push(`429 without its headers: ${text}`);
        } else if (res.status === 503) {
          if (!/"code":"service_unavailable"/.test(text) || !/"retryAfter":\d+/.test(text)) notes.push(`503 without retryAfter: ${text}`);
        } else notes.push(`burst request ${i}: ${res.status} ${text.slice(0, 200)}`);
      } catch (err) {
        hung++;
        notes.push(`burst request ${i}: ${(err as Error).name} ${(err as Error).message}`);
      }
    };
    // Pollers run through the burst: the API keeps answering reads while the queue is full.
    let bursting = true;
    const poller = (async () => {
      while (bursting) {
        // Another application's key: its own rate-limit bucket, so polling does not eat the burst's budget.
        const r = await fetch(`${base}/v1/jobs?applicationId=${core.pdfsAppId}&pageSize=5`, { headers: { authorization: `Bearer ${core.pdfsKey}` } }).catch(() => null);
        polls++;
        if (!r || (r.status !== 200 && r.status !== 429)) pollErrors++;
        await r?.text();
        await new Promise((x) => setTimeout(x, 50));
      }
    })();
    const t0 = Date.now();
    await Promise.all(Array.from({ length: BURST }, (_, i) => submitOne(i)));
    bursting = false;
    await poller;
    counts.burstMs = Date.now() - t0;

    // Every accepted job completes (read in-process: the images key's rate-limit window is spent by the burst).
    await Promise.race([core.jobs.whenIdle(), new Promise((x) => setTimeout(x, 60_000))]);
    const finals = await Promise.all(accepted.map(async (a) => (await core.jobs.getJob(a.jobId))?.status ?? 'missing'));
    const stored = await eventually(async () => (await footprint(core)).tmp.length === 0);
    const f = await footprint(core);
    Object.assign(counts, {
      burstRequests: BURST,
      ...Object.fromEntries(Object.entries(statuses).map(([k, v]) => [`status_${k}`, v])),
      accepted: accepted.length,
      acceptedNotCompleted: finals.filter((s) => s !== 'completed').length,
      hung,
      polls,
      pollErrors,
    });
    expect(stored).toBe(true);
    expect(f.jobs).toBe(accepted.length); // refused requests stored nothing
    expect(f.files).toBe(accepted.reduce((n, a) => n + a.files, 0));
    expect(f.stored).toHaveLength(f.files);
    expect(Object.keys(statuses).every((s) => ['200', '202', '429', '503'].includes(s))).toBe(true);
    expect(statuses['503'] ?? 0).toBeGreaterThan(0); // the burst did overflow the queue
    expect(hung).toBe(0);
    expect(pollErrors).toBe(0);
    expect(finals.every((s) => s === 'completed')).toBe(true);
    expect(notes).toEqual([]);
  });
});
