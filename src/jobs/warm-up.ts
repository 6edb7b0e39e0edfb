// Worker processes started with the core, ahead of the first file (config.warmWorkers): each loads what its first task
// needs (the probe's modules and pdf.js; the analysis' modules and the model, each network run once) while nobody waits.
import type { CoreConfig } from '../config/config.js';
import type { WarmReport, WorkerPool } from './worker-pool.js';
import type { WarmUp } from './worker-protocol.js';

/** How the core's pools warm up (config.warmWorkers): the analysis processes with the model, the probe process without. */
export function warmUpOf(config: CoreConfig): { analysis?: WarmUp; probe?: WarmUp } {
  if (!config.warmWorkers) return {};
  return { analysis: { modelsDir: config.modelsDir, threads: config.threadsPerWorker }, probe: {} };
}

/** Starts each pool's first process ahead of the first file (WorkerPool.start), logging what each reported. */
export function startPools(pools: { analysis?: WorkerPool; probe?: WorkerPool }, log?: { info: (o: object, m: string) => void }): Promise<{ analysis: WarmReport[]; probe: WarmReport[] }> {
  const started = Date.now();
  const one = async (pool: WorkerPool | undefined, name: string) => {
    // One process each: the first file goes to the first analysis process, and a second one loading beside it would
    // take half the two cores from that file (measured: test/bench/first-file). Others start with the files that need them.
    const reports = pool ? await pool.start(1) : [];
    if (reports.length) log?.info({ reports, ms: Date.now() - started }, `${name} processes ready`);
    return reports;
  };
  return Promise.all([one(pools.analysis, 'analysis'), one(pools.probe, 'probe')]).then(([analysis, probe]) => ({ analysis, probe }));
}
