// FileResult.pixelSize (issue 22, item 8) over real HTTP with the real model: the size of the picture as analysed,
// after its EXIF orientation, so a portrait phone original stored landscape reads taller than wide; absent on a PDF.
// The generated OpenAPI document describes the field.
import { describe, expect, it } from 'vitest';
import { JobResult } from '../../src/api/schemas.js';
import { MODELS_DIR, makeJpeg, pdfWithJpeg } from '../unit/analysis/fixtures.js';
import { readFixture } from '../support/camera-originals.js';
import { startCore, startListening } from './helpers.js';

/** POST /v1/assess?wait=false, then GET /v1/jobs/{jobId} until the job settles: the poll is what a client reads. */
async function assessThenPoll(base: string, key: string, file: { name: string; data: Buffer; type: string }): Promise<JobResult> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.data)], { type: file.type }), file.name);
  const posted = await fetch(`${base}/v1/assess?wait=false`, { method: 'POST', body: form, headers: { authorization: `Bearer ${key}` } });
  expect(posted.status, await posted.clone().text()).toBe(202);
  let job = JobResult.parse(await posted.json());
  do {
    const polled = await fetch(`${base}/v1/jobs/${job.jobId}?wait=true`, { headers: { authorization: `Bearer ${key}` } });
    expect(polled.status).toBe(200);
    job = JobResult.parse(await polled.json());
  } while (job.status === 'processing');
  return job;
}

describe('FileResult.pixelSize (real model, real HTTP)', () => {
  it('gives a portrait original stored 720x480 with EXIF orientation 6 as 480x720, gives none for a PDF, and is in /v1/openapi.json', { timeout: 600_000 }, async () => {
    // A generous analysis bound: the size is under test, not the speed of a shared machine.
    const core = await startCore({ modelsDir: MODELS_DIR, fileTimeoutMs: 300_000, probeTimeoutMs: 120_000 });
    const base = await startListening(core);

    const portrait = readFixture('canon-eos-5d-mark-iii-720x480-orientation-6.jpg');
    const job = await assessThenPoll(base, core.imagesKey, { name: 'portrait.jpg', data: portrait, type: 'image/jpeg' });
    expect(job.results[0].status, JSON.stringify(job.results[0].error)).toBe('completed');
    expect(job.results[0].pixelSize).toEqual({ width: 480, height: 720 });

    const pdf = pdfWithJpeg(await makeJpeg(320, 240), 320, 240);
    const pdfJob = await assessThenPoll(base, core.pdfsKey, { name: 'scan.pdf', data: pdf, type: 'application/pdf' });
    expect(pdfJob.results[0].status).toBe('completed');
    expect(pdfJob.results[0]).not.toHaveProperty('pixelSize');

    const doc = (await (await fetch(`${base}/v1/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    const fileResult = (doc.components.schemas.JobResult.properties!.results as { items: { properties: Record<string, unknown>; required: string[] } }).items;
    expect(fileResult.properties.pixelSize).toMatchObject({ $ref: '#/components/schemas/PixelSize' });
    expect(fileResult.required).not.toContain('pixelSize');
    expect(doc.components.schemas.PixelSize).toMatchObject({ properties: { width: { type: 'integer' }, height: { type: 'integer' } }, required: ['width', 'height'] });
  });
});
