// Prints the figures behind the verdict's confidence levels: how the shipped model's recorded file scores
// (models/<name>/eval-results.json) fall into the ai_detection assessments under the manifest's thresholds, using
// the product's own mapping (fusion.ts); a score recorded as a portrait's (1.5: the face finder's tag) under the
// portrait thresholds, as the product reads it (detectors/ai-detection.ts). Run: npx tsx src/analysis/calibration-table.ts [modelsDir]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { aiDimension } from './fusion.js';
import { ModelManifest } from './model-manifest.js';
import { DEFAULT_MODEL_NAME } from './model-session.js';

const EvalResults = z.object({
  file_scores: z.record(z.string(), z.array(z.object({ label: z.enum(['ai', 'real']), source: z.string(), score: z.number(), portrait: z.boolean().optional() }))),
});

const BUCKETS = ['likely_ai/high', 'likely_ai/medium', 'inconclusive/low', 'likely_authentic/medium', 'likely_authentic/high'] as const;

export function calibrationTable(modelsDir: string): string {
  const dir = join(modelsDir, DEFAULT_MODEL_NAME);
  const manifest = ModelManifest.parse(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')));
  const evals = EvalResults.parse(JSON.parse(readFileSync(join(dir, 'eval-results.json'), 'utf8')));
  const t = manifest.thresholds;
  const p = manifest.portraits?.thresholds;
  const lines = [
    `Model ${manifest.name}@${manifest.version}; thresholds decision ${t.decision}, highAi ${t.highAi}, ` +
      `highAuthentic ${t.highAuthentic}, inconclusive band [${t.inconclusiveBand.join(', ')}]` +
      (p ? `; portraits highAi ${p.highAi}, highAuthentic ${p.highAuthentic}.` : '.'),
    '',
    `| split | class | n | ${BUCKETS.join(' | ')} |`,
    `| --- | --- | ---: | ${BUCKETS.map(() => '---:').join(' | ')} |`,
  ];
  for (const [split, rows] of Object.entries(evals.file_scores)) {
    for (const label of ['ai', 'real'] as const) {
      const scores = rows.filter((r) => r.label === label);
      if (!scores.length) continue;
      const counts = new Map<string, number>();
      for (const r of scores) {
        const d = aiDimension(r.score, r.portrait && p ? p : t);
        const key = `${d.assessment}/${d.confidence}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const pct = (k: string) => `${(((counts.get(k) ?? 0) / scores.length) * 100).toFixed(1)} %`;
      lines.push(`| ${split} | ${label === 'ai' ? 'AI' : 'authentic'} | ${scores.length} | ${BUCKETS.map(pct).join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('calibration-table.ts')) {
  console.log(calibrationTable(resolve(process.argv[2] ?? join(import.meta.dirname, '..', '..', 'models'))));
}
