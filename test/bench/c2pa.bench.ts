// C2PA validation cost (issue 24): what validating Content Credentials adds to a 12-MP JPEG that carries a manifest
// (signed here by a test CA, judged against it as an anchor), and to one that carries none. CPU time per
// validation is the figure to compare (this machine is shared: wall time includes waiting for a core).
import fs from 'node:fs';
import { validateC2pa } from '../../src/analysis/c2pa-validation.js';
import { parseTrustAnchors } from '../../src/analysis/trust-anchors.js';
import { issueSigner, makeAuthority, pkiDir, signC2pa } from '../support/c2pa-signing.js';
import { jpegs12mp, round, writeResult } from './bench-support.js';

const pki = pkiDir();
try {
  const ca = makeAuthority(pki.dir, 'Bench Root');
  const signer = issueSigner(ca, 'Bench Camera');
  const anchors = parseTrustAnchors(ca.certPem);
  const plain = fs.readFileSync((await jpegs12mp(1))[0]);
  const signed = await signC2pa(plain, signer, { claimGenerator: 'Bench Camera', actions: [{ action: 'c2pa.created', digitalSourceType: 'digitalCapture' }] });
  const measure = async (bytes: Buffer, n: number) => {
    for (let i = 0; i < 3; i++) await validateC2pa(bytes, 'image/jpeg', anchors);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await validateC2pa(bytes, 'image/jpeg', anchors);
    const cpu = process.cpuUsage(cpu0);
    return { cpuMs: round((cpu.user + cpu.system) / 1000 / n, 2), wallMs: round((performance.now() - t0) / n, 2) };
  };
  const withManifest = await measure(signed, 30);
  const without = await measure(plain, 200);
  writeResult('c2pa', { bytes: signed.length, withManifest, without }, [
    'per validation of a 12-MP JPEG: the C2PA library (signature, hashed URIs, data hash over the whole file) and the chain check against one anchor',
  ], { withManifest: '≤ 50 ms', without: 'nothing measurable' });
} finally {
  pki.cleanup();
}
