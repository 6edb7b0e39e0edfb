// A card's explanation, sentence by sentence: a sentence said of several files of the case is said once above the
// cards (renderer/lib/case-view.ts caseNotes), and the card shows the note's number in its place. The number is a
// button: its description is the note's text (for a screen reader), its title shows it on hover, and pressing it
// shows the text on the card itself, so it can be read where the list of notes is not on screen (a filter, a search).
import { useId, useState } from 'react';
import { sentencesOf } from '../lib/case-view.js';

function NoteRef({ n, sentence }: { n: number; sentence: string }): React.JSX.Element {
  const [open, setOpen] = useState(false);
  const textId = useId();
  return (
    <>
      <button
        type="button"
        className="note-ref"
        data-testid="note-ref"
        data-note={n}
        title={sentence}
        aria-describedby={textId}
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        (case note {n})
      </button>
      <span id={textId} className="note-text" data-testid="note-text" hidden={!open}>
        {' '}
        {sentence}
      </span>
    </>
  );
}

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
            <NoteRef n={n} sentence={sentence} />
          </span>
        );
      })}
    </>
  );
}
