// The registered detectors, in the order they run and the verdict lists their dimensions. To add one: write
// detectors/NAME.ts exporting a Detector, add it here, and give each finding code it emits a sentence in copy.ts.
import type { Detector } from '../detector.js';
import { aiDetectionDetector } from './ai-detection.js';
import { captureDetector } from './capture.js';
import { pdfStructureDetector } from './pdf-structure.js';
import { provenanceDetector } from './provenance.js';

export const DETECTORS: readonly Detector[] = [aiDetectionDetector, provenanceDetector, captureDetector, pdfStructureDetector];
