// The desktop's JobEvents (src/db/stores.ts): one process, so a job's completion is an in-process event.
import { EventEmitter } from 'node:events';
import type { JobEvents } from '../db/stores.js';

export function createLocalJobEvents(): JobEvents {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  return {
    async publishFinished(jobId) {
      events.emit(jobId);
    },
    onFinished(jobId, fn) {
      events.on(jobId, fn);
      return () => events.off(jobId, fn);
    },
    async close() {
      events.removeAllListeners();
    },
  };
}
