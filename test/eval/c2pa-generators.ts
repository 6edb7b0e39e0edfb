// What the product makes of generators' own downloads, metadata kept: a folder of files named <group>-<anything>,
// each analysed as a user would drop it (the whole pipeline: Content Credentials, XMP, pixels). Run by hand:
//   npx tsx test/eval/c2pa-generators.ts --dir DIR [--out NAME]
// Writes test/eval/results/c2pa-generators[-NAME].json: per group, how many files got each verdict and which
// provenance.ai.* finding (or an unreadable C2PA block) decided it.
// The files measured on 2026-11-27: Kauandugi/Bias-ai-university-visuals (CC0) at commit
// 4d9dd198dbf0a6fb0527fbbee841e756f183b81f, data/images/*/{DALL-E,Midjourney,Whisk}/**: 16 ChatGPT PNG downloads (group ChatGPT: the
// folder named DALL-E), 16 Midjourney v7 PNG, 16 Google Whisk JPEG (the 16 Nano Banana PNG are over the fetch limit).
// After `fetch github:Kauandugi/Bias-ai-university-visuals`:
//   git -C MIRROR ls-tree -r HEAD | grep -E '/(DALL-E|Midjourney|Whisk)/.*\.(png|jpe?g)$' | while IFS=$'\t' read m p; do
//     g=$(echo "$p" | cut -d/ -f4 | sed 's/DALL-E/ChatGPT/'); git -C MIRROR cat-file -p $(echo $m | cut -d' ' -f3) > "DIR/$g-$(echo "$p" | md5sum | cut -c1-8).${p##*.}"; done
// The files measured on 2026-11-28 (seventeenth session, results c2pa-generators-data26.json): Data 2.6's measuring set
// with its metadata as the bots committed it (models/training/data/measure26.tsv: gpt-image-2, gpt-image-1-mini (OpenAI
// C2PA), Nano Banana / Pro / 2 (re-saved by the bot's PIL: no metadata), Imagen 4 (5 with Google's IPTC XMP)), groups
// without dashes (gptimage2-, gptimage1mini-, NanoBananaPro-, Imagen4- ...; the recorded run spelt the unlabelled
// group NanoBananaUnlabelled where this loop writes NanoBananaunlabelled):
//   awk -F'\t' 'NR>1 {print $1"\t"$4"\t"$9}' models/training/data/measure26.tsv | while IFS=$'\t' read repo blob group; do
//     git --git-dir=/work/.mirror/${repo/\//+}/repo cat-file blob $blob > "DIR/${group//-/}-${blob:0:10}.png"; done
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyseFile, closeAnalysis } from '../../src/analysis/index.js';
import { arg, REPO } from './capture-sets.js';

const DIR = arg('--dir', '');
const OUT = arg('--out', '');
if (!DIR) throw new Error('--dir: a folder of <group>-<name> files');
if (OUT && !/^[a-z0-9-]+$/.test(OUT)) throw new Error('--out: a short name of lower-case letters, digits and dashes');

async function main() {
  const groups: Record<string, { n: number; verdicts: Record<string, number> }> = {};
  for (const f of readdirSync(DIR).sort()) {
    const media = /\.png$/i.test(f) ? 'image/png' : /\.jpe?g$/i.test(f) ? 'image/jpeg' : null;
    if (!media) continue;
    const r = await analyseFile(join(DIR, f), media, { modelsDir: join(REPO, 'models') });
    const codes = r.verdict.dimensions
      .flatMap((d) => (d.findings ?? []).map((x) => x.code))
      .filter((c) => c.startsWith('provenance.ai') || c === 'provenance.c2pa.unreadable');
    const key = `${r.verdict.assessment}/${r.verdict.confidence}${codes.length ? ` ${codes.join(', ')}` : ''}`;
    const g = (groups[f.split('-')[0]] ??= { n: 0, verdicts: {} });
    g.n++;
    g.verdicts[key] = (g.verdicts[key] ?? 0) + 1;
  }
  const out = { generatedBy: 'test/eval/c2pa-generators.ts', date: new Date().toISOString(), dir: DIR, groups };
  writeFileSync(join(REPO, 'test', 'eval', 'results', `c2pa-generators${OUT ? `-${OUT}` : ''}.json`), `${JSON.stringify(out, null, 1)}\n`);
  console.log(JSON.stringify(groups, null, 1));
  await closeAnalysis();
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
