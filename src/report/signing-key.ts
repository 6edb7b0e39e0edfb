// The installation's own signing key (issue 24, item 6): an ECDSA P-256 key and a self-signed certificate naming
// the installation, made on the first start and kept in one PEM file readable by its user only. Read at every start
// with node:crypto alone (no ASN.1 library on the start-up path); @peculiar/x509 is loaded only to make a new one.
// What signs with it is report-signing.ts, in the report process.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * ECDSA on P-256 with SHA-256: verified by Acrobat and poppler (NSS) alike, made in milliseconds (an RSA-3072 key took
 * 8 s on a loaded 2-core machine, on the first start), and a signature of 72 bytes.
 */
export const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const CERTIFICATE_YEARS = 20;

/** What a person or a client is shown of the installation's signing certificate. */
export interface SigningCertificateInfo {
  subject: string;
  /** SHA-256 of the certificate's DER, upper-case hex in pairs separated by colons (as openssl and browsers print it). */
  fingerprintSha256: string;
  serialNumber: string;
  notBefore: string;
  notAfter: string;
  /** The certificate alone, PEM: what a reader is given to trust the installation's reports. Never the key. */
  pem: string;
}

export interface ReportSigningKey {
  /** The file's text: the PKCS #8 private key, then the certificate. Handed to the report process only. */
  pem: string;
  certificate: SigningCertificateInfo;
}

/** The key and the certificate of the file's text; throws, naming the file, when either is missing or unreadable. */
export function signingKeyParts(pem: string, file: string): { key: crypto.KeyObject; cert: crypto.X509Certificate } {
  const key = /-----BEGIN PRIVATE KEY-----[\s\S]*?-----END PRIVATE KEY-----/.exec(pem);
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(pem);
  const broken = `The report signing key ${file} holds no usable PKCS #8 private key and certificate (PEM); move it away to make a new one.`;
  if (!key || !cert) throw new Error(broken);
  try {
    return { key: crypto.createPrivateKey(key[0]), cert: new crypto.X509Certificate(cert[0]) };
  } catch (err) {
    throw new Error(`${broken} (${(err as Error).message})`);
  }
}

function describe(cert: crypto.X509Certificate): SigningCertificateInfo {
  return {
    // node:crypto writes one attribute a line, in the certificate's order.
    subject: cert.subject.split('\n').join(', '),
    fingerprintSha256: cert.fingerprint256,
    serialNumber: cert.serialNumber.toLowerCase(),
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: new Date(cert.validTo).toISOString(),
    pem: cert.toString(),
  };
}

/** A distinguished-name value without the characters that would end or split it. */
const dnValue = (s: string) => s.replace(/[,+="\\<>;#\n\r]/g, ' ').trim().slice(0, 48) || 'unnamed';

/** A new key and a self-signed certificate naming the installation (its computer's name and a random id). */
async function makeKey(now: Date, host: string): Promise<string> {
  const x509 = await import('@peculiar/x509');
  const { subtle } = crypto.webcrypto;
  const keys = await subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const installation = crypto.randomBytes(6).toString('hex');
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      // Positive and 16 bytes (RFC 5280 4.1.2.2 allows up to 20).
      serialNumber: `01${crypto.randomBytes(15).toString('hex')}`,
      name: `CN=Veracity on ${dnValue(host)} (${installation}), O=Veracity, OU=Case reports`,
      notBefore: new Date(now.getTime() - 60_000),
      notAfter: new Date(Date.UTC(now.getUTCFullYear() + CERTIFICATE_YEARS, now.getUTCMonth(), now.getUTCDate())),
      keys,
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    },
    crypto.webcrypto as Crypto,
  );
  const pkcs8 = await subtle.exportKey('pkcs8', keys.privateKey);
  return `${x509.PemConverter.encode(pkcs8, 'PRIVATE KEY')}\n${cert.toString('pem')}\n`;
}

/**
 * The installation's report signing key in `file`, made on first use: written to a temporary file readable by its
 * user only (0600), flushed, then linked into place, so a reader never sees half a key and two processes starting at
 * once (API nodes of a team server sharing the file) end with the one key the first of them linked. An existing key
 * is narrowed to 0600 if it was wider, and kept: its certificate is the installation's identity across restarts.
 */
export async function loadOrCreateReportSigningKey(file: string, opts: { now?: Date; host?: string } = {}): Promise<ReportSigningKey> {
  let pem: string;
  try {
    pem = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeSync(fd, await makeKey(opts.now ?? new Date(), opts.host ?? os.hostname()));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(tmp, file);
    } catch (linkErr) {
      if ((linkErr as NodeJS.ErrnoException).code !== 'EEXIST') throw linkErr;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    pem = fs.readFileSync(file, 'utf8');
  }
  if (process.platform !== 'win32' && (fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  const { cert } = signingKeyParts(pem, file);
  return { pem, certificate: describe(cert) };
}
