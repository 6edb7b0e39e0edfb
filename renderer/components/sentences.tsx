// A card's explanation, sentence by sentence: a sentence said of several files of the case is said once above the
// cards (renderer/lib/case-view.ts caseNotes), and the card shows the note's number in its place, its text on hover.
import { sentencesOf } from '../lib/case-view.js';

export function Sentences({ text, notes }: { text: string; notes?: Map<string, number> }): React.JSX.Element {
  if (!notes || notes.size === 0) return <>{text}</>;
  return (
    <>
      {sentencesOf(text).map((sentence, i) => {
        const n = notes.get(sentence);
        const gap = i > 0 ? ' ' : '';
        return n === undefined ? (
          <span key={i}>
            {gap}
            {sentence}
          </span>
        ) : (
          <span key={i}>
            {gap}
            <span className="note-ref" data-testid="note-ref" data-note={n} title={sentence}>
              (case note {n})
            </span>
          </span>
        );
      })}
    </>
  );
}
