// The core as the reliability suite runs it in a child process: the same createCore + listen as `veracity serve`,
// with the analysis worker chosen by REL_WORKER (empty: the real one) so kills can land mid-analysis on demand.
import { register } from 'tsx/esm/api';

register();
const { loadConfig } = await import('../../src/config/config.ts');
const { createCore, listen } = await import('../../src/core.ts');
const { coreReady } = await import('../../src/api/core-ready.ts');
const { announceReady } = await import('../../src/ready-signal.ts');

const overrides = JSON.parse(process.env.REL_CONFIG ?? '{}');
const config = loadConfig({ dataDir: process.env.REL_DATA_DIR, modelsDir: process.env.REL_MODELS_DIR, warmWorkers: false, ...overrides });
const core = await createCore(config, { workerEntry: process.env.REL_WORKER || undefined });
const url = await listen(core);
announceReady(coreReady(url, null));
const stop = async () => {
  await core.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.once('SIGHUP', stop);
