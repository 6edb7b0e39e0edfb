// The manifest that ships beside every model in models/<name>/: checked with zod when the model is loaded,
// so a model whose file, layout or normalisation does not match what the pipeline feeds it is refused by name.
import { z } from 'zod';
import { DetectorThresholds } from '../api/detector-bands.js';

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
    semantic: z
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
      .strict()
      .optional(),
    /** File score = sigmoid(bias + sum weight * (feature - mean) / std), features as named (logistic regression). */
    fusion: z
      .object({
        method: z.literal('logistic_regression'),
        features: z
          .array(
            z.object({
              name: z.enum(['semantic', 'artefact']),
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
      .optional(),
    training: z.object({
      sources: z.array(z.string()),
      licences: z.array(z.string()),
      command: z.string(),
    }),
  })
  .strict()
  .refine((m) => (m.semantic === undefined) === (m.fusion === undefined), {
    message: 'a semantic model needs a fusion section, and a fusion section a semantic model',
    path: ['fusion'],
  });
export type ModelManifest = z.infer<typeof ModelManifest>;
