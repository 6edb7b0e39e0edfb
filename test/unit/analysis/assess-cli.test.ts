// `veracity assess`: the same pipeline without the server; --json output has the v1 FileResult shape, the table names
// each file's verdict, refusals carry the API's codes, and a missing model gives result_unavailable.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { FileResult } from '../../../src/api/schemas.js';
import { assessCommand } from '../../../src/analysis/assess-cli.js';
import { issueSigner, makeAuthority, pkiDir, signC2pa } from '../../support/c2pa-signing.js';
import { REPO, makeJpeg, makePng, pdfWithJpeg, pngBomb, tEXt, tempDir, withPngChunks } from './fixtures.js';

const MODELS = process.env.VERACITY_MODELS_DIR ?? join(REPO, 'models');
const HAS_MODEL = existsSync(join(MODELS, 'veracity-detector', 'manifest.json'));
const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await assessCommand(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe('assessCommand', () => {
  it('usage errors exit 2', async () => {
    expect((await run([])).code).toBe(2);
    const r = await run(['--bogus', 'x.jpg']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option --bogus/);
  });

  it('refusals carry the API codes: unsupported_format, unprocessable; a missing model is result_unavailable', async () => {
    const text = tmp.write('notes.txt', 'hello');
    const bomb = tmp.write('bomb.png', pngBomb(30000, 30000));
    const photo = tmp.write('photo.jpg', await makeJpeg(200, 150));
    const r = await run([text, bomb, photo, '--json', '--models-dir', join(tmp.dir, 'no-models')]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as Array<{ file: { name: string; type: string }; status: string; error?: { code: string } }>;
    expect(out.map((o) => [o.file.name, o.file.type, o.status, o.error?.code])).toEqual([
      ['notes.txt', 'application/octet-stream', 'error', 'unsupported_format'],
      ['bomb.png', 'image/png', 'error', 'unprocessable'],
      ['photo.jpg', 'image/jpeg', 'error', 'result_unavailable'],
    ]);
    for (const o of out.slice(1)) expect(FileResult.safeParse(o).success).toBe(true);
  });

  it.skipIf(!HAS_MODEL)('--trust-anchors: a capture signed by a signer of that bundle is authentic/high, with the C2PA codes on its dimension', async () => {
    const pki = pkiDir();
    try {
      const ca = makeAuthority(pki.dir, 'CLI Test Root');
      const signed = await signC2pa(await makeJpeg(300, 200), issueSigner(ca, 'CLI Test Camera'), { claimGenerator: 'CLI Camera', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture' }] });
      const file = tmp.write('signed.jpg', signed);
      const anchors = tmp.write('anchors.pem', ca.certPem);
      const [trusted] = JSON.parse((await run([file, '--json', '--models-dir', MODELS, '--trust-anchors', anchors])).stdout) as unknown[];
      const fr = FileResult.parse(trusted);
      expect(fr.verdict).toMatchObject({ assessment: 'authentic', confidence: 'high' });
      expect(fr.dimensions?.find((d) => d.key === 'provenance')?.findings?.map((f) => f.code)).toEqual(expect.arrayContaining(['claimSignature.validated', 'signingCredential.trusted']));
      const [alone] = JSON.parse((await run([file, '--json', '--models-dir', MODELS])).stdout) as unknown[];
      expect(FileResult.parse(alone).dimensions?.find((d) => d.key === 'provenance')?.findings?.map((f) => f.code)).toContain('signingCredential.untrusted');
    } finally {
      pki.cleanup();
    }
  });

  it.skipIf(!HAS_MODEL)('--json on images and a PDF: completed FileResults, dimensions beside and inside the verdict', async () => {
    const files = [
      tmp.write('a.jpg', await makeJpeg(300, 200)),
      tmp.write('sd.png', withPngChunks(await makePng(128, 128), [tEXt('parameters', 'x\nSteps: 20, Sampler: Euler a, Seed: 1')])),
      tmp.write('doc.pdf', pdfWithJpeg(await makeJpeg(400, 300), 400, 300)),
    ];
    const r = await run([...files, '--json', '--models-dir', MODELS]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as unknown[];
    expect(out).toHaveLength(3);
    for (const o of out) {
      const fr = FileResult.parse(o);
      expect(fr.status).toBe('completed');
      expect(fr.dimensions).toEqual(fr.verdict?.dimensions);
      expect(fr.completedAt! >= fr.startedAt).toBe(true);
    }
    expect(FileResult.parse(out[1]).verdict?.assessment).toBe('ai_generated');
    expect(FileResult.parse(out[2]).file.type).toBe('application/pdf');
  });

  it.skipIf(!HAS_MODEL)('prints a table with one row per file and the copy below it', async () => {
    const file = tmp.write('b.jpg', await makeJpeg(200, 200));
    const r = await run([file, '--models-dir', MODELS]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^FILE\s+TYPE\s+VERDICT\s+CONFIDENCE\s+AI SCORE\s+METADATA/);
    expect(r.stdout).toMatch(/b\.jpg\s+image\/jpeg\s+(ai_generated|authentic|inconclusive)/);
    expect(r.stdout).toMatch(/- b\.jpg: The pixel detector's AI score is/);
  });
});
