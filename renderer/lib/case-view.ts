// The case at a glance (issue 22, item 4), without React: which view the specialist chose (cards or one row per file,
// remembered on this computer), the search by file name, the picture's size in words, and the sentences said of
// several files, which the screen says once above the cards instead of on every card.
import type { FileResult, PixelSize } from '../../src/api/schemas.js';
import { dimensionFinding } from './words.js';

export type CaseView = 'cards' | 'rows';
export const CASE_VIEW_KEY = 'veracity.caseView';

interface ViewStorage {
  getItem: (key: string) => string | null;
  setItem: (key: string, value: string) => void;
}

const localStore = (): ViewStorage | null => {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage refused: the choice lasts as long as the page
  }
};

/** The view last chosen on this computer (a preference, not a secret: localStorage, like the theme). */
export function savedCaseView(storage: ViewStorage | null = localStore()): CaseView {
  return storage?.getItem(CASE_VIEW_KEY) === 'rows' ? 'rows' : 'cards';
}

export function saveCaseView(view: CaseView, storage: ViewStorage | null = localStore()): void {
  try {
    storage?.setItem(CASE_VIEW_KEY, view);
  } catch {
    // a full or refused storage: the choice holds for this page
  }
}

const folded = (s: string): string => s.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase();

/** Whether a file name holds the search text, ignoring case and accents ("" matches every file). */
export function nameMatches(name: string, query: string): boolean {
  const q = folded(query.trim());
  return q === '' || folded(name).includes(q);
}

/**
 * The line under the chips while a filter or a name search narrows the cards: how many are shown (`shown`) of the
 * files the search leaves (`counted`, the number on the "All" chip: the whole case without a search), then the
 * search and the filter (`filterName`, null for none). E.g. "Showing 2 of the 5 files whose name holds “IMG”:
 * AI-generated."
 */
export function shownCountWords(shown: number, counted: number, query: string, filterName: string | null): string {
  const search = query.trim();
  const files = `${counted} file${counted === 1 ? '' : 's'}`;
  return `Showing ${shown} of ${search ? `the ${files} whose name holds “${search}”` : files}${filterName ? `: ${filterName}` : ''}.`;
}

/** "4032 × 3024 px", the picture as analysed (after its EXIF orientation); null where the core gave no size. */
export function pixelWords(size: PixelSize | undefined): string | null {
  return size ? `${size.width} × ${size.height} px` : null;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** The sentences of a text, trimmed, as the browser's sentence segmenter cuts them. */
export function sentencesOf(text: string): string[] {
  return [...segmenter.segment(text)].map((s) => s.segment.trim()).filter((s) => s !== '');
}

/** Every sentence a file's card says in its explanation: the verdict's description, then what each check found. */
export function cardSentences(result: FileResult): string[] {
  if (result.status !== 'completed' || !result.verdict) return [];
  const texts = [result.verdict.display.description ?? '', ...result.verdict.dimensions.map((d) => dimensionFinding(d))];
  return texts.flatMap(sentencesOf);
}

/** A sentence said of several files of the case, said once, numbered, above the cards. */
export interface CaseNote {
  n: number;
  text: string;
  /** How many files of the case it is said of. */
  files: number;
}

/** Sentences shorter than this are left on the cards: a reference to a note would be no shorter. */
export const NOTE_MIN_LENGTH = 40;

/**
 * The sentences said of at least two files of the case (each file counted once), numbered in the order they are first
 * said; shorter sentences and sentences with figures stay where they are. A specialist reads a case's boilerplate once and each card for
 * what is particular to its file; a card shows the note's number where the sentence was, with its text on hover.
 */
export function caseNotes(results: FileResult[]): { notes: CaseNote[]; numberOf: Map<string, number> } {
  const files = new Map<string, number>();
  const order: string[] = [];
  for (const r of results) {
    for (const s of new Set(cardSentences(r))) {
      // A sentence with a figure in it (a score, a size) is about its own file, even where two files share it.
      if (s.length < NOTE_MIN_LENGTH || /\d/.test(s)) continue;
      if (!files.has(s)) order.push(s);
      files.set(s, (files.get(s) ?? 0) + 1);
    }
  }
  const notes = order.filter((s) => (files.get(s) ?? 0) >= 2).map((text, i) => ({ n: i + 1, text, files: files.get(text) ?? 0 }));
  return { notes, numberOf: new Map(notes.map((note) => [note.text, note.n])) };
}
