// The case report as a printable PDF for a claim file, drawn with pdfkit: a summary of the case, then one section
// per file (thumbnail with heatmap, verdict, findings, expert review, hashes), page numbers, a sign-off block, and
// the SHA-256 of the report's canonical JSON, which binds this printout to the JSON served beside it.
import PDFDocument from 'pdfkit';
import { BAND_RGB, bandRanges, bandWords, rangeWords } from '../api/detector-bands.js';
import type { CaseReport, CaseReportFile, VerdictAssessment } from '../api/schemas.js';
import { c2paChainOf, c2paManifestRows, c2paManifestTitle, CASE_STATUS_WORDS, checkName, confidencePhrase, dimensionFinding, isEvidence, lessCertainWords, MEDIA_WORDS, VERDICT_REASONS, VERDICT_WORDS } from '../api/vocabulary.js';
import { canonicalJson, sha256Hex } from './canonical-json.js';
import { pictureGrid, thumbnailWithHeatmap } from './heatmap-picture.js';

/** What the PDF is made from: the report's data (hashed as canonical JSON) and what is printed beside it. */
export interface CaseReportData {
  report: CaseReport;
  /** SHA-256 of the report's canonical JSON, when the caller computed it already (the report process). */
  reportHash?: string;
  /**
   * fileId -> a PNG or JPEG the core made of the file (its preview); a file without one is printed without a picture.
   * A function is asked for one picture at a time, so only one is held at once whatever the size of the case.
   */
  pictures: ReadonlyMap<string, Buffer> | ((fileId: string) => Promise<Buffer | null>);
  /** When this copy is printed (not part of the JSON: the same case gives the same JSON, whenever it is asked for). */
  printedAt: Date;
  /** Printed in the sign-off block; left blank for a hand-written name when absent. */
  examiner?: string | null;
  /** Called once the last page is drawn, before the document ends: the report's signature field goes in here. */
  beforeEnd?: (doc: PDFKit.PDFDocument) => void;
}

const INK = '#111827';
const MUTED = '#4b5563';
const RULE = '#d1d5db';
const BAND = '#f3f4f6';
const ACCENT = '#1e3a5f';
const VERDICT_COLOURS: Record<VerdictAssessment | 'none', string> = { ai_generated: '#b91c1c', authentic: '#15803d', inconclusive: '#b45309', none: '#6b7280' };

const MARGIN = 50;
const FOOTER_SPACE = 40;
const THUMB = 150;
/** Thumbnails are drawn at about 2.4 pixels per point: sharp on paper, small in the file. */
const THUMB_PIXELS = 360;

/**
 * Characters the PDF's standard fonts (WinAnsi) can show; others print as '?'. The JSON beside the PDF keeps every
 * name exactly.
 */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
export function printable(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const c = ch.codePointAt(0)!;
    out += (c >= 0x20 && c < 0x7f) || (c >= 0xa0 && c <= 0xff) || WIN_ANSI_EXTRA.has(ch) ? ch : c === 0x09 || c === 0x0a ? ' ' : '?';
  }
  return out;
}

function offsetOf(date: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(date).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  return name === 'GMT' ? 'UTC+00:00' : name.replace('GMT', 'UTC');
}

/** "2025-11-23 10:41:07 (UTC+01:00)": a local time of the core's zone, with its offset on that date. */
export function localTime(iso: string | Date, timeZone: string): string {
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} (${offsetOf(date, timeZone)})`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB (${n.toLocaleString('en-US')} bytes)`;
  return `${(n / 1024 / 1024).toFixed(2)} MiB (${n.toLocaleString('en-US')} bytes)`;
}

function verdictLine(f: CaseReportFile): { label: string; colour: string } {
  if (f.verdict) return { label: `${VERDICT_WORDS[f.verdict.assessment]}, ${confidencePhrase(f.verdict.confidence)}`, colour: VERDICT_COLOURS[f.verdict.assessment] };
  if (f.status === 'processing') return { label: 'Still being analysed', colour: VERDICT_COLOURS.none };
  return { label: 'Not assessed (analysis failed)', colour: VERDICT_COLOURS.none };
}

function errorWords(f: CaseReportFile): string {
  if (!f.error) return '';
  if (f.error.code === 'result_unavailable') return 'Not assessed: the detector model was not installed on this computer or could not run.';
  return `The analysis of this file failed (${f.error.message || f.error.code}).`;
}

type TextOptions = PDFKit.Mixins.TextOptions & { font?: string; size?: number; colour?: string };

/** The drawing helpers of one document: the report, or the scratch page a block is measured on before it is drawn. */
function penOf(doc: PDFKit.PDFDocument) {
  const left = MARGIN;
  const width = doc.page.width - 2 * MARGIN;
  const bottom = () => doc.page.height - doc.page.margins.bottom;
  const ensure = (h: number) => {
    if (doc.y + h > bottom()) doc.addPage();
  };
  const text = (s: string, x: number, y: number, opts: TextOptions = {}) => {
    doc.font(opts.font ?? 'Helvetica').fontSize(opts.size ?? 9.5).fillColor(opts.colour ?? INK);
    doc.text(printable(s), x, y, opts);
  };
  const heading = (s: string) => {
    ensure(40);
    doc.moveDown(0.6);
    const y = doc.y;
    text(s, left, y, { font: 'Helvetica-Bold', size: 12, colour: ACCENT });
    doc.moveTo(left, doc.y + 2).lineTo(left + width, doc.y + 2).lineWidth(0.8).strokeColor(ACCENT).stroke();
    doc.y += 8;
  };
  /** Label/value rows in two columns, each row as tall as its value. */
  const table = (rows: [string, string][], x: number, w: number, labelW: number, opts: { mono?: Set<string> } = {}) => {
    for (const [label, value] of rows) {
      const valueFont = opts.mono?.has(label) ? 'Courier' : 'Helvetica';
      doc.font(valueFont).fontSize(9);
      const h = Math.max(12, doc.heightOfString(printable(value), { width: w - labelW - 6 })) + 3;
      ensure(h);
      const y = doc.y;
      text(label, x, y, { font: 'Helvetica-Bold', size: 8.5, colour: MUTED, width: labelW });
      text(value, x + labelW + 6, y, { font: valueFont, size: 9, width: w - labelW - 6 });
      doc.y = y + h;
    }
  };
  return { doc, left, width, bottom, text, heading, table };
}
type Pen = ReturnType<typeof penOf>;

/** "4032 × 3024 px": the picture's size in pixels, as analysed; null when no picture was. */
function pixelWords(f: CaseReportFile): string | null {
  return f.pixelSize ? `${f.pixelSize.width} × ${f.pixelSize.height} px` : null;
}

/** The whole PDF in memory (tests, small reports); the server streams it from a worker thread (src/jobs/report-builder.ts). */
export async function renderCaseReportPdf(data: CaseReportData): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await writeCaseReportPdf(data, (c) => chunks.push(c));
  return Buffer.concat(chunks);
}

/**
 * Draws the PDF, handing its bytes to `write` as pdfkit makes them. Pictures are asked for one at a time and only
 * their thumbnails (about 30 KB each) are kept; resolves once the last byte was written.
 */
export async function writeCaseReportPdf(data: CaseReportData, write: (chunk: Buffer) => void): Promise<void> {
  const { report } = data;
  const reportHash = data.reportHash ?? sha256Hex(canonicalJson(report));
  const tz = report.timeZone;
  const pictureOf = typeof data.pictures === 'function' ? data.pictures : async (id: string) => (data.pictures as ReadonlyMap<string, Buffer>).get(id) ?? null;
  const thumbs = new Map<string, Buffer>();
  for (const f of report.files) {
    const picture = await pictureOf(f.fileId);
    if (!picture) continue;
    try {
      thumbs.set(f.fileId, (await thumbnailWithHeatmap(picture, pictureGrid(f.regions), THUMB_PIXELS)).data);
    } catch {
      // A picture that cannot be redrawn is left out; the file's section says so.
    }
  }

  const title = report.caseName ? `Case ${report.caseName}` : 'Case report';
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN + FOOTER_SPACE },
    bufferPages: true,
    info: { Title: printable(`Veracity case report: ${title}`), Author: 'Veracity', Subject: `Report SHA-256 ${reportHash}`, Creator: `Veracity ${report.appVersion}` },
  });
  doc.on('data', (c: Buffer) => write(c));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });

  const pen = penOf(doc);
  const { left, width, text, heading, table } = pen;
  const n = report.files.length;

  // Blocks that must not split (a file's section, the sign-off) are drawn first on a tall scratch page to measure
  // them: one that does not fit on this page starts the next; one taller than a page is the only one that runs on,
  // and each page it runs on to says so at its top.
  const scratch = penOf(new PDFDocument({ size: [doc.page.width, 100_000], margins: { top: 0, left: MARGIN, right: MARGIN, bottom: 0 } }));
  scratch.doc.on('data', () => undefined);
  const continuedOn = new Map<number, string>();
  let running: string | null = null;
  doc.on('pageAdded', () => {
    if (running) continuedOn.set(doc.bufferedPageRange().start + doc.bufferedPageRange().count - 1, running);
  });
  const keepTogether = (continued: string, draw: (p: Pen) => void) => {
    scratch.doc.addPage();
    scratch.doc.y = 0;
    draw(scratch);
    const h = scratch.doc.y;
    const fresh = doc.y <= doc.page.margins.top + 1;
    if (!fresh && doc.y + h > pen.bottom()) doc.addPage();
    running = h > pen.bottom() - doc.page.margins.top ? continued : null;
    draw(pen);
    running = null;
  };

  // ---- First page: what this document is, the case at a glance ----
  doc.rect(0, 0, doc.page.width, 92).fill(ACCENT);
  text('VERACITY  ·  IMAGE AND DOCUMENT AUTHENTICITY REPORT', left, 26, { font: 'Helvetica-Bold', size: 8.5, colour: '#c7d2fe', characterSpacing: 0.6 });
  text(title, left, 42, { font: 'Helvetica-Bold', size: 20, colour: '#ffffff', width, height: 28, ellipsis: true });
  text(`${n} file${n === 1 ? '' : 's'} in ${report.jobs.length} submission${report.jobs.length === 1 ? '' : 's'}`, left, 68, { size: 10, colour: '#e0e7ff' });
  doc.y = 110;

  const models = [...new Set(report.files.map((f) => f.modelVersion).filter((m): m is string => !!m))];
  table(
    [
      ['Case', report.caseName ?? '(no case name)'],
      ...(report.caseId ? [['Case id', report.caseId] as [string, string]] : []),
      ...(report.caseStatus ? [['Case status', CASE_STATUS_WORDS[report.caseStatus]] as [string, string]] : []),
      ...(report.caseNotes !== null ? [['Case notes', report.caseNotes.trim() || '(none)'] as [string, string]] : []),
      ['Printed', localTime(data.printedAt, tz)],
      ['State as of', `${localTime(report.asOf, tz)} (the latest change to any file of the case)`],
      ['Time zone', `${tz}: every time in this report is local time of the computer that ran Veracity, with its offset from UTC`],
      ['Veracity version', report.appVersion],
      ['Detector model', models.length ? models.join(', ') : 'none (no file was assessed by the model)'],
      ['Report SHA-256', reportHash],
    ],
    left,
    width,
    110,
    { mono: new Set(['Report SHA-256']) },
  );
  text(
    'The Report SHA-256 is the SHA-256 of the JSON report issued with this document (canonical JSON: keys sorted, no spaces). ' +
      'Anyone holding that file can check that it hashes to this value, and so that this printout and the data describe the same case.',
    left,
    doc.y + 2,
    { size: 8, colour: MUTED, width },
  );

  heading('Summary');
  const s = report.summary;
  const e = s.effective;
  {
    const rows: [string, number, number, string][] = [
      [VERDICT_WORDS.ai_generated, e.ai_generated, s.ai_generated, VERDICT_COLOURS.ai_generated],
      [VERDICT_WORDS.authentic, e.authentic, s.authentic, VERDICT_COLOURS.authentic],
      [VERDICT_WORDS.inconclusive, e.inconclusive, s.inconclusive, VERDICT_COLOURS.inconclusive],
      ...(s.processing ? [['Still being analysed', e.processing, s.processing, VERDICT_COLOURS.none] as [string, number, number, string]] : []),
      ...(s.error ? [['Not assessed (analysis failed)', e.error, s.error, VERDICT_COLOURS.none] as [string, number, number, string]] : []),
    ];
    const colW = [200, 70, 70, 110];
    const tableW = colW.reduce((a, b) => a + b, 0);
    const cell = (c: number) => left + colW.slice(0, c).reduce((a, b) => a + b, 0);
    let y = doc.y;
    doc.rect(left, y, tableW, 16).fill(BAND);
    text('Effective verdict', left + 6, y + 4, { font: 'Helvetica-Bold', size: 8.5, colour: MUTED, width: colW[0] - 12 });
    ['Files', 'Share', 'Machine verdict'].forEach((h, i) => text(h, cell(i + 1), y + 4, { font: 'Helvetica-Bold', size: 8.5, colour: MUTED, width: colW[i + 1] - 6, align: 'right' }));
    y += 16;
    for (const [label, effective, machine, colour] of [...rows, ['Total', s.files, s.files, INK] as [string, number, number, string]]) {
      const total = label === 'Total';
      if (total) doc.moveTo(left, y).lineTo(left + tableW, y).lineWidth(0.8).strokeColor(INK).stroke();
      if (!total) doc.rect(left + 6, y + 4, 7, 7).fill(colour);
      text(label, left + (total ? 6 : 18), y + 3, { font: total ? 'Helvetica-Bold' : 'Helvetica', size: 9.5, width: colW[0] - 24, height: 12, ellipsis: true });
      text(String(effective), cell(1), y + 3, { font: 'Helvetica-Bold', size: 9.5, width: colW[1] - 6, align: 'right' });
      text(s.files ? `${Math.round((effective / s.files) * 100)} %` : '–', cell(2), y + 3, { size: 9.5, colour: MUTED, width: colW[2] - 6, align: 'right' });
      text(String(machine), cell(3), y + 3, { size: 9.5, colour: MUTED, width: colW[3] - 6, align: 'right' });
      y += 16;
      if (!total) doc.moveTo(left, y).lineTo(left + tableW, y).lineWidth(0.4).strokeColor(RULE).stroke();
    }
    doc.y = y + 4;
    text(
      `Counted by effective verdict: the expert review where one is recorded (${s.reviewed} of ${s.files} file${s.files === 1 ? '' : 's'}), the machine verdict otherwise. ` +
        'The last column counts the machine verdicts alone.',
      left,
      doc.y,
      { size: 9, colour: MUTED, width },
    );
  }

  heading('Files');
  {
    // Every cell wraps within its column; a name longer than three lines ends in an ellipsis (the JSON keeps it whole).
    const cols = [22, 150, 62, 104, 90, width - 428];
    const x = (c: number) => left + 4 + cols.slice(0, c).reduce((a, b) => a + b, 0);
    const head = (y: number) => {
      doc.rect(left, y, width, 15).fill(BAND);
      ['#', 'File', 'Pixels', 'Machine verdict', 'Expert review', 'SHA-256 (start)'].forEach((h, i) =>
        text(h, x(i), y + 4, { font: 'Helvetica-Bold', size: 8, colour: MUTED, width: cols[i] - 8, height: 10, ellipsis: true }),
      );
      return y + 15;
    };
    let y = head(doc.y);
    report.files.forEach((f, i) => {
      const v = verdictLine(f);
      const review = f.expertReview ? `${VERDICT_WORDS[f.expertReview.assessment]} (${f.expertReview.reviewer})` : '–';
      doc.font('Helvetica').fontSize(8.5);
      const lines = (t: string, w: number, max: number) => Math.min(doc.heightOfString(printable(t), { width: w }), max * doc.currentLineHeight(true));
      const nameH = lines(f.name, cols[1] - 8, 3);
      const reviewH = lines(review, cols[4] - 8, 3);
      doc.font('Helvetica-Bold');
      const h = Math.max(nameH, reviewH, lines(v.label, cols[3] - 8, 3)) + 6;
      if (y + h > pen.bottom()) {
        doc.addPage();
        y = head(doc.y);
      }
      text(String(i + 1), x(0), y + 3, { size: 8.5, colour: MUTED, width: cols[0] - 8 });
      text(f.name, x(1), y + 3, { size: 8.5, width: cols[1] - 8, height: nameH + 1, ellipsis: true });
      text(pixelWords(f) ?? '–', x(2), y + 3, { size: 8.5, colour: MUTED, width: cols[2] - 8 });
      text(v.label, x(3), y + 3, { font: 'Helvetica-Bold', size: 8.5, colour: v.colour, width: cols[3] - 8, height: h, ellipsis: true });
      text(review, x(4), y + 3, { size: 8.5, colour: f.expertReview ? VERDICT_COLOURS[f.expertReview.assessment] : MUTED, width: cols[4] - 8, height: reviewH + 1, ellipsis: true });
      text(`${f.sha256.slice(0, 10)}…`, x(5), y + 3, { font: 'Courier', size: 8, width: cols[5] - 4 });
      y += h;
      doc.moveTo(left, y).lineTo(left + width, y).lineWidth(0.4).strokeColor(RULE).stroke();
    });
    doc.y = y + 4;
  }
  text(
    'How to read this report: a machine verdict is an estimate made by the Veracity installation that analysed the file (this computer or a team server), from the file itself (provenance ' +
      'records, metadata, how the file was built, and detector models that score tiles of the picture and read it ' +
      'whole). On the thumbnails, red tiles lean AI-generated and blue tiles lean authentic; unshaded areas were scored ' +
      'in the undecided band or not scored (a large picture is sampled). The detector alone gives "AI-generated" only ' +
      'at its highest scores, which few real photos reach in its validation (for a PDF, only on its one photograph), ' +
      'and then with medium confidence at most; otherwise that verdict comes from provenance evidence. An expert review, where ' +
      'present, is the specialist\'s own assessment and is shown beside the machine verdict, never in its place.',
    left,
    doc.y + 6,
    { size: 8, colour: MUTED, width },
  );

  // ---- One section per file, never split across pages ----
  const fileSection = (p: Pen, f: CaseReportFile, i: number) => {
    const { doc: d, text: put } = p;
    const v = verdictLine(f);
    const rightX = left + THUMB + 16;
    const rightW = width - THUMB - 16;
    // File title bar
    const top = d.y;
    d.rect(left, top, width, 22).fill(BAND);
    put(`File ${i + 1} of ${n}`, left + 8, top + 7, { font: 'Helvetica-Bold', size: 8.5, colour: MUTED, width: 70 });
    put(f.name, left + 80, top + 6, { font: 'Helvetica-Bold', size: 10.5, width: width - 88, height: 13, ellipsis: true });
    const bodyTop = top + 30;

    // Thumbnail with heatmap (left column); the scratch page only measures, so it gets no picture.
    const thumb = thumbs.get(f.fileId);
    if (thumb) {
      if (p === pen) d.image(thumb, left, bodyTop, { fit: [THUMB, THUMB], align: 'center', valign: 'center' });
      d.rect(left, bodyTop, THUMB, THUMB).lineWidth(0.5).strokeColor(RULE).stroke();
    } else {
      d.rect(left, bodyTop, THUMB, THUMB).lineWidth(0.5).strokeColor(RULE).stroke();
      put('No picture', left, bodyTop + THUMB / 2 - 5, { size: 8.5, colour: MUTED, width: THUMB, align: 'center' });
    }
    const grid = pictureGrid(f.regions);
    let legendY = bodyTop + THUMB + 5;
    if (thumb && grid) {
      // The legend is the bands of the thresholds stored with the tiles (the window's legend, in src/api), highest first;
      // tiles kept from before thresholds were stored with them have no bands, and say so.
      const legend = grid.thresholds
        ? bandRanges(grid.thresholds)
            .reverse()
            .map((r) => [r.band, `${bandWords(r.band)}, ${rangeWords(r)}${r.band === 'inconclusive' ? ' (left clear)' : ''}`] as const)
        : ([['inconclusive', 'shaded by score (no bands stored)']] as const);
      for (const [band, label] of legend) {
        const [r, g, b] = BAND_RGB[band];
        d.rect(left, legendY + 1, 7, 7).fill(`#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`);
        put(label, left + 10, legendY, { size: 7, colour: MUTED, width: THUMB - 10 });
        legendY = Math.max(legendY + 10, d.y);
      }
      const max = Math.max(...grid.tiles.map((t) => t.score));
      put(`${grid.tiles.length} tiles scored, highest ${Math.round(max * 100)} %${grid.source.kind === 'pdf_page' ? ' (page 1)' : ''}`, left, legendY, { size: 7.5, colour: MUTED, width: THUMB });
      legendY = d.y;
    } else if (f.mediaType === 'application/pdf' && thumb) {
      put('Page 1 of the document', left, legendY, { size: 7.5, colour: MUTED, width: THUMB });
      legendY = d.y;
    }

    // Verdict and details (right column)
    d.y = bodyTop;
    put(v.label, rightX, d.y, { font: 'Helvetica-Bold', size: 13, colour: v.colour, width: rightW });
    if (f.verdict) put(VERDICT_REASONS[f.verdict.assessment], rightX, d.y + 2, { font: 'Helvetica-Bold', size: 9.5, width: rightW });
    const description = f.verdict?.display.description ?? errorWords(f);
    if (description) put(description, rightX, d.y + 2, { size: 9, colour: INK, width: rightW, lineGap: 1 });
    d.y += 6;

    const dims = f.verdict?.dimensions ?? [];
    if (dims.length) {
      put('Findings', rightX, d.y, { font: 'Helvetica-Bold', size: 9, colour: ACCENT });
      d.y += 2;
      for (const dim of dims) {
        const y = d.y;
        put(checkName(dim), rightX, y, { size: 8.5, width: rightW * 0.45 });
        const h1 = d.y - y;
        // A score is printed where it measures something: a check that leans one way, and the detector's reading.
        const score = isEvidence(dim) || dim.key === 'ai_detection' ? `${Math.round(dim.score * 100)} %` : '';
        if (score) put(score, rightX + rightW * 0.45, y, { font: 'Helvetica-Bold', size: 8.5, width: 40, align: 'right' });
        put(dimensionFinding(dim), rightX + rightW * 0.45 + 48, y, { size: 8.5, colour: MUTED, width: rightW * 0.55 - 48 });
        d.y = y + Math.max(h1, d.y - y) + 1;
      }
      const lessCertain = f.verdict ? lessCertainWords(f.verdict.confidence, dims) : null;
      if (lessCertain) put(`${lessCertain.summary} ${lessCertain.detail}`, rightX, d.y + 2, { size: 8, colour: MUTED, width: rightW, lineGap: 1 });
      d.y += 4;
    }

    put('Expert review', rightX, d.y, { font: 'Helvetica-Bold', size: 9, colour: ACCENT });
    if (f.expertReview) {
      const r = f.expertReview;
      put(`${VERDICT_WORDS[r.assessment]}, by ${r.reviewer}, ${localTime(r.reviewedAt, tz)}`, rightX, d.y + 1, { font: 'Helvetica-Bold', size: 9, colour: VERDICT_COLOURS[r.assessment], width: rightW });
      if (r.note) put(`“${r.note}”`, rightX, d.y + 1, { font: 'Helvetica-Oblique', size: 8.5, width: rightW });
    } else {
      put('Not reviewed.', rightX, d.y + 1, { size: 9, colour: MUTED, width: rightW });
    }
    d.y = Math.max(d.y + 8, legendY + 6, bodyTop + THUMB + 8);

    const chain = c2paChainOf(dims);
    if (chain) {
      put('Content Credentials (C2PA): the manifest chain', left, d.y, { font: 'Helvetica-Bold', size: 9, colour: ACCENT, width });
      d.y += 3;
      chain.forEach((m, k) => {
        put(c2paManifestTitle(chain, k), left, d.y, { font: 'Helvetica-Bold', size: 8.5, width });
        d.y += 1;
        p.table(c2paManifestRows(m, (iso) => localTime(iso, tz)), left + 10, width - 10, 80);
        d.y += 3;
      });
      d.y += 6;
    }

    p.table(
      [
        ['SHA-256', f.sha256],
        ['Type and size', `${MEDIA_WORDS[f.mediaType] ?? f.mediaType}, ${formatBytes(f.size)}`],
        ['Pixels', pixelWords(f) ?? 'not known (no picture was analysed)'],
        ['Submitted', localTime(f.submittedAt, tz)],
        ['Assessed', f.completedAt ? localTime(f.completedAt, tz) : 'not yet'],
        ['Model', f.modelVersion ? `${f.modelVersion}${f.aggregation ? `. ${f.aggregation}` : ''}` : 'none'],
        ['Identifiers', `file ${f.fileId}, submission ${f.jobId}`],
      ],
      left,
      width,
      90,
      { mono: new Set(['SHA-256']) },
    );
    d.y += 14;
  };
  report.files.forEach((f, i) => {
    if (i === 0) doc.addPage();
    keepTogether(`File ${i + 1} of ${n}, continued: ${f.name}`, (p) => fileSection(p, f, i));
  });

  // ---- Sign-off: who recorded reviews and when, then the block written by hand ----
  const reviewers = new Map<string, { files: number[]; times: string[] }>();
  report.files.forEach((f, i) => {
    if (!f.expertReview) return;
    const seen = reviewers.get(f.expertReview.reviewer) ?? { files: [], times: [] };
    seen.files.push(i + 1);
    seen.times.push(f.expertReview.reviewedAt);
    reviewers.set(f.expertReview.reviewer, seen);
  });
  const reviewRows = [...reviewers].map(([name, r]): [string, string] => {
    const times = r.times.map((t) => new Date(t).getTime());
    const [first, last] = [new Date(Math.min(...times)), new Date(Math.max(...times))];
    const when = first.getTime() === last.getTime() ? localTime(first, tz) : `${localTime(first, tz)} to ${localTime(last, tz)}`;
    return [name, `${r.files.length === 1 ? 'file' : 'files'} ${r.files.join(', ')}; reviewed ${when}`];
  });
  keepTogether('Examiner sign-off, continued', (p) => {
    const { doc: d, text: put } = p;
    p.heading('Examiner sign-off');
    put('Expert reviews recorded in this case', left, d.y, { font: 'Helvetica-Bold', size: 9, colour: ACCENT, width });
    d.y += 3;
    if (reviewRows.length) p.table(reviewRows, left, width, 130);
    else put('No expert review was recorded in this case.', left, d.y, { size: 9, colour: MUTED, width });
    d.y += 10;
    put(
      'I have examined the files listed in this report. Where my assessment differs from the machine verdict, it is recorded as the expert review of that file.',
      left,
      d.y,
      { size: 9, width },
    );
    d.y += 18;
    const line = (label: string, value: string | null, x: number, w: number) => {
      const y = d.y;
      if (value) put(value, x, y, { size: 10.5, width: w });
      d.moveTo(x, y + 16).lineTo(x + w, y + 16).lineWidth(0.6).strokeColor(INK).stroke();
      put(label, x, y + 19, { size: 8, colour: MUTED, width: w });
      d.y = y;
    };
    line('Examiner name', data.examiner ? data.examiner : null, left, width * 0.55);
    line('Date', null, left + width * 0.62, width * 0.38);
    d.y += 52;
    line('Signature', null, left, width * 0.55);
    d.y += 40;
    put(`Report SHA-256: ${reportHash}`, left, d.y, { font: 'Courier', size: 8, colour: MUTED, width });
  });
  scratch.doc.end();

  // ---- Footer on every page: what it is, the binding hash, page x of y ----
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const saved = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing below the bottom margin must not open a page
    const continued = continuedOn.get(i);
    if (continued) text(continued, left, MARGIN - 20, { font: 'Helvetica-Bold', size: 8, colour: MUTED, width, height: 10, ellipsis: true });
    const y = doc.page.height - MARGIN - 14;
    doc.moveTo(left, y - 6).lineTo(left + width, y - 6).lineWidth(0.5).strokeColor(RULE).stroke();
    text(`Veracity case report · ${report.caseName ?? 'no case name'} · report SHA-256 ${reportHash.slice(0, 16)}…`, left, y, { size: 7.5, colour: MUTED, width: width - 90, height: 10, ellipsis: true });
    text(`Page ${i - range.start + 1} of ${range.count}`, left + width - 90, y, { size: 7.5, colour: MUTED, width: 90, align: 'right' });
    doc.page.margins.bottom = saved;
  }
  data.beforeEnd?.(doc);
  doc.end();
  return ended;
}
