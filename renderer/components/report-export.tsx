// "Export report": downloads the case report the core prints (a PDF for the claim file) and the JSON whose SHA-256 the
// PDF prints: for the open case (by its id: its name and files as they are now, whatever name its jobs were sent
// under), for the one case the jobs name where none is open, or, without a case, for each job.
import { useState } from 'react';
import type { ApiClient } from '../lib/api-client.js';
import { caseIdNamed, fetchReportPair, reportFileName } from '../lib/case-report.js';
import type { TrackedJob } from '../lib/case-session.js';
import { errorWords } from '../lib/words.js';

interface Props {
  client: ApiClient;
  jobs: TrackedJob[];
  /** The case on screen: its report is the export, one report of the case as it is now. */
  openCase: { id: string; name: string } | null;
  /** Where no case is open: the one case the jobs name, if they name one. */
  caseName: string | null;
}

function download(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ReportExport({ client, jobs, openCase, caseName }: Props): React.JSX.Element {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const exportReport = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const now = new Date();
      const named = openCase ?? (caseName !== null ? { id: await caseIdNamed(client, caseName), name: caseName } : null);
      const targets =
        named !== null && named.id !== null
          ? [{ of: { caseId: named.id }, name: named.name }]
          : jobs.map((t) => ({ of: { apiKey: t.apiKey, jobId: t.job.jobId }, name: `job-${t.job.jobId.slice(0, 8)}` }));
      for (const target of targets) {
        const { pdf, json } = await fetchReportPair(client, target.of);
        download(reportFileName(target.name, now, 'pdf'), pdf);
        download(reportFileName(target.name, now, 'json'), json);
      }
    } catch (e) {
      setError(errorWords(e, { action: 'Exporting the report' }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" className="primary" disabled={busy || jobs.length === 0} onClick={() => void exportReport()}>
        {busy ? 'Exporting…' : 'Export report (PDF + JSON)'}
      </button>
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
