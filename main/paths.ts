// Where the shell keeps its data and logs: the data dir comes from the core's own resolver (src/config/data-dir.ts),
// so Electron, the browser mode of `npm start` and `veracity serve` share one database and one set of API keys.
import path from 'node:path';

export { defaultDataDir, resolveDataDir } from '../src/config/data-dir.js';

export function logDir(dataDir: string): string {
  return path.join(dataDir, 'logs');
}
