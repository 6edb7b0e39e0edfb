// The intake owns every temporary upload file: whatever way an upload ends, nothing is left in tmp/, and files/
// holds only what was committed (real files in a temp data dir; the HTTP paths are covered in test/api and
// test/reliability).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileStore } from '../../../src/jobs/file-store.js';
import { withIntake } from '../../../src/jobs/intake.js';

const dirs: string[] = [];
function store() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-intake-'));
  dirs.push(dir);
  return createFileStore(dir);
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const list = (dir: string) => fs.readdirSync(dir).sort();

describe('withIntake', () => {
  it('deletes every temporary file when the upload is refused part-way', async () => {
    const s = store();
    const refused = withIntake(s, async (intake) => {
      fs.writeFileSync(intake.tempPath(), 'first file');
      fs.writeFileSync(intake.tempPath(), 'second, cut off');
      intake.tempPath(); // a file whose first byte never came
      throw new Error('refused');
    });
    await expect(refused).rejects.toThrow('refused');
    expect(list(s.tmpDir)).toEqual([]);
    expect(list(s.filesDir)).toEqual([]);
  });

  it('keeps the committed files and deletes the rest (a replay commits nothing)', async () => {
    const s = store();
    await withIntake(s, async (intake) => {
      const kept = intake.tempPath();
      fs.writeFileSync(kept, 'kept');
      fs.writeFileSync(intake.tempPath(), 'not sent on');
      await s.put([{ tmpPath: kept, fileId: 'f1' }]);
    });
    expect(list(s.tmpDir)).toEqual([]);
    expect(list(s.filesDir)).toEqual(['f1']);
    expect(fs.readFileSync(s.pathOf('f1'), 'utf8')).toBe('kept');
    await withIntake(s, async (intake) => fs.writeFileSync(intake.tempPath(), 'replayed'));
    expect(list(s.tmpDir)).toEqual([]);
    expect(list(s.filesDir)).toEqual(['f1']);
  });

  it('leaves no stored file behind when a commit fails half-way', async () => {
    const s = store();
    const failed = withIntake(s, async (intake) => {
      const a = intake.tempPath();
      const b = intake.tempPath(); // never written: its move fails after the first file's
      fs.writeFileSync(a, 'a');
      await s.put([
        { tmpPath: a, fileId: 'fa' },
        { tmpPath: b, fileId: 'fb' },
      ]);
    });
    await expect(failed).rejects.toThrow(/ENOENT/);
    expect(list(s.filesDir)).toEqual([]);
    expect(list(s.tmpDir)).toEqual([]);
  });
});
