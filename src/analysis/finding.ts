// Findings: what a detector saw, as data. Fusion decides on codes and weights; the copy people read is written from
// codes in one module. A finding's text is never parsed to decide anything.

export type FactValue = string | number | boolean | null;

export interface Finding {
  /** Stable dotted code, e.g. `capture.qtable.standard_ijg` or `provenance.c2pa.ai_source`. Never reworded. */
  code: string;
  /** What the detector saw, machine-readable: the names and numbers the copy quotes. */
  facts: Record<string, FactValue>;
  /**
   * Which way and how strongly it speaks: > 0 towards AI generation or manipulation, < 0 towards an authentic
   * capture, 0 for information only. |weight| <= 1, where 1 decides on its own.
   */
  weight: number;
}

/**
 * C2PA validation status codes (C2PA specification, "Validation"), used verbatim as finding codes:
 * `claimSignature.validated`, `assertion.dataHash.mismatch`, `signingCredential.untrusted`, ...
 */
const C2PA_STATUS = /^(claim|claimSignature|signingCredential|timeStamp|assertion|ingredient|manifest|algorithm|hashedURI|general)\.[A-Za-z0-9.-]+$/;
export const isC2paStatus = (code: string): boolean => C2PA_STATUS.test(code);
