// The one shape every detector has: it says which files it reads, and returns findings (codes, facts, weights) and at
// most one dimension. analyse.ts runs the registered detectors in order; fusion reads their codes; copy.ts words them.
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api.js';
import type { Dimension, RegionGrid } from '../api/schemas.js';
import type { MediaType } from './analysis-results.js';
import type { RgbImage } from './decode-image.js';
import type { Finding } from './finding.js';
import type { LoadedModel } from './model-session.js';
import type { TrustAnchor } from './trust-anchors.js';

export type FileKind = 'image' | 'pdf';

/** What a detector may read, prepared once per file by analyse.ts. */
export interface DetectorContext {
  kind: FileKind;
  mediaType: MediaType;
  /** The file's bytes as uploaded. */
  bytes: Buffer;
  /** The decoded image (EXIF orientation applied, sRGB, 8-bit RGB) for images; null for PDFs. */
  image: RgbImage | null;
  /** The opened document for PDFs (destroyed by analyse.ts after every detector ran); null for images. */
  pdf: PDFDocumentProxy | null;
  model: LoadedModel;
  /**
   * The configured C2PA trust anchors (none: every signer is "not established"), read on the first call: only a file
   * with Content Credentials needs them (c2pa-reading.ts).
   */
  trustAnchors: () => Promise<TrustAnchor[]>;
  signal?: AbortSignal;
  /**
   * Outputs of other detectors, by key: for a PDF those that ran before this one (the registry's order); for a picture,
   * whose detectors run at once, only those named in the detector's `reads` are sure to be here.
   */
  earlier: ReadonlyMap<string, DetectorOutput>;
}

export interface DetectorOutput {
  /** The dimension this detector adds to the verdict, or null when it has nothing to score for this file. */
  dimension: Dimension | null;
  /** In order of importance: fusion shows the first ones of a kind (see fusion.ts). */
  findings: Finding[];
  /** Tile scores behind the dimension, for heatmaps (only the pixel detector has them). */
  regions?: RegionGrid[];
}

export interface Detector {
  /** Stable name, e.g. `provenance`; also the key of its output in DetectorContext.earlier. */
  key: string;
  appliesTo(kind: FileKind): boolean;
  /** Keys of the detectors whose output this one reads in `earlier`: it starts when they are done (none: at once). */
  reads?: readonly string[];
  run(ctx: DetectorContext): Promise<DetectorOutput>;
}
