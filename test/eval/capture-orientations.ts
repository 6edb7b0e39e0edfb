// Issue 22: does the capture check call any unedited original manipulated, in any of the eight EXIF orientations?
// Every original of the mirrors (capture-sets.ts: camera and phone JPEG and HEIC of every maker there) is written in
// orientations 1-8 with exiftool (the Orientation tag; for HEIC the irot box too for the quarter turns) and read by
// readCapture with the size the analysis passes, the decoded picture's as SHOWN (orientation applied), which is what
// the product did when a portrait original read "thumbnail of a different shape". Run by hand, mirrors needed:
//   nice -n 19 npx tsx test/eval/capture-orientations.ts [--mirrors /work/.mirror] [--label after] [--out FILE] [--orientations 1,2,...]
// Merges its figures under `--label` into test/eval/results/capture-orientations.json (the "before" figures were
// measured by running this same script in a worktree of the commit before the fix).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCapture, type CaptureReport } from '../../src/analysis/capture/index.js';
import { arg, inputOf, loadCorpus, REPO } from './capture-sets.js';

const MIRRORS = arg('--mirrors', '/work/.mirror');
const LABEL = arg('--label', 'after');
const OUT = arg('--out', join(REPO, 'test', 'eval', 'results', 'capture-orientations.json'));
/** Which orientations, in order (a loaded machine can split the eight over two runs). */
const ORIENTATIONS = arg('--orientations', '1,2,3,4,5,6,7,8').split(',').map(Number);
/** Findings that only show a re-save (capture/signs.ts at the fix); before the fix every finding of weight > 0 accused. */
const RESAVE = new Set([
  'capture.software.edited', 'capture.xmp.edit_history', 'capture.qtable.standard_ijg', 'capture.size.not_device', 'capture.size.resized',
  'capture.makernote.missing', 'capture.makernote.malformed', 'capture.thumbnail.absent', 'capture.thumbnail.turned', 'capture.format.not_capture',
  'capture.heic.structure_mismatch', 'capture.dates.inconsistent',
]);

interface Cell {
  n: number;
  status: Record<string, number>;
  /** Files the product labelled "contradicted, a sign of manipulation", and the findings behind it. */
  accused: number;
  accusingCodes: Record<string, number>;
}
const cell = (): Cell => ({ n: 0, status: {}, accused: 0, accusingCodes: {} });

async function main() {
  const t0 = Date.now();
  const corpus = await loadCorpus(MIRRORS);
  const tmp = mkdtempSync(join(tmpdir(), 'capture-orientations-'));
  const byKind: Record<string, Record<number, Cell>> = { jpeg: {}, heic: {} };
  const accusedFiles: { file: string; orientation: number; codes: string[] }[] = [];
  try {
    const src = join(tmp, 'src');
    mkdirSync(src);
    const files = corpus.all.map((f, i) => ({ f, name: `${i}.${f.survey.kind === 'heic' ? 'heic' : 'jpg'}` }));
    for (const { f, name } of files) writeFileSync(join(src, name), corpus.bufOf(f));
    for (const o of ORIENTATIONS) {
      const out = join(tmp, `o${o}`);
      mkdirSync(out);
      // One exiftool run per orientation and kind: the bytes change in the Orientation tag (and HEIC's irot) only.
      const irot: Record<number, number> = { 1: 0, 3: 180, 6: 90, 8: 270 };
      execFileSync('exiftool', ['-q', '-q', '-m', '-n', `-EXIF:Orientation=${o}`, '-ext', 'jpg', '-o', `${out}/`, src], { stdio: 'ignore' });
      execFileSync('exiftool', ['-q', '-q', '-m', '-n', `-EXIF:Orientation=${o}`, ...(irot[o] !== undefined ? [`-Rotation=${irot[o]}`] : []), '-ext', 'heic', '-o', `${out}/`, src], { stdio: 'ignore' });
      for (const { f, name } of files) {
        const p = join(out, name);
        if (!existsSync(p)) continue; // exiftool refused to write it (a malformed file): counted as not measured
        const kind = f.survey.kind === 'heic' ? 'heic' : 'jpeg';
        const input = await inputOf(readFileSync(p), kind === 'heic' ? 'image/heic' : 'image/jpeg');
        // The size the analysis passes: the picture as shown.
        const shown = o >= 5 ? { ...input, width: input.height, height: input.width } : input;
        const r: CaptureReport = await readCapture(shown);
        const c = (byKind[kind][o] ??= cell());
        c.n++;
        c.status[r.status] = (c.status[r.status] ?? 0) + 1;
        if (r.status === 'contradicted') {
          c.accused++;
          // Before the fix every finding of weight > 0 accused; after it, those that are not re-save signs.
          const codes = r.findings.filter((x) => x.weight > 0 && (LABEL === 'before' || !RESAVE.has(x.code))).map((x) => x.code);
          for (const code of new Set(codes)) c.accusingCodes[code] = (c.accusingCodes[code] ?? 0) + 1;
          accusedFiles.push({ file: `${f.repo}:${f.path}`, orientation: o, codes });
        }
      }
      console.log(`orientation ${o}: ${JSON.stringify(Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, v[o]])))}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const total = (k: string) => Object.values(byKind[k]).reduce((a, c) => ({ n: a.n + c.n, accused: a.accused + c.accused }), { n: 0, accused: 0 });
  const result = {
    commit: execFileSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
    date: new Date().toISOString(),
    originals: { jpeg: corpus.all.filter((f) => f.survey.kind === 'jpeg').length, heic: corpus.all.filter((f) => f.survey.kind === 'heic').length, makers: new Set(corpus.all.map((f) => f.survey.make)).size },
    accusedOfManipulation: { jpeg: total('jpeg'), heic: total('heic') },
    byOrientation: byKind,
    accusedFiles,
    seconds: Math.round((Date.now() - t0) / 1000),
  };
  const all = existsSync(OUT) ? JSON.parse(readFileSync(OUT, 'utf8')) : { generatedBy: 'test/eval/capture-orientations.ts', mirrors: MIRRORS };
  all[LABEL] = result;
  writeFileSync(OUT, JSON.stringify(all, null, 1) + '\n');
  console.log(JSON.stringify({ label: LABEL, accusedOfManipulation: result.accusedOfManipulation, seconds: result.seconds }));
}

await main();
