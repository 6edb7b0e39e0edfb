// Restores the C2PA organisation's public test files (c2pa-org/public-testfiles, CC BY-SA 4.0) that manifest.json
// names, at its pinned commit, into files/ beside this script (git-ignored: the files are not ours to commit), and
// checks every one against its git blob SHA-1, so evaluate.ts reads exactly the bytes c2patool's reports describe.
//   node test/eval/c2pa-public/restore.mjs [--from DIR]
// --from: a clone (or bare mirror) of the repository holding that commit, read with git, no network; otherwise each
// file is downloaded from raw.githubusercontent.com at the commit. A file already present with the right hash is kept.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';

const HERE = import.meta.dirname;
const FILES_DIR = join(HERE, 'files');
const manifest = JSON.parse(readFileSync(join(HERE, 'manifest.json'), 'utf8'));
const { values } = parseArgs({ options: { from: { type: 'string' } } });

/** git's object id of a file: SHA-1 of "blob <length>\0" and its bytes. */
const blobSha1 = (data) => createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');

async function fetchOne(path, sha) {
  if (values.from) return execFileSync('git', ['-C', values.from, 'cat-file', 'blob', sha], { maxBuffer: 1 << 30 });
  const url = `https://raw.githubusercontent.com/${manifest.repo}/${manifest.commit}/${path.split('/').map(encodeURIComponent).join('/')}`;
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

let restored = 0;
let kept = 0;
const failed = [];
for (const { path, blobSha1: sha } of manifest.files) {
  const target = join(FILES_DIR, path);
  if (existsSync(target) && blobSha1(readFileSync(target)) === sha) {
    kept++;
    continue;
  }
  try {
    const data = await fetchOne(path, sha);
    if (blobSha1(data) !== sha) throw new Error(`blob SHA-1 ${blobSha1(data)}, expected ${sha}`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(`${target}.tmp`, data);
    renameSync(`${target}.tmp`, target);
    restored++;
  } catch (err) {
    failed.push(`${path}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
}
process.stdout.write(`${manifest.repo}@${manifest.commit.slice(0, 12)}: ${restored} restored, ${kept} already there, ${failed.length} missing, in ${FILES_DIR}\n`);
for (const line of failed) process.stdout.write(`  missing ${line}\n`);
process.exitCode = failed.length ? 1 : 0;
