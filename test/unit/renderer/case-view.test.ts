// The case at a glance (issue 22, item 4), without React: the remembered view, the name search and the sentences
// said once for the case instead of on every card.
import { describe, expect, it } from 'vitest';
import type { FileResult } from '../../../src/api/schemas.js';
import { caseNotes, nameMatches, pixelWords, savedCaseView, saveCaseView, sentencesOf, shownCountWords } from '../../../renderer/lib/case-view.js';

const CAVEAT = 'The evidence is not strong enough either way; a specialist should review the file.';
const result = (name: string, description: string): FileResult => ({
  file: { id: crypto.randomUUID(), name, size: 1, type: 'image/jpeg' },
  status: 'completed',
  startedAt: '2026-11-24T00:00:00.000Z',
  completedAt: '2026-11-24T00:00:01.000Z',
  verdict: {
    assessment: 'inconclusive',
    confidence: 'low',
    display: { label: 'Inconclusive', description },
    dimensions: [{ key: 'provenance', label: 'Provenance metadata', score: 0.5, assessment: 'inconclusive', confidence: 'low' }],
  },
});

describe('case view', () => {
  it('remembers the chosen view and reads anything else as cards', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    expect(savedCaseView(storage)).toBe('cards');
    saveCaseView('rows', storage);
    expect(savedCaseView(storage)).toBe('rows');
    store.set('veracity.caseView', 'tiles');
    expect(savedCaseView(storage)).toBe('cards');
  });

  it('says how many cards are shown of the files the name search leaves, not of the whole case', () => {
    // 31 files in the case, 5 whose name holds "IMG", 2 of those AI-generated: the total is the "All" chip's 5.
    expect(shownCountWords(2, 5, ' IMG ', 'AI-generated')).toBe('Showing 2 of the 5 files whose name holds “IMG”: AI-generated.');
    expect(shownCountWords(5, 5, 'IMG', null)).toBe('Showing 5 of the 5 files whose name holds “IMG”.');
    expect(shownCountWords(1, 1, 'CRANE', null)).toBe('Showing 1 of the 1 file whose name holds “CRANE”.');
    expect(shownCountWords(0, 0, 'nothing', null)).toBe('Showing 0 of the 0 files whose name holds “nothing”.');
    // Without a search the chips count the whole case.
    expect(shownCountWords(3, 31, '  ', 'Not reviewed')).toBe('Showing 3 of 31 files: Not reviewed.');
  });

  it('finds file names regardless of case and accents', () => {
    expect(nameMatches('Façade-IMG_2041.JPG', 'facade')).toBe(true);
    expect(nameMatches('Façade-IMG_2041.JPG', 'img_20')).toBe(true);
    expect(nameMatches('dock.jpg', 'crane')).toBe(false);
    expect(nameMatches('dock.jpg', '  ')).toBe(true);
    expect(pixelWords({ width: 480, height: 720 })).toBe('480 × 720 px');
    expect(pixelWords(undefined)).toBeNull();
  });

  it('a long sentence said of two or more files becomes one numbered case note; one file\'s own sentences and short ones stay on its card', () => {
    expect(sentencesOf(`The detector's AI score is 47%. ${CAVEAT}`)).toEqual(["The detector's AI score is 47%.", CAVEAT]);
    const files = [
      result('a.jpg', `The detector's AI score is 47%; it points neither way. ${CAVEAT}`),
      result('b.jpg', `The detector's AI score is 52%; it points neither way. ${CAVEAT}`),
      result('c.jpg', `No camera data was found in the file at all here. ${CAVEAT}`),
    ];
    const { notes, numberOf } = caseNotes(files);
    expect(notes).toEqual([{ n: 1, text: CAVEAT, files: 3 }]);
    expect(numberOf.get(CAVEAT)).toBe(1);
    // "No evidence either way", the provenance check's words on all three, is too short to fold.
    expect([...numberOf.keys()]).not.toContain('No evidence either way');
    expect(caseNotes([files[0]]).notes).toEqual([]);
    // A score said of two files stays on each card: it is that file's figure.
    const twins = [result('d.jpg', "The pixel detector's AI score is 7%; it leans away from AI generation here."), result('e.jpg', "The pixel detector's AI score is 7%; it leans away from AI generation here.")];
    expect(caseNotes(twins).notes).toEqual([]);
  });
});
