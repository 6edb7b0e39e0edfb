// The active case at the top of the Assess screen: its name (renamed in place), its status (open, in review,
// closed) and the specialist's notes, each stored by the core through PATCH /app/cases/{caseId}, so a reload or the
// next launch shows them again. A change the core refuses is said in the screen's notices and the field goes back.
import { useEffect, useId, useRef, useState } from 'react';
import type { CaseInfo, CaseStatus } from '../../src/api/app-schemas.js';
import { CASE_NAME_MAX, CASE_NOTES_MAX } from '../../src/api/limits.js';
import { CASE_STATUS_WORDS } from '../lib/words.js';

interface Props {
  activeCase: CaseInfo;
  /** Sends the change to the core; resolves true when it was stored. */
  onChange: (patch: { name?: string; notes?: string; status?: CaseStatus }) => Promise<boolean>;
}

const STATUSES: CaseStatus[] = ['open', 'in_review', 'closed'];

export function CaseHeader({ activeCase, onChange }: Props): React.JSX.Element {
  const id = useId();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(activeCase.name);
  const [notes, setNotes] = useState(activeCase.notes);
  const [busy, setBusy] = useState<'name' | 'status' | 'notes' | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const nameInput = useRef<HTMLInputElement>(null);
  const renameButton = useRef<HTMLButtonElement>(null);

  // Another case opened (History, a reload): its own notes replace what was typed for the last one.
  useEffect(() => {
    setRenaming(false);
    setSaved(null);
  }, [activeCase.id]);
  useEffect(() => setNotes(activeCase.notes), [activeCase.id, activeCase.notes]);
  useEffect(() => {
    if (renaming) nameInput.current?.select();
  }, [renaming]);

  const change = async (what: 'name' | 'status' | 'notes', patch: Parameters<Props['onChange']>[0], done: string): Promise<boolean> => {
    setBusy(what);
    setSaved(null);
    const ok = await onChange(patch);
    setBusy(null);
    if (ok) setSaved(done);
    return ok;
  };

  const rename = async (): Promise<void> => {
    const next = name.trim();
    if (next === '' || next === activeCase.name) {
      setRenaming(false);
      return;
    }
    if (await change('name', { name: next }, 'Name saved.')) {
      setRenaming(false);
      renameButton.current?.focus();
    }
  };
  const notesChanged = notes !== activeCase.notes;

  return (
    <section className="case-header" aria-labelledby={`${id}-title`} data-testid="case-header" data-case-id={activeCase.id}>
      <div className="case-title-row">
        <span className="machine-label">Case</span>
        {renaming ? (
          <form
            className="row case-rename"
            onSubmit={(e) => {
              e.preventDefault();
              void rename();
            }}
          >
            <label className="visually-hidden" htmlFor={`${id}-name`}>
              Case name
            </label>
            <input
              id={`${id}-name`}
              ref={nameInput}
              value={name}
              maxLength={CASE_NAME_MAX}
              disabled={busy === 'name'}
              onChange={(e) => setName(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Escape') {
                  e.preventDefault();
                  setName(activeCase.name);
                  setRenaming(false);
                }
              }}
            />
            <button type="submit" className="primary" disabled={busy === 'name' || name.trim() === ''}>
              Save name
            </button>
            <button
              type="button"
              onClick={() => {
                setName(activeCase.name);
                setRenaming(false);
              }}
            >
              Cancel
            </button>
          </form>
        ) : (
          <>
            <h3 id={`${id}-title`} className="case-title" data-testid="case-name" title={activeCase.name} tabIndex={-1}>
              {activeCase.name}
            </h3>
            <button
              type="button"
              ref={renameButton}
              className="link"
              onClick={() => {
                setName(activeCase.name);
                setRenaming(true);
              }}
              aria-label={`Rename case “${activeCase.name}”`}
            >
              Rename
            </button>
          </>
        )}
        <label className="case-status">
          Status{' '}
          <select
            value={activeCase.status}
            disabled={busy === 'status'}
            data-testid="case-status"
            onChange={(e) => void change('status', { status: e.target.value as CaseStatus }, 'Status saved.')}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {CASE_STATUS_WORDS[s]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <label className="case-notes" htmlFor={`${id}-notes`}>
        Notes
      </label>
      <textarea
        id={`${id}-notes`}
        value={notes}
        rows={2}
        maxLength={CASE_NOTES_MAX}
        data-testid="case-notes"
        placeholder="Claim number, who sent the files, what to look at…"
        onChange={(e) => {
          setNotes(e.target.value);
          setSaved(null);
        }}
      />
      <div className="row case-notes-actions">
        <button type="button" disabled={!notesChanged || busy === 'notes'} onClick={() => void change('notes', { notes }, 'Notes saved.')}>
          {busy === 'notes' ? 'Saving…' : 'Save notes'}
        </button>
        {notesChanged && (
          <button type="button" className="link" onClick={() => setNotes(activeCase.notes)}>
            Undo changes
          </button>
        )}
        <span className="hint" role="status" data-testid="case-saved">
          {saved ?? (notesChanged ? 'Notes not saved yet.' : '')}
        </span>
      </div>
    </section>
  );
}
