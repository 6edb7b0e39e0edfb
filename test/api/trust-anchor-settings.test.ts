// Settings' Content Credentials trust anchors (issue 24, item 2) through the window's routes: a CA and a signer's own
// certificate added as PEM are listed with subject, expiry and role, kept in the data dir's bundle (0600) that the
// analysis reads, so a file signed under that CA is judged trusted, and untrusted again once the anchor is removed.
// Bad PEM, an unknown fingerprint and a bundle configured outside the window are refused with the spec's errors,
// and leave the bundle as it was.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrustAnchorList } from '../../src/api/app-schemas.js';
import { validateC2pa } from '../../src/analysis/c2pa-validation.js';
import { loadTrustAnchors } from '../../src/analysis/trust-anchors.js';
import { makeJpeg } from '../unit/analysis/fixtures.js';
import { issueSigner, makeAuthority, pkiDir, signC2pa, type TestAuthority, type TestSigner } from '../support/c2pa-signing.js';
import { body, expectError, onPg, startCore, tempDir, type TestCore } from './helpers.js';

const pki = pkiDir();
afterAll(() => pki.cleanup());

const ui = (core: TestCore, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
  core.app.inject({ method, url, payload: payload as object, headers: { authorization: `Bearer ${core.uiToken}` } });

describe('trust anchors in Settings (/app/trust-anchors)', () => {
  let ca: TestAuthority;
  let camera: TestSigner;
  let allowed: TestSigner;
  beforeAll(() => {
    ca = makeAuthority(pki.dir, 'Settings Test Root');
    camera = issueSigner(ca, 'Settings Test Camera');
    allowed = issueSigner(makeAuthority(pki.dir, 'Other Root'), 'Allowed Signer');
  });

  // Editing from the window is the desktop's; a team server's anchors are its configuration (the next tests).
  it.skipIf(onPg)('adds a CA and an allowed signer, lists them, and the analysis trusts what they sign until one is removed', async () => {
    const core = await startCore();
    const file = path.join(core.dataDir, 'trust-anchors.pem');
    expect(body(await ui(core, 'GET', '/app/trust-anchors'), TrustAnchorList)).toEqual({ anchors: [], editable: true });

    const added = body(await ui(core, 'POST', '/app/trust-anchors', { pem: `${ca.certPem}\n${allowed.certPem}` }), TrustAnchorList);
    expect(added.anchors.map((a) => [a.subject, a.role])).toEqual([
      ['CN=Settings Test Root, O=Veracity tests', 'authority'],
      ['CN=Allowed Signer, O=Veracity tests', 'signer'],
    ]);
    expect(new Date(added.anchors[0].notAfter).getTime()).toBeGreaterThan(Date.now() + 9 * 365 * 86_400_000);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // The same certificate again is kept once.
    expect(body(await ui(core, 'POST', '/app/trust-anchors', { pem: ca.certPem }), TrustAnchorList).anchors).toHaveLength(2);

    // What the analysis reads: the data dir's bundle, re-read when it changes.
    const signed = await signC2pa(await makeJpeg(96, 64), camera, { claimGenerator: 'Test Camera', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture' }] });
    const judged = async () => {
      const reading = await validateC2pa(signed, 'image/jpeg', await loadTrustAnchors(file));
      return reading?.kind === 'manifest' ? reading.manifest.trust : null;
    };
    expect(await judged()).toBe('trusted');

    const root = added.anchors[0].fingerprintSha256;
    const left = body(await ui(core, 'DELETE', `/app/trust-anchors/${root}`), TrustAnchorList);
    expect(left.anchors.map((a) => a.subject)).toEqual(['CN=Allowed Signer, O=Veracity tests']);
    expect(await judged()).toBe('untrusted');

    // The last one removed: no bundle at all (no anchors), not an empty file the analysis would refuse.
    body(await ui(core, 'DELETE', `/app/trust-anchors/${left.anchors[0].fingerprintSha256.toLowerCase()}`), TrustAnchorList);
    expect(fs.existsSync(file)).toBe(false);
    expect(await judged()).toBe('not_established');
  });

  it.skipIf(onPg)('refuses bad PEM, an unknown fingerprint and a missing token, leaving the bundle as it was', async () => {
    const core = await startCore();
    const file = path.join(core.dataDir, 'trust-anchors.pem');
    body(await ui(core, 'POST', '/app/trust-anchors', { pem: ca.certPem }), TrustAnchorList);
    const before = fs.readFileSync(file, 'utf8');

    expectError(await ui(core, 'POST', '/app/trust-anchors', { pem: 'hello' }), 400, 'invalid_request', 'pem');
    const broken = `${allowed.certPem}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`;
    const refusal = await ui(core, 'POST', '/app/trust-anchors', { pem: broken });
    expectError(refusal, 400, 'invalid_request', 'pem');
    expect(JSON.parse(refusal.body).message).toMatch(/certificate 2 is not a valid X\.509 certificate/);
    expectError(await ui(core, 'POST', '/app/trust-anchors', { pem: '' }), 400, 'invalid_request');
    expectError(await ui(core, 'POST', '/app/trust-anchors', {}), 400, 'invalid_request');
    expectError(await ui(core, 'DELETE', `/app/trust-anchors/${'AB:'.repeat(31)}AB`), 404, 'not_found');
    expectError(await ui(core, 'DELETE', '/app/trust-anchors/not-a-fingerprint'), 400, 'invalid_request', 'fingerprint');
    expectError(await core.app.inject({ method: 'POST', url: '/app/trust-anchors', payload: { pem: allowed.certPem } }), 401, 'unauthorized');
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(fs.readdirSync(core.dataDir).filter((n) => n.startsWith('trust-anchors.pem.'))).toEqual([]);
  });

  it('a bundle configured outside the window (VERACITY_TRUST_ANCHORS) is listed and not edited here', async () => {
    const configured = path.join(tempDir('veracity-anchors-'), 'anchors.pem');
    fs.writeFileSync(configured, ca.certPem);
    const core = await startCore({ trustAnchorsFile: configured });
    const list = body(await ui(core, 'GET', '/app/trust-anchors'), TrustAnchorList);
    expect([list.editable, list.anchors.map((a) => a.subject)]).toEqual([false, ['CN=Settings Test Root, O=Veracity tests']]);
    expectError(await ui(core, 'POST', '/app/trust-anchors', { pem: allowed.certPem }), 403, 'forbidden');
    expectError(await ui(core, 'DELETE', `/app/trust-anchors/${list.anchors[0].fingerprintSha256}`), 403, 'forbidden');
    expect(fs.readFileSync(configured, 'utf8')).toBe(ca.certPem);
  });

  it.runIf(onPg)('on the team server, with no bundle configured, the window lists none and edits nothing', async () => {
    const core = await startCore();
    expect(body(await ui(core, 'GET', '/app/trust-anchors'), TrustAnchorList)).toEqual({ anchors: [], editable: false });
    expectError(await ui(core, 'POST', '/app/trust-anchors', { pem: ca.certPem }), 403, 'forbidden');
    expect(fs.existsSync(path.join(core.dataDir, 'trust-anchors.pem'))).toBe(false);
  });
});
