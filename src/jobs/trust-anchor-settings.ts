// The Content Credentials trust anchors as Settings edits them (issue 24, item 2): the bundle the analysis reads,
// listed, added to and removed from, for the window's routes (src/server/routes/trust-anchor-routes.ts).
import type { TrustAnchorInfo } from '../api/app-schemas.js';
import { addTrustAnchors, listTrustAnchors, removeTrustAnchor } from '../analysis/index.js';

export interface TrustAnchorSettings {
  /** False where the bundle is configured outside the window (VERACITY_TRUST_ANCHORS, a team server). */
  editable: boolean;
  list(): Promise<TrustAnchorInfo[]>;
  /** Throws (a message naming the certificate) when the PEM text holds none or one does not parse. */
  add(pem: string): Promise<TrustAnchorInfo[]>;
  /** null when no anchor has this fingerprint. */
  remove(fingerprintSha256: string): Promise<TrustAnchorInfo[] | null>;
}

export function createTrustAnchorSettings(file: string, editable: boolean): TrustAnchorSettings {
  return {
    editable,
    list: () => listTrustAnchors(file),
    add: (pem) => addTrustAnchors(file, pem),
    remove: (fingerprint) => removeTrustAnchor(file, fingerprint),
  };
}
