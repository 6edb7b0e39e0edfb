// Bootstrap of a report worker thread: registers tsx in the thread, then runs it (src/report/report-thread.ts).
import { register } from 'tsx/esm/api';

register();
await import('../report/report-thread.ts');
