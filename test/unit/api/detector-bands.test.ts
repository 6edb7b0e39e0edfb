// The detector's score bands in one place (issue 22, item 6): the shipped model's calibrated thresholds, read from its
// manifest, decide the band of a score for the core's dimension, the window's words and colours, the heatmap's tiles
// and the legend alike; an older model's thresholds give a band of medium confidence on each side.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bandRanges, bandWords, scoreBand, tileRgba, type DetectorThresholds } from '../../../src/api/detector-bands.js';
import { aiDimension } from '../../../src/analysis/fusion.js';
import { ModelManifest } from '../../../src/analysis/model-manifest.js';
import { dimensionFinding } from '../../../src/api/vocabulary.js';
import { bandColor, dimensionBand, legendEntries, tileColor } from '../../../renderer/lib/score-bands.js';
import { MODELS_DIR } from '../analysis/fixtures.js';

const MANIFEST = ModelManifest.parse(JSON.parse(fs.readFileSync(path.join(MODELS_DIR, 'veracity-detector', 'manifest.json'), 'utf8')));
const SHIPPED = MANIFEST.thresholds;
/** 1.5 on: the thresholds portraits are read against (a face spanning >= 15 % of the shorter side). */
const PORTRAITS = MANIFEST.portraits!.thresholds;
/** veracity-detector 0.2.0's thresholds: a medium band on each side of the undecided one. */
const OLDER: DetectorThresholds = { decision: 0.5592, highAi: 0.957, highAuthentic: 0.2623, inconclusiveBand: [0.5592, 0.7387] };

describe('detector bands from the model calibration', () => {
  it('the shipped model: authentic at high confidence up to highAuthentic, neither way up to highAi, AI at high confidence above; 50 % and 58-71 % read alike', () => {
    // 1.6.1's fused score (1.6.0's networks, fusion refitted without a withdrawn validation source; calibrated per group
    // on a validation that also holds tilted portraits, each group's highAi also reached by under 3 % of validation
    // pooled with Data 2.11's unusual genuine captures: rule C2): pictures without a portrait highAuthentic 0.2171,
    // highAi 0.8617; portraits the same highAuthentic, highAi 0.9623
    // (MODEL_CARD.md); the heatmap tiles keep 1.0.0's own.
    expect(SHIPPED).toMatchObject({ highAuthentic: 0.2171, highAi: 0.8617 });
    expect(PORTRAITS).toMatchObject({ highAuthentic: 0.2171, highAi: 0.9623 });
    expect(MANIFEST.tileThresholds).toMatchObject({ highAuthentic: 0.411, highAi: 0.8765 });
    for (const t of [SHIPPED, PORTRAITS, MANIFEST.tileThresholds!]) {
      expect(bandRanges(t)).toEqual([
        { band: 'authentic_high', from: 0, to: t.highAuthentic },
        { band: 'inconclusive', from: t.highAuthentic, to: t.highAi },
        { band: 'ai_high', from: t.highAi, to: 1 },
      ]);
    }
    expect(scoreBand(0.15, SHIPPED)).toBe('authentic_high');
    for (const score of [0.2172, 0.5, 0.58, 0.65, 0.71, 0.86]) expect(scoreBand(score, SHIPPED), String(score)).toBe('inconclusive');
    expect(scoreBand(0.8618, SHIPPED)).toBe('ai_high');
    // a portrait's score between the two highAi points neither way; above 96.23 % to AI
    for (const score of [0.86, 0.9, 0.96]) expect(scoreBand(score, PORTRAITS), String(score)).toBe('inconclusive');
    expect(scoreBand(0.9624, PORTRAITS)).toBe('ai_high');
    expect(bandWords(scoreBand(0.5, SHIPPED))).toBe('Points neither way');
    expect(bandWords(scoreBand(0.5, SHIPPED))).toBe(bandWords(scoreBand(0.65, SHIPPED)));
  });

  it('the core reads a score through the same bands: the dimension it stores has the words and colour of its band', () => {
    for (const t of [SHIPPED, PORTRAITS, OLDER]) {
      for (let score = 0; score <= 1; score += 0.01) {
        const d = aiDimension(score, t);
        expect(dimensionBand(d), `${score}`).toBe(scoreBand(d.score, t));
        expect(dimensionFinding(d)).toBe(bandWords(scoreBand(d.score, t)));
      }
    }
  });

  it('an older model with medium bands: five bands in score order, each with its own words and colour', () => {
    const ranges = bandRanges(OLDER);
    expect(ranges.map((r) => r.band)).toEqual(['authentic_high', 'authentic_medium', 'inconclusive', 'ai_medium', 'ai_high']);
    expect(ranges.map((r) => [r.from, r.to])).toEqual([
      [0, 0.2623],
      [0.2623, 0.5592],
      [0.5592, 0.7387],
      [0.7387, 0.957],
      [0.957, 1],
    ]);
    expect(bandWords('authentic_medium')).toBe('Points to authentic · medium confidence');
    expect(bandWords('ai_high')).toBe('Points to AI-generated · high confidence');
    const entries = legendEntries(OLDER);
    expect(new Set(entries.map((e) => e.color)).size).toBe(5);
    expect(new Set(entries.map((e) => e.words)).size).toBe(5);
  });

  it('heatmap tiles take their band colour (red for AI, blue for authentic, clear where they point neither way), not a split at 50 %', () => {
    expect(tileColor(0.95, SHIPPED)).toBe(bandColor('ai_high').replace('rgb(', 'rgba(').replace(')', ', 0.6)'));
    expect(tileColor(0.1, SHIPPED)).toMatch(/^rgba\(37, 99, 235, /);
    // 55 % and 45 % were red and blue under the old 0.5 split; under the shipped thresholds both point neither way.
    expect(tileRgba(0.55, SHIPPED)[3]).toBe(0);
    expect(tileRgba(0.45, SHIPPED)[3]).toBe(0);
    expect(tileRgba(0.55, SHIPPED).slice(0, 3)).toEqual(tileRgba(0.45, SHIPPED).slice(0, 3));
    // Tile scores stored without thresholds are shaded by score alone, in no band's direction.
    expect(tileRgba(0.9, undefined).slice(0, 3)).toEqual(tileRgba(0.1, undefined).slice(0, 3));
  });
});
