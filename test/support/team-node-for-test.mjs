// A team-server node in a child process, for tests that kill nodes: TEAM_ROLE=api (createTeamApiNode + listen on
// 127.0.0.1) or worker (createTeamWorker, its analysis worker chosen by TEAM_WORKER_ENTRY, empty: the real one).
// TEAM_OPTIONS holds the queue timings; the database URL and the key secret come from the environment.
import { register } from 'tsx/esm/api';

register();
const { loadConfig } = await import('../../src/config/config.ts');
const { createTeamApiNode, createTeamWorker, keySecretFromEnv } = await import('../../src/team-core.ts');
const { coreReady } = await import('../../src/api/core-ready.ts');
const { announceReady } = await import('../../src/ready-signal.ts');

const team = {
  databaseUrl: process.env.VERACITY_DATABASE_URL,
  blobDir: process.env.VERACITY_BLOB_DIR,
  keySecret: keySecretFromEnv(),
  ...JSON.parse(process.env.TEAM_OPTIONS ?? '{}'),
};
const config = loadConfig({ dataDir: process.env.TEAM_DATA_DIR, modelsDir: process.env.TEAM_MODELS_DIR, logLevel: 'silent', warmWorkers: false, ...JSON.parse(process.env.TEAM_CONFIG ?? '{}') });
let node;
if (process.env.TEAM_ROLE === 'api') {
  node = await createTeamApiNode(config, team);
  await node.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = node.app.server.address();
  node.setPort(port);
  announceReady(coreReady(`http://127.0.0.1:${port}`, null));
} else {
  node = await createTeamWorker(config, team, { workerEntry: process.env.TEAM_WORKER_ENTRY || undefined });
  process.send?.({ type: 'worker-ready' });
}
const stop = async () => {
  await node.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
