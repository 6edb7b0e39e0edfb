// `npm run bench`: runs every benchmark in its own process, one after the other (they share 2 cores), writes
// test/bench/results/*.json, and rewrites the table in test/bench/README.md from those results.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const benches = ['startup', 'cold-start', 'cold-start-window', 'api-overhead', 'responsiveness', 'memory', 'throughput', 'pg-queue', 'team', 'c2pa', 'worker-recovery', 'report', 'model-memory', 'pixel-latency', 'first-file', 'analysis-process'].filter((b) => only.length === 0 || only.includes(b));
const started = Date.now();
const failed = [];
for (const b of benches) {
  const t0 = Date.now();
  console.log(`\n=== ${b}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, `${b}.bench.ts`)], { stdio: 'inherit', timeout: 8 * 60_000 });
  console.log(`=== ${b}: ${r.status === 0 ? 'done' : `FAILED (${r.status ?? r.signal})`} in ${Math.round((Date.now() - t0) / 1000)} s`);
  if (r.status !== 0) failed.push(b);
}
const { writeTable } = await import('./readme-table.mjs');
writeTable();
console.log(`\nbench finished in ${Math.round((Date.now() - started) / 1000)} s${failed.length ? `; failed: ${failed.join(', ')}` : ''}`);
process.exitCode = failed.length ? 1 : 0;
