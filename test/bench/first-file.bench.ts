// The first file after a start: a fresh `veracity serve` (new data dir), then one 12-MP photo-like JPEG in
// POST /v1/assess?wait=true, timed from the request to its verdict; then a second such photo on the same server (the
// steady state). With the first analysis process and the probe process started with the core, loading the model and
// pdf.js ahead (the default, config.warmWorkers) and without (VERACITY_WARM_WORKERS=0: they start with the first
// file, as before), each sent either as soon as the server
// answers and has its keys ("at once": a person who drops a file the moment the window opens) or PAUSE_MS after it
// started listening (a person who opens the window and then picks a file). Rounds interleave the four cases.
// A figure, not a test: nothing is asserted.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HAS_MODEL, assess, jpegs12mp, round, startServer, tempDir, writeResult } from './bench-support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PAUSE_MS = 10_000;

type Case = { warm: boolean; pause: boolean };
const CASES: Case[] = [
  { warm: false, pause: false },
  { warm: true, pause: false },
  { warm: false, pause: true },
  { warm: true, pause: true },
];
const nameOf = (c: Case) => `${c.warm ? 'warm' : 'cold'}, ${c.pause ? `after ${PAUSE_MS / 1000} s` : 'at once'}`;

async function once(c: Case, photos: string[]) {
  const dir = tempDir();
  const server = await startServer({ dataDir: path.join(dir, 'data'), env: { VERACITY_WARM_WORKERS: c.warm ? '1' : '0' } });
  try {
    if (c.pause) await sleep(Math.max(0, PAUSE_MS - (performance.now() - server.listeningAt)));
    const times: number[] = [];
    for (const [i, p] of photos.entries()) {
      const t0 = performance.now();
      const res = await assess(server, server.imagesKey, [{ path: p, name: `IMG_${2000 + i}.jpg` }], true);
      times.push(performance.now() - t0);
      if (res.status !== 200 || res.body.results[0]?.status !== 'completed') throw new Error(`${nameOf(c)}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    return { firstMs: Math.round(times[0]!), secondMs: Math.round(times[1]!) };
  } finally {
    await server.stop();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main() {
  if (!HAS_MODEL) {
    writeResult('first-file', { skipped: 'no model' });
    return;
  }
  const photos = await jpegs12mp(2);
  const runs: Record<string, Array<{ firstMs: number; secondMs: number }>> = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of CASES) {
      const m = await once(c, photos);
      (runs[nameOf(c)] ??= []).push(m);
      console.log(`round ${r + 1} ${nameOf(c)}: first ${m.firstMs} ms, second ${m.secondMs} ms`);
    }
  }
  const figures: Record<string, unknown> = { rounds: ROUNDS, pauseMs: PAUSE_MS, runs };
  const med = (name: string, k: 'firstMs' | 'secondMs') => median(runs[name]!.map((x) => x[k]));
  const summary: Record<string, { firstMedianMs: number; secondMedianMs: number; firstOverSecond: number }> = {};
  for (const c of CASES) {
    const n = nameOf(c);
    summary[n] = { firstMedianMs: Math.round(med(n, 'firstMs')), secondMedianMs: Math.round(med(n, 'secondMs')), firstOverSecond: round(med(n, 'firstMs') / med(n, 'secondMs'), 2) };
  }
  figures.summary = summary;
  figures.warmOverCold = {
    atOnce: round(med(nameOf(CASES[1]!), 'firstMs') / med(nameOf(CASES[0]!), 'firstMs'), 2),
    afterPause: round(med(nameOf(CASES[3]!), 'firstMs') / med(nameOf(CASES[2]!), 'firstMs'), 2),
  };
  writeResult('first-file', figures, [
    'one 12-MP photo-like JPEG per request (wait=true), a fresh serve per run, its analysis processes at their defaults (2 on 2 cores, 1 ONNX thread each)',
    'warm: the first analysis process and the probe process start with the core and load the model and pdf.js before any file (config.warmWorkers, the default); cold: VERACITY_WARM_WORKERS=0',
  ]);
}

await main();
