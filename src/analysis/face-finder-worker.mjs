// Bootstrap of the face finder's worker thread (face-finder-thread.ts): registers tsx in this thread, then runs the
// thread's body (face-finder-worker.ts).
import { register } from 'tsx/esm/api';

register();
await import('./face-finder-worker.ts');
