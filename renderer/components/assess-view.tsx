// The Assess screen: the drop zone and pickers, what was refused and why, overall progress, the case's counts by
// verdict (of the files the name search shows) with sorting and filtering, and one verdict card per file of the working case (in drop order by default),
// each opening the evidence viewer; exports the case report.
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { CASE_NAME_MAX } from '../../src/api/limits.js';
import type { PipelineKind } from '../../src/api/schemas.js';
import type { ApiClient } from '../lib/api-client.js';
import { caseNameOf, pendingOfCase, stageCounts, type AppKey, type CaseSession, type EngineState } from '../lib/case-session.js';
import type { CollectedFile } from '../lib/collect-files.js';
import { caseFiles, duplicatesOf, filterFiles, sortFiles, TRIAGE_STATES, triageCounts, withPending, type Filter, type SortKey } from '../lib/triage.js';
import { EFFECTIVE_VERDICT_WORDS, REVIEW_FILTER_WORDS, STAGE_WORDS, STATE_WORDS, WINDOW_STAGE_WORDS } from '../lib/words.js';
import { caseNotes, cardSentences, nameMatches, saveCaseView, savedCaseView, shownCountWords, type CaseView } from '../lib/case-view.js';
import { CaseHeader } from './case-header.js';
import { CaseRows } from './case-rows.js';
import { DropConfirm } from './drop-confirm.js';
import { DropZone } from './drop-zone.js';
import { EvidenceViewer } from './evidence-viewer.js';
import { PendingCard } from './pending-card.js';
import { ReportExport } from './report-export.js';
import { VerdictCard } from './verdict-card.js';

interface Props {
  client: ApiClient;
  session: CaseSession;
  keys: Partial<Record<PipelineKind, AppKey>>;
}

export function AssessView({ client, session, keys }: Props): React.JSX.Element {
  const state = useSyncExternalStore(session.subscribe, session.getState);
  const [caseName, setCaseName] = useState('');
  // Files dropped for this case but not yet in an accepted job count as unfinished, at the window's own stage; files
  // dropped for another case (a folder naming one) count there, not here.
  const pending = useMemo(() => pendingOfCase(state.pending, state.activeCase), [state.pending, state.activeCase]);
  const onTheirWay = pending.filter((p) => p.stage !== 'not_sent');
  const atStage = stageCounts(state.jobs, state.stages);
  const stageLine = [
    ...(['waiting', 'sending', 'checking'] as const).map((s) => [onTheirWay.filter((p) => p.stage === s).length, WINDOW_STAGE_WORDS[s]] as const),
    ...(['queued', 'decoding', 'analysing'] as const).map((s) => [atStage[s] ?? 0, STAGE_WORDS[s]] as const),
  ]
    .filter(([n]) => n > 0)
    .map(([n, word]) => `${n} ${word.toLowerCase()}`)
    .join(', ');
  // The case as it is now: a renamed case shows its new name, whatever name its jobs were submitted under.
  const cases = [...new Set(state.jobs.map((t) => caseNameOf(t, state.activeCase)).filter((c): c is string => c !== null))];
  const missing = (['images', 'pdfs'] as const).filter((k) => !keys[k]);
  const [sortKey, setSortKey] = useState<SortKey>('drop');
  const [filter, setFilter] = useState<Filter>('all');
  const files = useMemo(() => caseFiles(state.jobs), [state.jobs]);
  const [query, setQuery] = useState('');
  const searching = query.trim() !== '';
  // The progress bar counts the whole case; the chips count what the name search shows (every file without one).
  const caseCounts = useMemo(() => triageCounts(files, pending, ''), [files, pending]);
  const counts = useMemo(() => triageCounts(files, pending, query), [files, pending, query]);
  const allCount = caseCounts.all;
  // The bar counts the same files as the chips with no search (issue 22): a file not sent is finished, not assessed.
  const progress = { done: allCount - caseCounts.byState.processing, total: allCount };
  const duplicates = useMemo(() => duplicatesOf(files), [files]);
  const filterWords = (f: Filter): string => (f === 'reviewed' || f === 'not_reviewed' ? REVIEW_FILTER_WORDS[f] : f === 'all' ? 'All' : STATE_WORDS[f]);
  const [view, setView] = useState<CaseView>(() => savedCaseView());
  const chooseView = (next: CaseView): void => {
    setView(next);
    saveCaseView(next);
  };
  // Once the case has files the intake folds to one bar, so the verdicts come first; the specialist can open it again.
  const [intakeOpen, setIntakeOpen] = useState(false);
  const intakeFolded = allCount > 0 && !intakeOpen;
  const shown = useMemo(() => sortFiles(filterFiles(files, filter), sortKey).filter((f) => nameMatches(f.result.file.name, query)), [files, filter, sortKey, query]);
  const cardsShown = useMemo(
    () => withPending(shown, pending.filter((p) => nameMatches(p.name, query)), sortKey, filter),
    [shown, pending, sortKey, filter, query],
  );
  const { notes, numberOf } = useMemo(() => caseNotes(files.map((f) => f.result)), [files]);
  const notesShown = useMemo(() => {
    const used = new Set(shown.flatMap((f) => cardSentences(f.result)).map((s) => numberOf.get(s)));
    return notes.filter((n) => used.has(n.n));
  }, [notes, numberOf, shown]);
  // The viewer follows a file by its key, so a poll that reorders the cards does not swap the file under it.
  const [viewing, setViewing] = useState<string | null>(null);
  const viewingIndex = viewing ? shown.findIndex((f) => f.key === viewing) : -1;
  const returnFocus = useRef<string | null>(null);
  useEffect(() => {
    if (viewing || !returnFocus.current) return;
    // Focus goes back to the card of the file last shown (accessibility: the specialist's place in the list).
    document.querySelector<HTMLElement>(`[data-viewer-open="${CSS.escape(returnFocus.current)}"]`)?.focus();
    returnFocus.current = null;
  }, [viewing]);

  // A rename of the active case carries over to the loose-files field when it held the old name, so the next
  // loose files join the renamed case rather than making a new one under the old name.
  const shownCase = useRef<{ id: string; name: string } | null>(null);
  useEffect(() => {
    const active = state.activeCase;
    const before = shownCase.current;
    if (active && before && before.id === active.id && before.name !== active.name) {
      setCaseName((typed) => (typed.trim() === before.name ? active.name : typed));
    }
    shownCase.current = active ? { id: active.id, name: active.name } : null;
  }, [state.activeCase]);

  // History's "Open" on a file: its card is scrolled into view and focused, once it is on screen.
  const [focused, setFocused] = useState<string | null>(null);
  useEffect(() => {
    if (!state.focusFile) return;
    const card = document.querySelector<HTMLElement>(`[data-testid="verdict-card"][data-file-id="${CSS.escape(state.focusFile)}"]`);
    if (!card) return;
    card.scrollIntoView({ block: 'center' });
    card.focus({ preventScroll: true });
    setFocused(state.focusFile);
    session.focusShown();
  }, [state.focusFile, state.jobs, session]);

  // A file taken out of the case: its card leaves, so the focus goes to the next card (the one before where it was the
  // last, the case's name where it was the only one), and the change is said in a status line a screen reader reads.
  const [removed, setRemoved] = useState<{ n: number; words: string } | null>(null);
  const focusAfterRemove = useRef<string | null>(null);
  const removeFile = async (fileId: string, jobId: string, name: string): Promise<boolean> => {
    const ids = cardsShown.flatMap((c) => (c.kind === 'pending' ? [] : [c.file.result.file.id]));
    const at = ids.indexOf(fileId);
    const next = ids[at + 1] ?? ids[at - 1] ?? '';
    const caseShown = state.activeCase?.name;
    const ok = await session.removeFromCase(jobId, fileId);
    if (ok) {
      focusAfterRemove.current = next;
      setRemoved((r) => ({ n: (r?.n ?? 0) + 1, words: `“${name}” was removed from ${caseShown ? `case “${caseShown}”` : 'the case'}; its job stays in History.` }));
    }
    return ok;
  };
  useEffect(() => {
    const target = focusAfterRemove.current;
    if (target === null) return;
    focusAfterRemove.current = null;
    const card = target ? document.querySelector<HTMLElement>(`[data-testid="verdict-card"][data-file-id="${CSS.escape(target)}"]`) : null;
    (card ?? document.querySelector<HTMLElement>('[data-testid="case-name"]') ?? document.getElementById('assess-title'))?.focus();
  }, [removed]);

  const onFiles = (files: CollectedFile[]): void => {
    session.drop(files).catch((error: unknown) => session.notice(`Sending failed: ${String(error)}`));
  };

  return (
    <section aria-labelledby="assess-title" className={`assess${state.engine !== 'ok' ? ' engine-down' : ''}`} data-engine={state.engine}>
      <h2 id="assess-title" className="visually-hidden" tabIndex={-1}>
        Assess files
      </h2>
      <p className="visually-hidden" role="status" data-testid="removed-status">
        {removed?.words ?? ''}
      </p>
      {state.activeCase && <CaseHeader activeCase={state.activeCase} onChange={(patch) => session.updateActiveCase(patch)} />}
      <div className={`intake${intakeFolded ? ' folded' : ''}`} data-testid="intake" data-folded={intakeFolded ? 'true' : 'false'}>
        {!intakeFolded && (
          <label className="case-name">
            Case name for loose files <span className="hint">(left empty: the open case, or a new one named after the date and time; a dropped folder is a case of its own)</span>
            <input value={caseName} onChange={(e) => setCaseName(e.target.value)} maxLength={CASE_NAME_MAX} placeholder="e.g. Harbour fire, 12 May" />
          </label>
        )}
        <DropZone caseName={caseName.trim() || null} onFiles={onFiles} compact={intakeFolded} />
        {allCount > 0 && (
          <button type="button" className="link intake-toggle" aria-expanded={!intakeFolded} onClick={() => setIntakeOpen(intakeFolded)} data-testid="intake-toggle">
            {intakeFolded ? 'Show the case name field and the full drop area' : 'Fold the drop area'}
          </button>
        )}
        {state.confirm && <DropConfirm asked={state.confirm} onChoice={(choice) => void session.confirmDrop(choice)} />}
        {missing.length > 0 && (
          <p className="warning" role="status">
            No application for {missing.join(' and ')}: those files cannot be sent. Create one in Settings.
          </p>
        )}
      </div>

      {state.engine !== 'ok' && <EngineNotice engine={state.engine} />}

      {state.notices.length > 0 && (
        <ul className="notices" aria-label="Messages">
          {state.notices.map((n) => (
            // Only a failure is an alert; where files went is said as a status, in a neutral style.
            <li key={n.id} role={n.kind === 'info' ? 'status' : 'alert'} className={`notice notice-${n.kind}`} data-testid="notice" data-kind={n.kind}>
              <span>{n.text}</span>
              <button type="button" className="link" onClick={() => session.dismissNotice(n.id)} aria-label="Dismiss this message">
                Dismiss
              </button>
            </li>
          ))}
        </ul>
      )}

      {state.refused.length > 0 && (
        <section className="refused" aria-labelledby="refused-title">
          <h3 id="refused-title">Not sent ({state.refused.length})</h3>
          <ul>
            {state.refused.map((r, i) => (
              <li key={`${r.name}-${i}`}>
                <strong className="file-name">{r.name}</strong>: {r.reason}
              </li>
            ))}
          </ul>
        </section>
      )}

      {(state.jobs.length > 0 || state.sending.length > 0 || state.pending.length > 0) && (
        <div className="case-bar">
          <div className="progress" role="status" aria-live="polite">
            <span>
              {progress.done} of {progress.total} file{progress.total === 1 ? '' : 's'} finished
              {caseCounts.byState.not_assessed > 0 ? `, ${caseCounts.byState.not_assessed} ${STATE_WORDS.not_assessed.toLowerCase()}` : ''}
              {stageLine ? ` (${stageLine}${state.engine !== 'ok' ? ', as last known' : ''})` : ''}
              {cases.length > 0 ? ` · case ${cases.map((c) => `“${c}”`).join(', ')}` : ''}
              {state.sending.length > 0 ? ` · sending ${state.sending[0]}${state.sending.length > 1 ? ` and ${state.sending.length - 1} more` : ''}…` : ''}
            </span>
            <progress max={Math.max(progress.total, 1)} value={progress.done} aria-label="Files finished" />
          </div>
          <div className="case-actions">
            <ReportExport
              client={client}
              jobs={state.jobs}
              openCase={state.activeCase ? { id: state.activeCase.id, name: state.activeCase.name } : null}
              caseName={cases.length === 1 ? cases[0] : null}
            />
            <button type="button" onClick={() => session.clear()}>
              Clear
            </button>
          </div>
        </div>
      )}

      {allCount > 0 && (
        <div className="triage" data-testid="triage">
          <p className="hint counts-basis" data-testid="counts-basis">
            {EFFECTIVE_VERDICT_WORDS} ({counts.reviewed} of {counts.inJobs} reviewed)
            {searching ? `, among the ${counts.all} of ${allCount} files whose name holds “${query.trim()}”` : ''}.
          </p>
          <div className="counts" role="group" aria-label="Show files by verdict">
            <button type="button" aria-pressed={filter === 'all'} onClick={() => setFilter('all')} data-testid="filter-all">
              All <span className="count">{counts.all}</span>
            </button>
            {TRIAGE_STATES.filter((s) => counts.byState[s] > 0 || filter === s || s === 'ai_generated' || s === 'inconclusive' || s === 'authentic').map((s) => (
              <button
                key={s}
                type="button"
                className={`count-${s}`}
                aria-pressed={filter === s}
                onClick={() => setFilter(filter === s ? 'all' : s)}
                data-testid={`filter-${s}`}
                data-count={counts.byState[s]}
              >
                {STATE_WORDS[s]} <span className="count">{counts.byState[s]}</span>
              </button>
            ))}
            {(['reviewed', 'not_reviewed'] as const).map((r) => (
              <button
                key={r}
                type="button"
                className="count-review"
                aria-pressed={filter === r}
                onClick={() => setFilter(filter === r ? 'all' : r)}
                data-testid={`filter-${r}`}
                data-count={r === 'reviewed' ? counts.reviewed : counts.notReviewed}
              >
                {REVIEW_FILTER_WORDS[r]} <span className="count">{r === 'reviewed' ? counts.reviewed : counts.notReviewed}</span>
              </button>
            ))}
          </div>
          <label className="name-search">
            Find by file name{' '}
            <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} data-testid="name-search" placeholder="e.g. IMG_20" />
          </label>
          <div className="view-switch" role="group" aria-label="Show the case as">
            <button type="button" aria-pressed={view === 'cards'} onClick={() => chooseView('cards')} data-testid="view-cards">
              Cards
            </button>
            <button type="button" aria-pressed={view === 'rows'} onClick={() => chooseView('rows')} data-testid="view-rows">
              Rows
            </button>
          </div>
          <label className="sort">
            Sort by{' '}
            <select value={sortKey} onChange={(e) => setSortKey(e.target.value as SortKey)}>
              <option value="drop">Drop order</option>
              <option value="ai_score">AI detector score (highest first)</option>
              <option value="verdict">Verdict (AI-generated first)</option>
              <option value="name">File name</option>
            </select>
          </label>
        </div>
      )}
      {(filter !== 'all' || searching) && (
        <p className="hint" role="status" data-testid="shown-count">
          {shownCountWords(cardsShown.length, counts.all, query, filter !== 'all' ? filterWords(filter) : null)}{' '}
          <button
            type="button"
            className="link"
            onClick={() => {
              setFilter('all');
              setQuery('');
            }}
          >
            Show all
          </button>
        </p>
      )}

      {view === 'rows' && <CaseRows client={client} cards={cardsShown} onView={(key) => setViewing(key)} />}
      {view === 'cards' && notesShown.length > 0 && (
        <section className="shared-notes" aria-labelledby="shared-notes-title" data-testid="shared-notes">
          <h3 id="shared-notes-title">Said of several files of this case</h3>
          <p className="hint">Said once here; each card shows “case note N” where the sentence belongs: press it to read the text on the card.</p>
          <ol>
            {notesShown.map((note) => (
              <li key={note.n} value={note.n} data-testid="case-note" data-note={note.n}>
                {note.text} <span className="hint">({note.files} files)</span>
              </li>
            ))}
          </ol>
        </section>
      )}
      {view === 'cards' && (
      <ul className="cards" aria-label="Verdicts">
        {cardsShown.map((card) =>
          card.kind === 'pending' ? (
            <li key={card.key}>
              <PendingCard file={card.pending} />
            </li>
          ) : (
            <li key={card.key}>
              <VerdictCard
                client={client}
                tracked={card.file.tracked}
                result={card.file.result}
                viewerKey={card.key}
                onView={() => setViewing(card.key)}
                stage={state.stages[card.file.result.file.id]}
                onJobUpdated={(job) => session.updateJob(job)}
                onReassess={() => session.reassess(card.file.tracked, card.file.result.file.id)}
                duplicateOf={duplicates.get(card.key) ?? null}
                focused={focused === card.file.result.file.id}
                onRemove={state.activeCase && state.activeCase.status !== 'closed' ? () => removeFile(card.file.result.file.id, card.file.tracked.job.jobId, card.file.result.file.name) : undefined}
                caseName={state.activeCase?.name ?? null}
                jobCase={caseNameOf(card.file.tracked, state.activeCase)}
                notes={numberOf}
              />
            </li>
          ),
        )}
      </ul>
      )}
      {viewing && viewingIndex >= 0 && (
        <EvidenceViewer
          client={client}
          files={shown}
          index={viewingIndex}
          onIndex={(i) => setViewing(shown[i]?.key ?? viewing)}
          onClose={() => {
            returnFocus.current = viewing;
            setViewing(null);
          }}
        />
      )}
    </section>
  );
}

/** Why the files stopped moving: the engine does not answer, or it was started again with a new credential. */
function EngineNotice({ engine }: { engine: Exclude<EngineState, 'ok'> }): React.JSX.Element {
  return (
    <p className="warning engine-notice" role="alert" data-testid="engine-notice" data-engine={engine}>
      {engine === 'unreachable' ? (
        <>
          <strong>Veracity’s engine cannot be reached</strong>: it may have stopped. The files below keep the state they last had; this window keeps trying
          and carries on as soon as the engine answers again. If it does not come back, start Veracity again.
        </>
      ) : (
        <>
          <strong>Veracity was restarted</strong>, so this window’s access ended. Open the new address it printed (it ends with <code>#token=…</code>): nothing
          is lost, this case and its files are in History there, and the files still being analysed carry on.
        </>
      )}
    </p>
  );
}
