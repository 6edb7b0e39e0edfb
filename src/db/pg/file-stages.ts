// Where each file under analysis stands (src/db/stores.ts FileStages) on PostgreSQL: the worker analysing a file
// writes its stage into the file's row; GET /v1/jobs/{jobId}/progress on any API node reads it.
import type { Queryable } from './connection.js';
import type { FileStages, RunningStage } from '../stores.js';

export function createPgFileStages(db: Queryable): FileStages {
  return {
    async set(fileId, s) {
      await db.query("UPDATE job_files SET stage = $2, stage_started_at = $3 WHERE id = $1 AND status = 'processing'", [fileId, s.stage, s.startedAt]);
    },
    async get(fileIds) {
      const { rows } = await db.query<{ id: string; stage: RunningStage['stage']; stage_started_at: string }>(
        // Not filtered on status: a file that ended between the caller's read of the files and this one keeps its
        // last stage here, so it never shows `queued` again after `analysing` (the caller asks only for files it read
        // as processing). A released unit's stage is cleared by the queue.
        "SELECT id, stage, stage_started_at FROM job_files WHERE id = ANY($1::text[]) AND stage IS NOT NULL",
        [fileIds],
      );
      return new Map(rows.map((r) => [r.id, { stage: r.stage, startedAt: r.stage_started_at }]));
    },
  };
}
