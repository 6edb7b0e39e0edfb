// Measures the capture-consistency module (src/analysis/capture) against issue #11's acceptance figures: forged
// files (AI images carrying a real photo's copied tags) must never be `consistent`, unedited camera and phone
// originals should be (>= 90 %), crops and re-saves should not be. Run by hand, mirrors and ../shared needed:
//   npx tsx test/eval/capture-forgery.ts [--mirrors /work/.mirror] [--limit-ai N]
// Writes test/eval/results/capture-forgery.json. The originals are measured twice: with the shipped catalogue
// (built from every original, so in-sample) and with a catalogue built from one half of each maker's files,
// on the other half (held out). The sets are built by capture-sets.ts (shared with capture-verdicts.ts).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCapture, type CaptureReport } from '../../src/analysis/capture/index.js';
import { aiImages, arg, DATASETS, donorsOf, editsOf, FORBIDDEN_AI_DIRS, forgeHeic, forgeHeicInPhoneContainer, forgeJpeg, forgeJpegDonorTables, inputOf, loadCorpus, REPO, type EditKind, type ForgedVariant, type InformedVariant } from './capture-sets.js';

const MIRRORS = arg('--mirrors', '/work/.mirror');
const LIMIT_AI = Number(arg('--limit-ai', '1000'));

interface Tally {
  n: number;
  status: Record<string, number>;
  codes: Record<string, number>;
  examples: { name: string; status: string; codes: string[] }[];
}
const tally = (): Tally => ({ n: 0, status: {}, codes: {}, examples: [] });
function record(t: Tally, name: string, r: CaptureReport) {
  t.n++;
  t.status[r.status] = (t.status[r.status] ?? 0) + 1;
  const codes = r.findings.map((f) => `${f.code}${f.weight > 0 ? '+' : f.weight < 0 ? '-' : ''}`);
  for (const c of new Set(codes)) t.codes[c] = (t.codes[c] ?? 0) + 1;
  if (t.examples.length < 400) t.examples.push({ name, status: r.status, codes });
}
const share = (t: Tally, s: string) => (t.n ? Math.round((1000 * (t.status[s] ?? 0)) / t.n) / 10 : null);

async function main() {
  const t0 = Date.now();
  const corpus = await loadCorpus(MIRRORS);
  const { all, halves, readHalf, bufOf, typeOf } = corpus;
  const tmp = mkdtempSync(join(tmpdir(), 'capture-forgery-'));

  // 1. Originals: all with the shipped catalogue (in-sample); the held-out half with the half catalogue.
  const originalsAll = { jpeg: tally(), heic: tally() };
  const originalsHeldOut = { jpeg: tally(), heic: tally() };
  const thumbSims: number[] = [];
  for (const f of all) {
    const input = await inputOf(bufOf(f), typeOf(f));
    const name = `${f.repo}:${f.path}`;
    const r = await readCapture(input);
    record(originalsAll[f.survey.kind], name, r);
    for (const x of r.findings) if (typeof x.facts.similarity === 'number') thumbSims.push(x.facts.similarity);
    if (halves.get(f.blob) === 'holdout') record(originalsHeldOut[f.survey.kind], name, await readHalf(input));
  }

  // 2. Crops, resizes and re-saves of held-out JPEG originals, EXIF kept (sharp keepMetadata rewrites the EXIF size).
  const edits: Record<EditKind, Tally> = { crop: tally(), resize: tally(), resave: tally(), resaveSameQuality: tally() };
  const heldJpeg = all.filter((f) => halves.get(f.blob) === 'holdout' && f.survey.kind === 'jpeg');
  for (const f of heldJpeg) {
    for (const [k, b] of await editsOf(bufOf(f), f.survey.width!, f.survey.height!, tmp)) {
      const input = await inputOf(b, 'image/jpeg');
      record(edits[k], `${f.path}#${k}`, await readCapture(input));
    }
  }

  // 3. Forgeries: AI images (modern/ai, forbidden sources excluded) with a real photo's full tag set copied in.
  const { dir: aiDir, files: aiFiles } = aiImages();
  const donors = await donorsOf(corpus);
  const heicDonors = all.filter((f) => f.survey.kind === 'heic');
  const variants = (): Record<ForgedVariant | InformedVariant | 'heicPhoneContainer', Tally> => ({
    ownSizeWithThumb: tally(),
    ownSizeNoThumb: tally(),
    donorSizeWithThumb: tally(),
    donorSizeNoThumb: tally(),
    heic: tally(),
    donorTables: tally(),
    donorTablesNoJfif: tally(),
    heicPhoneContainer: tally(),
  });
  const forged = variants();
  const forgedHalf = variants();
  const forgedSims: number[] = [];
  try {
    for (const [i, ai] of aiFiles.slice(0, LIMIT_AI).entries()) {
      const donor = donors[i % donors.length];
      for (const [variant, b] of await forgeJpeg(ai, donor.buf, tmp)) {
        const input = await inputOf(b, 'image/jpeg');
        const name = `${ai.slice(aiDir.length + 1)} <- ${donor.name}`;
        const r = await readCapture(input);
        record(forged[variant], name, r);
        record(forgedHalf[variant], name, await readHalf(input));
        for (const x of r.findings) if (typeof x.facts.similarity === 'number') forgedSims.push(x.facts.similarity);
      }
      // The informed forger (donor's tables, thumbnail made again, with and without the JFIF header), every 2nd image.
      if (i % 2 === 0) {
        for (const [variant, b] of forgeJpegDonorTables(ai, donor.buf, tmp)) {
          const input = await inputOf(b, 'image/jpeg');
          const name = `${ai.slice(aiDir.length + 1)} <- ${donor.name}`;
          record(forged[variant], name, await readCapture(input));
          record(forgedHalf[variant], name, await readHalf(input));
        }
      }
      // HEIC forgeries: the AI image encoded by libheif with a phone HEIC's tags copied in (every 4th image).
      if (i % 4 === 0 && heicDonors.length) {
        const hd = heicDonors[(i / 4) % heicDonors.length];
        const input = await inputOf(await forgeHeic(ai, bufOf(hd), tmp), 'image/heic');
        const name = `${ai.slice(aiDir.length + 1)} <- ${hd.path}`;
        record(forged.heic, name, await readCapture(input));
        record(forgedHalf.heic, name, await readHalf(input));
        // ... and coded into the phone's own container (4 tiles coded, repeated over the grid)
        const inContainer = await forgeHeicInPhoneContainer(ai, bufOf(hd), tmp, 4);
        if (inContainer) {
          const c = await inputOf(inContainer, 'image/heic');
          record(forged.heicPhoneContainer, name, await readCapture(c));
          record(forgedHalf.heicPhoneContainer, name, await readHalf(c));
        }
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  // 4. Cost: readCapture on 12 MP JPEG originals, median of 5 runs each after one warm-up.
  const twelve = all.filter((f) => f.survey.kind === 'jpeg' && f.survey.width! * f.survey.height! >= 11_500_000 && f.survey.width! * f.survey.height! <= 12_600_000).slice(0, 6);
  const costs: { file: string; ms: number }[] = [];
  for (const f of twelve) {
    const input = await inputOf(bufOf(f), 'image/jpeg');
    await readCapture(input);
    const runs: number[] = [];
    for (let k = 0; k < 5; k++) {
      const s = performance.now();
      await readCapture(input);
      runs.push(performance.now() - s);
    }
    runs.sort((a, b) => a - b);
    costs.push({ file: `${f.repo}:${f.path}`, ms: Math.round(runs[2]) });
  }

  const sum = (o: Record<string, Tally>) => Object.fromEntries(Object.entries(o).map(([k, t]) => [k, { n: t.n, consistentPct: share(t, 'consistent'), status: t.status, codes: t.codes }]));
  const forgedTotal = (o: Record<string, Tally>) => {
    const n = Object.values(o).reduce((a, t) => a + t.n, 0);
    const c = Object.values(o).reduce((a, t) => a + (t.status.consistent ?? 0), 0);
    return { n, consistent: c, notConsistentPct: n ? Math.round((1000 * (n - c)) / n) / 10 : null };
  };
  const result = {
    generatedBy: 'test/eval/capture-forgery.ts',
    date: new Date().toISOString(),
    sources: { mirrors: [...new Set(all.map((f) => f.repo))], aiImages: aiFiles.length, aiImagesUsed: Math.min(aiFiles.length, LIMIT_AI), donors: donors.length, excludedAiSources: [...FORBIDDEN_AI_DIRS] },
    forged: { all: forgedTotal(forged), byVariant: sum(forged) },
    forgedWithHeldOutCatalogue: { all: forgedTotal(forgedHalf), byVariant: sum(forgedHalf) },
    originalsInSample: sum(originalsAll),
    originalsHeldOut: sum(originalsHeldOut),
    editsOfHeldOutOriginals: sum(edits),
    thumbnailSimilarity: { originals: quantiles(thumbSims), forged: quantiles(forgedSims) },
    costMsPer12MpJpeg: costs,
    seconds: Math.round((Date.now() - t0) / 1000),
    examples: {
      originalsHeldOutNotConsistent: [...originalsHeldOut.jpeg.examples, ...originalsHeldOut.heic.examples].filter((e) => e.status !== 'consistent'),
      originalsInSampleNotConsistent: [...originalsAll.jpeg.examples, ...originalsAll.heic.examples].filter((e) => e.status !== 'consistent'),
      forgedConsistent: Object.values(forged).flatMap((t) => t.examples.filter((e) => e.status === 'consistent')),
      forgedHalfConsistent: Object.values(forgedHalf).flatMap((t) => t.examples.filter((e) => e.status === 'consistent')),
      editsConsistent: Object.values(edits).flatMap((t) => t.examples.filter((e) => e.status === 'consistent')),
    },
  };
  const out = join(REPO, 'test', 'eval', 'results', 'capture-forgery.json');
  writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
  console.log(JSON.stringify({ forged: result.forged.all, forgedHalf: result.forgedWithHeldOutCatalogue.all, inSample: sum(originalsAll), heldOut: sum(originalsHeldOut), edits: sum(edits), costs }, (k, v) => (k === 'codes' ? undefined : v), 1));
}

function quantiles(v: number[]) {
  const s = [...v].sort((a, b) => a - b);
  const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : null);
  return { n: s.length, min: s[0] ?? null, p05: q(0.05), p50: q(0.5), p95: q(0.95), max: s[s.length - 1] ?? null };
}

if (!existsSync(DATASETS)) {
  console.error(`${DATASETS} is absent: this evaluation needs ../shared/datasets.`);
  process.exit(2);
}
await main();
