// The reviewer's name, remembered for this launch of the window (issue 22): typed once, it fills every review form
// opened after it, on every card. Kept in sessionStorage (a reload keeps it; the next launch, or another person at a
// shared desk, starts blank), and in memory for the forms already on screen.

export const REVIEWER_KEY = 'veracity.reviewer';

interface NameStorage {
  getItem: (key: string) => string | null;
  setItem: (key: string, value: string) => void;
}

const sessionStore = (): NameStorage | null => {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // storage refused: the name is remembered in memory only
  }
};

let current: string | null = null;
const listeners = new Set<() => void>();

/** The name last given in a review during this launch ('' when none). */
export function reviewerName(storage: NameStorage | null = sessionStore()): string {
  if (current === null) current = storage?.getItem(REVIEWER_KEY) ?? '';
  return current;
}

export function rememberReviewer(name: string, storage: NameStorage | null = sessionStore()): void {
  current = name;
  try {
    storage?.setItem(REVIEWER_KEY, name);
  } catch {
    // a full or refused storage: memory still holds it for this page
  }
  for (const listener of listeners) listener();
}

export function subscribeReviewer(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** For tests: forget the name held in memory. */
export function resetReviewerForTests(): void {
  current = null;
}
