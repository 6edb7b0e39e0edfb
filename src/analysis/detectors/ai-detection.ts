// The pixel detector: the ONNX model's score of the image (for a PDF, of its worst raster image or scanned page) as
// the ai_detection dimension and one `pixels.score.*` finding; flat graphics the model cannot read are noted, and a
// picture the photo guard takes for a screenshot, chart or graphic is read as inconclusive (photo-guard.ts). A picture
// whose largest face fills enough of it is read against the manifest's portrait thresholds (face-finder.ts). A thermal
// camera picture whose radiometric data explains its colours is read as inconclusive (thermal.ts), and so is a
// photographed or scanned page of text (document-guard.ts).
import { createHash } from 'node:crypto';
import { bandOfReading, DETECTOR_BANDS, detectorReading, type DetectorThresholds } from '../../api/detector-bands.js';
import type { Dimension, RegionGrid } from '../../api/schemas.js';
import { contentFusion, type ImageScore, scoreImage } from '../ai-detection.js';
import { decodeJpegStream, type RgbImage } from '../decode-image.js';
import type { FaceReading, UprightLook } from '../face-finder.js';
import { ffhqFramed, FRAMING_FINDING, squareForFraming } from '../face-framing.js';
import type { LoadedModel } from '../model-session.js';
import type { Detector, DetectorContext, DetectorOutput } from '../detector.js';
import type { FactValue, Finding } from '../finding.js';
import { aiDimension } from '../fusion.js';
import type { ModelManifest } from '../model-manifest.js';
import { readCapture } from '../capture/index.js';
import { imageStreamsOf, type PdfImageStream } from '../pdf-c2pa-store.js';
import { distinctColours, LINE_ART_COLOURS, surveyImages } from '../pdf-document.js';
import { readDocumentGuard } from '../document-guard.js';
import { readPhotoGuard } from '../photo-guard.js';
import { readThermal } from '../thermal.js';

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export const aiDetectionDetector: Detector = {
  key: 'ai-detection',
  appliesTo: () => true,
  run: (ctx) => (ctx.kind === 'pdf' ? scorePdf(ctx) : scorePicture(ctx)),
};

/**
 * The pixel reading as a finding; `where` locates the worst image of a PDF. With `calibration` (the manifest's, for a
 * model calibrated to decide), a high-AI reading of a picture is `pixels.score.generated`, which fusion lets decide;
 * a PDF passes it only for its one photograph, stored as the model's calibration knows pictures (scorePdf).
 */
export function pixelFinding(d: Dimension, where: Record<string, FactValue> = {}, calibration?: ModelManifest['calibration']): Finding {
  if (d.assessment === 'likely_ai' && d.confidence === 'high' && calibration?.pixelsDecide) {
    return { code: 'pixels.score.generated', facts: { score: d.score, realAtHighAi: calibration.realAtHighAi, ...where }, weight: 1 };
  }
  const [code, weight] =
    d.assessment === 'likely_ai'
      ? d.confidence === 'high'
        ? ['pixels.score.high_ai', 0.5]
        : ['pixels.score.leans_ai', 0.25]
      : d.assessment === 'likely_authentic'
        ? ['pixels.score.leans_authentic', -0.25]
        : ['pixels.score.uncertain', 0];
  return { code, facts: { score: d.score, ...where }, weight };
}

/** The thresholds a picture is read against, and what they were measured to do: its group's. */
export interface ThresholdGroup {
  portrait: boolean;
  thresholds: DetectorThresholds;
  calibration: ModelManifest['calibration'];
  /** The face check's reading; null when the model has no portrait thresholds. */
  faces: FaceReading | null;
}

/**
 * The group of a picture: a portrait (largest face >= the manifest's `portraits.minFace` of the shorter side) is read
 * against the portrait thresholds and their calibration, any other picture against the manifest's `thresholds`.
 */
export function thresholdGroup(manifest: ModelManifest, faces: FaceReading | null): ThresholdGroup {
  const p = manifest.portraits;
  if (p && faces && faces.largest >= p.minFace) {
    const calibration = manifest.calibration && { ...manifest.calibration, realAtHighAi: p.calibration.realAtHighAi, aiAtHighAi: p.calibration.aiAtHighAi };
    return { portrait: true, thresholds: p.thresholds, calibration, faces };
  }
  return { portrait: false, thresholds: manifest.thresholds, calibration: manifest.calibration, faces };
}

/**
 * Whether a score's reading can depend on the picture's group: its band differs between the two groups' thresholds,
 * or it is a high-AI reading, which quotes its group's calibration. Elsewhere both groups read the score alike.
 */
export function groupCanMatter(manifest: ModelManifest, score: number): boolean {
  if (!manifest.portraits) return false;
  const rest = detectorReading(score, manifest.thresholds);
  const portrait = detectorReading(score, manifest.portraits.thresholds);
  const highAi = (r: typeof rest) => r.assessment === 'likely_ai' && r.confidence === 'high';
  return rest.assessment !== portrait.assessment || rest.confidence !== portrait.confidence || highAi(rest) || highAi(portrait);
}

/**
 * Whether every score from `floor` up has a reading that can depend on the group (groupCanMatter): the readings are
 * constant between the thresholds, so the floor itself and each threshold above it (at it and just past it) are tried.
 */
export function groupMattersFrom(manifest: ModelManifest, floor: number): boolean {
  const p = manifest.portraits;
  if (!p) return false;
  const cuts = [manifest.thresholds, p.thresholds].flatMap((t) => [t.decision, t.highAi, t.highAuthentic, ...t.inconclusiveBand]).filter((t) => t >= floor);
  return [floor, ...cuts, ...cuts.map((t) => t + 1e-9)].filter((x) => x <= 1).every((x) => groupCanMatter(manifest, x));
}

/**
 * The first content model's guess at the score (ScoreHooks.onFirstGuess) from which a picture that is not square gets
 * its calibrated upright look rather than the coarse one, before the score's floor is known. The group, wherever it
 * can matter, never depends on it (the calibrated looks are then made whatever the guess); only which look the portrait
 * note of a picture scored lower quotes, and how soon a picture scored high has its looks. Measured on every third
 * file of ../shared/datasets/train: 10 % of 609 real pictures and 36 % of 162 AI ones reach it; the generated pictures
 * of the latency benchmark guess 0.85, its photo 0.11.
 */
export const EARLY_LOOK_GUESS = 0.6;

/**
 * Pictures of more pixels than this that are not square get the coarse look where the group cannot matter; smaller
 * ones the calibrated upright look, which costs little more there (its grey picture is made from few pixels) and is
 * exact: on small pictures the coarse look's grey picture is hardly smaller, and it changed the group of 11 of 2,236
 * 4:3 cuts of the shared training set's small pictures (test/eval/results/coarse-faces.json).
 */
export const COARSE_ABOVE_PIXELS = 1_000_000;

/**
 * The model's score of a picture and its threshold group. The face finder runs while the networks do (they hold this
 * thread, the finder has its own). Its calibrated looks (the upright one; then, where it found no face, the turned
 * ones: a tilted camera, a lost orientation tag) are made only where the picture's reading can depend on its group
 * (groupCanMatter): there the group is the one the calibration's face tags were made with; elsewhere both groups read
 * the score alike. They start as soon as the score's floor (scoreImage's onAtLeast) shows they will be needed, so a
 * picture scored high does not wait for all of them after the networks. Everywhere else one upright look gives the
 * portrait note, which there decides nothing: a square picture, which may be framed as a GAN face (face-framing.ts),
 * always gets the calibrated one, which the framing note reads, and so does a picture of at most COARSE_ABOVE_PIXELS;
 * any larger one the coarse one (FaceFinder.lookCoarse, about a third of the cost on a 12-MP photo), unless the first
 * content model guesses it high (EARLY_LOOK_GUESS). What is lost: on a picture the group cannot change, the portrait
 * note of a face only a turned look, or only the calibrated look, would find (test/eval/results/coarse-faces.json).
 */
async function scoreAndGroup(
  model: LoadedModel,
  image: RgbImage,
  source: RegionGrid['source'],
  signal?: AbortSignal,
  alsoHere?: () => Promise<void> | void,
): Promise<{ scored: ImageScore; group: ThresholdGroup }> {
  const { manifest, faces: finder } = model;
  let calibrated: Promise<UprightLook> | null = null;
  const calibrate = (onGrey?: () => void): Promise<UprightLook> => (calibrated ??= finder!.lookUpright(image, signal, onGrey));
  let turning: Promise<FaceReading> | null = null;
  const turn = (): Promise<FaceReading> => (turning ??= calibrate().then((l) => (l.turn ? l.turn(signal) : l.reading)));
  // a square picture, and one so small that the calibrated look costs little more than the coarse one
  const calibratedNow = squareForFraming(image.width, image.height) || image.width * image.height <= COARSE_ABOVE_PIXELS;
  // The look whose reading is used where the group cannot matter: for those the calibrated upright look, started now;
  // for any other, chosen by the first content model's guess (onFirstGuess): the calibrated upright look
  // where the guess says the group may well matter (it is then under way before the floor asks for it), else the
  // coarse look. The guess depends on the picture alone, so the choice does too. A model without content models
  // gives no guess: the coarse look, started now.
  let chosen: Promise<FaceReading> | null = null;
  const choose = (look: Promise<FaceReading>) => {
    chosen = look;
    look.catch(() => undefined); // read below (a failure is heard there, not as an unhandled rejection meanwhile)
  };
  const guessing = contentFusion(model) !== null; // scoreImage's onFirstGuess is told only where the score is fused
  if (finder && (calibratedNow || !guessing)) choose(calibratedNow ? calibrate().then((l) => l.reading) : finder.lookCoarse(image, signal));
  const onFirstGuess = async (guess: number) => {
    if (!finder || chosen) return;
    if (guess < EARLY_LOOK_GUESS) return choose(finder.lookCoarse(image, signal));
    // With a tile thread (one ONNX thread: the desktop's setting), the networks wait until the look is handed to the
    // finder's thread (not possible while they hold this one), so that it runs beside them; measured, a picture scored
    // high then takes as long as when every picture had its calibrated look from the start. With more ONNX threads the
    // networks already use every core: they do not wait.
    let handedOver!: () => void;
    const handed = new Promise<void>((resolve) => (handedOver = resolve));
    const look = calibrate(handedOver).then((l) => l.reading);
    choose(look);
    if (model.tileThread) await Promise.race([handed, look.then(() => undefined, () => undefined)]);
  };
  const onAtLeast = (floor: number) => {
    // started early, it is awaited below (the final score is at least the floor), or dropped with a failed analysis
    if (finder && !turning && groupMattersFrom(manifest, floor)) turn().catch(() => undefined);
  };
  // once the calibrated looks are under way, the spare core is theirs: the tile thread leaves the rest of the tiles here
  const threadMayTake = () => turning === null;
  const scored = await scoreImage(model, image, source, signal, { onAtLeast, threadMayTake, alsoHere, onFirstGuess });
  let faces: FaceReading | null = null;
  if (finder) {
    // where the group can matter, the coarse look's reading (or failure) is not needed
    if (groupCanMatter(manifest, scored.score)) faces = await turn();
    else faces = await (chosen ?? finder.lookCoarse(image, signal));
  }
  return { scored, group: thresholdGroup(manifest, faces) };
}

/** The note that a portrait was read against the portrait thresholds (weight 0: it says why, decides nothing). */
function portraitNote(manifest: ModelManifest, group: ThresholdGroup): Finding[] {
  if (!group.portrait || !group.faces) return [];
  const turned: Record<string, FactValue> = group.faces.angle ? { faceAngle: group.faces.angle } : {};
  return [{ code: 'pixels.portrait', facts: { faceShare: group.faces.largest, ...turned, highAi: group.thresholds.highAi, otherHighAi: manifest.thresholds.highAi }, weight: 0 }];
}

/**
 * The note that a picture's face is framed as StyleGAN's FFHQ faces are (face-framing.ts; weight 0: it accuses
 * nothing, but fusion lets no camera EXIF clear such a picture); `where` locates the image in a PDF.
 */
function framingNote(image: { width: number; height: number }, faces: FaceReading | null, where: Record<string, FactValue> = {}): Finding[] {
  if (!faces?.centre || !ffhqFramed(image.width, image.height, faces)) return [];
  return [{ code: FRAMING_FINDING, facts: { faceShare: faces.largest, centreX: faces.centre[0], centreY: faces.centre[1], ...where }, weight: 0 }];
}

async function scorePicture(ctx: DetectorContext): Promise<DetectorOutput> {
  const image = ctx.image!;
  // The pixel checks run on this thread between the content models and its share of the tiles, while the tile thread
  // (if any) scores tiles: they take nothing from the networks' critical path.
  let checks: { thermal: Awaited<ReturnType<typeof readThermal>>; colours: number; guard: ReturnType<typeof readPhotoGuard>; page: ReturnType<typeof readDocumentGuard> } | null = null;
  const readChecks = async () => {
    const thermal = ctx.mediaType === 'image/jpeg' ? await readThermal(ctx.bytes, image) : null;
    const colours = distinctColours(image);
    const guard = thermal?.consistent || colours <= LINE_ART_COLOURS ? null : readPhotoGuard(image);
    const page = thermal?.consistent || colours <= LINE_ART_COLOURS || guard?.notPhotographic ? null : readDocumentGuard(image);
    checks = { thermal, colours, guard, page };
  };
  const { scored, group } = await scoreAndGroup(ctx.model, image, { kind: 'image' }, ctx.signal, readChecks);
  const { thermal, colours, guard, page } = checks!; // set: scoreImage always runs alsoHere before its tiles
  const notes: Finding[] = [...portraitNote(ctx.model.manifest, group), ...framingNote(image, group.faces)];
  // A pixel check that takes the reading out of the detector's hands: the score is shown but decides nothing, either way.
  let check: Finding | null = null;
  if (thermal?.consistent) {
    // A thermal camera's false-colour rendering of the temperatures it recorded (the radiometric image in the file
    // explains the picture's colours): not the photographs the detector was trained and calibrated on.
    const { maker, rawWidth, rawHeight, agreement } = thermal;
    check = { code: 'pixels.thermal', facts: { maker, rawWidth, rawHeight, agreement }, weight: 0 };
  } else if (colours <= LINE_ART_COLOURS) {
    // Flat graphics (logos, line art, bilevel scans) lack the photographic texture the detector reads.
    check = { code: 'pixels.line_art', facts: { colours }, weight: 0 };
  } else if (page?.page) {
    // A photographed or scanned page of text: the detector reads most genuine ones as AI, so its score is no reading.
    check = { code: 'pixels.document', facts: { strokes: round3(page.features.strokes), paper: round3(page.features.paper) }, weight: 0 };
  } else if (guard?.notPhotographic) {
    // Screenshots, charts, logos, pages: flat fills and hard edges, not the photographs the detector was calibrated
    // on (their JPEG noise reads as strongly "AI").
    const { flat, step, top4 } = guard.features;
    check = { code: 'pixels.not_photographic', facts: { flat: round3(flat), hardEdges: round3(step), topColours: round3(top4) }, weight: 0 };
  }
  const read = aiDimension(scored.score, group.thresholds);
  const dimension: Dimension = check ? { ...read, assessment: 'inconclusive', confidence: 'low' } : read;
  if (check) notes.push(check);
  // A score set aside is not "in the uncertain band" (a chart may score 98 %): its sentence says so, the check's note why.
  return { dimension, findings: [pixelFinding(dimension, check ? { setAside: true } : {}, group.calibration), ...notes], regions: [scored.grid] };
}

/** Filters that give back the samples as they were written: pdf.js's pixels are then the picture's own. */
const LOSSLESS_FILTERS = new Set(['FlateDecode', 'LZWDecode', 'RunLengthDecode', 'ASCIIHexDecode', 'ASCII85Decode']);
/**
 * Largest mean difference (levels of 255, over evenly spaced samples) at which pdf.js's decode of a JPEG stream and
 * the product's own are taken for one picture: measured on `modern/`'s JPEGs as is, at q90 and at q70 in one-page PDFs
 * (321 pictures), the two decoders differ by 0.15 levels at the median, 2.3 at the 99th percentile, 3.6 at most;
 * another picture of the same size differs by tens.
 */
const SAME_PICTURE = 5;
/** JPEG streams of a picture's size decoded at most, looking for the one pdf.js drew. */
const MAX_STREAM_TRIES = 8;
/** The share of the page a photograph must show to count as one a reviewer sees (a speck or a hidden one does not). */
const MIN_VISIBLE = 0.01;

function meanDifference(a: RgbImage, b: RgbImage): number {
  const n = a.data.length;
  const step = Math.max(1, Math.floor(n / 12288));
  let sum = 0;
  let count = 0;
  for (let i = 0; i < n; i += step, count++) sum += Math.abs(a.data[i] - b.data[i]);
  return count ? sum / count : Infinity;
}

/**
 * The pixels of a PDF image as the model's calibration knows pictures, and how they were had: the DCTDecode stream of
 * the raster's size whose decode by the product's own JPEG decoder (as a JPEG file is decoded) is closest to what
 * pdf.js drew, within SAME_PICTURE (pdf.js's decoder moved scores by up to 0.23: test/eval/results/pdf-pixels.json);
 * failing that, pdf.js's own pixels where an image of that size is stored losslessly as 8-bit RGB or grey, so that
 * they are the samples as written. Null for anything else (a JPEG 2000, CMYK or indexed image, a JPEG further
 * compressed, an inline image): it is scored as pdf.js draws it, but its score decides nothing. Images of the same size
 * that are not drawn do not change which stream is chosen: only the one that matches is.
 */
export async function calibratedPixels(raster: RgbImage, streams: PdfImageStream[], signal?: AbortSignal): Promise<{ image: RgbImage; jpeg: Buffer | null } | null> {
  const same = streams.filter((s) => s.width === raster.width && s.height === raster.height && !s.remapped);
  let best: { image: RgbImage; jpeg: Buffer; difference: number } | null = null;
  for (const s of same.filter((x) => x.filters.length === 1 && x.filters[0] === 'DCTDecode').slice(0, MAX_STREAM_TRIES)) {
    try {
      const image = await decodeJpegStream(s.stored, signal);
      if (image.width !== raster.width || image.height !== raster.height) continue;
      const difference = meanDifference(image, raster);
      if (difference <= SAME_PICTURE && (!best || difference < best.difference)) best = { image, jpeg: s.stored, difference };
    } catch (err) {
      if (signal?.aborted) throw err;
    }
  }
  if (best) return { image: best.image, jpeg: best.jpeg };
  const lossless = same.some(
    (s) => s.filters.every((f) => LOSSLESS_FILTERS.has(f)) && s.bitsPerComponent === 8 && (s.colourSpace === 'DeviceRGB' || s.colourSpace === 'DeviceGray'),
  );
  return lossless ? { image: raster, jpeg: null } : null;
}

/**
 * The pixel reading of a PDF: every raster image (and scanned page) scored, the worst one reported. It decides (rule 2)
 * only as it would for that picture handed in alone, which is the route a generated picture takes into a claim as a
 * "scan" or a one-page form: the document's one photograph a reviewer sees (other images being logos, line art, text,
 * too small, off the page or covered; identical pictures drawn twice count once), an image rather than a page rendered
 * as a scan or a part of one, its pixels those the calibration knows (calibratedPixels), and, for a JPEG whose camera
 * data the capture check confirms, not against that capture (as fusion weighs a picture's). With several photographs
 * one high score among them can be chance (each real one has the calibration's rate of reaching it), so it is shown,
 * located, and decides nothing; the copy says which of these held it back.
 */
async function scorePdf(ctx: DetectorContext): Promise<DetectorOutput> {
  const { model, signal } = ctx;
  const regions: RegionGrid[] = [];
  type Worst = {
    score: number;
    rank: number;
    dimension: Dimension;
    group: ThresholdGroup;
    where: Record<string, FactValue>;
    calibrated: { image: RgbImage; jpeg: Buffer | null } | null;
  };
  let worst: Worst | null = null;
  const notPhotographic: string[] = [];
  let framed: Finding[] = [];
  // the pictures a reviewer sees, by their pixels: one drawn twice, or as two objects, is one photograph
  const photos = new Set<string>();
  let streams: PdfImageStream[] = [];
  try {
    streams = imageStreamsOf(ctx.bytes);
  } catch {
    // a document whose objects cannot be walked: its images are scored as pdf.js draws them, and decide nothing
  }
  const survey = await surveyImages(ctx.pdf!, {
    signal,
    onRaster: async (r) => {
      signal?.throwIfAborted();
      const source: RegionGrid['source'] =
        r.kind === 'pdf_page' ? { kind: 'pdf_page', page: r.page } : { kind: 'pdf_image', page: r.page, imageIndex: r.imageIndex };
      const calibrated = r.kind === 'pdf_image' ? await calibratedPixels(r.image, streams, signal) : null;
      if (calibrated) r = { ...r, image: calibrated.image };
      const { scored: s, group } = await scoreAndGroup(model, r.image, source, signal);
      regions.push(s.grid);
      const where = {
        page: r.page,
        image: r.kind === 'pdf_page' ? null : (r.imageIndex ?? 0) + 1,
        scannedPage: r.kind === 'pdf_page',
        width: r.image.width,
        height: r.image.height,
      };
      // any image of the document framed as a GAN face (the first one found is named), whichever image is the worst
      if (!framed.length) framed = framingNote(r.image, group.faces, { page: r.page, image: where.image });
      // a rendered page of text, a chart or a screenshot (photo-guard.ts), or a scanned or photographed page of text
      // (document-guard.ts): its heatmap is shown, but its score is no reading
      const unread = readPhotoGuard(r.image)?.notPhotographic
        ? 'a screenshot, chart, graphic or text'
        : readDocumentGuard(r.image)?.page
          ? 'a scanned or photographed page of text'
          : null;
      if (unread) {
        const what = r.kind === 'pdf_page' ? `page ${r.page}` : `page ${r.page} image ${(r.imageIndex ?? 0) + 1}`;
        notPhotographic.push(`${what}: ${r.image.width}x${r.image.height}, ${unread} rather than a photograph`);
        return;
      }
      const seen = r.kind === 'pdf_page' || (!r.inScan && r.visible >= MIN_VISIBLE);
      if (seen) photos.add(createHash('sha256').update(r.image.data).digest('hex'));
      // The worst image is the one whose reading points most to AI (each against its own group's thresholds), then
      // the higher score.
      const dimension = aiDimension(s.score, group.thresholds);
      const rank = DETECTOR_BANDS.indexOf(bandOfReading(dimension));
      if (!worst || rank > worst.rank || (rank === worst.rank && s.score > worst.score)) {
        worst = { score: s.score, rank, dimension, group, where: { ...where, ...(r.inScan ? { inScan: true } : {}), ...(seen ? {} : { unseen: true }) }, calibrated };
      }
    },
  });
  const skipped = [...survey.skipped, ...notPhotographic];
  const found = worst as Worst | null; // set in onRaster
  const dimension = found ? found.dimension : null;
  let findings: Finding[];
  if (found) {
    const w = found.where;
    const alone = photos.size === 1 && !w.scannedPage && !w.inScan && !w.unseen;
    const mayDecide = alone && found.calibrated !== null && !(await captureConfirmed(found.calibrated, signal));
    const facts = { ...w, count: regions.length, photos: photos.size, calibratedPixels: found.calibrated !== null };
    findings = [pixelFinding(found.dimension, facts, mayDecide ? found.group.calibration : undefined), ...portraitNote(model.manifest, found.group), ...framed];
  } else findings = [{ code: 'pixels.no_raster', facts: {}, weight: 0 }, ...framed];
  if (skipped.length) {
    findings.push({ code: 'pixels.skipped', facts: { items: skipped.slice(0, 4).join('; '), count: skipped.length }, weight: 0 });
  }
  return { dimension, findings, regions };
}

/**
 * Whether a JPEG stream's camera data is confirmed by the capture check (the file built as that camera builds its
 * files): for a picture handed in alone, fusion then does not let the pixels decide against it (rule 2), so inside a PDF
 * they do not either. Camera tags the check does not confirm (one exiftool command) change nothing.
 */
export async function captureConfirmed(calibrated: { image: RgbImage; jpeg: Buffer | null }, signal?: AbortSignal): Promise<boolean> {
  if (!calibrated.jpeg) return false;
  const report = await readCapture({ buf: calibrated.jpeg, mediaType: 'image/jpeg', width: calibrated.image.width, height: calibrated.image.height, signal });
  return report.status === 'consistent';
}
