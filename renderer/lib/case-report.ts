// The exported case report: the core's PDF and canonical JSON (fetchReportPair), and the earlier HTML page built from
// the /report answers (file hashes, verdicts, expert reviews, the model version; all text escaped).
import type { JobReport } from '../../src/api/schemas.js';
import type { ApiClient } from './api-client.js';
import { ASSESSMENT_WORDS, CONFIDENCE_WORDS, MEDIA_WORDS, checkName, dimensionFinding, isEvidence, resultErrorWords } from './words.js';
import { formatBytes } from './plan-submission.js';

export interface CaseReport {
  format: 'veracity-case-report';
  version: 1;
  caseName: string | null;
  generatedAt: string;
  jobs: JobReport[];
}

export function buildCaseReport(caseName: string | null, reports: JobReport[], now: Date): CaseReport {
  return { format: 'veracity-case-report', version: 1, caseName, generatedAt: now.toISOString(), jobs: reports };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** A safe file name for the download: letters, digits, dot, dash and underscore only. */
export function reportFileName(caseName: string | null, now: Date, extension: 'json' | 'html' | 'pdf'): string {
  const base = (caseName ?? 'case').normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 60) || 'case';
  return `veracity-report-${base}-${now.toISOString().slice(0, 10)}.${extension}`;
}

/**
 * The id of the case named exactly `name` (names are unique), which the case report is asked for by; null when no
 * case has that name. The cards know a job's case by its metadata.case.
 */
export async function caseIdNamed(client: ApiClient, name: string): Promise<string | null> {
  const found = await client.listCases({ page: 1, pageSize: 100, q: name });
  return found.cases.find((c) => c.name === name)?.id ?? null;
}

/**
 * The core's printable report and its JSON, of one state of the case: the PDF prints the SHA-256 of the JSON, so a
 * pair whose hashes differ (the case changed between the two requests) is asked for again, once.
 */
export async function fetchReportPair(client: ApiClient, of: Parameters<ApiClient['getReportFile']>[0]): Promise<{ pdf: Blob; json: Blob }> {
  for (let attempt = 1; ; attempt++) {
    const json = await client.getReportFile(of, 'json');
    const pdf = await client.getReportFile(of, 'pdf');
    if (json.sha256 === pdf.sha256 || attempt >= 2) return { pdf: pdf.blob, json: json.blob };
  }
}

const STYLE = `
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;color:#111;margin:2rem;line-height:1.45}
h1{font-size:1.5rem;margin:0 0 .25rem}
.meta{color:#444;margin:0 0 1.5rem}
table{border-collapse:collapse;width:100%;margin:0 0 1.5rem;font-size:.9rem}
th,td{border:1px solid #bbb;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#eee}
code{font-size:.8rem;word-break:break-all}
.job{break-inside:avoid;margin-bottom:2rem}
@media print{body{margin:0}a{color:inherit}}
`;

export function caseReportHtml(report: CaseReport): string {
  const title = report.caseName ? `Veracity case report: ${report.caseName}` : 'Veracity case report';
  const files = report.jobs.reduce((n, j) => n + j.job.results.length, 0);
  const sections = report.jobs.map((jobReport) => {
    const rows = jobReport.job.results.map((result) => {
      const extra = jobReport.files.find((f) => f.fileId === result.file.id);
      const verdict = result.verdict
        ? `<strong>${escapeHtml(ASSESSMENT_WORDS[result.verdict.assessment])}</strong> (${escapeHtml(CONFIDENCE_WORDS[result.verdict.confidence].toLowerCase())})` +
          (result.verdict.display.description ? `<br>${escapeHtml(result.verdict.display.description)}` : '')
        : result.status === 'processing'
          ? 'Still being analysed'
          : escapeHtml(resultErrorWords(result.error));
      const dimensions = (result.verdict?.dimensions ?? result.dimensions ?? [])
        .map(
          (d) =>
            `${escapeHtml(checkName(d))}: ${escapeHtml(dimensionFinding(d))}${isEvidence(d) || d.key === 'ai_detection' ? ` (score ${Math.round(d.score * 100)}%)` : ''}`,
        )
        .join('<br>');
      const review = result.expertReview
        ? `<strong>${escapeHtml(ASSESSMENT_WORDS[result.expertReview.assessment])}</strong> by ${escapeHtml(result.expertReview.reviewer)}, ${escapeHtml(result.expertReview.reviewedAt)}` +
          (result.expertReview.note ? `<br>${escapeHtml(result.expertReview.note)}` : '')
        : 'Not reviewed';
      return `<tr><td>${escapeHtml(result.file.name)}<br>${escapeHtml(MEDIA_WORDS[result.file.type] ?? result.file.type)}, ${escapeHtml(formatBytes(result.file.size))}</td>
<td><code>${escapeHtml(extra?.sha256 ?? 'unknown')}</code></td><td>${verdict}</td><td>${dimensions || '–'}</td><td>${review}</td><td>${escapeHtml(extra?.modelVersion ?? 'none')}</td></tr>`;
    });
    const meta = jobReport.job.metadata ? escapeHtml(JSON.stringify(jobReport.job.metadata)) : 'none';
    return `<section class="job"><h2>Job <code>${escapeHtml(jobReport.job.jobId)}</code></h2>
<p class="meta">Submitted ${escapeHtml(jobReport.job.createdAt)}${jobReport.job.completedAt ? `, finished ${escapeHtml(jobReport.job.completedAt)}` : ''}. Status: ${escapeHtml(jobReport.job.status)}. Metadata: ${meta}.</p>
<table><thead><tr><th scope="col">File</th><th scope="col">SHA-256</th><th scope="col">Machine verdict</th><th scope="col">Evidence</th><th scope="col">Expert review</th><th scope="col">Model</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>
<p class="meta">Generated ${escapeHtml(report.generatedAt)} by Veracity. ${report.jobs.length} job(s), ${files} file(s). A machine verdict is an estimate; the expert review, where present, is the specialist's own assessment and never replaces it.</p>
${sections.join('\n')}
</body></html>`;
}
