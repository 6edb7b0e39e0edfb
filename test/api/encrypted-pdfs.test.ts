// Issue 22, item 7, over real HTTP: a PDF encrypted with an empty user password (permissions only, as pdfkit and
// qpdf make them) is analysed like any other PDF, with the real model; one that needs a password to open is refused
// (422 unprocessable, DECISIONS 21) with a message that says so, and leaves nothing behind.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/schemas.js';
import { MODELS_DIR, photoPdf } from '../unit/analysis/fixtures.js';
import { assessOverHttp, expectNothingLeft, footprint, postAssess, startCore, startListening } from './helpers.js';

/** The probe's bound on a loaded machine (the probe worker starts cold; AES-256 R6 keys are derived in JavaScript). */
const PROBE_MS = 60_000;

describe('POST /v1/assess: encrypted PDFs (real model, real HTTP)', () => {
  it('analyses a PDF encrypted with permissions only (AES-256 here, RC4 in the probe unit test) like the same PDF unencrypted', { timeout: 600_000 }, async () => {
    const core = await startCore({ modelsDir: MODELS_DIR, probeTimeoutMs: PROBE_MS, fileTimeoutMs: 240_000 });
    const base = await startListening(core);
    const files = [
      { name: 'plain.pdf', data: await photoPdf() },
      { name: 'permissions-aes256.pdf', data: await photoPdf({ ownerPassword: 'owner', pdfVersion: '1.7ext3', permissions: { printing: 'highResolution', modifying: false, copying: false } }) },
    ];
    const job = await assessOverHttp(base, core.pdfsKey, files.map((f) => ({ ...f, type: 'application/pdf' })));
    const scores: Record<string, number | undefined> = {};
    for (const result of job.results) {
      const name = result.file.name;
      expect(result.status, `${name}: ${result.error?.message}`).toBe('completed');
      scores[name] = result.verdict!.dimensions.find((d) => d.key === 'ai_detection')?.score;
      const structure = result.verdict!.dimensions.find((d) => d.key === 'pdf_structure')!;
      const encrypted = structure.findings?.find((f) => f.code === 'pdf.encrypted');
      if (name === 'plain.pdf') expect(encrypted).toBeUndefined();
      else expect(encrypted?.message, name).toMatch(/encrypted with permissions only/);
    }
    // The photo inside was decrypted and scored: the same pixels, the same score.
    expect(scores['plain.pdf']).toBeTypeOf('number');
    expect(scores['permissions-aes256.pdf']).toBeCloseTo(scores['plain.pdf']!, 5);
  });

  it('refuses a PDF that needs a password to open: 422 unprocessable naming the file and the password, nothing stored', { timeout: 120_000 }, async () => {
    const core = await startCore({ modelsDir: MODELS_DIR, probeTimeoutMs: PROBE_MS, fileTimeoutMs: 240_000 });
    const base = await startListening(core);
    const before = await footprint(core);
    const locked = await photoPdf({ userPassword: 'secret', ownerPassword: 'owner', pdfVersion: '1.7ext3' });
    const res = await postAssess(base, core.pdfsKey, [{ name: 'locked.pdf', data: locked, type: 'application/pdf' }]);
    expect(res.status).toBe(422);
    const err = ApiError.parse(await res.json());
    expect(err.code).toBe('unprocessable');
    expect(err.details?.issues?.[0]?.path).toBe('file.0');
    expect(err.message).toMatch(/locked\.pdf/);
    expect(err.message).toMatch(/protected by a password/);
    await expectNothingLeft(core, before);
  });
});
