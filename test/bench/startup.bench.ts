// Start-up: time from spawning `veracity serve` to the first answered request, and to the model being ready (the
// first analysis of a small image completed, sent as soon as the server answers: the first analysis process starts
// loading the model with the core, config.warmWorkers). Cold (fresh data dir: database, migrations, keys) and warm
// (existing data dir) starts.
import fs from 'node:fs';
import path from 'node:path';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { HAS_MODEL, assess, round, startServer, tempDir, waitJob, writeResult } from './bench-support.js';

async function once(dataDir: string, jpeg: string) {
  const server = await startServer({ dataDir });
  try {
    let answeredAt = 0;
    for (;;) {
      const r = await fetch(`${server.base}/v1/jobs?applicationId=${server.imagesAppId}&pageSize=1`, { headers: { authorization: `Bearer ${server.imagesKey}` } }).catch(() => null);
      if (r?.status === 200) {
        answeredAt = performance.now();
        break;
      }
    }
    const res = await assess(server, server.imagesKey, [{ path: jpeg, name: 'first.jpg' }], true);
    const job = res.status === 202 ? await waitJob(server, server.imagesKey, res.body.jobId) : res.body;
    const readyAt = performance.now();
    return {
      listeningMs: round(server.listeningAt - server.startedAt, 0),
      firstAnswerMs: round(answeredAt - server.startedAt, 0),
      modelReadyMs: round(readyAt - server.startedAt, 0),
      firstResult: job.results[0].status + (job.results[0].error ? `:${job.results[0].error.code}` : ''),
    };
  } finally {
    await server.stop();
  }
}

const dir = tempDir();
const jpeg = path.join(dir, 'first.jpg');
fs.writeFileSync(jpeg, await makeJpeg(512, 384));
const dataDir = path.join(dir, 'data');
const cold = await once(dataDir, jpeg);
const warm = await once(dataDir, jpeg);
writeResult('startup', { cold, warm }, HAS_MODEL ? [] : ['no model: "model ready" is the time to the first result_unavailable'], { note: 'no fixed target' });
fs.rmSync(dir, { recursive: true, force: true });
