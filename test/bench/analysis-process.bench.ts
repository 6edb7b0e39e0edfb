// A fresh analysis process and its first file: the process forked as the pool forks it (src/bin/analysis-worker.mjs),
// timed from the fork to its ready message and to the answer for its first file, with the CPU the process spent
// (user + system, from /proc). Three first files, each in a process of its own: a 64-px JPEG with no model installed
// (what most test cores do: the answer is result_unavailable), a 512-px JPEG with the real model, and the same JPEG
// signed with Content Credentials (the C2PA code it then loads). With `--baseline DIR` (a checkout of another
// commit with its node_modules), that commit's worker is measured too, round by round, interleaved.
// A figure, not a test: nothing is asserted. Run: node --import tsx test/bench/analysis-process.bench.ts [--baseline DIR]
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { issueSigner, makeAuthority, pkiDir, signC2pa } from '../support/c2pa-signing.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { HAS_MODEL, MODELS, REPO, round, writeResult } from './bench-support.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const at = process.argv.indexOf('--baseline');
const baseline = at > 0 ? path.resolve(process.argv[at + 1]) : null;
const TICK_MS = 1000 / 100; // USER_HZ on Linux

function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
}

type Case = { name: string; file: string; modelsDir: string };

async function once(repo: string, c: Case): Promise<{ readyMs: number; answerMs: number; cpuMs: number; answer: string }> {
  const t0 = performance.now();
  const child = fork(path.join(repo, 'src', 'bin', 'analysis-worker.mjs'), [], {
    cwd: repo,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: ['--max-old-space-size=2048'],
    serialization: 'advanced',
  });
  try {
    let readyMs = 0;
    const answer = await new Promise<string>((resolve, reject) => {
      child.on('message', (m: { id: number; ok?: boolean; error?: { code: string } }) => {
        if (m.id === 0 && m.ok) {
          readyMs = performance.now() - t0;
          child.send({ id: 1, op: 'analyse', path: c.file, mediaType: 'image/jpeg', modelsDir: c.modelsDir, threads: 1 });
        } else if (m.id === 1 && m.ok !== undefined) resolve(m.ok ? 'verdict' : (m.error?.code ?? 'error'));
      });
      child.once('exit', (code) => reject(new Error(`the worker exited (${code})`)));
    });
    const answerMs = performance.now() - t0;
    return { readyMs, answerMs, cpuMs: cpuMs(child.pid!), answer };
  } finally {
    child.kill('SIGKILL');
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const pki = pkiDir();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-bench-process-'));
try {
  const noModel = fs.mkdtempSync(path.join(dir, 'no-model-'));
  const small = path.join(dir, 'small.jpg');
  fs.writeFileSync(small, await makeJpeg(64, 64));
  const photo = path.join(dir, 'photo.jpg');
  fs.writeFileSync(photo, await makeJpeg(512, 512));
  const ca = makeAuthority(pki.dir, 'Bench Root');
  const signed = path.join(dir, 'signed.jpg');
  fs.writeFileSync(signed, await signC2pa(fs.readFileSync(photo), issueSigner(ca, 'Bench Camera'), { claimGenerator: 'Bench Camera', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture' }] }));
  const cases: Case[] = [
    { name: 'no model, 64-px JPEG', file: small, modelsDir: noModel },
    ...(HAS_MODEL
      ? [
          { name: 'model, 512-px JPEG', file: photo, modelsDir: MODELS },
          { name: 'model, 512-px JPEG with Content Credentials', file: signed, modelsDir: MODELS },
        ]
      : []),
  ];
  const repos: Array<[string, string]> = [['this', REPO], ...(baseline ? [['baseline', baseline] as [string, string]] : [])];
  const runs = new Map<string, Array<Awaited<ReturnType<typeof once>>>>();
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of cases) {
      for (const [label, repo] of r % 2 ? [...repos].reverse() : repos) {
        const key = `${label}: ${c.name}`;
        runs.set(key, [...(runs.get(key) ?? []), await once(repo, c)]);
      }
    }
  }
  const figures: Record<string, unknown> = { rounds: ROUNDS, baseline: baseline ? path.basename(baseline) : null };
  for (const [key, rs] of runs) {
    figures[key] = {
      answers: [...new Set(rs.map((x) => x.answer))],
      readyMs: rs.map((x) => round(x.readyMs, 0)),
      answerMs: rs.map((x) => round(x.answerMs, 0)),
      cpuMs: rs.map((x) => round(x.cpuMs, 0)),
      medianAnswerMs: round(median(rs.map((x) => x.answerMs)), 0),
      medianCpuMs: round(median(rs.map((x) => x.cpuMs)), 0),
    };
  }
  if (baseline) {
    for (const c of cases) {
      const a = figures[`this: ${c.name}`] as { medianAnswerMs: number; medianCpuMs: number };
      const b = figures[`baseline: ${c.name}`] as { medianAnswerMs: number; medianCpuMs: number };
      figures[`ratio (this / baseline): ${c.name}`] = { answer: round(a.medianAnswerMs / b.medianAnswerMs), cpu: round(a.medianCpuMs / b.medianCpuMs) };
    }
  }
  writeResult('analysis-process', figures, [
    'each figure is one process: fork to ready, fork to the first answer, and the CPU it spent (user + system) by then',
    `${os.availableParallelism()} cores; rounds interleaved${baseline ? ', the two commits alternating first' : ''}`,
  ]);
} finally {
  pki.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
}
