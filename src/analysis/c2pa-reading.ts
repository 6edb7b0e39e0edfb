// The way in to Content Credentials for the analysis. The C2PA library and the X.509 stack behind it are most of what
// a fresh analysis process loads before its first file (about 0.65 s of the 0.9-1.1 s of module loading, measured on
// this project's 2-core machine), and most files carry no Content Credentials. So they are loaded for a file that may
// hold a manifest store, and the trust anchors are read only when a store is there to be judged.
import type { MediaType } from './analysis-results.js';
import type { C2paReading } from './c2pa-validation.js';
import type { TrustAnchor } from './trust-anchors.js';

/** The configured trust anchors, or how to read them when a manifest needs judging. */
export type TrustAnchorSource = TrustAnchor[] | (() => Promise<TrustAnchor[]>);

const JUMBF_BOX = Buffer.from('jumb', 'latin1');

/**
 * Whether the file may hold a C2PA manifest store. A picture's store is a JUMBF superbox (type `jumb`) that its
 * container keeps as it is, never compressed: JPEG APP11 segments, a PNG caBX chunk, a BMFF (HEIC) uuid box; so a
 * picture without those four bytes anywhere has none. A PDF may keep its store in a compressed stream: always read.
 */
export function mayHoldC2pa(bytes: Buffer, mediaType: MediaType): boolean {
  return mediaType === 'application/pdf' || bytes.includes(JUMBF_BOX);
}

/** The file's Content Credentials validated (c2pa-validation.ts), or null when it has none. */
export async function readC2pa(bytes: Buffer, mediaType: MediaType, anchors: TrustAnchorSource): Promise<C2paReading | null> {
  if (!mayHoldC2pa(bytes, mediaType)) return null;
  const { validateC2pa } = await import('./c2pa-validation.js');
  return validateC2pa(bytes, mediaType, typeof anchors === 'function' ? await anchors() : anchors);
}

/** Loads the C2PA and X.509 code ahead of a file that needs it (a warm-up with nothing else to do). */
export async function loadC2paReader(): Promise<void> {
  await import('./c2pa-validation.js'); // with trust-anchors.ts, which it imports
}
