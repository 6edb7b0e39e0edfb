// "Export report": fetches /report for every job of the working case and downloads the case report as JSON and as a
// printable HTML page.
import { useState } from 'react';
import type { JobReport } from '../../src/api/schemas.js';
import { ApiFailure, type ApiClient } from '../lib/api-client.js';
import { buildCaseReport, caseReportHtml, reportFileName } from '../lib/case-report.js';
import type { TrackedJob } from '../lib/case-session.js';
import { failureWords } from '../lib/words.js';

interface Props {
  client: ApiClient;
  jobs: TrackedJob[];
  caseName: string | null;
}

function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
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
      const reports: JobReport[] = [];
      for (const tracked of jobs) reports.push(await client.getReport(tracked.apiKey, tracked.job.jobId));
      const now = new Date();
      const report = buildCaseReport(caseName, reports, now);
      download(reportFileName(caseName, now, 'json'), 'application/json', JSON.stringify(report, null, 2));
      download(reportFileName(caseName, now, 'html'), 'text/html', caseReportHtml(report));
    } catch (e) {
      setError(e instanceof ApiFailure ? failureWords(e, { action: 'Exporting the report' }) : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" className="primary" disabled={busy || jobs.length === 0} onClick={() => void exportReport()}>
        {busy ? 'Exporting…' : 'Export report (JSON + HTML)'}
      </button>
      {error && (
        <p className="result-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
