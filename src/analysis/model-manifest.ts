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
    training: z.object({
      sources: z.array(z.string()),
      licences: z.array(z.string()),
      command: z.string(),
    }),
  })
  .strict();
export type ModelManifest = z.infer<typeof ModelManifest>;
