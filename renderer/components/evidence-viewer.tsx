// The evidence viewer: one file of the case over the whole window, at native resolution with zoom and pan, the
// heatmap of tile scores over it (opacity, score on hover, unscored areas hatched and explained), PDF pages with
// each scored embedded image's heatmap on it; arrows move through the case's cards, Esc closes, focus stays inside.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { PDFPageProxy } from 'pdfjs-dist';
import { REGION_TILES_MAX } from '../../src/api/limits.js';
import type { FileRegions, RegionGrid } from '../../src/api/schemas.js';
import { originsInRect } from '../../src/api/tile-grid.js';
import type { ApiClient } from '../lib/api-client.js';
import { bandWords, scoreBand } from '../lib/score-bands.js';
import { coverageWords, gridCoverage, overlayTiles, pdfImageOverlayMatrix, tilesAt, withTiles, type GridCoverage, type Matrix, type OverlayTile } from '../lib/heatmap.js';
import { pixelWords } from '../lib/case-view.js';
import { imagePlacements, openPdf, renderPage } from '../lib/pdf-thumbnail.js';
import { aiScore, type CaseFile } from '../lib/triage.js';
import { ASSESSMENT_WORDS, CONFIDENCE_WORDS, errorWords, MEDIA_WORDS, verdictTitleWords } from '../lib/words.js';
import { fitView, nativeView, panBy, visibleRect, zoomAbout, ZOOM_STEP, type Size, type View } from '../lib/zoom.js';
import { C2paChain } from './c2pa-chain.js';
import { ScoreLegend } from './score-legend.js';

interface Props {
  client: ApiClient;
  /** The cards on screen, in their order: the arrows move through these. */
  files: CaseFile[];
  index: number;
  onIndex: (index: number) => void;
  onClose: () => void;
}

const FOCUSABLE = 'button:not(:disabled), input:not(:disabled), select:not(:disabled), [href], [tabindex]:not([tabindex="-1"])';

export function EvidenceViewer({ client, files, index, onIndex, onClose }: Props): React.JSX.Element | null {
  const dialog = useRef<HTMLDivElement>(null);
  const current = files[index];

  useEffect(() => {
    dialog.current?.focus();
    // The page behind does not scroll while the viewer is open.
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      document.body.style.overflow = overflow;
    };
  }, []);

  const onKeyDown = (event: React.KeyboardEvent): void => {
    const target = event.target as HTMLElement;
    const inRange = target instanceof HTMLInputElement && target.type === 'range';
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
    } else if (event.key === 'ArrowRight' && !inRange) {
      event.preventDefault();
      if (index + 1 < files.length) onIndex(index + 1);
    } else if (event.key === 'ArrowLeft' && !inRange) {
      event.preventDefault();
      if (index > 0) onIndex(index - 1);
    } else if (event.key === 'Tab') {
      // Focus is trapped in the dialog (aria-modal): Tab from the last control goes back to the first.
      const focusable = [...(dialog.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])].filter((e) => e.offsetParent !== null);
      if (focusable.length === 0) return;
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      if (event.shiftKey && (document.activeElement === first || document.activeElement === dialog.current)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    }
  };

  if (!current) return null;
  const { result } = current;
  return (
    <div className="viewer-backdrop">
      <div ref={dialog} className="viewer" role="dialog" aria-modal="true" aria-labelledby="viewer-title" tabIndex={-1} onKeyDown={onKeyDown} data-testid="evidence-viewer">
        <header className="viewer-bar">
          <h2 id="viewer-title" className="file-name" title={result.file.name}>
            {result.file.name}
          </h2>
          <span className="hint" data-testid="viewer-position">
            File {index + 1} of {files.length} · {MEDIA_WORDS[result.file.type] ?? result.file.type}
            {result.pixelSize ? <span data-testid="viewer-pixel-size"> · {pixelWords(result.pixelSize)}</span> : null}
          </span>
          <div className="row viewer-nav">
            <button type="button" disabled={index === 0} onClick={() => onIndex(index - 1)} aria-label="Previous file (Left arrow)">
              ← Previous
            </button>
            <button type="button" disabled={index + 1 >= files.length} onClick={() => onIndex(index + 1)} aria-label="Next file (Right arrow)">
              Next →
            </button>
            <button type="button" className="primary" onClick={onClose} aria-label="Close the viewer (Esc)">
              Close
            </button>
          </div>
        </header>
        <ViewerFile key={current.key} client={client} file={current} dialog={dialog} />
      </div>
    </div>
  );
}

interface GridView {
  grid: RegionGrid;
  cells: OverlayTile[];
  coverage: GridCoverage;
  label: string;
}

function gridLabel(grid: RegionGrid): string {
  if (grid.source.kind === 'pdf_page') return `Page ${grid.source.page ?? 1} (scanned page)`;
  if (grid.source.kind === 'pdf_image') return `Page ${grid.source.page ?? 1}, image ${(grid.source.imageIndex ?? 0) + 1}`;
  return 'The image';
}

/** Where the scoring of the region shown stands (POST .../regions, issue 22). */
type RegionScoring =
  | { kind: 'idle' }
  | { kind: 'zoom_in'; tiles: number }
  | { kind: 'scoring'; tiles: number }
  /** `at`: the part shown, as "x,y,width,height" of the picture. */
  | { kind: 'scored'; tiles: number; scoredNow: number; at: string }
  | { kind: 'failed'; text: string };

/** How long the view rests before the region shown is scored: a pan or a wheel zoom is not a request per frame. */
const REGION_DELAY_MS = 300;

function regionWords(r: RegionScoring): string | null {
  switch (r.kind) {
    case 'idle':
      return null;
    case 'zoom_in':
      return `Zoom in to have every tile of the part shown scored: it holds ${r.tiles} tiles, at most ${REGION_TILES_MAX} are scored at a time.`;
    case 'scoring':
      return `Scoring the ${r.tiles} tiles of the part shown…`;
    case 'scored':
      return `Every tile of the part shown is scored (${r.tiles} tiles${r.scoredNow > 0 ? `, ${r.scoredNow} scored just now` : ''}). Tiles scored for the viewer do not change the file's score.`;
    case 'failed':
      return r.text;
  }
}

function ViewerFile({ client, file, dialog }: { client: ApiClient; file: CaseFile; dialog: React.RefObject<HTMLDivElement | null> }): React.JSX.Element {
  const { tracked, result } = file;
  const stage = useRef<HTMLDivElement>(null);
  const [stageSize, setStageSize] = useState<Size | null>(null);
  const [content, setContent] = useState<Size | null>(null);
  const [view, setView] = useState<View | null>(null);
  const [regions, setRegions] = useState<FileRegions | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [showHeatmap, setShowHeatmap] = useState(true);
  const [opacity, setOpacity] = useState(70);
  const [hover, setHover] = useState<string | null>(null);
  const drag = useRef<{ x: number; y: number; id: number } | null>(null);
  const [dragging, setDragging] = useState(false);
  const [placements, setPlacements] = useState<Map<number, Map<number, Matrix>>>(new Map());
  const isPdf = result.file.type === 'application/pdf';
  const isHeic = result.file.type === 'image/heic' || result.file.type === 'image/heif';
  const [heicPreview, setHeicPreview] = useState<'shown' | 'failed'>('shown');
  const onPreviewFailed = useCallback((why: string) => {
    setHeicPreview('failed');
    setProblem(why);
  }, []);

  useEffect(() => {
    if (result.status !== 'completed') return;
    let live = true;
    client
      .getRegions(tracked.apiKey, tracked.job.jobId, result.file.id)
      .then((r) => live && setRegions(r))
      .catch((e: unknown) => live && setProblem(errorWords(e, { fileName: result.file.name, action: 'Loading the heatmap' })));
    return () => {
      live = false;
    };
  }, [client, tracked.apiKey, tracked.job.jobId, result.file.id, result.file.name, result.status]);

  // Tiles of the image scored on demand for the parts the specialist zoomed into, and the tiling they came with.
  const [extra, setExtra] = useState<RegionGrid['tiles']>([]);
  const known = useRef(new Set<string>());
  const [tiling, setTiling] = useState<{ tileSize: number; stride: number } | null>(null);
  const [regionScoring, setRegionScoring] = useState<RegionScoring>({ kind: 'idle' });
  const imageIndex = regions?.grids.findIndex((g) => g.source.kind === 'image') ?? -1;

  const grids: GridView[] = useMemo(
    () =>
      (regions?.grids ?? []).map((analysed, i) => {
        const grid = i === imageIndex ? withTiles(analysed, extra) : analysed;
        return { grid, cells: overlayTiles(grid), coverage: gridCoverage(grid), label: gridLabel(grid) };
      }),
    [regions, imageIndex, extra],
  );

  // Zoomed into a large photo whose analysis scored an even sample of its tiles: once the view rests, every tile of
  // the part shown is scored by the core (POST .../regions, kept there), and drawn over the hatching.
  useEffect(() => {
    if (isPdf || !view || !stageSize || !regions || imageIndex < 0) return;
    const analysed = regions.grids[imageIndex];
    if (!gridCoverage(analysed).sampled) return;
    const rect = visibleRect(view, stageSize, analysed);
    if (!rect) return;
    const tileSize = tiling?.tileSize ?? Math.max(...analysed.tiles.map((t) => t.w));
    const stride = tiling?.stride ?? Math.max(1, Math.round(tileSize / 2));
    const wanted = originsInRect(analysed.width, analysed.height, tileSize, stride, rect);
    const at = `${rect.x},${rect.y},${rect.width},${rect.height}`;
    if (wanted.length > REGION_TILES_MAX) {
      setRegionScoring({ kind: 'zoom_in', tiles: wanted.length });
      return;
    }
    const seen = new Set([...analysed.tiles.map((t) => `${t.x},${t.y}`), ...known.current]);
    if (tiling && wanted.every(([x, y]) => seen.has(`${x},${y}`))) {
      // Known already: nothing to ask. The answer that just came in keeps its "scored just now".
      setRegionScoring((prev) => (prev.kind === 'scored' && prev.at === at ? prev : { kind: 'scored', tiles: wanted.length, scoredNow: 0, at }));
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      setRegionScoring({ kind: 'scoring', tiles: wanted.length });
      client
        .scoreRegion(tracked.apiKey, tracked.job.jobId, result.file.id, { grid: imageIndex, ...rect })
        .then((r) => {
          for (const t of r.tiles) known.current.add(`${t.x},${t.y}`);
          setExtra((prev) => [...prev, ...r.tiles.filter((t) => !prev.some((p) => p.x === t.x && p.y === t.y))]);
          setTiling((prev) => (prev && prev.tileSize === r.tileSize && prev.stride === r.stride ? prev : { tileSize: r.tileSize, stride: r.stride }));
          if (live) setRegionScoring({ kind: 'scored', tiles: r.tiles.length, scoredNow: r.scoredNow, at });
        })
        .catch((e: unknown) => live && setRegionScoring({ kind: 'failed', text: errorWords(e, { fileName: result.file.name, action: 'Scoring the part shown' }) }));
    }, REGION_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [isPdf, view, stageSize, regions, imageIndex, tiling, client, tracked.apiKey, tracked.job.jobId, result.file.id, result.file.name]);

  useLayoutEffect(() => {
    const element = stage.current;
    if (!element) return;
    const measure = (): void => setStageSize({ width: element.clientWidth, height: element.clientHeight });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // The first view fits the whole content; later resizes keep the specialist's zoom.
  useEffect(() => {
    if (stageSize && content && !view) setView(fitView(stageSize, content));
  }, [stageSize, content, view]);

  const zoom = useCallback(
    (factor: number, at?: { x: number; y: number }) => {
      if (!stageSize) return;
      setView((v) => (v ? zoomAbout(v, factor, at?.x ?? stageSize.width / 2, at?.y ?? stageSize.height / 2) : v));
    },
    [stageSize],
  );
  const fit = useCallback(() => stageSize && content && setView(fitView(stageSize, content)), [stageSize, content]);

  // The wheel zooms about the pointer; a passive React listener could not keep the page from scrolling.
  useEffect(() => {
    const element = stage.current;
    if (!element) return;
    const onWheel = (event: WheelEvent): void => {
      event.preventDefault();
      const rect = element.getBoundingClientRect();
      zoom(Math.exp(-event.deltaY * 0.0015), { x: event.clientX - rect.left, y: event.clientY - rect.top });
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, [zoom]);

  // + − 0 work wherever the focus is in the dialog (its bar included), so they are listened for on the dialog.
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.ctrlKey || event.metaKey || event.altKey) return; // the browser's own page zoom
      if (event.key === '+' || event.key === '=') zoom(ZOOM_STEP);
      else if (event.key === '-' || event.key === '_') zoom(1 / ZOOM_STEP);
      else if (event.key === '0') fit();
      else return;
      event.preventDefault();
    };
    element.addEventListener('keydown', onKeyDown);
    return () => element.removeEventListener('keydown', onKeyDown);
  }, [dialog, zoom, fit]);

  const onPointerDown = (event: React.PointerEvent): void => {
    if (event.button !== 0) return;
    drag.current = { x: event.clientX, y: event.clientY, id: event.pointerId };
    setDragging(true);
    event.currentTarget.setPointerCapture(event.pointerId);
  };
  const onPointerMove = (event: React.PointerEvent): void => {
    const d = drag.current;
    if (d && d.id === event.pointerId) {
      const dx = event.clientX - d.x;
      const dy = event.clientY - d.y;
      drag.current = { ...d, x: event.clientX, y: event.clientY };
      setView((v) => (v ? panBy(v, dx, dy) : v));
      return;
    }
    setHover(hoverWords(event, grids));
  };
  const endDrag = (event: React.PointerEvent): void => {
    if (drag.current?.id === event.pointerId) {
      drag.current = null;
      setDragging(false);
    }
  };

  const imageGrid = grids.find((g) => g.grid.source.kind === 'image') ?? null;
  const verdict = result.verdict;
  const score = aiScore(result);
  // The analysed picture's size (after orientation): the result's, else its grid's, else the original as drawn. A PDF has pages.
  const pixels = isPdf ? null : (result.pixelSize ?? (imageGrid ? { width: imageGrid.grid.width, height: imageGrid.grid.height } : content));
  const regionLine = regionWords(regionScoring);
  const scale = view?.scale ?? 1;

  return (
    <div className="viewer-body">
      <div
        ref={stage}
        className={`viewer-stage${dragging ? ' dragging' : ''}`}
        data-testid="viewer-stage"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={endDrag}
        onPointerCancel={endDrag}
        onPointerLeave={() => setHover(null)}
      >
        <div
          className="viewer-content"
          style={{
            width: content?.width ?? 0,
            height: content?.height ?? 0,
            transform: view ? `translate(${view.x}px, ${view.y}px) scale(${view.scale})` : undefined,
            visibility: view ? 'visible' : 'hidden',
            // Past 2×, pixels are drawn as squares: a specialist looks at the file's own pixels, not a smoothing.
            imageRendering: scale >= 2 ? 'pixelated' : 'auto',
            ['--heat-opacity' as string]: String(opacity / 100),
          }}
        >
          {isPdf ? (
            <PdfPages client={client} file={file} grids={showHeatmap ? grids : []} onSize={setContent} onProblem={setProblem} onPlacements={setPlacements} />
          ) : isHeic && heicPreview === 'failed' ? (
            <HeicStandIn grid={imageGrid?.grid ?? null} onSize={setContent} />
          ) : isHeic ? (
            <CorePreview client={client} file={file} grid={imageGrid?.grid ?? null} onSize={setContent} onFailed={onPreviewFailed} />
          ) : (
            <OriginalImage client={client} file={file} onSize={setContent} onProblem={setProblem} />
          )}
          {!isPdf && showHeatmap && imageGrid && <GridOverlay view={imageGrid} index={grids.indexOf(imageGrid)} style={{ inset: 0 }} />}
        </div>
        {!view && !problem && <p className="viewer-loading">Loading the original…</p>}
      </div>

      <aside className="viewer-side" aria-label="Evidence">
        <div className="row viewer-zoom" role="group" aria-label="Zoom">
          <button type="button" onClick={() => zoom(1 / ZOOM_STEP)} aria-label="Zoom out (-)">
            −
          </button>
          <span className="zoom-level" data-testid="zoom-level" aria-live="polite">
            {Math.round(scale * 100)} %
          </span>
          <button type="button" onClick={() => zoom(ZOOM_STEP)} aria-label="Zoom in (+)">
            +
          </button>
          <button type="button" onClick={fit} aria-label="Fit to the window (0)">
            Fit
          </button>
          <button type="button" onClick={() => stageSize && setView((v) => (v ? nativeView(v, stageSize) : v))} aria-label="Native resolution: one file pixel per screen pixel">
            1:1
          </button>
        </div>
        <p className="hint">Wheel or + and − to zoom, drag to pan, 0 to fit; ← and → for the other files; Esc to close.</p>

        {pixels && (
          <p className="hint" data-testid="viewer-dimensions">
            {pixels.width} × {pixels.height} pixels
          </p>
        )}
        {verdict ? (
          <div className="verdict">
            <p className="machine-label">Machine verdict</p>
            <p className={`badge badge-${verdict.assessment}`}>{ASSESSMENT_WORDS[verdict.assessment]}</p>
            <p className="confidence">{CONFIDENCE_WORDS[verdict.confidence]}</p>
            {/* Why: the same copy as the card. */}
            <div data-testid="viewer-reason">
              {verdictTitleWords(verdict) && <p className="verdict-title">{verdictTitleWords(verdict)}</p>}
              {verdict.display.description && <p className="verdict-description">{verdict.display.description}</p>}
            </div>
            {score !== null && (
              <p className="dimension-score" data-testid="viewer-score">
                AI detector score {Math.round(score * 100)} %
              </p>
            )}
          </div>
        ) : (
          <p className="hint">{result.status === 'processing' ? 'Still being analysed.' : 'Not assessed: no heatmap.'}</p>
        )}

        {grids.length > 0 && (
          <>
            <label className="heatmap-toggle">
              <input type="checkbox" checked={showHeatmap} onChange={(e) => setShowHeatmap(e.target.checked)} /> Show heatmap of tile scores
            </label>
            <label>
              Heatmap opacity {opacity} %
              <input type="range" min={10} max={100} step={5} value={opacity} onChange={(e) => setOpacity(Number(e.target.value))} disabled={!showHeatmap} />
            </label>
            <p className="tile-readout" data-testid="tile-score">
              {hover ?? 'Point at the picture to read a tile’s score.'}
            </p>
            <ScoreLegend thresholds={grids[0].grid.thresholds} unscored />
          </>
        )}
        {regions && grids.length === 0 && <p className="hint">The detector scored no picture in this file, so there is no heatmap.</p>}
        {problem && (
          <p className="result-error" role="alert">
            {problem}
          </p>
        )}
        {isHeic && heicPreview === 'shown' && (
          <p className="hint" data-testid="heic-note">
            This browser cannot draw HEIC: the picture shown is a preview Veracity decoded itself from the original (at most 2048 pixels a side,
            turned upright, without metadata).
          </p>
        )}
        {isHeic && heicPreview === 'failed' && (
          <p className="warning" data-testid="heic-note">
            No preview: Veracity could not make a picture of this HEIC. The heatmap is drawn on a blank area of the picture&apos;s size.
          </p>
        )}

        {!isPdf && imageGrid && (
          <p className="hint" data-testid="coverage">
            {coverageWords(imageGrid.coverage, imageGrid.grid)}
          </p>
        )}
        {!isPdf && regionLine && (
          <p className={regionScoring.kind === 'failed' ? 'result-error' : 'hint'} role="status" data-testid="region-status" data-state={regionScoring.kind}>
            {regionLine}
          </p>
        )}
        {isPdf && grids.length > 0 && <PdfImageList grids={grids} placements={placements} opacity={showHeatmap ? opacity : 0} />}
        {regions?.modelVersion && <p className="hint">Detector model {regions.modelVersion}.</p>}
        <C2paChain dimensions={result.verdict?.dimensions ?? result.dimensions ?? []} open />
      </aside>
    </div>
  );
}

function hoverWords(event: React.PointerEvent, grids: GridView[]): string | null {
  const target = (event.target as Element).closest('[data-grid]');
  if (!(target instanceof HTMLElement)) return null;
  const view = grids[Number(target.dataset.grid)];
  if (!view) return null;
  const where = view.grid.source.kind === 'image' ? '' : `${view.label}: `;
  const sentence = (text: string): string => (where ? `${where}${text}` : text.charAt(0).toUpperCase() + text.slice(1));
  if (target.dataset.unscored !== undefined) return sentence('not scored by the tile model (the models that read the whole picture still saw it).');
  const cell = view.cells[Number(target.dataset.cell)];
  if (!cell) return null;
  const centre = { x: ((cell.left + cell.width / 2) / 100) * view.grid.width, y: ((cell.top + cell.height / 2) / 100) * view.grid.height };
  const overlapping = tilesAt(view.grid, centre.x, centre.y);
  const leaning = view.grid.thresholds ? bandWords(scoreBand(cell.score, view.grid.thresholds)).toLowerCase() : 'no band stored';
  return sentence(`tile score ${Math.round(cell.score * 100)} % (${leaning})${overlapping > 1 ? `, the mean of ${overlapping} overlapping tiles` : ''}.`);
}

/** The heatmap of one grid: cells with their colour, unscored areas hatched; placed by the caller's style. */
function GridOverlay({ view, index, style }: { view: GridView; index: number; style: React.CSSProperties }): React.JSX.Element {
  const { grid, cells, coverage } = view;
  const pct = (v: number, total: number): string => `${(v / total) * 100}%`;
  return (
    <div className="viewer-heatmap" style={style} data-testid="viewer-heatmap">
      {cells.map((t, i) => (
        <span
          key={i}
          className="tile"
          data-grid={index}
          data-cell={i}
          data-testid="heat-tile"
          style={{ left: `${t.left}%`, top: `${t.top}%`, width: `${t.width}%`, height: `${t.height}%`, backgroundColor: t.color }}
        />
      ))}
      {coverage.unscored.map((r, i) => (
        <span
          key={`u${i}`}
          className="unscored"
          data-grid={index}
          data-unscored=""
          data-testid="unscored"
          style={{ left: pct(r.x, grid.width), top: pct(r.y, grid.height), width: pct(r.w, grid.width), height: pct(r.h, grid.height) }}
        />
      ))}
    </div>
  );
}

function OriginalImage({ client, file, onSize, onProblem }: { client: ApiClient; file: CaseFile; onSize: (s: Size) => void; onProblem: (p: string) => void }): React.JSX.Element | null {
  const [url, setUrl] = useState<string | null>(null);
  const { tracked, result } = file;
  useEffect(() => {
    let live = true;
    let created: string | null = null;
    client
      .getContent(tracked.apiKey, tracked.job.jobId, result.file.id)
      .then((blob) => {
        if (!live) return;
        // The core sends the original as an attachment; the type is set here from the detected media type.
        created = URL.createObjectURL(new Blob([blob], { type: result.file.type }));
        setUrl(created);
      })
      .catch((e: unknown) => live && onProblem(errorWords(e, { fileName: result.file.name, action: 'Loading the original' })));
    return () => {
      live = false;
      if (created) URL.revokeObjectURL(created);
    };
  }, [client, tracked.apiKey, tracked.job.jobId, result.file.id, result.file.type, result.file.name, onProblem]);
  if (!url) return null;
  return (
    <img
      className="viewer-image"
      src={url}
      alt={`The original of ${result.file.name}`}
      data-testid="viewer-image"
      draggable={false}
      onLoad={(e) => onSize({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })}
      onError={() => onProblem('This browser could not draw the original.')}
    />
  );
}

/**
 * A picture Chromium cannot draw (HEIC), shown from the preview the core decoded itself
 * (`GET /v1/jobs/{jobId}/files/{fileId}/preview`, at most 2048 px). It is laid out at the analysed picture's size
 * when the heatmap's grid has the same shape, so 1:1 still means one pixel of the original and the tiles fall where
 * they were scored; otherwise at its own size.
 */
function CorePreview({
  client,
  file,
  grid,
  onSize,
  onFailed,
}: {
  client: ApiClient;
  file: CaseFile;
  grid: RegionGrid | null;
  onSize: (s: Size) => void;
  onFailed: (why: string) => void;
}): React.JSX.Element | null {
  const [url, setUrl] = useState<string | null>(null);
  const [natural, setNatural] = useState<Size | null>(null);
  const { tracked, result } = file;
  useEffect(() => {
    let live = true;
    let created: string | null = null;
    client
      .getPreview(tracked.apiKey, tracked.job.jobId, result.file.id)
      .then((blob) => {
        if (!live) return;
        created = URL.createObjectURL(blob);
        setUrl(created);
      })
      .catch((e: unknown) => live && onFailed(errorWords(e, { fileName: result.file.name, action: 'Loading the preview' })));
    return () => {
      live = false;
      if (created) URL.revokeObjectURL(created);
    };
  }, [client, tracked.apiKey, tracked.job.jobId, result.file.id, result.file.name, onFailed]);
  useEffect(() => {
    if (!natural) return;
    const sameShape = grid !== null && Math.abs(grid.width / grid.height - natural.width / natural.height) < 0.01;
    onSize(sameShape ? { width: grid.width, height: grid.height } : natural);
  }, [natural, grid, onSize]);
  if (!url) return null;
  return (
    <img
      className="viewer-image"
      src={url}
      alt={`${result.file.name}, as decoded by Veracity (HEIC picture)`}
      data-testid="viewer-image"
      data-preview="core"
      draggable={false}
      onLoad={(e) => setNatural({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })}
      onError={() => onFailed('This browser could not draw the preview Veracity made.')}
    />
  );
}

/** A HEIC whose preview could not be had: the heatmap is drawn on a blank area of the analysed picture's size. */
function HeicStandIn({ grid, onSize }: { grid: RegionGrid | null; onSize: (s: Size) => void }): React.JSX.Element {
  const width = grid?.width ?? 480;
  const height = grid?.height ?? 360;
  useEffect(() => onSize({ width, height }), [width, height, onSize]);
  const size = { width, height };
  return (
    <div className="viewer-heic" style={size} role="img" aria-label="HEIC picture: no preview yet">
      <span>HEIC · no preview</span>
    </div>
  );
}

interface RenderedPage {
  number: number;
  canvas: HTMLCanvasElement;
  width: number;
  height: number;
  top: number;
  viewportTransform: Matrix;
  placements: Map<number, Matrix>;
}

/** Pages drawn in the viewer (more would hold hundreds of MB of canvases); the rest are named in words. */
const MAX_VIEW_PAGES = 12;
const PAGE_GAP = 24;

function PdfPages({
  client,
  file,
  grids,
  onSize,
  onProblem,
  onPlacements,
}: {
  client: ApiClient;
  file: CaseFile;
  grids: GridView[];
  onSize: (s: Size) => void;
  onProblem: (p: string) => void;
  onPlacements: (p: Map<number, Map<number, Matrix>>) => void;
}): React.JSX.Element {
  const { tracked, result } = file;
  const [pages, setPages] = useState<RenderedPage[]>([]);
  const [total, setTotal] = useState(0);
  useEffect(() => {
    let live = true;
    let destroy: (() => Promise<void>) | null = null;
    void (async () => {
      try {
        const blob = await client.getContent(tracked.apiKey, tracked.job.jobId, result.file.id);
        if (!live) return;
        const { task, doc: opening } = await openPdf(await blob.arrayBuffer());
        destroy = () => task.destroy();
        const doc = await opening;
        setTotal(doc.numPages);
        const density = Math.min(3, Math.max(2, window.devicePixelRatio || 1));
        const drawn: RenderedPage[] = [];
        let top = 0;
        let width = 0;
        for (let n = 1; n <= Math.min(doc.numPages, MAX_VIEW_PAGES) && live; n++) {
          const page: PDFPageProxy = await doc.getPage(n);
          const rendered = await renderPage(page, 1, density);
          const placements = await imagePlacements(page);
          drawn.push({ number: n, ...rendered, top, placements });
          top += rendered.height + PAGE_GAP;
          width = Math.max(width, rendered.width);
          if (!live) return;
          setPages([...drawn]);
          onPlacements(new Map(drawn.map((d) => [d.number, d.placements])));
          onSize({ width, height: top - PAGE_GAP });
        }
      } catch (e) {
        if (live) onProblem(errorWords(e, { fileName: result.file.name, action: 'Loading the original' }, (other) => `The PDF could not be drawn: ${String(other)}`));
      }
    })();
    return () => {
      live = false;
      void destroy?.();
    };
  }, [client, tracked.apiKey, tracked.job.jobId, result.file.id, result.file.name, onSize, onProblem, onPlacements]);

  return (
    <>
      {pages.map((p) => (
        <div key={p.number} className="viewer-page" style={{ top: p.top, width: p.width, height: p.height }} data-testid="viewer-page" data-page={p.number}>
          <CanvasHost canvas={p.canvas} label={`Page ${p.number} of ${result.file.name}`} />
          {grids.map((g, i) => {
            if (g.grid.source.page !== p.number) return null;
            if (g.grid.source.kind === 'pdf_page') return <GridOverlay key={i} view={g} index={i} style={{ inset: 0 }} />;
            const ctm = p.placements.get(g.grid.source.imageIndex ?? -1);
            if (!ctm) return null;
            const m = pdfImageOverlayMatrix(p.viewportTransform, ctm, g.grid.width, g.grid.height);
            return <GridOverlay key={i} view={g} index={i} style={{ left: 0, top: 0, width: g.grid.width, height: g.grid.height, transformOrigin: '0 0', transform: `matrix(${m.join(',')})` }} />;
          })}
        </div>
      ))}
      {total > MAX_VIEW_PAGES && pages.length === MAX_VIEW_PAGES && (
        <p className="viewer-more" style={{ top: pages[pages.length - 1].top + pages[pages.length - 1].height + 4 }}>
          Pages {MAX_VIEW_PAGES + 1}–{total} are not shown here.
        </p>
      )}
    </>
  );
}

function CanvasHost({ canvas, label }: { canvas: HTMLCanvasElement; label: string }): React.JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    canvas.className = 'viewer-canvas';
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', label);
    element.replaceChildren(canvas);
  }, [canvas, label]);
  return <div ref={host} className="viewer-canvas-host" />;
}

/** Whether a PDF grid is drawn on its page: a scanned page always, an image when its placement was found. */
function placedOnPage(grid: RegionGrid, placements: Map<number, Map<number, Matrix>>): boolean {
  const page = placements.get(grid.source.page ?? 0);
  if (!page) return false;
  return grid.source.kind === 'pdf_page' || page.has(grid.source.imageIndex ?? -1);
}

/**
 * The scored pictures of a PDF, most suspicious first, with where their heatmap is drawn; a picture whose place on
 * its page is not known here (a page not drawn, an image the walk did not find) gets its heatmap in its own panel.
 */
function PdfImageList({ grids, placements, opacity }: { grids: GridView[]; placements: Map<number, Map<number, Matrix>>; opacity: number }): React.JSX.Element {
  const rows = grids
    .map((g, i) => ({ g, i, top: Math.max(...g.grid.tiles.map((t) => t.score), 0) }))
    .sort((a, b) => b.top - a.top);
  return (
    <section className="pdf-images" aria-labelledby="pdf-images-title">
      <h3 id="pdf-images-title">Scored pictures ({grids.length})</h3>
      <ul data-testid="pdf-image-list">
        {rows.map(({ g, i, top }) => {
          const placed = placedOnPage(g.grid, placements);
          return (
            <li key={i} data-testid="pdf-image" data-placed={placed}>
              <strong>{g.label}</strong> · {g.grid.width} × {g.grid.height} px · highest tile {Math.round(top * 100)} %
              <br />
              <span className="hint">
                {placed ? (g.grid.source.kind === 'pdf_page' ? 'Heatmap drawn over the whole page.' : 'Heatmap drawn over the picture on its page.') : 'Its place on the page is not known here: its heatmap alone below.'}{' '}
                {coverageWords(g.coverage, g.grid)}
              </span>
              {!placed && (
                <div className="grid-panel" style={{ aspectRatio: `${g.grid.width} / ${g.grid.height}`, ['--heat-opacity' as string]: String(opacity / 100) }}>
                  <GridOverlay view={g} index={i} style={{ inset: 0 }} />
                </div>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
