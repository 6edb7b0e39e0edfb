// Bootstrap of a report worker thread: registers tsx in the thread, then runs it (src/jobs/report-thread.ts).
import { register } from 'tsx/esm/api';

register();
await import('../jobs/report-thread.ts');
