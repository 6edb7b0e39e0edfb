// Builds src/analysis/capture/quant-tables.json, the catalogue of the quantization tables, sizes, maker notes and
// HEIF structures seen in real camera and phone originals, each with the repository, commit and path it came from.
//
// Run by hand (the mirrors are not part of the project; bring them with the fetch tool first):
//   npx tsx test/tools/build-quant-tables.ts [--mirrors /work/.mirror] [--out FILE] [--half build|holdout]
// --half build writes a catalogue from half of each maker's files (by blob id order, even positions) so that
// test/eval/capture-forgery.ts can measure on the other half; without it every usable original is catalogued.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { LayoutWriter } from '../../src/analysis/capture/index.js';
import { surveyFile, type FileSurvey } from './corpus-survey.js';

export const CORPORA = ['drewnoakes/digicam_corpus', 'drewnoakes/metadata-extractor-images', 'ianare/exif-samples', 'Tech4Tracing/CartridgeOCR', 'frederiksjr/TravelBlog'];

export interface CorpusFile {
  repo: string;
  commit: string;
  path: string;
  blob: string;
  survey: FileSurvey;
}

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};

/** Every JPEG/HEIF original in the mirrors whose blob is present, de-duplicated by blob, surveyed. */
export async function* walkCorpora(mirrors: string): AsyncGenerator<CorpusFile> {
  const seen = new Set<string>();
  for (const repo of CORPORA) {
    const git = join(mirrors, repo.replace('/', '+'), 'repo');
    const commit = execFileSync('git', ['-C', git, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const tree = execFileSync('git', ['-C', git, 'ls-tree', '-r', '-z', 'HEAD'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    for (const row of tree.split('\0')) {
      const m = /^\d+ blob ([0-9a-f]{40})\t(.+)$/s.exec(row);
      if (!m || !/\.(jpe?g|heic|heif|hif)$/i.test(m[2])) continue;
      const [, blob, path] = m;
      if (seen.has(blob)) continue;
      seen.add(blob);
      let buf: Buffer;
      try {
        buf = execFileSync('git', ['-C', git, 'cat-file', 'blob', blob], { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
      } catch {
        continue; // listed but absent from the snapshot
      }
      const survey = await surveyFile(buf, path);
      if (survey) yield { repo, commit, path, blob, survey };
    }
  }
}

/** The bytes of one corpus file from its mirror. */
export function readBlob(mirrors: string, repo: string, blob: string): Buffer {
  return execFileSync('git', ['-C', join(mirrors, repo.replace('/', '+'), 'repo'), 'cat-file', 'blob', blob], { maxBuffer: 1 << 28 });
}

/** Which half a file falls in: per maker, files sorted by blob id, even positions build, odd positions are held out. */
export function splitHalves(files: CorpusFile[]): Map<string, 'build' | 'holdout'> {
  const byMake = new Map<string, CorpusFile[]>();
  for (const f of files) {
    const k = f.survey.make ?? '?';
    byMake.set(k, [...(byMake.get(k) ?? []), f]);
  }
  const out = new Map<string, 'build' | 'holdout'>();
  for (const list of byMake.values()) {
    list.sort((a, b) => a.blob.localeCompare(b.blob));
    list.forEach((f, i) => out.set(f.blob, i % 2 === 0 ? 'build' : 'holdout'));
  }
  return out;
}

/**
 * Originals only: a maker named, no editing software, a whole file, and pixel dimensions equal to the EXIF ones
 * (several corpus samples were downsized by whoever uploaded them, EXIF kept: their tables are the resizer's).
 */
export function isOriginal(f: CorpusFile): boolean {
  const s = f.survey;
  return Boolean(s.make) && !s.editedBy && !s.truncated && (!s.exifSize || s.exifSizeMatches) && !/photoshop|lightroom|noise ninja|invalid|corrupt|fuzz|exception|tests\//i.test(f.path) &&
    !(/issue/i.test(f.path) && s.kind === 'jpeg');
}

export function buildCatalogue(files: CorpusFile[], split: string) {
  const tables = new Map<
    string,
    { hash: string; makes: Set<string>; models: Set<string>; libjpegLayoutMakes: Set<string>; ijgQuality: number | null; files: { repo: string; commit: string; path: string }[] }
  >();
  const makers: Record<string, MakerStats> = {};
  // per maker and model: JPEG originals, those libjpeg wrote whole (JFIF header, its layout, the Exif before the header),
  // and those in libjpeg's layout without the header, with the tables of the latter (standard tables left out)
  const writers = new Map<string, Map<string, { jpeg: number; libjpeg: number; noJfifLayout: number; tables: number[][][]; segments: string[][] }>>();
  const heic: object[] = [];
  for (const f of files) {
    const s = f.survey;
    const make = s.make as string;
    const st = (makers[make] ??= newStats());
    st.files++;
    if (s.kind === 'heic') {
      st.heicFiles++;
      heic.push({ make, model: s.model, structure: s.heic, source: { repo: f.repo, commit: f.commit, path: f.path } });
      if (s.heic?.coding?.ampEnabled) st.heicAmpFiles++;
    } else {
      st.jpegFiles++;
      if (s.model) {
        const byModel = writers.get(make) ?? writers.set(make, new Map()).get(make)!;
        const w = byModel.get(s.model) ?? byModel.set(s.model, { jpeg: 0, libjpeg: 0, noJfifLayout: 0, tables: [], segments: [] }).get(s.model)!;
        w.jpeg++;
        if (s.jfif && s.libjpegLayout && s.exifBeforeJfif) w.libjpeg++;
        if (!s.jfif && s.libjpegLayout) {
          w.noJfifLayout++;
          w.segments.push(s.segments);
          if (s.tables.length === 2 && s.ijgQuality === null) w.tables.push(s.tables);
        }
      }
      if (s.tablesHash) {
        const e = tables.get(s.tablesHash) ?? { hash: s.tablesHash, makes: new Set(), models: new Set(), libjpegLayoutMakes: new Set(), ijgQuality: s.ijgQuality, files: [] };
        e.makes.add(make);
        if (s.libjpegLayout) e.libjpegLayoutMakes.add(make);
        if (s.model) e.models.add(s.model);
        e.files.push({ repo: f.repo, commit: f.commit, path: f.path });
        tables.set(s.tablesHash, e);
        if (s.ijgQuality !== null) st.ijgFiles++;
      }
      if (s.thumbnail) st.thumbnailFiles++;
      if (!s.jfif) {
        st.noJfifFiles++;
        if (s.libjpegLayout) {
          st.noJfifLibjpegLayoutFiles++;
          if (s.ijgQuality !== null) st.noJfifLibjpegLayoutIjgFiles++;
          if (s.model && !st.libjpegLayoutModels.includes(s.model)) st.libjpegLayoutModels.push(s.model);
        } else if (s.ijgQuality !== null && s.layout && !st.ijgLayouts.includes(s.layout)) st.ijgLayouts.push(s.layout);
      }
      if (s.progressive) st.progressiveFiles++;
    }
    if (s.makerNote) st.makerNoteFiles++;
    if (s.makerNote?.wellFormed) st.makerNoteWellFormed++;
    if (s.exifSize) {
      st.exifSizeChecked++;
      if (s.exifSizeMatches) st.exifSizeMatches++;
    }
    if (s.width && s.height) {
      const long = Math.max(s.width, s.height);
      const short = Math.min(s.width, s.height);
      st.minPixels = Math.min(st.minPixels, long * short);
      st.minLongSide = Math.min(st.minLongSide, long);
      const size = `${long}x${short}`;
      if (!st.sizes.includes(size)) st.sizes.push(size);
    }
  }
  for (const [make, byModel] of writers) {
    for (const [model, w] of byModel) {
      if (w.jpeg >= LIBJPEG_WRITER_MIN && w.libjpeg / w.jpeg >= 0.95) makers[make].libjpegWriterModels.push(model);
      if (w.jpeg >= LIBJPEG_WRITER_MIN && w.noJfifLayout / w.jpeg >= 0.95 && w.tables.length >= LIBJPEG_WRITER_MIN) {
        const range = (k: number, pick: (a: number, b: number) => number) => w.tables[0][k].map((_, i) => w.tables.reduce((v, t) => pick(v, t[k][i]), w.tables[0][k][i]));
        makers[make].layoutWriters.push({
          model,
          files: w.noJfifLayout,
          lumaLow: range(0, Math.min),
          lumaHigh: range(0, Math.max),
          chromaLow: range(1, Math.min),
          chromaHigh: range(1, Math.max),
          // The segments every one of them carries (Samsung's: its ICC profile, its APP4, XMP, the MPF index of the
          // HDR gain map), which a program's file with the tags copied in lacks.
          segments: [...new Set(w.segments.flat())].filter((x) => w.segments.every((f) => f.includes(x))).sort(),
        });
      }
    }
  }
  for (const st of Object.values(makers)) {
    st.libjpegWriterModels.sort();
    st.layoutWriters.sort((a, b) => a.model.localeCompare(b.model));
    st.sizes.sort();
    st.libjpegLayoutModels.sort();
    st.ijgLayouts.sort();
    st.tableCount = [...tables.values()].filter((t) => [...t.makes].some((m) => makers[m] === st)).length;
  }
  return {
    about:
      'Quantization tables and capture traits of real camera and phone originals. Built by test/tools/build-quant-tables.ts; ' +
      'each table entry names the files it was read from. A table hash is sha256 of the used tables (natural order, in component order), 16 hex digits.',
    split,
    sources: [...new Set(files.map((f) => `${f.repo}@${f.commit}`))].map((s) => ({ repo: s.split('@')[0], commit: s.split('@')[1] })),
    makers: Object.fromEntries(Object.entries(makers).sort(([a], [b]) => a.localeCompare(b))),
    tables: [...tables.values()]
      .sort((a, b) => a.hash.localeCompare(b.hash))
      .map((t) => ({
        hash: t.hash,
        makes: [...t.makes].sort(),
        models: [...t.models].sort(),
        libjpegLayoutMakes: [...t.libjpegLayoutMakes].sort(),
        ijgQuality: t.ijgQuality,
        files: t.files,
      })),
    heic,
  };
}

/** A model's originals that show libjpeg's whole layout before the model counts as writing it (Google's Pixel 5: 33 of 33). */
const LIBJPEG_WRITER_MIN = 3;

export interface MakerStats {
  files: number;
  jpegFiles: number;
  heicFiles: number;
  ijgFiles: number;
  tableCount: number;
  thumbnailFiles: number;
  progressiveFiles: number;
  /** JPEG originals without a JFIF header; of those, how many lay their tables out one per marker as libjpeg does, and
   *  the models that wrote them so (a camera built on libjpeg, as HP's are, or one model of a maker that is not). */
  noJfifFiles: number;
  noJfifLibjpegLayoutFiles: number;
  /** Of those, the ones with libjpeg's standard tables (none of Samsung's: its recent Galaxies pick their own). */
  noJfifLibjpegLayoutIjgFiles: number;
  libjpegLayoutModels: string[];
  /** The marker layouts (jpeg-structure.ts) of its originals with libjpeg's standard tables, no JFIF header and not
   *  libjpeg's layout: how its cameras that use those tables write the file around them. */
  ijgLayouts: string[];
  /** Models whose originals (at least 3, at least 95 % of them) libjpeg wrote: a JFIF header, one table per marker,
   *  the Exif before the header. Their camera app encodes with libjpeg (Google's Pixels), so that layout is theirs. */
  libjpegWriterModels: string[];
  /** Models whose originals (at least 3, at least 95 % of them) are laid out as libjpeg lays out its tables, without a
   *  JFIF header, and whose camera picks its tables per photo (Samsung's Galaxy S25 Ultra and Z Fold6: 24 tables in 36
   *  photos, the low frequencies flattened to a level, the rest the phone's own; two HP cameras): per model, how many
   *  such originals and the range of each coefficient of their luminance and chrominance tables (natural order). */
  layoutWriters: LayoutWriter[];
  /** HEIC originals whose coded picture turns on asymmetric motion partitions (x265 always does; see hevc-config.ts). */
  heicAmpFiles: number;
  makerNoteFiles: number;
  makerNoteWellFormed: number;
  exifSizeChecked: number;
  exifSizeMatches: number;
  minPixels: number;
  minLongSide: number;
  sizes: string[];
}
const newStats = (): MakerStats => ({
  files: 0,
  jpegFiles: 0,
  heicFiles: 0,
  ijgFiles: 0,
  tableCount: 0,
  thumbnailFiles: 0,
  progressiveFiles: 0,
  noJfifFiles: 0,
  noJfifLibjpegLayoutFiles: 0,
  noJfifLibjpegLayoutIjgFiles: 0,
  libjpegLayoutModels: [],
  ijgLayouts: [],
  libjpegWriterModels: [],
  layoutWriters: [],
  heicAmpFiles: 0,
  makerNoteFiles: 0,
  makerNoteWellFormed: 0,
  exifSizeChecked: 0,
  exifSizeMatches: 0,
  minPixels: Number.MAX_SAFE_INTEGER,
  minLongSide: Number.MAX_SAFE_INTEGER,
  sizes: [],
});

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const mirrors = arg('--mirrors', '/work/.mirror');
  const half = arg('--half', '');
  const out = resolve(arg('--out', resolve(import.meta.dirname, '..', '..', 'src', 'analysis', 'capture', 'quant-tables.json')));
  const all: CorpusFile[] = [];
  for await (const f of walkCorpora(mirrors)) if (isOriginal(f)) all.push(f);
  const halves = splitHalves(all);
  const chosen = half ? all.filter((f) => halves.get(f.blob) === half) : all;
  const cat = buildCatalogue(chosen, half ? `${half} half (per maker, blob-id order, ${half === 'build' ? 'even' : 'odd'} positions)` : 'all originals');
  writeFileSync(out, JSON.stringify(cat, null, 1) + '\n');
  console.log(`${chosen.length} originals of ${all.length}, ${cat.tables.length} tables, ${Object.keys(cat.makers).length} makers -> ${out}`);
}
