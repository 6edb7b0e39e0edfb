// Measures the double-compression reading (src/analysis/capture/double-compression.ts) where it matters: camera
// originals written with libjpeg's own tables, against the same files decoded and re-saved (at their own quality,
// the hardest case, and at 92), and against AI images carrying copied camera tags. Also records the other traits an
// IJG-table original could be told by (JFIF segment, standard Huffman tables, chroma sampling, a size the maker's
// originals come in, maker note, thumbnail). Run by hand (mirrors and ../shared needed):
//   nice -n 19 npx tsx test/eval/capture-recompression.ts [--mirrors /work/.mirror] [--limit-ai N]
// Writes test/eval/results/capture-recompression.json (one row per file, so rules can be tried offline).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Catalogue } from '../../src/analysis/capture/index.js';
import { recompressionReading } from '../../src/analysis/capture/double-compression.js';
import { readCaptureMetadata } from '../../src/analysis/capture/metadata.js';
import { standardIjg, usedTables } from '../../src/analysis/capture/quant-tables.js';
import { aiImages, arg, donorsOf, editsOf, exiftool, forgeJpeg, inputOf, loadCorpus, REPO } from './capture-sets.js';

const MIRRORS = arg('--mirrors', '/work/.mirror');
const LIMIT_AI = Number(arg('--limit-ai', '1000'));

// ITU T.81 K.3: the luminance DC and AC code-length counts every hardware encoder of the corpus uses.
const STD_DC_LUMA = '0,1,5,1,1,1,1,1,1,0,0,0,0,0,0,0';
const STD_AC_LUMA = '0,2,1,3,3,2,4,3,5,5,4,4,0,0,1,125';

function huffmanCounts(buf: Buffer): string[] {
  const out: string[] = [];
  for (let off = 2; off + 4 <= buf.length && buf[off] === 0xff; ) {
    const m = buf[off + 1];
    if (m === 0xda || m === 0xd9) break;
    const len = buf.readUInt16BE(off + 2);
    if (m === 0xc4) {
      for (let p = off + 4; p + 17 <= off + 2 + len; ) {
        const counts = [...buf.subarray(p + 1, p + 17)];
        out.push(`${buf[p] >> 4}/${buf[p] & 15}:${counts.join(',')}`);
        p += 17 + counts.reduce((a, b) => a + b, 0);
      }
    }
    off += 2 + len;
  }
  return out;
}

interface Row {
  set: string;
  half: string;
  name: string;
  make: string | null;
  ijg: number | null;
  makerUsesIjg: boolean;
  sizeKnown: boolean;
  jfif: boolean;
  stdHuffman: boolean;
  sampling: string;
  makerNote: boolean;
  thumbSimilarity: number | null;
  status: string;
  codes: string[];
  changedShare: number | null;
  ms: number | null;
}

async function main() {
  const t0 = Date.now();
  const corpus = await loadCorpus(MIRRORS);
  const cat = corpus.halfCatalogue as Catalogue & { makers: Record<string, { sizes?: string[] }> };
  const rows: Row[] = [];
  const tmp = mkdtempSync(join(tmpdir(), 'capture-recompression-'));
  const row = async (set: string, half: string, name: string, buf: Buffer) => {
    const input = await inputOf(buf, 'image/jpeg');
    const md = await readCaptureMetadata(buf, 'image/jpeg');
    const report = await corpus.readHalf(input);
    const tables = md.jpeg ? usedTables(md.jpeg) : [];
    const ijg = tables.length ? standardIjg(tables) : null;
    const traits = md.maker ? cat.makers[md.maker] : undefined;
    const long = Math.max(input.width, input.height);
    const short = Math.min(input.width, input.height);
    const huff = huffmanCounts(buf);
    const comps = md.jpeg?.frame?.components ?? [];
    const s = performance.now();
    const reading = ijg ? await recompressionReading(buf) : null;
    const ms = ijg ? Math.round(performance.now() - s) : null;
    const thumb = report.findings.find((f) => typeof f.facts.similarity === 'number');
    rows.push({
      set,
      half,
      name,
      make: md.maker,
      ijg: ijg?.quality ?? null,
      makerUsesIjg: Boolean(traits && traits.ijgFiles > 0),
      sizeKnown: Boolean(traits?.sizes?.includes(`${long}x${short}`)),
      jfif: Boolean(md.jpeg?.segments.some((x) => x.startsWith('APP0:JFIF'))),
      stdHuffman: huff.includes(`0/0:${STD_DC_LUMA}`) && huff.includes(`1/0:${STD_AC_LUMA}`),
      sampling: comps.map((c) => c.sampling.toString(16)).join(''),
      makerNote: Boolean(md.makerNote),
      thumbSimilarity: thumb ? (thumb.facts.similarity as number) : null,
      status: report.status,
      codes: report.findings.map((f) => `${f.code}${f.weight > 0 ? '+' : f.weight < 0 ? '-' : ''}`),
      changedShare: reading ? Math.round(reading.changedShare * 1e5) / 1e5 : null,
      ms,
    });
  };
  try {
    // Originals with libjpeg's tables (both halves: rules are chosen on the build half, judged on the held-out one),
    // and their edits.
    for (const f of corpus.all) {
      if (f.survey.kind !== 'jpeg' || f.survey.ijgQuality === null) continue;
      const half = corpus.halves.get(f.blob)!;
      const buf = corpus.bufOf(f);
      await row('original', half, `${f.repo}:${f.path}`, buf);
      for (const [k, b] of await editsOf(buf, f.survey.width!, f.survey.height!, tmp)) await row(k, half, `${f.path}#${k}`, b);
    }
    // Forgeries (all four JPEG variants).
    const { dir, files } = aiImages();
    const donors = await donorsOf(corpus);
    for (const [i, ai] of files.slice(0, LIMIT_AI).entries()) {
      const donor = donors[i % donors.length];
      for (const [v, b] of await forgeJpeg(ai, donor.buf, tmp)) await row(`forged.${v}`, '-', `${ai.slice(dir.length + 1)} <- ${donor.name}`, b);
      // The informed forger: the AI image at the donor's size and own libjpeg quality, its own thumbnail written in.
      const dmd = await readCaptureMetadata(donor.buf, 'image/jpeg');
      const dq = dmd.jpeg ? standardIjg(usedTables(dmd.jpeg))?.quality : null;
      if (dq) {
        const dm = await sharp(donor.buf, { failOn: 'none' }).metadata();
        const p = join(tmp, 'informed.jpg');
        const t = join(tmp, 'thumb.jpg');
        const body = await sharp(ai).removeAlpha().resize(dm.width, dm.height, { fit: 'cover' }).jpeg({ quality: dq, optimiseCoding: false }).toBuffer();
        writeFileSync(p, body);
        await sharp(body).resize(160, 120, { fit: 'fill' }).jpeg({ quality: 80 }).toFile(t);
        writeFileSync(join(tmp, 'donor.jpg'), donor.buf);
        exiftool(['-TagsFromFile', join(tmp, 'donor.jpg'), '-all:all', p]);
        exiftool([`-ThumbnailImage<=${t}`, '-JFIF:all=', p]);
        await row('forged.informed', '-', `${ai.slice(dir.length + 1)} <- ${donor.name}`, readFileSync(p));
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  writeFileSync(join(REPO, 'test', 'eval', 'results', 'capture-recompression.json'), JSON.stringify({ generatedBy: 'test/eval/capture-recompression.ts', date: new Date().toISOString(), seconds: Math.round((Date.now() - t0) / 1000), rows }, null, 0) + '\n');
  const sets = [...new Set(rows.map((r) => r.set))];
  for (const s of sets) {
    const v = rows.filter((r) => r.set === s && r.changedShare !== null).map((r) => r.changedShare!).sort((a, b) => a - b);
    const q = (p: number) => v[Math.min(v.length - 1, Math.floor(p * v.length))];
    console.log(s, rows.filter((r) => r.set === s).length, 'readings', v.length, 'min', v[0], 'p05', q(0.05), 'p50', q(0.5), 'p95', q(0.95), 'max', v[v.length - 1]);
  }
}

await main();
