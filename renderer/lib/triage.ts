// Triage of the case on screen, without React: one entry per file in drop order, the count of each verdict, and the
// sort and filter orders the Assess screen offers (pure, so the unit tests pin them down).
import type { FileResult, VerdictAssessment } from '../../src/api/schemas.js';
import type { PendingFile, TrackedJob } from './case-session.js';
import { nameMatches } from './case-view.js';

/** What a card's file stands at: a verdict, still being analysed, or not assessed (an error). */
export type TriageState = VerdictAssessment | 'processing' | 'not_assessed';
export const TRIAGE_STATES: readonly TriageState[] = ['ai_generated', 'inconclusive', 'authentic', 'processing', 'not_assessed'];

export type SortKey = 'drop' | 'ai_score' | 'verdict' | 'name';
/** What the cards are filtered on: all, an effective state, or whether a specialist has reviewed the file. */
export type Filter = 'all' | TriageState | 'reviewed' | 'not_reviewed';

export interface CaseFile {
  tracked: TrackedJob;
  result: FileResult;
  /** Position in the order the specialist dropped the files (0 = first). */
  dropOrder: number;
  /** Stable key of the card: job and file ids. */
  key: string;
}

export function triageState(result: FileResult): TriageState {
  if (result.status === 'processing') return 'processing';
  if (result.status === 'completed' && result.verdict) return result.verdict.assessment;
  return 'not_assessed';
}

/**
 * What a file counts as in the case (issue 22): the expert review where there is one, the machine's state otherwise.
 * Counts, filters and the verdict order use it; the card shows both.
 */
export function effectiveState(result: FileResult): TriageState {
  return result.expertReview ? result.expertReview.assessment : triageState(result);
}

/** Which verdict decides a file's place: the specialist's review, or the machine's verdict. */
export function verdictSource(result: FileResult): 'review' | 'machine' {
  return result.expertReview ? 'review' : 'machine';
}

/**
 * Files whose SHA-256 is already in the case on screen, each with the name of the first file (in drop order) that
 * has it: the later copies are the duplicates.
 */
export function duplicatesOf(files: CaseFile[]): Map<string, string> {
  const first = new Map<string, string>();
  const duplicates = new Map<string, string>();
  for (const f of [...files].sort((a, b) => a.dropOrder - b.dropOrder)) {
    const hash = f.tracked.sha256?.[f.tracked.job.results.indexOf(f.result)] ?? null;
    if (hash === null) continue;
    const earlier = first.get(hash);
    if (earlier === undefined) first.set(hash, f.result.file.name);
    else duplicates.set(f.key, earlier);
  }
  return duplicates;
}

/** The AI-generation detector's score (the `ai_detection` dimension), or null when it did not run. */
export function aiScore(result: FileResult): number | null {
  const dimensions = result.verdict?.dimensions ?? result.dimensions ?? [];
  return dimensions.find((d) => d.key === 'ai_detection')?.score ?? null;
}

/**
 * Every file of the case, in drop order: each tracked job carries the drop position of each of its files
 * (`TrackedJob.dropOrder`, by result index); jobs without it (reopened from History) follow in creation order.
 */
export function caseFiles(jobs: TrackedJob[]): CaseFile[] {
  const entries: { file: CaseFile; primary: number; secondary: number }[] = [];
  jobs.forEach((tracked, jobIndex) => {
    tracked.job.results.forEach((result, i) => {
      const known = tracked.dropOrder?.[i];
      entries.push({
        file: { tracked, result, dropOrder: 0, key: `${tracked.job.jobId}/${result.file.id}` },
        // Known drop positions first by their value; the rest after them, by job then position in the job.
        primary: known ?? Number.MAX_SAFE_INTEGER,
        secondary: jobIndex * 100_000 + i,
      });
    });
  });
  entries.sort((a, b) => a.primary - b.primary || a.secondary - b.secondary);
  return entries.map((e, index) => ({ ...e.file, dropOrder: index }));
}

/** How many files of the case stand at each effective state (the summary above the cards): they add up to the files. */
export function countByState(files: CaseFile[]): Record<TriageState, number> {
  const counts: Record<TriageState, number> = { ai_generated: 0, inconclusive: 0, authentic: 0, processing: 0, not_assessed: 0 };
  for (const f of files) counts[effectiveState(f.result)]++;
  return counts;
}

/** How many files of the case a specialist has reviewed. */
export function countReviewed(files: CaseFile[]): number {
  return files.filter((f) => f.result.expertReview !== undefined).length;
}

// Most suspicious first: what a reviewer looks at first.
const STATE_RANK: Record<TriageState, number> = { ai_generated: 0, inconclusive: 1, authentic: 2, not_assessed: 3, processing: 4 };
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export function sortFiles(files: CaseFile[], key: SortKey): CaseFile[] {
  const byDrop = (a: CaseFile, b: CaseFile): number => a.dropOrder - b.dropOrder;
  const sorted = [...files];
  switch (key) {
    case 'drop':
      return sorted.sort(byDrop);
    case 'name':
      return sorted.sort((a, b) => collator.compare(a.result.file.name, b.result.file.name) || byDrop(a, b));
    case 'verdict':
      return sorted.sort((a, b) => STATE_RANK[effectiveState(a.result)] - STATE_RANK[effectiveState(b.result)] || byDrop(a, b));
    case 'ai_score':
      // Highest score first; files the detector has not scored (yet) last, in drop order.
      return sorted.sort((a, b) => {
        const sa = aiScore(a.result);
        const sb = aiScore(b.result);
        if (sa === null || sb === null) return (sa === null ? 1 : 0) - (sb === null ? 1 : 0) || byDrop(a, b);
        return sb - sa || byDrop(a, b);
      });
  }
}

export function filterFiles(files: CaseFile[], filter: Filter): CaseFile[] {
  if (filter === 'all') return files;
  if (filter === 'reviewed' || filter === 'not_reviewed') return files.filter((f) => (f.result.expertReview !== undefined) === (filter === 'reviewed'));
  return files.filter((f) => effectiveState(f.result) === filter);
}

/** What a dropped file not yet in a job stands at: still on its way, or not assessed (not sent). */
export function pendingState(pending: PendingFile): TriageState {
  return pending.stage === 'not_sent' ? 'not_assessed' : 'processing';
}

/** The counts above the cards, of the files whose name holds the search text (every file of the case without one). */
export interface TriageCounts {
  /** By effective state; a dropped file not yet in a job counts at its window stage. They add up to `all`. */
  byState: Record<TriageState, number>;
  /** The files counted: those in a job and those dropped but not (yet) in one. */
  all: number;
  /** Of them, the files in a job (only these can have been reviewed). */
  inJobs: number;
  reviewed: number;
  /** Every other file counted, dropped files not yet in a job among them. */
  notReviewed: number;
}

/**
 * What the chips count: the files the name search `query` shows, so that a chip's number is the number of cards its
 * filter leaves on screen (the whole case where `query` is blank).
 */
export function triageCounts(files: CaseFile[], pending: PendingFile[], query: string): TriageCounts {
  const counted = files.filter((f) => nameMatches(f.result.file.name, query));
  const countedPending = pending.filter((p) => nameMatches(p.name, query));
  const byState = countByState(counted);
  for (const p of countedPending) byState[pendingState(p)]++;
  const all = counted.length + countedPending.length;
  const reviewed = countReviewed(counted);
  return { byState, all, inJobs: counted.length, reviewed, notReviewed: all - reviewed };
}

/** One card of the Assess screen: a file of a job, or a dropped file the core has not accepted (yet). */
export type CaseCard = { kind: 'file'; file: CaseFile; key: string } | { kind: 'pending'; pending: PendingFile; key: string };

/**
 * The cards on screen: the case's files as sorted and filtered, with the dropped files not in a job. In drop order
 * each pending file takes its drop position among the files (so its job's card later appears in the same place);
 * in any other order they follow the files, in drop order (they have no verdict, score or stored name yet).
 */
export function withPending(files: CaseFile[], pending: PendingFile[], sortKey: SortKey, filter: Filter): CaseCard[] {
  const cards: CaseCard[] = files.map((file) => ({ kind: 'file', file, key: file.key }));
  // A dropped file not yet in a job has no review: it is among the files not reviewed.
  const shown = [...pending].filter((p) => filter === 'all' || filter === 'not_reviewed' || pendingState(p) === filter).sort((a, b) => a.dropOrder - b.dropOrder);
  if (shown.length === 0) return cards;
  const extra: CaseCard[] = shown.map((p) => ({ kind: 'pending', pending: p, key: p.key }));
  if (sortKey !== 'drop') return [...cards, ...extra];
  const position = (card: CaseCard): number => {
    if (card.kind === 'pending') return card.pending.dropOrder;
    const { tracked, result } = card.file;
    return tracked.dropOrder?.[tracked.job.results.indexOf(result)] ?? Number.MAX_SAFE_INTEGER;
  };
  const merged: CaseCard[] = [];
  let i = 0;
  for (const card of cards) {
    while (i < extra.length && position(extra[i]) < position(card)) merged.push(extra[i++]);
    merged.push(card);
  }
  return [...merged, ...extra.slice(i)];
}
