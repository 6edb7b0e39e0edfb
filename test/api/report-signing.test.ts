// Every case report PDF is signed with the installation's own key (issue 24, item 6), so anyone can check with a
// standard tool that it was not altered after export: pdfsig (poppler-utils, the verifier behind Linux PDF readers)
// checks the exported report over real HTTP, then the same report with one byte of its signed range changed. The key
// is made on the first start (0600 in the data dir) and kept: a restart signs with the same certificate, which API
// clients read at GET /v1/report-signing-certificate.
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobResult, ReportSigningCertificate } from '../../src/api/schemas.js';
import { REPORT_SIGNING_KEY_FILE } from '../../src/config/config.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { assess, body, expectError, filePart, get, startCore, startListening, tempDir } from './helpers.js';

/** pdfsig's report of a PDF's signatures, and its exit status. */
function pdfsig(pdf: Buffer): { out: string; status: number | null } {
  const file = path.join(tempDir('veracity-pdfsig-'), 'report.pdf');
  fs.writeFileSync(file, pdf);
  const run = spawnSync('pdfsig', [file], { encoding: 'utf8' });
  return { out: `${run.stdout}${run.stderr}`, status: run.status };
}

/** The signature's byte ranges, as the PDF declares them: [start, length, start, length]. */
function byteRange(pdf: Buffer): number[] {
  const m = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\]/.exec(pdf.toString('latin1'));
  expect(m, 'the PDF has a signature with a /ByteRange').not.toBeNull();
  return m!.slice(1).map(Number);
}

describe('signed case reports', () => {
  // An analysis worker, a preview and a report process each start once: over a minute on a loaded 2-core machine.
  it('an exported report validates with pdfsig, signed by the installation; one byte changed in the signed range fails', { timeout: 180_000 }, async () => {
    const core = await startCore();
    const job = body(await assess(core, [filePart(await makeJpeg(200, 150), 'front-door.jpg'), { name: 'metadata', data: '{"case":"CLM-24"}' }]), JobResult);
    const certificate = body(await get(core, '/v1/report-signing-certificate'), ReportSigningCertificate);
    const base = await startListening(core);
    const res = await fetch(`${base}/v1/jobs/${job.jobId}/report.pdf`, { headers: { authorization: `Bearer ${core.imagesKey}` } });
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    const commonName = /CN=([^,]+)/.exec(certificate.subject)![1];
    expect(commonName).toMatch(/^Veracity on .+ \([0-9a-f]{12}\)$/);

    const good = pdfsig(pdf);
    expect(good.out).toContain('Signature Validation: Signature is Valid.');
    expect(good.out).toContain(`Signer Certificate Common Name: ${commonName}`);
    expect(good.out).toContain('Signature Type: ETSI.CAdES.detached');
    // Every byte but the signature's own value is covered.
    expect(good.out).toContain('Total document signed');
    // The certificate is self-signed: no trust store knows it, so pdfsig cannot establish who the signer is, only that
    // the bytes are those the key signed. A reader trusts it by comparing the fingerprint Settings and the API show.
    expect(good.out).toContain('Certificate Validation: Certificate issuer is unknown.');
    // The PDF carries the certificate the API describes.
    const [, start, end] = byteRange(pdf);
    const cms = Buffer.from(pdf.subarray(start + 1, end - 1).toString('latin1').replace(/(00)+$/, ''), 'hex');
    const dir = tempDir('veracity-cms-');
    fs.writeFileSync(path.join(dir, 'sig.der'), cms);
    const certs = execFileSync('openssl', ['pkcs7', '-inform', 'DER', '-in', path.join(dir, 'sig.der'), '-print_certs'], { encoding: 'utf8' });
    const embedded = new crypto.X509Certificate(certs);
    expect(embedded.fingerprint256).toBe(certificate.fingerprintSha256);

    // One byte of the report's text (the document information: its title), inside the second signed range.
    const altered = Buffer.from(pdf);
    const at = altered.indexOf('Veracity case report', end, 'latin1');
    expect(at).toBeGreaterThan(end);
    altered[at] = 'W'.charCodeAt(0);
    const bad = pdfsig(altered);
    expect(bad.out).not.toContain('Signature is Valid.');
    expect(bad.out).toContain('Signature Validation: Digest Mismatch.');
    // A byte of the first range (the PDF's header) too.
    const header = Buffer.from(pdf);
    header[7] = header[7] === 0x37 ? 0x36 : 0x37;
    expect(pdfsig(header).out).toContain('Signature Validation: Digest Mismatch.');
  });

  it('the key is made on the first start, readable by its user only, and kept: a restart signs with the same certificate', async () => {
    const dataDir = tempDir();
    const first = await startCore({}, { dataDir });
    const before = body(await get(first, '/v1/report-signing-certificate'), ReportSigningCertificate);
    const file = path.join(dataDir, REPORT_SIGNING_KEY_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('-----BEGIN PRIVATE KEY-----');
    // The API gives the certificate, never the key.
    const answer = (await get(first, '/v1/report-signing-certificate')).body;
    expect(answer).not.toContain('PRIVATE KEY');
    expect(new crypto.X509Certificate(before.pem).fingerprint256).toBe(before.fingerprintSha256);
    expect(new Date(before.notAfter).getTime() - Date.now()).toBeGreaterThan(19 * 365 * 86_400_000);
    await first.close();

    const second = await startCore({}, { dataDir });
    expect(body(await get(second, '/v1/report-signing-certificate'), ReportSigningCertificate)).toEqual(before);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    // The window reads the same certificate with its token; no credential, no certificate.
    const window = await second.app.inject({ method: 'GET', url: '/app/report-signing-certificate', headers: { authorization: `Bearer ${second.uiToken}` } });
    expect(body(window, ReportSigningCertificate)).toEqual(before);
    expectError(await second.app.inject({ method: 'GET', url: '/v1/report-signing-certificate' }), 401, 'unauthorized');
    expectError(await second.app.inject({ method: 'GET', url: '/app/report-signing-certificate' }), 401, 'unauthorized');
  });

  it('a key file that holds no key stops the start with a message naming it, and is left as it was', async () => {
    const dataDir = tempDir();
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, REPORT_SIGNING_KEY_FILE);
    fs.writeFileSync(file, 'not a key\n', { mode: 0o600 });
    await expect(startCore({}, { dataDir })).rejects.toThrow(file);
    expect(fs.readFileSync(file, 'utf8')).toBe('not a key\n');
  });
});
