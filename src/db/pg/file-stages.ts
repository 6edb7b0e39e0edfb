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
        "SELECT id, stage, stage_started_at FROM job_files WHERE id = ANY($1::text[]) AND status = 'processing' AND stage IS NOT NULL",
        [fileIds],
      );
      return new Map(rows.map((r) => [r.id, { stage: r.stage, startedAt: r.stage_started_at }]));
    },
  };
}
