// Leave one model out: how the capture check reads originals of a phone or camera the catalogue never saw, from a
// maker some of whose models write libjpeg's table layout without a JFIF header and pick their tables per photo
// (layoutWriters: Samsung's recent Galaxies, two HP cameras). For each such model, a catalogue is built from every
// original but that model's, and the model's originals, their crops, resizes and re-saves (EXIF kept), and forgeries
// with one of them as the donor (modern/'s AI images, forbidden sources excluded) are read against it, and against the
// catalogue of every original for comparison. Run by hand, mirrors and ../shared needed:
//   npx tsx test/eval/capture-unseen-models.ts [--mirrors /work/.mirror] [--ai N]
// Writes test/eval/results/capture-unseen-models.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCaptureReader, type Catalogue, type CaptureReport } from '../../src/analysis/capture/index.js';
import { buildCatalogue } from '../tools/build-quant-tables.js';
import { aiImages, arg, editsOf, forgeJpeg, forgeJpegDonorTables, inputOf, loadCorpus, REPO } from './capture-sets.js';

const MIRRORS = arg('--mirrors', '/work/.mirror');
const AI = Number(arg('--ai', '24'));

type Tally = Record<string, number>;
const add = (t: Tally, r: CaptureReport) => (t[r.status] = (t[r.status] ?? 0) + 1);

async function main() {
  const t0 = Date.now();
  const corpus = await loadCorpus(MIRRORS);
  const { all, bufOf } = corpus;
  const full = buildCatalogue(all, 'all') as unknown as Catalogue;
  const readFull = createCaptureReader(full);
  const { files: aiFiles } = aiImages();
  const tmp = mkdtempSync(join(tmpdir(), 'capture-unseen-'));
  const out: Record<string, unknown>[] = [];
  try {
    for (const [maker, traits] of Object.entries(full.makers)) {
      for (const w of traits.layoutWriters) {
        const own = all.filter((f) => f.survey.make === maker && f.survey.model === w.model && f.survey.kind === 'jpeg');
        const without = buildCatalogue(
          all.filter((f) => !(f.survey.make === maker && f.survey.model === w.model)),
          `all but ${w.model}`,
        ) as unknown as Catalogue;
        const readWithout = createCaptureReader(without);
        const row = {
          maker,
          model: w.model,
          siblings: without.makers[maker].layoutWriters.map((x) => x.model),
          originals: { seen: {} as Tally, unseen: {} as Tally },
          edits: { seen: {} as Tally, unseen: {} as Tally },
          forged: { seen: {} as Tally, unseen: {} as Tally },
          forgedByVariant: {} as Record<string, { seen: Tally; unseen: Tally }>,
        };
        for (const f of own) {
          const input = await inputOf(bufOf(f), 'image/jpeg');
          add(row.originals.seen, await readFull(input));
          add(row.originals.unseen, await readWithout(input));
          for (const [, b] of await editsOf(bufOf(f), f.survey.width!, f.survey.height!, tmp)) {
            const e = await inputOf(b, 'image/jpeg');
            add(row.edits.seen, await readFull(e));
            add(row.edits.unseen, await readWithout(e));
          }
        }
        for (const [i, ai] of aiFiles.slice(0, AI).entries()) {
          const donor = bufOf(own[i % own.length]);
          for (const [variant, b] of [...(await forgeJpeg(ai, donor, tmp)), ...forgeJpegDonorTables(ai, donor, tmp)]) {
            const input = await inputOf(b, 'image/jpeg');
            const v = (row.forgedByVariant[variant] ??= { seen: {}, unseen: {} });
            const seen = await readFull(input);
            const unseen = await readWithout(input);
            add(v.seen, seen);
            add(v.unseen, unseen);
            add(row.forged.seen, seen);
            add(row.forged.unseen, unseen);
          }
        }
        out.push(row);
        console.log(JSON.stringify(row));
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const result = {
    generatedBy: 'test/eval/capture-unseen-models.ts',
    date: new Date().toISOString().slice(0, 10),
    note: 'seen: the catalogue of every original; unseen: the same without the model, as for a model released after the catalogue was built',
    aiImagesPerModel: AI,
    models: out,
    seconds: Math.round((Date.now() - t0) / 1000),
  };
  writeFileSync(join(REPO, 'test', 'eval', 'results', 'capture-unseen-models.json'), JSON.stringify(result, null, 2) + '\n');
}

await main();
