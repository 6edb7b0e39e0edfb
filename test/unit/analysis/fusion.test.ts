// The verdict fusion rules of src/analysis/README.md, one test per rule, with the copy a specialist reads aloud.
import { describe, expect, it } from 'vitest';
import { Verdict } from '../../../src/api/schemas.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { aiDimension, fuse, type FusionInput } from '../../../src/analysis/fusion.js';
import { calibrationTable } from '../../../src/analysis/calibration-table.js';
import { REPO } from './fixtures.js';

const T = { decision: 0.5, highAi: 0.8, highAuthentic: 0.2, inconclusiveBand: [0.4, 0.6] as [number, number] };
const prov = (assessment: 'likely_ai' | 'inconclusive') => ({ key: 'provenance', label: 'Provenance metadata', score: assessment === 'likely_ai' ? 1 : 0.5, assessment });

function input(score: number | null, over: Partial<FusionInput> = {}): FusionInput {
  const dims = score === null ? [prov('inconclusive')] : [aiDimension(score, T), prov('inconclusive')];
  return {
    dimensions: dims,
    pixel: { score, where: null, count: score === null ? 0 : 1 },
    strongAiProvenance: false,
    provenanceNotes: ['No provenance metadata points either way; metadata is often stripped, so its absence is not evidence of authenticity.'],
    structureNotes: [],
    structureDimension: null,
    isPdf: false,
    ...over,
  };
}

describe('ai_detection dimension from the calibrated thresholds', () => {
  it.each([
    [0.95, 'likely_ai', 'high'],
    [0.7, 'likely_ai', 'medium'],
    [0.5, 'inconclusive', 'low'],
    [0.3, 'likely_authentic', 'medium'],
    [0.1, 'likely_authentic', 'high'],
  ])('score %s -> %s (%s)', (score, assessment, confidence) => {
    expect(aiDimension(score, T)).toMatchObject({ key: 'ai_detection', assessment, confidence });
  });
});

describe('fuse', () => {
  const capture = (confidence: 'medium' | 'low') => ({ key: 'provenance', label: 'Provenance metadata', score: confidence === 'medium' ? 0.2 : 0.3, assessment: 'likely_authentic' as const, confidence });

  it('rule 2: pixels alone never decide, even at their high-AI end; the copy gives the score, its direction and its limits', () => {
    const v = fuse(input(0.93));
    expect(Verdict.parse(v)).toBeTruthy();
    expect(v.dimensions[0]).toMatchObject({ key: 'ai_detection', assessment: 'likely_ai', confidence: 'high' });
    expect(v).toMatchObject({ assessment: 'inconclusive', confidence: 'low', display: { label: 'Inconclusive' } });
    expect(v.display.description).toMatch(/AI score is 93%; it is at the high end of its scale and points to AI generation, but this model is not reliable enough .* to decide on its own.*a specialist should review/);
  });

  it('rule 2: any other pixel reading alone is inconclusive, and says which way it leans', () => {
    expect(fuse(input(0.7))).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(fuse(input(0.7)).display.description).toMatch(/leans towards AI generation, but below the level at which it is reliable/);
    expect(fuse(input(0.1))).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(fuse(input(0.1)).display.description).toMatch(/leans away from AI generation, which on its own does not show a file is authentic/);
    expect(fuse(input(0.45))).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
  });

  it('rule 1: strong AI provenance outweighs a weak pixel score, and the copy says the metadata decided', () => {
    const v = fuse(
      input(0.3, {
        dimensions: [aiDimension(0.3, T), prov('likely_ai')],
        strongAiProvenance: true,
        provenanceNotes: ['The file\'s metadata names Stable Diffusion WebUI as its source (PNG text chunk "parameters").'],
      }),
    );
    expect(v).toMatchObject({ assessment: 'ai_generated', confidence: 'high' });
    expect(v.display.title).toMatch(/metadata says so/);
    expect(v.display.description).toMatch(/Stable Diffusion WebUI.*The pixels do not look generated; the metadata claim is what decided/);
  });

  it('rule 1: against a high-confidence authentic pixel score, provenance still decides but at medium confidence', () => {
    const v = fuse(input(0.05, { dimensions: [aiDimension(0.05, T), prov('likely_ai')], strongAiProvenance: true, provenanceNotes: ['x.'] }));
    expect(v).toMatchObject({ assessment: 'ai_generated', confidence: 'medium' });
  });

  it('rule 3: authentic needs capture evidence: camera EXIF -> low, intact signed claim -> medium/high, edits cap it', () => {
    expect(fuse(input(0.3, { dimensions: [aiDimension(0.3, T), capture('low')] }))).toMatchObject({ assessment: 'authentic', confidence: 'low' });
    expect(fuse(input(0.3, { dimensions: [aiDimension(0.3, T), capture('medium')] }))).toMatchObject({ assessment: 'authentic', confidence: 'medium' });
    expect(fuse(input(0.05, { dimensions: [aiDimension(0.05, T), capture('medium')] }))).toMatchObject({ assessment: 'authentic', confidence: 'high' });
    const edited = fuse(input(0.05, { dimensions: [aiDimension(0.05, T), capture('medium')], provenanceNotes: ['Edited with: Adobe Photoshop.'] }));
    expect(edited).toMatchObject({ assessment: 'authentic', confidence: 'medium' });
    // camera EXIF does not rescue a pixel score that leans AI
    expect(fuse(input(0.7, { dimensions: [aiDimension(0.7, T), capture('low')] }))).toMatchObject({ assessment: 'inconclusive' });
    // a signed capture claim against a high AI pixel score: the two disagree
    const clash = fuse(input(0.95, { dimensions: [aiDimension(0.95, T), capture('medium')] }));
    expect(clash).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(clash.display.description).toMatch(/disagree/);
  });

  it('rule 4: nothing scoreable and no strong provenance is inconclusive, and says why', () => {
    const v = fuse(input(null, { isPdf: true }));
    expect(v).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(v.display.description).toMatch(/no raster image large enough/);
  });

  it('PDFs: the copy names the page and image with the highest score', () => {
    const v = fuse(input(0.9, { isPdf: true, pixel: { score: 0.9, where: 'page 3, image 2 (800x600)', count: 4 } }));
    expect(v).toMatchObject({ assessment: 'inconclusive', confidence: 'low' });
    expect(v.display.description).toMatch(/highest on page 3, image 2 \(800x600\), of 4 analysed/);
  });
});

describe.skipIf(!existsSync(join(REPO, 'models', 'veracity-detector', 'eval-results.json')))('calibration table of the shipped model', () => {
  it('every row of recorded scores falls into exactly one assessment bucket (shares sum to 100 %)', () => {
    const table = calibrationTable(join(REPO, 'models'));
    const rows = table.split('\n').filter((l) => /^\| (validation|modern)/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const r of rows) {
      const shares = [...r.matchAll(/([\d.]+) %/g)].map((m) => Number(m[1]));
      expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 0);
    }
  });
});
