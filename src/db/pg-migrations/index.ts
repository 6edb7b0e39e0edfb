// Numbered, forward-only migrations of the team server's PostgreSQL schema: the SQLite schema of src/db/migrations
// as it stands after its migration 3, plus what only a multi-node server needs (a sequence for `seq`, shared
// rate-limit counters). A shipped migration is never edited: add a new one. The server refuses to start when the
// database has applied a migration this list does not know, or knows differently (src/db/pg/connection.ts).
import type { Migration } from '../migrations/index.js';

export type { Migration };

export const PG_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'initial',
    // Instants stay ISO 8601 text, as on SQLite: the API echoes them as stored, and they sort as text. metadata is
    // the caller's compact JSON text, echoed verbatim. Verdicts, reviews and tile scores are json, not jsonb: kept as
    // written (key order, and a reviewer's note may hold \u0000, which jsonb refuses), still readable by ->>.
    sql: `
CREATE TABLE applications (
  id text PRIMARY KEY,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('images', 'pdfs')),
  created_at text NOT NULL
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  application_id text NOT NULL REFERENCES applications(id),
  name text NOT NULL,
  token_sha256 text NOT NULL CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
  token_hint text NOT NULL,
  created_at text NOT NULL,
  expires_at text,
  revoked_at text
);
CREATE INDEX api_keys_application ON api_keys(application_id);

CREATE TABLE cases (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  notes text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'in_review', 'closed')),
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX cases_updated ON cases(updated_at DESC);

-- seq orders lists newest first; a sequence, so that API nodes inserting at once never take the same value.
CREATE TABLE jobs (
  id text PRIMARY KEY,
  application_id text NOT NULL REFERENCES applications(id),
  metadata text,
  case_name text,
  case_id text REFERENCES cases(id),
  status text NOT NULL CHECK (status IN ('processing', 'completed', 'error', 'rejected')),
  error_code text,
  error_message text,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  completed_at text,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX jobs_application_seq ON jobs(application_id, seq DESC);
CREATE INDEX jobs_application_case_seq ON jobs(application_id, case_name, seq DESC);
CREATE INDEX jobs_case_seq ON jobs(case_id, seq);
CREATE INDEX jobs_created ON jobs(created_at);

CREATE TABLE job_files (
  id text PRIMARY KEY,
  job_id text NOT NULL REFERENCES jobs(id),
  position integer NOT NULL,
  name text NOT NULL,
  size bigint NOT NULL,
  media_type text NOT NULL,
  sha256 text NOT NULL,
  status text NOT NULL CHECK (status IN ('processing', 'completed', 'error')),
  attempts integer NOT NULL DEFAULT 0,
  started_at text NOT NULL,
  completed_at text,
  verdict json,
  regions json,
  model_version text,
  aggregation text,
  error_code text,
  error_message text,
  review json,
  UNIQUE (job_id, position)
);
CREATE INDEX job_files_processing ON job_files(status) WHERE status = 'processing';
CREATE INDEX job_files_sha256 ON job_files(sha256);

CREATE TABLE idempotency_keys (
  application_id text NOT NULL REFERENCES applications(id),
  key text NOT NULL,
  fingerprint text NOT NULL,
  job_id text NOT NULL REFERENCES jobs(id),
  created_at_ms bigint NOT NULL,
  PRIMARY KEY (application_id, key)
);
CREATE INDEX idempotency_created ON idempotency_keys(created_at_ms);
`,
  },
  {
    id: 2,
    name: 'rate-limit counters',
    // One fixed window per key, shared by every API node. Unlogged: a counter lost in a crash only restarts a window.
    sql: `
CREATE UNLOGGED TABLE rate_limit_counters (
  key text PRIMARY KEY,
  count integer NOT NULL,
  window_ends_ms bigint NOT NULL
);
CREATE INDEX rate_limit_window_ends ON rate_limit_counters(window_ends_ms);
`,
  },
  {
    id: 3,
    name: 'file stages',
    // The stage of a file under analysis, written by the worker analysing it, so that GET .../progress on any API
    // node shows decoding and analysing (a desktop runner keeps them in memory). Read only while the file is
    // processing; a retried file's next worker overwrites it.
    sql: `
ALTER TABLE job_files
  ADD COLUMN stage text CHECK (stage IN ('decoding', 'analysing')),
  ADD COLUMN stage_started_at text;
`,
  },
  {
    id: 4,
    name: 'blobs',
    // The uploaded files and their previews kept in PostgreSQL itself, for small deployments without a shared
    // directory (src/db/pg/pg-blob-store.ts). Files are at most 25 MiB: bytea holds them whole. A row is written
    // whole in one transaction with the other files of its job, and a preview only beside a stored file.
    sql: `
CREATE TABLE blobs (
  file_id text PRIMARY KEY,
  data bytea NOT NULL,
  preview bytea
);
`,
  },
  {
    id: 5,
    name: 'files removed from their case',
    // As the desktop's migration 4: a file taken out of its case (issue 22) is marked; its job keeps it, in History.
    sql: `
ALTER TABLE job_files ADD COLUMN case_removed_at text;
`,
  },
  {
    id: 6,
    name: 'team nodes',
    // One row per running API node or worker, beaten every second or so (src/db/pg/node-registry.ts): a node whose
    // row has not been beaten for a while is dead, and any node removes what it left (its temp folder in the shared
    // blob directory). Instants are the database's own clock (timestamptz, now()), never a node's: nodes on several
    // machines compare them.
    sql: `
CREATE TABLE team_nodes (
  id text PRIMARY KEY,
  role text NOT NULL CHECK (role IN ('api', 'worker')),
  host text NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  beat_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX team_nodes_beat ON team_nodes(beat_at);
`,
  },
  {
    id: 7,
    name: 'file holders',
    // The node (team_nodes.id) of the worker that took a file from the queue last: when that node stops beating,
    // whichever node reaps it hands the file's unit back to the queue at once (src/db/pg/work-queue.ts handOn),
    // instead of waiting for pg-boss's expiry. Not a foreign key: a reaped node's id may stay here until the file is
    // taken again.
    sql: `
ALTER TABLE job_files ADD COLUMN held_by text;
CREATE INDEX job_files_held_by ON job_files(held_by) WHERE status = 'processing';
`,
  },
  {
    id: 8,
    name: 'pixel size of analysed images',
    // As the desktop's migration 5: the analysed image's size, orientation applied (FileResult.pixelSize).
    sql: `
ALTER TABLE job_files ADD COLUMN pixel_width integer, ADD COLUMN pixel_height integer;
`,
  },
];
