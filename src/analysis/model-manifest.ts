// The manifest that ships beside every model in models/<name>/: checked with zod when the model is loaded,
// so a model whose file, layout or normalisation does not match what the pipeline feeds it is refused by name.
import { z } from 'zod';
import { DetectorThresholds } from '../api/detector-bands.js';

/**
 * A content model: a network that reads the whole picture resized to size x size (manifest `semantic` from 1.1,
 * `semantic2` beside it), its logit one feature of `fusion`.
 */
const ContentModel = z
  .object({
    file: z.string().regex(/^[\w.-]+\.onnx$/),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    input: z.object({
      name: z.string().min(1),
      layout: z.literal('NHWC'),
      size: z.number().int().min(16).max(1024), // the whole picture resized to size x size, aspect not kept
      channels: z.literal(3),
      colorSpace: z.literal('sRGB'),
      dtype: z.literal('float32'),
      scale: z.number().positive(), // x = pixel * scale
      resize: z.string().min(1),
      batchDynamic: z.boolean(),
    }),
    output: z.object({ name: z.string().min(1), kind: z.literal('logit'), meaning: z.string().min(1) }),
  })
  .strict();
export type ContentModel = z.infer<typeof ContentModel>;

/**
 * 1.5: the face check and the thresholds for portraits. The detector accuses real portraits more often than other
 * photographs, so a picture whose largest face spans at least `minFace` of its shorter side is read against
 * `thresholds` calibrated on portraits; every other picture against the manifest's `thresholds`. `finder` is the face
 * finder the calibration's tags were made with (OpenCV's Haar cascade, face-finder.ts).
 */
const Portraits = z
  .object({
    finder: z
      .object({
        method: z.literal('haar_cascade'),
        file: z.string().regex(/^[\w.-]+\.xml$/),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        licence: z.string().min(1),
        shortSide: z.number().int().min(64).max(4096),
        scaleFactor: z.number().gt(1).max(2),
        minNeighbors: z.number().int().min(0).max(50),
        minFace: z.number().gt(0).max(1),
        /** Turned looks (degrees, clockwise) when the upright one finds no portrait (face-finder.ts); absent: none. */
        search: z.array(z.number().gt(-360).lt(360).refine((a) => a !== 0, 'the upright look is always made')).min(1).max(8).optional(),
        /** Neighbours a turned look asks of a face (absent: minNeighbors); only with a search. */
        searchNeighbors: z.number().int().min(0).max(50).optional(),
      })
      .strict()
      .refine((f) => f.searchNeighbors === undefined || f.search !== undefined, {
        message: 'searchNeighbors needs a search',
        path: ['searchNeighbors'],
      }),
    /** A portrait: the largest face found spans at least this share of the picture's shorter side. */
    minFace: z.number().gt(0).max(1),
    thresholds: DetectorThresholds,
    /** What the portrait thresholds were measured to do on the validation split's portraits (face-tagged). */
    calibration: z
      .object({
        realAtHighAi: z.number().min(0).max(1),
        aiAtHighAi: z.number().min(0).max(1),
        split: z.string().min(1),
      })
      .strict(),
  })
  .strict()
  .refine((p) => p.finder.minFace <= p.minFace, {
    message: 'the finder must look for faces at least as small as a portrait\'s',
    path: ['finder', 'minFace'],
  });
export type Portraits = z.infer<typeof Portraits>;

/** What the fusion may weigh: a content model's logit, named as its section, or the artefact file score's logit. */
export const FusionFeatureName = z.enum(['semantic', 'semantic2', 'artefact']);
export type FusionFeatureName = z.infer<typeof FusionFeatureName>;

/** The manifest's content models: the name of their section, of their session in LoadedModel and of their feature. */
export type ContentBranch = Exclude<FusionFeatureName, 'artefact'>;

export const ModelManifest = z
  .object({
    name: z.string().min(1), // folder name under models/
    version: z.string().min(1), // semver of the weights
    file: z.string().regex(/^[\w.-]+\.onnx$/), // relative to the manifest's folder
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    input: z.object({
      name: z.string().min(1), // ONNX input name
      layout: z.literal('NCHW'),
      channels: z.literal(3),
      colorSpace: z.literal('sRGB'),
      dtype: z.literal('float32'),
      tileSize: z.number().int().min(16).max(1024), // square tile, native resolution (never resized)
      /** x = (pixel / 255 - mean[c]) / std[c] */
      mean: z.tuple([z.number(), z.number(), z.number()]),
      std: z.tuple([z.number().positive(), z.number().positive(), z.number().positive()]),
      batchDynamic: z.boolean(),
    }),
    output: z.object({
      name: z.string().min(1),
      /** 'logit': apply sigmoid to get the probability that the tile is AI-generated. */
      kind: z.enum(['logit', 'probability']),
      meaning: z.string().min(1),
    }),
    tiling: z
      .object({
        stride: z.number().int().positive(), // pixels between tile origins on the grid
        maxTiles: z.number().int().positive(), // tiles behind the file score at most (sampled evenly when the grid has more)
        /**
         * Tiles scored for the heatmap at most (same even sampling). A multiple of maxTiles, so the file score's
         * tiles are always among them and the calibrated file score does not change; absent = maxTiles.
         */
        heatmapMaxTiles: z.number().int().positive().optional(),
      })
      .refine((t) => t.heatmapMaxTiles === undefined || t.heatmapMaxTiles % t.maxTiles === 0, {
        message: 'heatmapMaxTiles must be a multiple of maxTiles',
        path: ['heatmapMaxTiles'],
      }),
    aggregation: z.object({
      method: z.literal('top_k_mean'), // mean of the k highest tile probabilities
      k: z.number().int().positive(),
      description: z.string().min(1),
    }),
    /** Calibrated thresholds on the aggregated file score (the detector's bands), with the figures behind them in MODEL_CARD.md. */
    thresholds: DetectorThresholds,
    /**
     * 1.1: the artefact model's own thresholds on a tile's P(AI), for the heatmap's bands (from 1.1 `thresholds` are
     * the fused file score's). Absent: the tiles share the file score's thresholds, as before 1.1.
     */
    tileThresholds: DetectorThresholds.optional(),
    /**
     * What the thresholds were measured to do on the by-source validation split (never on modern/): whether a score
     * >= highAi may decide `ai_generated` from the pixels alone (fusion rule 2), and the shares behind it.
     * Absent (models before 1.0): the pixels never decide alone.
     */
    calibration: z
      .object({
        pixelsDecide: z.boolean(),
        /** Share of the validation split's real photos scoring >= highAi (the false-accusation rate). */
        realAtHighAi: z.number().min(0).max(1),
        /** Share of the validation split's AI images scoring >= highAi. */
        aiAtHighAi: z.number().min(0).max(1),
        split: z.string().min(1),
      })
      .strict()
      .optional(),
    /**
     * 1.1: a second network that reads the whole picture's content (resized to size x size), fused with the artefact
     * file score by `fusion`. Absent (models before 1.1): the file score is the artefact score alone.
     */
    semantic: ContentModel.optional(),
    /**
     * A second content model beside `semantic` (same schema, its own size), fused as the feature 'semantic2'.
     * Absent: the fusion has two features at most.
     */
    semantic2: ContentModel.optional(),
    /** File score = sigmoid(bias + sum weight * (feature - mean) / std), features as named (logistic regression). */
    fusion: z
      .object({
        method: z.literal('logistic_regression'),
        features: z
          .array(
            z.object({
              name: FusionFeatureName,
              definition: z.string().min(1),
              mean: z.number(),
              std: z.number().positive(),
              weight: z.number(),
            }),
          )
          .min(1),
        bias: z.number(),
        /** The artefact probability is clipped to [clip, 1 - clip] before its logit is taken. */
        clip: z.number().positive().max(0.01),
        description: z.string().min(1),
      })
      .strict()
      .superRefine((f, ctx) => {
        f.features.forEach((ft, i) => {
          if (f.features.findIndex((g) => g.name === ft.name) < i) {
            ctx.addIssue({ code: 'custom', path: ['features', i, 'name'], message: `the fusion feature '${ft.name}' is listed twice` });
          }
        });
      })
      .optional(),
    /** Thresholds for portraits and the face check that tells them (1.5 on); absent: one set of thresholds. */
    portraits: Portraits.optional(),
    training: z.object({
      sources: z.array(z.string()),
      licences: z.array(z.string()),
      /** Whether every training source allows commercial use (models/training/data/licences.py); absent in manifests written before 2026-11-28. */
      permissive: z.boolean().optional(),
      /** The restricted sources, each with why (non-commercial terms, no licence, reposts ...). */
      restricted: z.array(z.string()).optional(),
      command: z.string(),
    }),
  })
  .strict()
  .refine((m) => (m.semantic === undefined) === (m.fusion === undefined), {
    message: 'a semantic model needs a fusion section, and a fusion section a semantic model',
    path: ['fusion'],
  })
  .refine((m) => m.semantic2 === undefined || m.semantic !== undefined, {
    message: 'a second content model (semantic2) needs the first (semantic)',
    path: ['semantic2'],
  })
  .superRefine((m, ctx) => {
    const features = m.fusion?.features ?? [];
    const i = features.findIndex((f) => f.name === 'semantic2');
    if (i >= 0 && !m.semantic2) {
      ctx.addIssue({ code: 'custom', path: ['fusion', 'features', i, 'name'], message: "the fusion feature 'semantic2' needs a semantic2 model" });
    }
    if (m.semantic2 && m.fusion && i < 0) {
      ctx.addIssue({ code: 'custom', path: ['fusion', 'features'], message: "a semantic2 model needs a 'semantic2' fusion feature" });
    }
  });
export type ModelManifest = z.infer<typeof ModelManifest>;
