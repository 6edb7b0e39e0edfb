// "Export report": downloads the case report the core prints (a PDF for the claim file) and the JSON whose SHA-256 the
// PDF prints: for the working case (every job filed under its name) or, without a case name, for each job.
import { useState } from 'react';
import type { ApiClient } from '../lib/api-client.js';
import { caseIdNamed, fetchReportPair, reportFileName } from '../lib/case-report.js';
import type { TrackedJob } from '../lib/case-session.js';
import { errorWords } from '../lib/words.js';

interface Props {
  client: ApiClient;
  jobs: TrackedJob[];
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

export function ReportExport({ client, jobs, caseName }: Props): React.JSX.Element {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const exportReport = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const now = new Date();
      const caseId = caseName !== null ? await caseIdNamed(client, caseName) : null;
      const targets =
        caseId !== null && caseName !== null
          ? [{ of: { caseId }, name: caseName }]
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
