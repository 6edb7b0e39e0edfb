// Bootstrap of an analysis worker process: registers tsx, then runs the worker (src/jobs/analysis-worker.ts).
import { register } from 'tsx/esm/api';

register();
await import('../jobs/analysis-worker.ts');
