// Capture consistency: does the file look like what its capture metadata says it is, an unedited picture from
// that camera or phone? Copied EXIF (exiftool -TagsFromFile) brings the words but not the maker's quantization
// tables, a matching thumbnail, the device's picture sizes or a phone's HEIF layout; those are what is checked.
import type { Finding } from '../finding.js';
import catalogueJson from './quant-tables.json' with { type: 'json' };
import { readCaptureMetadata, type CaptureDates, type CaptureMediaType, type CaptureMetadata } from './metadata.js';
import { PHONE_MAKERS } from './makes.js';
import { standardIjg, tablesHash, usedTables } from './quant-tables.js';
import { editorIn } from '../editing-software.js';
import { isResaveSign } from './signs.js';
import { compareThumbnail } from './thumbnail.js';

/**
 * `contradicted`: a finding says the camera data and the pixels do not belong together (a sign of manipulation);
 * `resaved`: every finding against the capture only shows a program saved the file again (signs.ts), never called
 * manipulation; `consistent`: built as the claimed camera builds files; `insufficient`: nothing either way.
 */
export type CaptureStatus = 'absent' | 'consistent' | 'contradicted' | 'resaved' | 'insufficient';

export interface CaptureReport {
  /** What the metadata claims; null when the file carries no capture metadata at all (no EXIF Make, Model or Software). */
  claimed: { make: string | null; model: string | null; software: string | null } | null;
  findings: Finding[];
  status: CaptureStatus;
}

export interface CaptureInput {
  buf: Buffer;
  mediaType: CaptureMediaType;
  /**
   * Decoded pixel dimensions, in either orientation: the analysis passes them with EXIF orientation (or HEIF irot)
   * applied, a reader of the header passes them as stored. Every check that reads them accepts both; the thumbnail
   * check reads the stored size from the bytes itself (thumbnail.ts).
   */
  width: number;
  height: number;
  signal?: AbortSignal;
}

export interface MakerTraits {
  files: number;
  jpegFiles: number;
  heicFiles: number;
  ijgFiles: number;
  thumbnailFiles: number;
  /** JPEG originals without a JFIF header; of those, how many have libjpeg's table layout, and of which models. */
  noJfifFiles: number;
  noJfifLibjpegLayoutFiles: number;
  /** Of those, the ones with libjpeg's standard tables. */
  noJfifLibjpegLayoutIjgFiles: number;
  libjpegLayoutModels: string[];
  /** The marker layouts of its originals with libjpeg's standard tables (no JFIF header, not libjpeg's layout). */
  ijgLayouts: string[];
  /** Models whose originals libjpeg wrote whole (JFIF header, its layout, Exif first): Google's Pixels. */
  libjpegWriterModels: string[];
  /** Models whose originals are laid out as libjpeg lays out tables, without a JFIF header, with tables picked per photo. */
  layoutWriters: LayoutWriter[];
  /** HEIC originals whose coded picture has asymmetric motion partitions turned on. */
  heicAmpFiles: number;
  makerNoteFiles: number;
  makerNoteWellFormed: number;
  minPixels: number;
}

/** A model that lays its originals out as libjpeg does, without a JFIF header, and picks its tables per photo (Samsung's
 *  Galaxy S25 Ultra and Z Fold6, two HP cameras): the range of each table coefficient over its originals. */
export interface LayoutWriter {
  model: string;
  files: number;
  lumaLow: number[];
  lumaHigh: number[];
  chromaLow: number[];
  chromaHigh: number[];
  /** The APPn segments every one of its originals in that layout carries ('APP2:MPF', 'APP4:', ...). */
  segments: string[];
}

export interface Catalogue {
  makers: Record<string, MakerTraits>;
  /** libjpegLayoutMakes: the makers whose originals with these tables lay them out one per marker, as libjpeg does. */
  tables: { hash: string; makes: string[]; models?: string[]; libjpegLayoutMakes: string[]; ijgQuality: number | null }[];
}

// ---------------------------------------------------------------- rules and thresholds (see README for why)

/** A maker trait counts as "always" when at least this share of at least MIN_FILES catalogued originals show it. */
const ALWAYS = 0.95;
const MIN_FILES = 5;
/** Below this many pixels nothing is a camera capture (VGA, 640x480, less a margin for 576x436 sensors). */
export const CAPTURE_FLOOR_PIXELS = 240_000;
/** Thumbnail vs image, Pearson correlation of 16x16 greyscale: at or above, the same picture; below MISMATCH, another. */
const THUMB_MATCH = 0.9;
const THUMB_MISMATCH = 0.6;
/** Relative difference of aspect ratios under which a picture smaller than its recorded size is that picture resized. */
const SAME_SHAPE = 0.02;
/** Seconds two capture timestamps may differ by (cameras write them from one clock reading). */
const DATE_TOLERANCE_S = 2;
/** An edit rewrites ModifyDate; cameras write it equal to DateTimeOriginal. */
const MODIFY_TOLERANCE_S = 60;
/** GPS time is UTC from the fix: with an offset it must agree within an hour, without one within the widest zone. */
const GPS_TOLERANCE_S = 3600;
const GPS_NO_OFFSET_TOLERANCE_S = 15 * 3600;

const W = {
  ijgForNonIjgMaker: 0.7,
  makerMismatch: 0.7,
  knownMaker: -0.5,
  thumbMismatch: 0.8,
  thumbAspect: 0.6,
  thumbTurned: 0.4,
  thumbMatch: -0.3,
  thumbAbsentForAlwaysMaker: 0.2,
  exifSize: 0.6,
  notDevice: 0.6,
  makerNoteMissing: 0.4,
  makerNoteMalformed: 0.5,
  software: 0.5,
  dates: 0.3,
  xmpHistory: 0.5,
  heicMismatch: 0.6,
  heicPhone: -0.5,
  heicSoftwareEncoder: 0.6,
  notCaptureFormat: 0.5,
  consistent: -0.6,
  softwareLayout: 0.5,
  thumbSoftware: 0.4,
};

const always = (t: MakerTraits | undefined, count: (t: MakerTraits) => number, of: (t: MakerTraits) => number) =>
  Boolean(t && of(t) >= MIN_FILES && count(t) / of(t) >= ALWAYS);

/** A reader bound to a catalogue; readCapture uses the shipped one, the evaluation a held-out half. */
export function createCaptureReader(catalogue: Catalogue): (input: CaptureInput) => Promise<CaptureReport> {
  const byHash = new Map(catalogue.tables.map((t) => [t.hash, t]));
  // Per maker: whether it shares any table with another maker (OEM cameras do: HP, Sony and others bought in
  // designs), in which case another maker's table proves nothing.
  const sharesTables = new Set<string>();
  for (const t of catalogue.tables) for (const m of t.makes) if (t.makes.length > 1) sharesTables.add(m);
  // Whether the catalogue's HEIC originals, all makers together, (almost) never turn asymmetric partitions on.
  const heic = Object.values(catalogue.makers).reduce((a, t) => ({ files: a.files + t.heicFiles, amp: a.amp + t.heicAmpFiles }), { files: 0, amp: 0 });
  const heicNeverAmp = heic.files >= MIN_FILES && (heic.files - heic.amp) / heic.files >= ALWAYS;
  // Per maker, the models the catalogue holds JPEG originals of, and those it saw write libjpeg's standard tables.
  const modelsOf = modelsByMaker(catalogue.tables);
  const ijgModels = modelsByMaker(catalogue.tables.filter((t) => t.ijgQuality !== null));
  const known: Known = { byHash, sharesTables, heicNeverAmp, ijgModels, modelsOf };
  return async (input) => {
    const { buf, mediaType, width, height, signal } = input;
    signal?.throwIfAborted();
    const md = await readCaptureMetadata(buf, mediaType);
    signal?.throwIfAborted();
    if (!md.make && !md.model && !md.software) {
      return { claimed: null, findings: [{ code: 'capture.exif.absent', facts: {}, weight: 0 }], status: 'absent' };
    }
    const claimed = { make: md.make, model: md.model, software: md.software };
    const maker = md.maker;
    const traits = maker ? catalogue.makers[maker] : undefined;
    const findings: Finding[] = [];
    const add = (code: string, facts: Finding['facts'], weight: number) => findings.push({ code, facts, weight });
    let positive = false;

    // Software and XMP history: a named editor means the file passed through it.
    const sw = editorIn([md.software ?? '']);
    if (sw) add('capture.software.edited', { software: md.software }, W.software);
    const agent = editorIn(md.xmpAgents);
    if (agent) add('capture.xmp.edit_history', { agent: md.xmpAgents.find((a) => editorIn([a])) ?? agent }, W.xmpHistory);

    checkDates(md.dates, add);
    checkMakerNote(md, traits, add);
    checkSize(md, width, height, traits, add);

    if (mediaType === 'image/png') {
      // No camera or phone writes a photo as PNG with camera EXIF: it was converted or assembled.
      if (maker) add('capture.format.not_capture', { format: 'PNG', make: md.make }, W.notCaptureFormat);
    } else if (mediaType === 'image/jpeg' && md.jpeg) {
      // A JFIF header with libjpeg's table layout: the file was written by libjpeg-based software, not by the camera,
      // whatever tables it was given (an encoder can be handed a camera's tables, and exiftool copies the rest). 2 of
      // the catalogue's 328 originals read consistent show it (a Canon EOS 20D's and an HTC Desire's, both re-saved).
      // A phone whose camera app encodes with libjpeg writes it too (libjpegWriter): then it is that phone's layout.
      if (md.jpeg.jfif && md.jpeg.libjpegLayout) {
        if (libjpegWriter(md, traits, known)) add('capture.jpeg.phone_libjpeg', { model: md.model }, 0);
        else add('capture.jpeg.software_layout', {}, W.softwareLayout);
      }
      // libjpeg's layout without the header: the phone's own when the model writes its photos so (Samsung's recent
      // Galaxies), with tables of the kind it picks; otherwise a program's, for a maker whose cameras merge their tables.
      const writer = md.model ? traits?.layoutWriters.find((w) => w.model === md.model) : undefined;
      let layout: LayoutReading = 'none';
      // A model the catalogue never saw, from a maker whose recent models write this layout, with tables of the kind
      // one of them picks: read as that model's sibling (layoutWithoutHeader).
      let like: LayoutWriter | undefined;
      // The file's used tables, read once for the layout and table checks.
      const used = usedTables(md.jpeg);
      if (!md.jpeg.jfif && md.jpeg.libjpegLayout) {
        layout = layoutWithoutHeader(md, used, traits, writer, known);
        if (layout === 'unseen_model' && md.model) {
          like = traits?.layoutWriters.find((w) => inWriterRange(used, w));
          if (like) layout = 'writer';
        }
        if (layout === 'writer') add('capture.jpeg.model_layout', like ? { model: md.model, like: like.model } : { model: md.model }, 0);
        else if (layout === 'program') add('capture.jpeg.layout_unlike_maker', { make: md.make }, W.softwareLayout);
        else if (layout === 'program_tables') add('capture.jpeg.layout_unlike_tables', { make: md.make }, W.softwareLayout);
      }
      // A model whose originals libjpeg always wrote whole, in a file that is not: another writer (the header stripped,
      // the tables merged), whatever tables it was given. The same for a model that always writes libjpeg's layout
      // without the header, in a file with its tables merged.
      if (!(md.jpeg.jfif && md.jpeg.libjpegLayout) && layout !== 'program' && layout !== 'program_tables' && md.model) {
        if (traits?.libjpegWriterModels.includes(md.model)) add('capture.jpeg.layout_unlike_model', { model: md.model }, W.softwareLayout);
        else if (writer && layout !== 'writer') add('capture.jpeg.layout_unlike_model', { model: md.model, jfif: false }, W.softwareLayout);
      }
      const cameraIjg = ijgCamera(md, traits, known);
      const tables = checkTables(md, used, traits, known, cameraIjg, writer ?? like, add);
      // A model that writes libjpeg's layout itself is the one a forger can copy with any libjpeg: its tables (PIL takes
      // them), the header stripped, the tags copied, the thumbnail made again. What exiftool cannot copy is the rest of
      // the phone's file: the segments every original of the model carries (its MPF index of the HDR gain map, its own
      // APP4). Without them, neither the tables nor the thumbnail confirm the file; nothing is held against it either
      // (a setting may leave one out).
      const parts = layout === 'writer' ? (writer ?? like)!.segments.filter((x) => !md.jpeg!.segments.includes(x)) : [];
      if (parts.length) add('capture.jpeg.parts_missing', { model: md.model, like: like?.model ?? null, missing: parts.map((x) => x.replace(/:$/, '')).join(', ') }, 0);
      positive = (tables === 'maker' && !parts.length) || positive;
      signal?.throwIfAborted();
      const thumb = await checkThumbnail(buf, md, traits, cameraIjg, add);
      // In libjpeg's layout from a maker some of whose models write it, the thumbnail confirms the file only with
      // tables that model was seen to pick: a program's tables with the camera's thumbnail copied back are not it.
      const thumbCounts = (layout === 'none' || tables === 'maker' || tables === 'model_range') && !parts.length;
      positive = (thumb && thumbCounts) || positive;
    } else if (md.heic) {
      positive = checkHeic(md, known, add) || positive;
    }

    const against = findings.filter((f) => f.weight > 0);
    const sizeRan = width > 0 && height > 0;
    if (against.some((f) => !isResaveSign(f.code))) return { claimed, findings, status: 'contradicted' };
    if (against.length) return { claimed, findings, status: 'resaved' };
    if (positive && maker && sizeRan) {
      add('capture.consistent', { make: md.make, model: md.model }, W.consistent);
      return { claimed, findings, status: 'consistent' };
    }
    return { claimed, findings, status: 'insufficient' };
  };
}

/** How libjpeg's table layout without a JFIF header reads for the claimed maker and model (layoutWithoutHeader). */
type LayoutReading = 'none' | 'writer' | 'program' | 'program_tables' | 'unseen_model';

/**
 * libjpeg's table layout without its JFIF header. The forger's route around the JFIF check: encode with the camera's
 * tables (PIL, any libjpeg), copy the tags and remake the thumbnail, then strip the JFIF header (`exiftool -JFIF:all=`).
 * Canon, Nikon, Sony, Kodak, Apple, Olympus, Panasonic, Pentax and Epson put every table of a kind in one marker, so
 * from them it is a program's ('program'). Some models write it themselves: Samsung's recent Galaxies and two HP
 * cameras (libjpeg inside) always do, with tables they pick per photo (layoutWriters): their layout ('writer'). For a
 * maker with such models, a model the catalogue never saw may be one of them: not accused ('unseen_model'). With
 * tables inside the range one of those models picks from, it is read as that model's sibling (the caller): Samsung's
 * recent Galaxies share one family of tables (8 of the 9 Galaxy S25 Ultra originals have tables inside the Z Fold6's
 * range, 23 of the 27 Z Fold6 ones inside the S25 Ultra's), and a forger gains nothing by naming an unseen model that
 * naming the Fold6 itself would not give. With other tables it is not confirmed by its thumbnail either. A few older
 * models that wrote it once are left alone with their own tables.
 */
function layoutWithoutHeader(md: CaptureMetadata, used: number[][], traits: MakerTraits | undefined, writer: LayoutWriter | undefined, known: Known): LayoutReading {
  const model = md.model;
  if (!traits) return 'none';
  if (writer) return 'writer';
  // Whether the maker's other cameras merge their tables: its originals without a JFIF header, the writers' left out.
  const writerFiles = traits.layoutWriters.reduce((n, w) => n + w.files, 0);
  if (!always(traits, (t) => t.noJfifFiles - t.noJfifLibjpegLayoutFiles, (t) => t.noJfifFiles - writerFiles)) {
    // Too few of the maker's originals to say how all its cameras lay their tables out (or some of them write this
    // layout): the originals with these very tables still can. A camera writes a table in one layout; the maker's
    // originals that used these tables all merged them, so this file was written by another encoder given them (the
    // informed forger's route with a small maker's donor). Not for a maker whose models write this layout themselves.
    if (writerFiles > 0) return 'none';
    const entry = used.length > 0 ? known.byHash.get(tablesHash(used)) : undefined;
    return entry && entry.makes.includes(md.maker!) && !entry.libjpegLayoutMakes.includes(md.maker!) ? 'program_tables' : 'none';
  }
  if (writerFiles > 0 && !(model && known.modelsOf.get(md.maker!)?.has(model))) return 'unseen_model';
  // A model seen writing this layout is left alone only with that model's own tables: naming the model is not enough.
  if (!model || !traits.libjpegLayoutModels.includes(model)) return 'program';
  return used.length > 0 && known.byHash.get(tablesHash(used))?.models?.includes(model) ? 'none' : 'program';
}

/** The tables are of the kind a layout writer picks per photo: every coefficient of both tables in the range its
 *  originals span (Samsung's flatten the low frequencies to a level and keep the rest; HP's scale to a quality). */
function inWriterRange(tables: number[][], w: LayoutWriter): boolean {
  if (tables.length !== 2) return false;
  const within = (t: number[], low: number[], high: number[]) => t.every((v, i) => v >= low[i] && v <= high[i]);
  return within(tables[0], w.lumaLow, w.lumaHigh) && within(tables[1], w.chromaLow, w.chromaHigh);
}

/** Per maker, the models named by these catalogue tables. */
function modelsByMaker(tables: Catalogue['tables']): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const t of tables) for (const m of t.makes) for (const model of t.models ?? []) (out.get(m) ?? out.set(m, new Set()).get(m)!).add(model);
  return out;
}

type Add = (code: string, facts: Finding['facts'], weight: number) => void;
interface Known {
  byHash: Map<string, Catalogue['tables'][number]>;
  sharesTables: Set<string>;
  heicNeverAmp: boolean;
  ijgModels: Map<string, Set<string>>;
  /** Per maker, the models the catalogue holds JPEG originals of. */
  modelsOf: Map<string, Set<string>>;
}

function checkTables(
  md: CaptureMetadata,
  tables: number[][],
  traits: MakerTraits | undefined,
  known: Known,
  cameraIjg: boolean,
  writer: LayoutWriter | undefined,
  add: Add,
): TablesReading {
  const { byHash } = known;
  if (tables.length === 0) return 'other';
  const entry = byHash.get(tablesHash(tables));
  const ijg = standardIjg(tables);
  const maker = md.maker;
  if (ijg) {
    // Makers that never used libjpeg's tables in the corpus: a standard table is a software re-save. Makers that
    // did (many Nikon, Olympus, Sony, Epson...) get no weight either way, and the camera's own layout with them is
    // read as the camera's (ijgCamera).
    // So are they, in libjpeg's layout without the header, from a maker some of whose models write that layout but
    // none with these tables (Samsung's recent Galaxies pick their own; its older phones used these, merged).
    const j = md.jpeg!;
    const neverInLayout = Boolean(traits && !j.jfif && j.libjpegLayout && traits.layoutWriters.length > 0 && traits.noJfifLibjpegLayoutIjgFiles === 0);
    const neverIjg = Boolean(traits && traits.jpegFiles >= MIN_FILES && traits.ijgFiles === 0) || neverInLayout;
    if (cameraIjg) add('capture.qtable.camera_ijg', { quality: ijg.quality, model: md.model }, 0);
    // A maker whose originals never used them: a software re-save. Otherwise libjpeg at that quality is anyone's, a
    // camera's or a program's, and the sentence says so (camerasToo).
    else if (neverIjg) add('capture.qtable.standard_ijg', { quality: ijg.quality }, W.ijgForNonIjgMaker);
    else add('capture.qtable.standard_ijg', { quality: ijg.quality, camerasToo: true }, 0);
    return 'other';
  }
  if (entry && maker && entry.makes.includes(maker)) {
    add('capture.qtable.known_maker', { make: md.make }, W.knownMaker);
    return 'maker';
  }
  // Not a table seen from this maker, but of the kind the model picks per photo (a layout writer's range): not
  // evidence on its own, it lets the camera's thumbnail confirm the file (the layout check above). HP's cameras share
  // their tables with other makers' (OEM designs), so one seen from another maker can still be the model's.
  const ofModel = Boolean(writer && inWriterRange(tables, writer));
  if (entry && maker && traits && traits.jpegFiles >= MIN_FILES) {
    const exclusive = !known.sharesTables.has(maker) && !entry.makes.some((m) => known.sharesTables.has(m));
    if (exclusive || !ofModel) {
      add('capture.qtable.maker_mismatch', { claimedMake: md.make, tableMake: entry.makes.join(', ') }, exclusive ? W.makerMismatch : 0);
      return 'other';
    }
  }
  if (ofModel) {
    // An unseen model read as a writer's sibling: the sentence names the model whose range it is.
    add('capture.qtable.model_range', writer!.model === md.model ? { model: md.model } : { model: md.model, like: writer!.model }, 0);
    return 'model_range';
  }
  add('capture.qtable.unknown', {}, 0);
  return 'other';
}

/** What the tables say: a table the claimed maker's originals use, one of the kind the model picks, or neither. */
type TablesReading = 'maker' | 'model_range' | 'other';

/**
 * libjpeg's whole layout (a JFIF header, one table per marker) from a model whose originals are all written so: Google's
 * Pixels encode with libjpeg in the camera app, so all 33 Pixel 5 originals read as re-saved by a program. It is that
 * model's only when the file also has its Exif before the JFIF header, as those originals do and as neither libjpeg
 * (header first) nor exiftool copying tags into a program's file (tags after the header) writes it, and its tables are
 * ones the catalogue saw that model use (naming the model is not enough).
 */
function libjpegWriter(md: CaptureMetadata, traits: MakerTraits | undefined, known: Known): boolean {
  const j = md.jpeg;
  if (!j || !j.exifBeforeJfif || !md.model || !traits?.libjpegWriterModels.includes(md.model)) return false;
  const tables = usedTables(j);
  return tables.length > 0 && Boolean(known.byHash.get(tablesHash(tables))?.models?.includes(md.model));
}

/**
 * Layouts simple encoders write with the standard tables and no JFIF header, which some cameras' originals share: Go's
 * image/jpeg (no APP0 at all), and jpeg-js or stb_image_write once `exiftool -JFIF:all=` takes their header away. Such
 * a file could be anyone's, so it never counts as a camera's (2 Canon, 2 HTC, 2 Samsung, an LG, a Jolla, a Kodak and a
 * JK original with the standard tables were written so).
 */
const SOFTWARE_MERGED_LAYOUTS = new Set(['Q2 F H4']);

/**
 * libjpeg's standard tables written the way the claimed camera writes them: a model the catalogue saw use those tables,
 * no JFIF header, and the markers in an order (with as many tables each) that the maker's originals with those tables
 * were written in, which libjpeg-based software does not write ('Q2 H4 F': every table of a kind in one marker, the
 * Huffman tables before the frame). Epson, Olympus, many Nikon and Sony cameras and some Android phones use the
 * standard tables; a program that re-saves their photos writes JFIF and libjpeg's layout (sharp, PIL, ImageMagick,
 * GIMP), which capture.jpeg.* reads as a re-save. With the camera's own thumbnail (checkThumbnail) such a file is
 * built as that camera builds its files. A forger who writes that layout on purpose gets what one who copies a camera's
 * own tables gets (the README's attack routes): the pixel reading still stands between the file and `authentic`.
 */
function ijgCamera(md: CaptureMetadata, traits: MakerTraits | undefined, known: Known): boolean {
  const j = md.jpeg;
  if (!j || j.jfif || j.libjpegLayout || SOFTWARE_MERGED_LAYOUTS.has(j.layout) || !md.maker || !md.model || !traits) return false;
  return traits.ijgLayouts.includes(j.layout) && Boolean(known.ijgModels.get(md.maker)?.has(md.model));
}

async function checkThumbnail(buf: Buffer, md: CaptureMetadata, traits: MakerTraits | undefined, cameraIjg: boolean, add: Add): Promise<boolean> {
  const cmp = md.thumbnailDeclared ? await compareThumbnail(buf) : null;
  if (!cmp) {
    const expected = always(traits, (t) => t.thumbnailFiles, (t) => t.jpegFiles);
    add('capture.thumbnail.absent', {}, expected ? W.thumbAbsentForAlwaysMaker : 0);
    return false;
  }
  if (!cmp.aspectMatches && !cmp.turnedAspectMatches) {
    const facts = { thumbAspect: round2(cmp.thumbAspect), imageAspect: round2(cmp.imageAspect) };
    // Of neither shape but the same picture squeezed: a camera that squeezes its thumbnail, or a crop too slight to
    // change the picture; the check cannot tell the two apart, so it says nothing either way.
    if (cmp.squeezed !== null && cmp.squeezed >= THUMB_MATCH) add('capture.thumbnail.squeezed', { ...facts, similarity: round2(cmp.squeezed) }, 0);
    // The shape of neither the stored picture nor the picture turned a quarter, and not the same picture: cropped,
    // or another picture.
    else add('capture.thumbnail.aspect_mismatch', facts, W.thumbAspect);
    return false;
  }
  if (cmp.similarity !== null && cmp.similarity >= THUMB_MATCH) {
    if (cmp.jfif) {
      // The same picture, in a thumbnail a program encoded (a JFIF header): the file was written again, which is also
      // what a forger who makes the thumbnail again from new pixels leaves. It is not the camera's thumbnail.
      add('capture.thumbnail.software', { similarity: round2(cmp.similarity) }, W.thumbSoftware);
      return false;
    }
    add('capture.thumbnail.match', { similarity: round2(cmp.similarity) }, W.thumbMatch);
    // With libjpeg's tables a matching thumbnail counts only in the camera's own layout (ijgCamera): a re-save keeps
    // the thumbnail (measured before the layout was read: counting it for makers that used libjpeg at that quality
    // made 21-25 % of resized and re-saved originals consistent).
    // Otherwise the maker must be one the catalogue knows well: for an unknown maker an unknown table backed by a
    // thumbnail anyone can regenerate is not enough.
    if (md.jpeg && standardIjg(usedTables(md.jpeg))) return cameraIjg;
    return Boolean(traits && traits.jpegFiles >= MIN_FILES);
  }
  if (cmp.turned && cmp.turned.similarity >= THUMB_MATCH) {
    // The same picture turned or mirrored. As the Orientation tag shows it: the thumbnail was written as displayed,
    // which proves nothing either way. Otherwise a program turned the pixels after the thumbnail was made (a
    // lossless rotation keeps the camera's tables): a re-save, never a sign of manipulation (signs.ts).
    const facts = { orientation: cmp.turned.orientation, similarity: round2(cmp.turned.similarity) };
    if (cmp.turned.orientation === md.orientation) add('capture.thumbnail.as_shown', facts, 0);
    else add('capture.thumbnail.turned', facts, W.thumbTurned);
    return false;
  }
  // Another picture only when it resembles the picture in no orientation whose shape it has.
  const best = Math.max(cmp.similarity ?? -1, cmp.turned?.similarity ?? -1);
  if (best < THUMB_MISMATCH) add('capture.thumbnail.mismatch', { similarity: round2(best) }, W.thumbMismatch);
  return false;
}

function checkSize(md: CaptureMetadata, width: number, height: number, traits: MakerTraits | undefined, add: Add): void {
  if (!(width > 0 && height > 0)) return;
  const ew = md.exifWidth;
  const eh = md.exifHeight;
  // Some cameras record the size padded to whole 8x8 or 16x16 blocks (1152x872 for 1152x864): no mismatch.
  const padded = (a: number, b: number) => Boolean(ew && eh && a <= ew && ew - a < 16 && b <= eh && eh - b < 16);
  if (ew && eh && !padded(width, height) && !padded(height, width)) {
    // The recorded picture scaled (either orientation, within SAME_SHAPE) is a resize, which any upload or editor
    // does; another shape is a crop or another picture.
    const scaled = (a: number, b: number) => Math.abs(ew / eh - a / b) / (ew / eh) <= SAME_SHAPE;
    const sameShape = scaled(width, height) || scaled(height, width);
    if (sameShape) add('capture.size.resized', { exifWidth: ew, exifHeight: eh, width, height }, W.exifSize);
    else add('capture.size.exif_mismatch', { exifWidth: ew, exifHeight: eh, width, height }, W.exifSize);
  }
  // The smallest picture this maker's originals came in (with a 10 % margin), never below VGA-ish.
  const makerFloor = traits && traits.files >= 10 ? Math.floor(traits.minPixels * 0.9) : 0;
  if (width * height < Math.max(CAPTURE_FLOOR_PIXELS, makerFloor)) {
    add('capture.size.not_device', { width, height, make: md.make }, W.notDevice);
  }
}

function checkMakerNote(md: CaptureMetadata, traits: MakerTraits | undefined, add: Add): void {
  if (!md.exif || !md.maker) return;
  if (!md.makerNote) {
    if (always(traits, (t) => t.makerNoteFiles, (t) => t.files)) add('capture.makernote.missing', { make: md.make }, W.makerNoteMissing);
    return;
  }
  if (!md.makerNote.wellFormed && always(traits, (t) => t.makerNoteWellFormed, (t) => t.makerNoteFiles)) {
    add('capture.makernote.malformed', { make: md.make }, W.makerNoteMalformed);
  }
}

function checkHeic(md: CaptureMetadata, known: Known, add: Add): boolean {
  const h = md.heic!;
  // x265 (libheif, ImageMagick, GIMP, libvips, most converters) turns asymmetric partitions on in every preset; the
  // phones' and cameras' own encoders of the catalogue never do. A phone's container with x265's pictures in it (its
  // tiles re-coded, or a forger's picture coded into it) keeps every other trait of the phone's file.
  const softwareEncoder = Boolean(h.coding?.ampEnabled && known.heicNeverAmp);
  if (softwareEncoder) add('capture.heic.software_encoder', { make: md.make }, W.heicSoftwareEncoder);
  if (!md.maker || !PHONE_MAKERS.has(md.maker)) return false;
  // Every phone HEIC of the corpus: major brand heic, a grid primary item of HEVC tiles, an Exif item.
  const problems: string[] = [];
  if (h.majorBrand !== 'heic') problems.push(`major brand ${h.majorBrand}`);
  if (h.primaryType !== 'grid') problems.push(`primary item ${h.primaryType ?? 'missing'} instead of a tile grid`);
  else if ((h.itemTypes['hvc1'] ?? 0) < 4) problems.push('a grid of fewer than 4 tiles');
  if (!h.hasExif) problems.push('no Exif item');
  if (problems.length) {
    add('capture.heic.structure_mismatch', { detail: problems.join('; ') }, W.heicMismatch);
    return false;
  }
  if (softwareEncoder) return false;
  add('capture.heic.phone_structure', { make: md.make }, W.heicPhone);
  return true;
}

const secondsOf = (s: string | null): number | null => {
  const m = s ? /^(\d{4}):(\d\d):(\d\d)[ T](\d\d):(\d\d):(\d\d)/.exec(s) : null;
  if (!m || m[1] === '0000') return null;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) / 1000;
};
const offsetOf = (s: string | null): number | null => {
  const m = s ? /^([+-])(\d\d):(\d\d)$/.exec(s) : null;
  return m ? (m[1] === '-' ? -1 : 1) * (+m[2] * 3600 + +m[3] * 60) : null;
};
const round2 = (v: number) => Math.round(v * 100) / 100;

function checkDates(d: CaptureDates, add: Add): void {
  const original = secondsOf(d.DateTimeOriginal);
  if (original === null) return;
  const create = secondsOf(d.CreateDate);
  if (create !== null && Math.abs(create - original) > DATE_TOLERANCE_S) {
    add('capture.dates.inconsistent', { field: 'CreateDate', delta: create - original }, W.dates);
    return;
  }
  const modify = secondsOf(d.ModifyDate);
  if (modify !== null && original - modify > DATE_TOLERANCE_S) {
    add('capture.dates.inconsistent', { field: 'ModifyDate', delta: modify - original }, W.dates);
    return;
  }
  // A later ModifyDate means the file was rewritten after capture; in the corpus that is mostly metadata work
  // (geotagging, a time-zone fix) on untouched pixels, so it is reported without weight.
  if (modify !== null && modify - original > MODIFY_TOLERANCE_S) {
    add('capture.dates.inconsistent', { field: 'ModifyDate', delta: modify - original }, 0);
  }
  if (d.SubSecTimeOriginal && d.SubSecTimeDigitized && d.SubSecTimeOriginal !== d.SubSecTimeDigitized) {
    add('capture.dates.inconsistent', { field: 'SubSecTimeDigitized', delta: 0 }, W.dates);
    return;
  }
  const gpsDay = secondsOf(d.GPSDateStamp ? `${d.GPSDateStamp} 00:00:00` : null);
  if (gpsDay !== null && d.GPSTimeStamp) {
    const [h, m, s] = d.GPSTimeStamp;
    const gps = gpsDay + h * 3600 + m * 60 + Math.floor(s);
    const offset = offsetOf(d.OffsetTimeOriginal);
    const delta = offset !== null ? original - offset - gps : original - gps;
    if (Math.abs(delta) > (offset !== null ? GPS_TOLERANCE_S : GPS_NO_OFFSET_TOLERANCE_S)) {
      add('capture.dates.inconsistent', { field: 'GPSDateTime', delta }, W.dates);
    }
  }
}

/**
 * The capture-consistency report of one image, from its bytes only (no file or network access). `width` and
 * `height` are the decoded pixel dimensions as stored, before EXIF orientation (see CaptureInput).
 */
export const readCapture: (input: CaptureInput) => Promise<CaptureReport> = createCaptureReader(catalogueJson as unknown as Catalogue);
