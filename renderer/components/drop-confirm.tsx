// The window's word before dropped files join the case on screen (issue 22): how many files would join it, PDFs
// dropped into a case of images (offered a case of their own), files whose SHA-256 is already in the case; the
// specialist adds them, starts a new case for them, or drops nothing.
import { useEffect, useRef } from 'react';
import type { DropChoice, DropToConfirm } from '../lib/case-session.js';

interface Props {
  asked: DropToConfirm;
  onChoice: (choice: DropChoice) => void;
}

const files = (n: number) => (n === 1 ? '1 file' : `${n} files`);

export function DropConfirm({ asked, onChoice }: Props): React.JSX.Element {
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), [asked.id]);
  const others = asked.files.length - asked.joining;
  return (
    <section
      className="drop-confirm"
      role="alertdialog"
      aria-labelledby="drop-confirm-title"
      aria-describedby="drop-confirm-detail"
      data-testid="drop-confirm"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onChoice('cancel');
      }}
    >
      <h3 id="drop-confirm-title">
        Add {files(asked.joining)} to case “{asked.caseName}”?
      </h3>
      <div id="drop-confirm-detail">
        {others > 0 && <p>{files(others)} of this drop name a case of their own and go there.</p>}
        {asked.pdfs > 0 && (
          <p data-testid="drop-confirm-pdfs">
            {asked.pdfs === 1 ? 'One of them is a PDF' : `${asked.pdfs} of them are PDFs`}, and this case holds images only: they can have a case of their
            own.
          </p>
        )}
        {asked.duplicates.length > 0 && (
          <p data-testid="drop-confirm-duplicates">
            Already in this case (same SHA-256): {asked.duplicates.map((name) => `“${name}”`).join(', ')}. {asked.duplicates.length === 1 ? 'It will be flagged as a duplicate.' : 'They will be flagged as duplicates.'}
          </p>
        )}
      </div>
      <div className="row">
        <button type="button" className="primary" ref={first} onClick={() => onChoice('join')}>
          Add to “{asked.caseName}”
        </button>
        {asked.pdfs > 0 && (
          <button type="button" onClick={() => onChoice('join_pdfs_apart')}>
            Add, with the PDFs in a case of their own
          </button>
        )}
        <button type="button" onClick={() => onChoice('new_case')}>
          Start a new case
        </button>
        <button type="button" onClick={() => onChoice('cancel')}>
          Cancel
        </button>
      </div>
    </section>
  );
}
