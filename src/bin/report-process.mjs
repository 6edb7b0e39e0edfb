// Bootstrap of a report process: registers tsx, then runs it (src/jobs/report-process.ts).
import { register } from 'tsx/esm/api';

register();
await import('../jobs/report-process.ts');
