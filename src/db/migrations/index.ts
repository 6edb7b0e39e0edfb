// Numbered, forward-only migrations. A shipped migration is never edited: add a new one.
// The app refuses to start when the database has applied a migration this list does not know (or knows differently).

export interface Migration {
  id: number;
  name: string;
  sql: string;
  /**
   * The migration removes data that must not survive anywhere in the file (a secret): the runner applies it with
   * secure_delete on, then VACUUMs and truncates the WAL, so no freed page or old WAL frame keeps the old bytes.
   */
  scrub?: boolean;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'initial',
    sql: `
CREATE TABLE applications (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('images', 'pdfs')),
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  application_id TEXT NOT NULL REFERENCES applications(id),
  name TEXT NOT NULL,
  token TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
) STRICT;
CREATE INDEX api_keys_application ON api_keys(application_id);

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  application_id TEXT NOT NULL REFERENCES applications(id),
  metadata TEXT,
  case_name TEXT,
  status TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'error', 'rejected')),
  error_code TEXT,
  error_message TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT,
  seq INTEGER NOT NULL
) STRICT;
CREATE INDEX jobs_application_seq ON jobs(application_id, seq DESC);
CREATE INDEX jobs_application_case_seq ON jobs(application_id, case_name, seq DESC);

CREATE TABLE job_files (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  size INTEGER NOT NULL,
  media_type TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('processing', 'completed', 'error')),
  attempts INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL,
  completed_at TEXT,
  verdict TEXT,
  regions TEXT,
  model_version TEXT,
  aggregation TEXT,
  error_code TEXT,
  error_message TEXT,
  review TEXT,
  UNIQUE (job_id, position)
) STRICT;
CREATE INDEX job_files_status ON job_files(status);

CREATE TABLE idempotency_keys (
  application_id TEXT NOT NULL REFERENCES applications(id),
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (application_id, key)
) STRICT;
CREATE INDEX idempotency_created ON idempotency_keys(created_at_ms);
`,
  },
  {
    id: 2,
    name: 'api keys stored as hashes',
    scrub: true,
    // Keys were kept in plain text. Keep only the SHA-256 of each key (sha256_hex is registered by connection.ts)
    // and its last four characters, which identify it in lists without being usable.
    sql: `
CREATE TABLE api_keys_hashed (
  id TEXT PRIMARY KEY,
  application_id TEXT NOT NULL REFERENCES applications(id),
  name TEXT NOT NULL,
  token_sha256 TEXT NOT NULL CHECK (length(token_sha256) = 64),
  token_hint TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
) STRICT;
INSERT INTO api_keys_hashed (id, application_id, name, token_sha256, token_hint, created_at, expires_at, revoked_at)
  SELECT id, application_id, name, sha256_hex(token), substr(token, -4), created_at, expires_at, revoked_at FROM api_keys;
DROP TABLE api_keys;
ALTER TABLE api_keys_hashed RENAME TO api_keys;
CREATE INDEX api_keys_application ON api_keys(application_id);
`,
  },
  {
    id: 3,
    name: 'cases',
    // A case was only the free text of metadata.case (jobs.case_name). It becomes a row of its own that jobs of
    // both applications link to; each distinct case_name becomes one case (random_uuid is registered by
    // connection.ts), dated by its jobs. case_name stays: it is what GET /v1/jobs?case= compares, as sent.
    sql: `
CREATE TABLE cases (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  notes TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'in_review', 'closed')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;
CREATE INDEX cases_updated ON cases(updated_at DESC);

ALTER TABLE jobs ADD COLUMN case_id TEXT REFERENCES cases(id);
INSERT INTO cases (id, name, created_at, updated_at)
  SELECT random_uuid(), case_name, min(created_at), max(updated_at) FROM jobs WHERE case_name IS NOT NULL GROUP BY case_name;
UPDATE jobs SET case_id = (SELECT c.id FROM cases c WHERE c.name = jobs.case_name) WHERE case_name IS NOT NULL;
CREATE INDEX jobs_case_seq ON jobs(case_id, seq);

-- History search: exact SHA-256, date ranges, newest first.
CREATE INDEX job_files_sha256 ON job_files(sha256);
CREATE INDEX jobs_created ON jobs(created_at);
CREATE INDEX jobs_seq ON jobs(seq DESC);
`,
  },
  {
    id: 4,
    name: 'files removed from their case',
    // The window can take a file out of its case (issue 22) while its job, and the file itself, stay in History:
    // the file is marked, not moved. A case's counts, jobs and report leave marked files out.
    sql: `
ALTER TABLE job_files ADD COLUMN case_removed_at TEXT;
`,
  },
  {
    id: 5,
    name: 'pixel size of analysed images',
    // The analysed image's width and height, EXIF orientation applied (v1 extension FileResult.pixelSize, issue 22):
    // the window shows them on cards and rows. NULL for PDFs and for files analysed before this migration.
    sql: `
ALTER TABLE job_files ADD COLUMN pixel_width INTEGER;
ALTER TABLE job_files ADD COLUMN pixel_height INTEGER;
`,
  },
];
