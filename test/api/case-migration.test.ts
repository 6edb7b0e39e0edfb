// Migration 3 (cases): a data dir written at schema 2, whose jobs name their case only in metadata.case, opens with
// one case per distinct name, each holding its jobs of both applications; a later job naming it joins it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaseJobList, CaseList } from '../../src/api/app-schemas.js';
import { openDatabase } from '../../src/db/connection.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { assess, body, filePart, onPg, startCore, tempDir } from './helpers.js';

const IMAGES = '11111111-1111-4111-8111-111111111111';
const PDFS = '22222222-2222-4222-8222-222222222222';

/** A database as the previous version left it: schema 2, rows written with that version's own SQL. */
function schema2DataDir(): string {
  const dataDir = tempDir();
  const db = openDatabase(path.join(dataDir, 'veracity.db'), MIGRATIONS.filter((m) => m.id <= 2));
  const at = (day: number) => `2025-01-0${day}T09:00:00.000Z`;
  db.prepare('INSERT INTO applications (id, name, kind, created_at) VALUES (?, ?, ?, ?)').run(IMAGES, 'Images', 'images', at(1));
  db.prepare('INSERT INTO applications (id, name, kind, created_at) VALUES (?, ?, ?, ?)').run(PDFS, 'PDFs', 'pdfs', at(1));
  const job = db.prepare(`INSERT INTO jobs (id, application_id, metadata, case_name, status, created_at, updated_at, completed_at, seq)
    VALUES (?, ?, ?, ?, 'completed', ?, ?, ?, ?)`);
  const file = db.prepare(`INSERT INTO job_files (id, job_id, position, name, size, media_type, sha256, status, attempts, started_at, completed_at, verdict)
    VALUES (?, ?, 0, ?, 10, ?, ?, 'completed', 1, ?, ?, ?)`);
  const verdict = JSON.stringify({ assessment: 'authentic', confidence: 'high', display: { label: 'Authentic' }, dimensions: [] });
  const rows: [string, string, string | null, number][] = [
    ['aaaaaaaa-0000-4000-8000-000000000001', IMAGES, 'CLM-1', 2],
    ['aaaaaaaa-0000-4000-8000-000000000002', PDFS, 'CLM-1', 3],
    ['aaaaaaaa-0000-4000-8000-000000000003', IMAGES, 'clm-1', 4], // another name: case is kept as sent
    ['aaaaaaaa-0000-4000-8000-000000000004', IMAGES, null, 5],
  ];
  rows.forEach(([id, app, name, day], i) => {
    job.run(id, app, name === null ? null : JSON.stringify({ case: name }), name, at(day), at(day), at(day), i + 1);
    file.run(id.replace('aaaaaaaa', 'ffffffff'), id, `f${i}.jpg`, app === PDFS ? 'application/pdf' : 'image/jpeg', 'ab'.repeat(32), at(day), at(day), verdict);
  });
  db.close();
  return dataDir;
}

// Migrates a desktop SQLite file of schema 2.
describe.skipIf(onPg)('migration 3: cases', () => {
  it('turns each distinct metadata.case of an older database into a case holding its jobs of both applications', async () => {
    const core = await startCore({}, { dataDir: schema2DataDir() });
    const ui = { authorization: `Bearer ${core.uiToken}` };
    const list = body(await core.app.inject({ method: 'GET', url: '/app/cases', headers: ui }), CaseList);
    expect(list.cases.map((c) => [c.name, c.jobCount, c.fileCount, c.counts.authentic, c.createdAt, c.updatedAt, c.status, c.notes])).toEqual([
      ['clm-1', 1, 1, 1, '2025-01-04T09:00:00.000Z', '2025-01-04T09:00:00.000Z', 'open', ''],
      ['CLM-1', 2, 2, 2, '2025-01-02T09:00:00.000Z', '2025-01-03T09:00:00.000Z', 'open', ''],
    ]);
    const clm1 = list.cases[1];
    const jobs = body(await core.app.inject({ method: 'GET', url: `/app/cases/${clm1.id}/jobs`, headers: ui }), CaseJobList);
    expect(jobs.jobs.map((j) => [j.job.jobId, j.kind])).toEqual([
      ['aaaaaaaa-0000-4000-8000-000000000001', 'images'],
      ['aaaaaaaa-0000-4000-8000-000000000002', 'pdfs'],
    ]);

    // A new job naming the migrated case joins it instead of making another.
    const key = (await core.keys.issueKey(IMAGES, 'test')).token;
    const res = await assess(core, [filePart(await makeJpeg(64, 64)), { name: 'metadata', data: '{"case":"CLM-1"}' }], { key });
    expect(res.statusCode).toBe(200);
    const after = body(await core.app.inject({ method: 'GET', url: '/app/cases', headers: ui }), CaseList);
    expect(after.cases.map((c) => [c.name, c.jobCount])).toEqual([['CLM-1', 3], ['clm-1', 1]]);
  });
});
