// Which encoder coded the pictures of HEIC files found in public repositories (none of them in the capture catalogue):
// for each file, the claimed maker and model, the size, and whether its coded picture turns asymmetric motion
// partitions on (x265 always does, phones' and cameras' own encoders of the catalogue never do; hevc-config.ts), with
// the capture check's reading. Run by hand after bringing the mirrors with the fetch tool:
//   npx tsx test/eval/heic-coding.ts [--mirrors /work/.mirror] REPO...
// Writes test/eval/results/heic-coding.json.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCapture } from '../../src/analysis/capture/index.js';
import { readHeicStructure } from '../../src/analysis/capture/heic-structure.js';
import { readCaptureMetadata } from '../../src/analysis/capture/metadata.js';
import { readHeifHeader } from '../../src/analysis/image-headers.js';
import { arg, REPO } from './capture-sets.js';

const mirrors = arg('--mirrors', '/work/.mirror');
const repos = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--mirrors');
const rows: object[] = [];
const seen = new Set<string>();
for (const repo of repos) {
  const git = join(mirrors, repo.replace('/', '+'), 'repo');
  const commit = execFileSync('git', ['-C', git, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const tree = execFileSync('git', ['-C', git, 'ls-tree', '-r', '-z', 'HEAD'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  for (const row of tree.split('\0')) {
    const m = /^\d+ blob ([0-9a-f]{40})\t(.+)$/s.exec(row);
    if (!m || !/\.(heic|heif|hif)$/i.test(m[2]) || seen.has(m[1])) continue;
    seen.add(m[1]);
    let buf: Buffer;
    try {
      buf = execFileSync('git', ['-C', git, 'cat-file', 'blob', m[1]], { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      continue; // not in the snapshot (4 MiB and more)
    }
    const md = await readCaptureMetadata(buf, 'image/heic');
    const s = readHeicStructure(buf);
    if (!s?.coding) continue;
    let size: { width: number; height: number } | null = null;
    try {
      size = readHeifHeader(buf);
    } catch {
      // unreadable header: the capture check is not run
    }
    const capture = size && md.maker ? await readCapture({ buf, mediaType: 'image/heic', width: size.width, height: size.height }) : null;
    rows.push({
      repo,
      commit,
      path: m[2],
      blob: m[1],
      make: md.make,
      model: md.model,
      size: size ? `${size.width}x${size.height}` : null,
      exifSize: md.exifWidth && md.exifHeight ? `${md.exifWidth}x${md.exifHeight}` : null,
      primary: s.primaryType,
      profile: s.coding.profile,
      ampEnabled: s.coding.ampEnabled,
      capture: capture ? { status: capture.status, codes: capture.findings.filter((f) => f.weight !== 0).map((f) => f.code) } : null,
    });
  }
}
const withMaker = rows.filter((r) => (r as { make: string | null }).make);
const summary = {
  files: rows.length,
  withCameraData: withMaker.length,
  ampEnabled: rows.filter((r) => (r as { ampEnabled: boolean }).ampEnabled).length,
  withCameraDataAmpEnabled: withMaker.filter((r) => (r as { ampEnabled: boolean }).ampEnabled).length,
};
writeFileSync(join(REPO, 'test', 'eval', 'results', 'heic-coding.json'), JSON.stringify({ generatedBy: 'test/eval/heic-coding.ts', date: new Date().toISOString(), summary, rows }, null, 1) + '\n');
console.log(summary);
