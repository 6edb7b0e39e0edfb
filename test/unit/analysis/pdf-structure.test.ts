// The pdf_structure detector and PDF image extraction: incremental updates by the startxref -> /Prev chain, dates,
// producers, JavaScript actions (found, never run), embedded images at native size, on generated and real PDFs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { distinctColours, openPdf, surveyImages } from '../../../src/analysis/pdf-document.js';
import { readPdfStructure, xrefChain, type PdfStructure } from '../../../src/analysis/pdf-structure.js';
import { structureOutput } from '../../../src/analysis/detectors/pdf-structure.js';
import { findingSentence } from '../../../src/analysis/copy.js';
import { DATASETS, HAS_DATASETS, appendUpdate, buildPdf, makeJpeg, pdfWithJpeg, textPdf } from './fixtures.js';

async function structureOf(pdf: Buffer) {
  const doc = await openPdf(new Uint8Array(pdf));
  try {
    return await readPdfStructure(pdf, doc);
  } finally {
    await doc.destroy();
  }
}

/** The structure part of the PDF detector: its dimension, finding codes and the copy people read. */
function structureFindings(s: PdfStructure) {
  const out = structureOutput(s);
  return { dimension: out.dimension, codes: out.findings.map((f) => f.code), notes: out.findings.map((f) => findingSentence(f)) };
}

describe('pdf_structure', () => {
  it('a PDF written once by one tool: one revision, likely_authentic (low)', async () => {
    const s = await structureOf(pdfWithJpeg(await makeJpeg(200, 150), 200, 150));
    expect(s).toMatchObject({ revisions: 1, producer: 'Veracity test', creator: 'fixtures.ts', creationDate: '2024-01-01T12:00:00.000Z' });
    expect(structureFindings(s).dimension).toMatchObject({ key: 'pdf_structure', assessment: 'likely_authentic', confidence: 'low' });
  });

  it('an incremental update is found by walking startxref -> /Prev, and the later ModDate is reported', async () => {
    const base = buildPdf(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Contents 4 0 R >>',
        '<< /Length 0 >>\nstream\n\nendstream',
        '<< /Producer (Word) /CreationDate (D:20240101120000Z) /ModDate (D:20240101120000Z) >>',
      ],
      '/Info 5 0 R',
    );
    const edited = appendUpdate(
      base,
      { 4: '<< /Length 33 >>\nstream\nBT /F1 12 Tf (Amount: 9999) Tj ET\nendstream', 5: '<< /Producer (iLovePDF) /CreationDate (D:20240101120000Z) /ModDate (D:20240305093000Z) >>' },
      6,
      '/Info 5 0 R',
    );
    expect(xrefChain(base)).toHaveLength(1);
    expect(xrefChain(edited)).toHaveLength(2);
    const s = await structureOf(edited);
    expect(s.revisions).toBe(2);
    expect(s.producer).toBe('iLovePDF');
    const out = structureFindings(s);
    expect(out.dimension.assessment).toBe('inconclusive');
    expect(out.dimension.score).toBeGreaterThanOrEqual(0.6);
    expect(out.codes).toEqual(['pdf.tools', 'pdf.changed']);
    expect(out.notes.join(' ')).toMatch(/saved 2 times \(1 incremental update\).*modification date \(2024-03-05 09:30 UTC\) is later than its creation date/);
  });

  it('a /Prev loop does not hang the chain walk', () => {
    const pdf = textPdf();
    const text = pdf.toString('latin1');
    const xrefAt = Number(/startxref\s+(\d+)/.exec(text)![1]);
    const looped = Buffer.from(text.replace('/Root 1 0 R', `/Root 1 0 R /Prev ${xrefAt}`), 'latin1');
    expect(xrefChain(looped)).toHaveLength(1);
  });

  it('a JavaScript /OpenAction is reported and not executed', async () => {
    const canary = `veracity_canary_${process.pid}`;
    const js = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] >>',
      `<< /S /JavaScript /JS (globalThis.${canary} = 1; app.alert\\('pwned'\\);) >>`,
    ]);
    const doc = await openPdf(new Uint8Array(js));
    try {
      const s = await readPdfStructure(js, doc);
      await surveyImages(doc);
      expect(s.activeContent).toEqual(expect.arrayContaining(['javascript', 'open_action']));
      expect(structureFindings(s).notes.join(' ')).toMatch(/It contains JavaScript, an action run on opening \(\/OpenAction\) \(not executed by Veracity\)/);
    } finally {
      await doc.destroy();
    }
    expect((globalThis as Record<string, unknown>)[canary]).toBeUndefined();
  });

  it('a producer that is an AI service makes pdf_structure likely_ai', async () => {
    const pdf = buildPdf(
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] >>',
        '<< /Producer (ChatGPT PDF export) >>',
      ],
      '/Info 4 0 R',
    );
    const out = structureFindings(await structureOf(pdf));
    expect(out.codes[0]).toBe('provenance.ai.pdf_producer');
    expect(out.notes[0]).toBe('The PDF names an AI service as its maker (ChatGPT PDF export).');
    expect(out.dimension.assessment).toBe('likely_ai');
  });

  it('ordinary PDF software whose name holds an AI service\'s is not one: JasperReports invoices are not AI-made', async () => {
    const withInfo = (info: string) =>
      buildPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] >>', info], '/Info 4 0 R');
    for (const info of [
      '<< /Producer (JasperReports Library version 6.20.0-2bc7ab61c56f459e8176eb05c7705e145cd400ad) /Creator (JasperReports \\(claim_statement\\)) >>',
      '<< /Producer (iText 2.1.7 by 1T3XT) /Creator (JasperReports \\(Invoice\\)) >>',
      '<< /Producer (Firefly III PDF export) >>',
      '<< /Producer (GeminiPDF 2.1) >>',
    ]) {
      const s = await structureOf(withInfo(info));
      expect(s.aiProducer, info).toBeNull();
      expect(structureFindings(s).codes, info).not.toContain('provenance.ai.pdf_producer');
    }
    for (const [info, name] of [
      ['<< /Producer (Adobe Firefly) >>', 'Adobe Firefly'],
      ['<< /Creator (Gamma.app) >>', 'Gamma.app'],
      ['<< /Producer (Microsoft Copilot) >>', 'Microsoft Copilot'],
    ]) {
      expect((await structureOf(withInfo(info))).aiProducer, info).toBe(name);
    }
  });
});

describe('PDF images', () => {
  it('extracts an embedded JPEG at its native resolution with its page and index', async () => {
    const doc = await openPdf(new Uint8Array(pdfWithJpeg(await makeJpeg(640, 480), 640, 480)));
    try {
      const survey = await surveyImages(doc);
      expect(survey.rasters).toHaveLength(1);
      expect(survey.rasters[0]).toMatchObject({ kind: 'pdf_image', page: 1, imageIndex: 0 });
      expect(survey.rasters[0].image).toMatchObject({ width: 640, height: 480 });
      expect(survey.rasters[0].image.data.length).toBe(640 * 480 * 3);
    } finally {
      await doc.destroy();
    }
  });

  it('an image XObject declaring 100000 x 100000 pixels is not decoded (maxImageSize), and nothing crashes', async () => {
    const bomb = pdfWithJpeg(await makeJpeg(64, 64), 100000, 100000);
    const doc = await openPdf(new Uint8Array(bomb));
    try {
      const t0 = performance.now();
      const survey = await surveyImages(doc);
      expect(survey.rasters).toEqual([]); // pdf.js refuses to decode it (maxImageSize)
      expect(performance.now() - t0).toBeLessThan(15_000);
    } finally {
      await doc.destroy();
    }
  });
});

describe.skipIf(!HAS_DATASETS)('on the real PDF corpus (../shared/datasets/pdfs)', () => {
  const file = (name: string) => readFileSync(join(DATASETS, 'pdfs', name));

  it('firefox_logo.pdf and comments.pdf: incremental updates found', async () => {
    expect((await structureOf(file('firefox_logo.pdf'))).revisions).toBe(2);
    const comments = await structureOf(file('comments.pdf'));
    expect(comments.revisions).toBeGreaterThanOrEqual(10);
    expect(comments.modDate! > comments.creationDate!).toBe(true);
  });

  it('tracemonkey.pdf (a paper written once by pdfTeX): one revision, producer named', async () => {
    const s = await structureOf(file('tracemonkey.pdf'));
    expect(s.revisions).toBe(1);
    expect(s.producer).toMatch(/pdfeTeX/);
  });

  it('issue5747.pdf: a 2480x1748 fax scan (2 colours) is skipped as bilevel; S2.pdf: colour strips taken and rendered as a page, line-art layers skipped', async () => {
    const scan = await openPdf(new Uint8Array(file('issue5747.pdf')));
    try {
      const survey = await surveyImages(scan);
      expect(survey.rasters).toEqual([]);
      expect(survey.skipped.join('; ')).toMatch(/page 1 image 0: 2480x1748 with 2 colours \(bilevel or line art\)/);
    } finally {
      await scan.destroy();
    }
    const mixed = await openPdf(new Uint8Array(file('S2.pdf')));
    try {
      const survey = await surveyImages(mixed);
      // colour strips covering the page together: the page is rendered as a scan, and each strip is taken too
      expect(survey.rasters[0]).toMatchObject({ kind: 'pdf_page', page: 1 });
      expect(survey.rasters.filter((r) => r.kind === 'pdf_image').length).toBeGreaterThan(3);
      expect(survey.skipped.join('; ')).toMatch(/1280x1024 with 3 colours/);
    } finally {
      await mixed.destroy();
    }
  });
});

describe('line art', () => {
  it('a bilevel image embedded in a PDF is not scored, and the skip is reported', async () => {
    const w = 200;
    const h = 150;
    const bw = Buffer.alloc(w * h * 3);
    for (let i = 0; i < w * h; i++) bw.fill((i % w) % 20 < 10 ? 0 : 255, i * 3, i * 3 + 3);
    const jpeg = await sharp(bw, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();
    const flat = await sharp(jpeg).jpeg({ quality: 100, chromaSubsampling: '4:4:4' }).toBuffer();
    const doc = await openPdf(new Uint8Array(pdfWithJpeg(flat, w, h)));
    try {
      const survey = await surveyImages(doc);
      // JPEG ringing may add a few shades; a photo has thousands
      const photoLike = survey.rasters.filter((r) => distinctColours(r.image) > 16);
      expect(photoLike).toEqual([]);
    } finally {
      await doc.destroy();
    }
    expect(distinctColours({ width: 2, height: 1, data: Buffer.from([0, 0, 0, 255, 255, 255]) })).toBe(2);
    expect(distinctColours({ width: w, height: h, data: (await makeJpeg(w, h).then((j) => sharp(j).raw().toBuffer())) })).toBeGreaterThan(16);
  });
});
