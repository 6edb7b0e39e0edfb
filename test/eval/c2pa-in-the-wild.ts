// Content Credentials as generators write them, in bulk: every picture of the project's data (Data v1-2.3 restored
// under models/training/.data/images, and ../shared/datasets) that carries a C2PA claim, validated as an upload is
// (no trust anchors), tallied per source by claim generator, signer trust, where AI is declared (the active manifest,
// or a parent's / component's manifest in its chain) and the failures other than trust. Run by hand (restore first):
//   npx tsx test/eval/c2pa-in-the-wild.ts
// Writes test/eval/results/c2pa-in-the-wild.json.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { validateC2pa } from '../../src/analysis/c2pa-validation.js';
import { c2paSourceType } from '../../src/analysis/detectors/provenance.js';
import { aiIngredientOf } from '../../src/analysis/provenance.js';
import { SNIFF_BYTES, sniff } from '../../src/api/media-kinds.js';
import { DATASETS, REPO } from './capture-sets.js';

const ROOTS = [join(REPO, 'models', 'training', '.data', 'images'), DATASETS];
const TRUST_ONLY = new Set(['signingCredential.untrusted', 'signingCredential.expired', 'timeStamp.untrusted']);

function* files(dir: string): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (/\.(jpe?g|png|heic|heif|webp)$/i.test(n)) yield p;
  }
}

async function main() {
  const bySource: Record<string, Record<string, number>> = {};
  let scanned = 0;
  let withClaim = 0;
  for (const root of ROOTS) {
    for (const f of files(root)) {
      scanned++;
      const buf = readFileSync(f);
      if (!buf.includes('c2pa.claim')) continue;
      const kind = sniff(buf.subarray(0, SNIFF_BYTES))?.mediaType;
      if (!kind || kind === 'application/pdf') continue; // WebP is not a kind the product accepts
      withClaim++;
      const source = relative(root, f).split('/').slice(0, 2).join('/');
      let key: string;
      const r = await validateC2pa(buf, kind, []);
      if (!r) key = 'no store found';
      else if (r.kind === 'unreadable') key = `unreadable (${r.reason.slice(0, 80)})`;
      else {
        const m = r.manifest;
        const fails = m.statuses.filter((s) => !s.success && !TRUST_ONLY.has(s.code)).map((s) => s.code);
        const ai = c2paSourceType(m).ai ? 'active manifest' : aiIngredientOf(m) ? "a parent's manifest" : 'nowhere';
        key = `${m.claimGenerator ?? 'no claim generator'} | signer ${m.trust} | AI declared in ${ai} | failures: ${[...new Set(fails)].join(', ') || 'none'}`;
      }
      (bySource[source] ??= {})[key] = (bySource[source][key] ?? 0) + 1;
    }
  }
  const out = { generatedBy: 'test/eval/c2pa-in-the-wild.ts', date: new Date().toISOString(), scanned, withClaim, bySource };
  writeFileSync(join(REPO, 'test', 'eval', 'results', 'c2pa-in-the-wild.json'), `${JSON.stringify(out, null, 1)}\n`);
  console.log(JSON.stringify(out, null, 1));
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
