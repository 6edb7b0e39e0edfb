// The renderer's triage and viewer arithmetic, without a browser: drop order kept across requests of two kinds,
// counts by verdict, the sort and filter orders, heatmap coverage with its unscored strips and sampling gaps, the
// placement of an embedded PDF image's grid on its page, zoom about a point, and the one vocabulary.
import { describe, expect, it } from 'vitest';
import type { FileResult, JobResult, RegionGrid } from '../../../src/api/schemas.js';
import type { ApiClient } from '../../../renderer/lib/api-client.js';
import { CaseSession, type TrackedJob } from '../../../renderer/lib/case-session.js';
import { cellAt, coverageWords, gridCoverage, matrixBounds, overlayTiles, pdfImageOverlayMatrix, withTiles, type Matrix } from '../../../renderer/lib/heatmap.js';
import { aiScore, caseFiles, countByState, filterFiles, sortFiles, triageCounts } from '../../../renderer/lib/triage.js';
import { ASSESSMENT_WORDS, dimensionFinding, isEvidence, lessCertainWords, verdictTitleWords } from '../../../renderer/lib/words.js';
import { VERDICT_WORDS } from '../../../src/api/vocabulary.js';
import { fitView, nativeView, panBy, toContent, visibleRect, zoomAbout } from '../../../renderer/lib/zoom.js';
import { originsInRect } from '../../../src/api/tile-grid.js';

const NOW = '2026-11-23T09:00:00.000Z';
let ids = 0;
const uuid = (): string => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`;

function result(name: string, verdict: 'ai_generated' | 'authentic' | 'inconclusive' | 'processing' | 'error', score?: number): FileResult {
  const file = { id: uuid(), name, size: 1, type: name.endsWith('.pdf') ? ('application/pdf' as const) : ('image/jpeg' as const) };
  if (verdict === 'processing') return { file, status: 'processing', startedAt: NOW, completedAt: null };
  if (verdict === 'error') return { file, status: 'error', startedAt: NOW, completedAt: NOW, error: { code: 'result_unavailable', message: 'x' } };
  const dimensions = score === undefined ? [] : [{ key: 'ai_detection', label: 'AI', score, assessment: 'inconclusive' as const, confidence: 'low' as const }];
  return { file, status: 'completed', startedAt: NOW, completedAt: NOW, verdict: { assessment: verdict, confidence: 'low', display: { label: 'x' }, dimensions } };
}

function job(results: FileResult[], status: JobResult['status'] = 'completed'): JobResult {
  return { jobId: uuid(), status, results, createdAt: NOW, metadata: { case: 'C' } };
}

const tracked = (j: JobResult, dropOrder?: number[]): TrackedJob => ({ job: j, kind: 'images', apiKey: 'K', dropOrder });
const names = (files: { result: FileResult }[]): string[] => files.map((f) => f.result.file.name);

describe('drop order', () => {
  it('a session keeps the order the files were dropped in, across the requests of each kind', async () => {
    // One drop: photo, PDF, photo. The images go in one request and the PDF in another (another application),
    // and the PDF's job is accepted last: the cards must still read photo, PDF, photo.
    const fake = {
      assess: async (_key: string, files: { name: string }[]) => job(files.map((f) => result(f.name, 'inconclusive', 0.2)), 'processing'),
      getJob: async () => job([]),
    } as unknown as ApiClient;
    const session = new CaseSession({ client: fake, keys: () => ({ images: { applicationId: 'a', apiKey: 'K' }, pdfs: { applicationId: 'b', apiKey: 'P' } }), pollIntervalMs: 60_000 });
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const pdf = new TextEncoder().encode('%PDF-1.4\n');
    await session.submit([
      { file: new File([jpeg], '1.jpg'), path: '1-photo.jpg', caseName: 'C' },
      { file: new File([pdf], '2.pdf'), path: '2-statement.pdf', caseName: 'C' },
      { file: new File([jpeg], '3.jpg'), path: '3-photo.jpg', caseName: 'C' },
    ]);
    await session.submit([{ file: new File([jpeg], '0.jpg'), path: '0-later.jpg', caseName: 'C' }]);
    const { jobs } = session.getState();
    expect(jobs.flatMap((t) => t.job.results.map((r) => r.file.name))).toEqual(['1-photo.jpg', '3-photo.jpg', '2-statement.pdf', '0-later.jpg']);
    expect(names(caseFiles(jobs))).toEqual(['1-photo.jpg', '2-statement.pdf', '3-photo.jpg', '0-later.jpg']);
    session.clear();
  });

  it('jobs without a drop order (reopened from History) follow in the order they were opened', () => {
    const a = tracked(job([result('a', 'authentic'), result('b', 'authentic')]));
    const b = tracked(job([result('c', 'authentic')]));
    expect(names(caseFiles([a, b]))).toEqual(['a', 'b', 'c']);
    expect(caseFiles([a, b]).map((f) => f.dropOrder)).toEqual([0, 1, 2]);
  });
});

describe('triage', () => {
  const files = caseFiles([
    tracked(job([result('img-10.jpg', 'inconclusive', 0.4), result('img-9.jpg', 'ai_generated', 0.2), result('z.jpg', 'processing')], 'processing'), [0, 1, 2]),
    tracked(job([result('a.pdf', 'authentic', 0.05), result('m.jpg', 'error'), result('n.jpg', 'inconclusive', 0.7)]), [3, 4, 5]),
  ]);

  it('counts each verdict, and the counts add up to the files', () => {
    const counts = countByState(files);
    expect(counts).toEqual({ ai_generated: 1, inconclusive: 2, authentic: 1, processing: 1, not_assessed: 1 });
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(files.length);
  });

  it('counts what the name search shows: the chips add up to the files whose name holds it, dropped files included', () => {
    const onTheirWay = [
      { key: 'p1', name: 'img-11.jpg', size: 1, dropOrder: 6, stage: 'sending' as const },
      { key: 'p2', name: 'refused.jpg', size: 1, dropOrder: 7, stage: 'not_sent' as const },
    ];
    const reviewed = files.find((f) => f.result.file.name === 'img-10.jpg')!;
    const withReview = files.map((f) => (f === reviewed ? { ...f, result: { ...f.result, expertReview: { assessment: 'authentic' as const, reviewer: 'R', note: '', reviewedAt: NOW } } } : f));
    // No search: the whole case.
    expect(triageCounts(withReview, onTheirWay, '  ')).toEqual({
      byState: { ai_generated: 1, inconclusive: 1, authentic: 2, processing: 2, not_assessed: 2 },
      all: 8,
      inJobs: 6,
      reviewed: 1,
      notReviewed: 7,
    });
    // "IMG": img-10.jpg (reviewed authentic), img-9.jpg (AI-generated) and img-11.jpg (on its way), in any case.
    expect(triageCounts(withReview, onTheirWay, 'IMG')).toEqual({
      byState: { ai_generated: 1, inconclusive: 0, authentic: 1, processing: 1, not_assessed: 0 },
      all: 3,
      inJobs: 2,
      reviewed: 1,
      notReviewed: 2,
    });
    expect(triageCounts(withReview, onTheirWay, 'nothing-like-this').all).toBe(0);
  });

  it('sorts by AI score (unscored last), verdict (AI-generated first), name (numbers as numbers) and drop order', () => {
    expect(names(sortFiles(files, 'ai_score'))).toEqual(['n.jpg', 'img-10.jpg', 'img-9.jpg', 'a.pdf', 'z.jpg', 'm.jpg']);
    expect(names(sortFiles(files, 'verdict'))).toEqual(['img-9.jpg', 'img-10.jpg', 'n.jpg', 'a.pdf', 'm.jpg', 'z.jpg']);
    expect(names(sortFiles(files, 'name'))).toEqual(['a.pdf', 'img-9.jpg', 'img-10.jpg', 'm.jpg', 'n.jpg', 'z.jpg']);
    expect(names(sortFiles(sortFiles(files, 'name'), 'drop'))).toEqual(names(files));
    expect(aiScore(files[0].result)).toBe(0.4);
  });

  it('filters by verdict', () => {
    expect(names(filterFiles(files, 'inconclusive'))).toEqual(['img-10.jpg', 'n.jpg']);
    expect(names(filterFiles(files, 'not_assessed'))).toEqual(['m.jpg']);
    expect(filterFiles(files, 'all')).toHaveLength(6);
  });
});

describe('heatmap coverage', () => {
  // 320 × 240 with 96-px tiles every 64 px (the model's tiling): tiles reach x = 288 and y = 224.
  const tiles: RegionGrid['tiles'] = [];
  for (let y = 0; y + 96 <= 240; y += 64) for (let x = 0; x + 96 <= 320; x += 64) tiles.push({ x, y, w: 96, h: 96, score: x > 100 ? 0.9 : 0.1 });
  const grid: RegionGrid = { source: { kind: 'image' }, width: 320, height: 240, tiles };

  it('draws the right and bottom strips the tiling does not reach, and says so', () => {
    const c = gridCoverage(grid);
    expect(c.rightStrip).toBe(32);
    expect(c.bottomStrip).toBe(16);
    expect(c.unscored).toEqual([
      { x: 288, y: 0, w: 32, h: 240 },
      { x: 0, y: 224, w: 288, h: 16 },
    ]);
    expect(c.sampled).toBe(false);
    expect(c.scoredFraction).toBeCloseTo((288 * 224) / (320 * 240), 6);
    expect(coverageWords(c, grid)).toMatch(/84 % .* a 32-pixel strip at the right and a 16-pixel strip at the bottom/);
    // Every pixel is either in a scored cell or in an unscored rectangle.
    const cells = overlayTiles(grid);
    const area = (r: { w: number; h: number }): number => r.w * r.h;
    const cellArea = cells.reduce((s, t) => s + (t.width / 100) * 320 * (t.height / 100) * 240, 0);
    expect(cellArea + c.unscored.reduce((s, r) => s + area(r), 0)).toBeCloseTo(320 * 240, -1); // cells are rounded to 0.001 %
  });

  it('draws the gaps of a sampled grid (large images) as unscored', () => {
    const sampled = { ...grid, tiles: tiles.filter((_, i) => i % 2 === 0) };
    const c = gridCoverage(sampled);
    expect(c.sampled).toBe(true);
    expect(c.unscored.length).toBeGreaterThan(2);
    expect(coverageWords(c, sampled)).toMatch(/even sample of its tiles/);
  });

  it('finds the cell under a point for the score on hover', () => {
    const cells = overlayTiles(grid);
    expect(cellAt(cells, grid, 10, 10)?.score).toBeCloseTo(0.1);
    expect(cellAt(cells, grid, 250, 100)?.score).toBeCloseTo(0.9);
    expect(cellAt(cells, grid, 300, 100)).toBeNull(); // the unscored strip
  });

  it('tiles scored later for the viewer fill the gaps of a sampled grid; the analysis\' own are kept', () => {
    const sampled = { ...grid, tiles: tiles.filter((_, i) => i % 2 === 0) };
    const later = tiles.filter((_, i) => i % 2 === 1).map((t) => ({ ...t, score: 0.5 }));
    const merged = withTiles(sampled, [...later, { ...sampled.tiles[0], score: 0.99 }]);
    expect(merged.tiles).toHaveLength(tiles.length);
    expect(merged.tiles[0].score).toBe(sampled.tiles[0].score);
    expect(gridCoverage(merged).sampled).toBe(false);
    expect(withTiles(sampled, [])).toBe(sampled);
  });

  it('a whole image with no tile is all unscored', () => {
    expect(gridCoverage({ ...grid, tiles: [] })).toMatchObject({ scoredFraction: 0, unscored: [{ x: 0, y: 0, w: 320, h: 240 }] });
  });
});

describe('PDF image placement', () => {
  it('maps an embedded image’s grid onto its rectangle of the drawn page', () => {
    // A 400 × 300 pt page at scale 2 (pdf.js viewport: y flipped), the image drawn at 288 × 216 pt from (56, 64).
    const viewport: Matrix = [2, 0, 0, -2, 0, 600];
    const ctm: Matrix = [288, 0, 0, 216, 56, 64];
    const m = pdfImageOverlayMatrix(viewport, ctm, 192, 144);
    expect(matrixBounds(m, 192, 144)).toEqual({ x: 112, y: 40, w: 576, h: 432 });
    // The image's first row is at the top of its rectangle: grid (0, 0) is the rectangle's top-left corner.
    expect([m[4], m[5]]).toEqual([112, 40]);
  });
});

describe('zoom', () => {
  it('fits, zooms about the pointer and goes to native resolution', () => {
    const stage = { width: 1000, height: 800 };
    const fit = fitView(stage, { width: 4000, height: 3000 });
    expect(fit.scale).toBeCloseTo(0.242, 3);
    const zoomed = zoomAbout(fit, 2, 300, 200);
    // The content point under the pointer stays under it.
    const before = toContent(fit, 300, 200);
    const after = toContent(zoomed, 300, 200);
    expect(after.x).toBeCloseTo(before.x, 6);
    expect(after.y).toBeCloseTo(before.y, 6);
    expect(nativeView(zoomed, stage).scale).toBe(1);
    expect(fitView(stage, { width: 100, height: 80 }).scale).toBe(4);
  });

  it('says which part of the content is shown, in whole pixels inside it, and which tiles overlap it', () => {
    const stage = { width: 1000, height: 800 };
    const content = { width: 4000, height: 3000 };
    expect(visibleRect(fitView(stage, content), stage, content)).toEqual({ x: 0, y: 0, width: 4000, height: 3000 });
    const native = nativeView(fitView(stage, content), stage);
    const shown = visibleRect(native, stage, content)!;
    expect(shown).toEqual({ x: 1500, y: 1100, width: 1000, height: 800 });
    // 192-px tiles every 96 px: x origins 1344..2496 (13), y origins 960..1824 (10).
    expect(originsInRect(content.width, content.height, 192, 96, shown)).toHaveLength(13 * 10);
    expect(visibleRect(panBy(native, 5000, 0), stage, content)).toBeNull();
  });
});

describe('one vocabulary', () => {
  it('the window shows the shared vocabulary, and the reason under the badge is its own, never a cut-down title', () => {
    expect(ASSESSMENT_WORDS).toBe(VERDICT_WORDS);
    expect(verdictTitleWords({ assessment: 'authentic' })).toBe('Capture evidence and no sign of AI generation');
    expect(verdictTitleWords(undefined)).toBeNull();
    expect(dimensionFinding({ assessment: 'inconclusive', confidence: 'low' })).toBe('No evidence either way');
    expect(isEvidence({ assessment: 'likely_ai', confidence: 'medium' })).toBe(true);
    expect(lessCertainWords('high', [{ key: 'ai_detection', label: 'x', confidence: 'high', assessment: 'likely_ai' }])).toBeNull();
  });
});
