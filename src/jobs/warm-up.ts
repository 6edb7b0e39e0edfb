// Worker processes started with the core, ahead of the first file (config.warmWorkers): each loads what its first task
// needs (the probe's modules and pdf.js; the model, with a made-up picture analysed end to end) while nobody waits.
import type { CoreConfig } from '../config/config.js';
import type { WarmReport, WorkerPool } from './worker-pool.js';
import type { WarmUp } from './worker-protocol.js';

/** How the core's pools warm up (config.warmWorkers): the analysis processes with the model, the probe process without. */
export function warmUpOf(config: CoreConfig): { analysis?: WarmUp; probe?: WarmUp } {
  if (!config.warmWorkers) return {};
  return { analysis: { modelsDir: config.modelsDir, threads: config.threadsPerWorker }, probe: {} };
}

/** What the pools' first processes reported (Core.warmedUp and the team nodes'); empty lists without a warm-up. */
export interface WarmedUp {
  analysis: WarmReport[];
  probe: WarmReport[];
}

/**
 * Starts each pool's first process ahead of the first file (WorkerPool.start) where config.warmWorkers says so, logging
 * what each reported; without it, nothing is started and the lists are empty.
 */
export function startPools(config: Pick<CoreConfig, 'warmWorkers'>, pools: { analysis?: WorkerPool; probe?: WorkerPool }, log?: { info: (o: object, m: string) => void }): Promise<WarmedUp> {
  if (!config.warmWorkers) return Promise.resolve({ analysis: [], probe: [] });
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
