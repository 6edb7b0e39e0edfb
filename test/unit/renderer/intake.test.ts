// The renderer's intake rules, without a browser: routing and splitting into requests of at most 20 files, refusals
// with reasons, folder walking (a folder is a case) and the metadata of each request (sniffing: test/unit/api).
import { describe, expect, it } from 'vitest';
import { collectFromEntries, collectFromFileList, type EntryLike } from '../../../renderer/lib/collect-files.js';
import { MAX_FILE_BYTES } from '../../../src/api/limits.js';
import { fileIndexFromPath, planSubmission, requestMetadata, type CandidateFile } from '../../../renderer/lib/plan-submission.js';

const jpeg = { mediaType: 'image/jpeg' as const, kind: 'images' as const };
const pdf = { mediaType: 'application/pdf' as const, kind: 'pdfs' as const };
const candidate = (name: string, sniffed: CandidateFile<null>['sniffed'], size = 1000, caseName: string | null = 'A'): CandidateFile<null> => ({
  file: null,
  name,
  size,
  caseName,
  sniffed,
});

describe('planSubmission', () => {
  it('routes images and PDFs to their applications and lists refusals with reasons', () => {
    const plan = planSubmission([
      candidate('a.jpg', jpeg),
      candidate('b.pdf', pdf),
      candidate('notes.txt', null),
      candidate('empty.jpg', jpeg, 0),
      candidate('huge.jpg', jpeg, MAX_FILE_BYTES.images + 1),
      candidate('big.pdf', pdf, MAX_FILE_BYTES.pdfs + 1),
      candidate('limit.pdf', pdf, MAX_FILE_BYTES.pdfs),
    ]);
    expect(plan.requests.map((r) => [r.kind, r.files.map((f) => f.name)])).toEqual([
      ['images', ['a.jpg']],
      ['pdfs', ['b.pdf', 'limit.pdf']],
    ]);
    expect(plan.refused.map((r) => r.name)).toEqual(['notes.txt', 'empty.jpg', 'huge.jpg', 'big.pdf']);
    expect(plan.refused[0].reason).toMatch(/Not a JPEG, PNG, HEIC\/HEIF image or PDF/);
    expect(plan.refused[1].reason).toBe('The file is empty.');
    expect(plan.refused[2].reason).toMatch(/at most 25 MB/);
    expect(plan.refused[3].reason).toMatch(/at most 2 MB/);
  });

  it('splits more than 20 files into several requests of the same case', () => {
    const files = Array.from({ length: 45 }, (_, i) => candidate(`img-${i}.jpg`, jpeg, 1000, 'Harbour'));
    const plan = planSubmission(files);
    expect(plan.requests.map((r) => r.files.length)).toEqual([20, 20, 5]);
    expect(plan.requests.map((r) => [r.part, r.parts, r.caseName])).toEqual([
      [1, 3, 'Harbour'],
      [2, 3, 'Harbour'],
      [3, 3, 'Harbour'],
    ]);
    expect(plan.requests.flatMap((r) => r.files.map((f) => f.name))).toEqual(files.map((f) => f.name));
    expect(requestMetadata(plan.requests[1])).toEqual({ case: 'Harbour', part: 2, parts: 3 });
  });

  it('keeps cases apart and sends no metadata when there is no case', () => {
    const plan = planSubmission([candidate('a.jpg', jpeg, 10, 'X'), candidate('b.jpg', jpeg, 10, 'Y'), candidate('c.jpg', jpeg, 10, null)]);
    expect(plan.requests.map((r) => r.caseName)).toEqual(['X', 'Y', null]);
    expect(requestMetadata(plan.requests[2])).toBeNull();
    expect(requestMetadata(plan.requests[0])).toEqual({ case: 'X' });
  });

  it('reads the refused file index from details.issues[].path', () => {
    expect(fileIndexFromPath('file.3')).toBe(3);
    expect(fileIndexFromPath('file')).toBeNull();
    expect(fileIndexFromPath('metadata')).toBeNull();
    expect(fileIndexFromPath(undefined)).toBeNull();
  });
});

/** A directory tree in the shape of the File and Directory Entries API, with readEntries answering in batches. */
function dir(name: string, children: EntryLike[], batch = 2): EntryLike {
  return {
    isFile: false,
    isDirectory: true,
    name,
    fullPath: `/${name}`,
    createReader: () => {
      let offset = 0;
      return {
        readEntries: (ok: (e: EntryLike[]) => void) => {
          const slice = children.slice(offset, offset + batch);
          offset += batch;
          setTimeout(() => ok(slice), 0);
        },
      };
    },
  } as EntryLike;
}
function file(name: string): EntryLike {
  return { isFile: true, isDirectory: false, name, fullPath: `/${name}`, file: (ok: (f: File) => void) => ok(new File(['x'], name)) } as EntryLike;
}

describe('collecting dropped files and folders', () => {
  it('walks folders in batches, names the case after the top folder and skips system files', async () => {
    const tree = dir('Case 12', [file('b.jpg'), file('.DS_Store'), dir('scans', [file('c.pdf'), file('Thumbs.db'), file('d.png')]), file('a.jpg')]);
    const collected = await collectFromEntries([tree, file('loose.jpg')], 'Typed case');
    expect(collected.map((c) => [c.path, c.caseName])).toEqual([
      ['Case 12/a.jpg', 'Case 12'],
      ['Case 12/b.jpg', 'Case 12'],
      ['Case 12/scans/c.pdf', 'Case 12'],
      ['Case 12/scans/d.png', 'Case 12'],
      ['loose.jpg', 'Typed case'],
    ]);
  });

  it('takes the case from webkitRelativePath for a picked folder', () => {
    const withPath = (name: string, relative: string): File => {
      const f = new File(['x'], name);
      Object.defineProperty(f, 'webkitRelativePath', { value: relative });
      return f;
    };
    const files = [withPath('a.jpg', 'Case 7/a.jpg'), withPath('.hidden', 'Case 7/.hidden'), withPath('b.jpg', 'Case 7/.git/b.jpg'), new File(['x'], 'single.jpg')];
    expect(collectFromFileList(files, null).map((c) => [c.path, c.caseName])).toEqual([
      ['Case 7/a.jpg', 'Case 7'],
      ['single.jpg', null],
    ]);
  });
});
