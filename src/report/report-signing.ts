// The installation's own signing key, and the signature it puts on every case report PDF (issue 24, item 6), so
// anyone can check with standard tools (Acrobat, pdfsig) that a report was not altered after export. The C2PA
// library has no PDF support, so a report is signed as a PDF digital signature, PAdES baseline B (B-B): a detached
// CMS SignedData (SubFilter ETSI.CAdES.detached) whose signed attributes are the content type, the message digest and
// the ESS signing-certificate-v2 attribute, with no signing-time attribute (the signature dictionary's /M holds the
// time, as ETSI EN 319 142-1 asks). The PDF placeholder and byte range are @signpdf's; the CMS is pkijs's; the key and
// the self-signed certificate naming the installation are made with WebCrypto and @peculiar/x509 on first run.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pdfkitAddPlaceholder } from '@signpdf/placeholder-pdfkit';
import { SignPdf } from '@signpdf/signpdf';
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const { subtle } = crypto.webcrypto;

/**
 * ECDSA on P-256 with SHA-256: verified by Acrobat and poppler (NSS) alike, made in milliseconds (an RSA-3072 key took
 * 8 s on a loaded 2-core machine, on the first start), and a signature of 72 bytes.
 */
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
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
  /** The file's text: the PKCS #8 private key, then the certificate. Handed to the report thread only. */
  pem: string;
  certificate: SigningCertificateInfo;
}

const colonHex = (b: ArrayBuffer | Buffer) => (Buffer.from(b as ArrayBuffer).toString('hex').toUpperCase().match(/../g) ?? []).join(':');

function describe(cert: x509.X509Certificate): SigningCertificateInfo {
  return {
    subject: cert.subject,
    fingerprintSha256: colonHex(crypto.createHash('sha256').update(Buffer.from(cert.rawData)).digest()),
    serialNumber: cert.serialNumber,
    notBefore: cert.notBefore.toISOString(),
    notAfter: cert.notAfter.toISOString(),
    pem: cert.toString('pem'),
  };
}

function parse(pem: string, file: string): { key: ArrayBuffer; cert: x509.X509Certificate } {
  const key = /-----BEGIN PRIVATE KEY-----[\s\S]*?-----END PRIVATE KEY-----/.exec(pem);
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(pem);
  if (!key || !cert) throw new Error(`The report signing key ${file} holds no PKCS #8 private key and certificate (PEM); move it away to make a new one.`);
  return { key: x509.PemConverter.decodeFirst(key[0]), cert: new x509.X509Certificate(cert[0]) };
}

/** A distinguished-name value without the characters that would end or split it. */
const dnValue = (s: string) => s.replace(/[,+="\\<>;#\n\r]/g, ' ').trim().slice(0, 48) || 'unnamed';

/** A new key and a self-signed certificate naming the installation (its computer's name and a random id). */
async function makeKey(now: Date, host: string): Promise<string> {
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
  const { cert } = parse(pem, file);
  return { pem, certificate: describe(cert) };
}

/** Bytes kept for the CMS in the PDF (hex, so twice this in the file): the signature with its certificate is under 1 KB. */
const SIGNATURE_BYTES = 4096;

/**
 * Adds the signature field and its placeholder (/ByteRange and /Contents to fill) to a pdfkit document, on its last
 * page; called just before `doc.end()`. `signer` is the name the signature dictionary states.
 */
export function addSignaturePlaceholder(doc: PDFKit.PDFDocument, signer: string, signingTime: Date): void {
  pdfkitAddPlaceholder({
    pdf: doc,
    pdfBuffer: Buffer.alloc(0),
    reason: 'Case report exported by Veracity: any change after export breaks this signature',
    contactInfo: '',
    name: signer,
    location: '',
    signingTime,
    signatureLength: SIGNATURE_BYTES,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    appName: 'Veracity',
  });
}

const OID = {
  data: '1.2.840.113549.1.7.1',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
} as const;

/** The detached CMS SignedData (CAdES-B) over the bytes signpdf hands it: the PDF without its /Contents value. */
class InstallationSigner extends Signer {
  constructor(private readonly key: ReportSigningKey) {
    super();
  }

  override async sign(data: Buffer): Promise<Buffer> {
    const { key: pkcs8, cert } = parse(this.key.pem, 'the report signing key');
    const privateKey = await subtle.importKey('pkcs8', pkcs8, KEY_ALGORITHM, false, ['sign']);
    const certificate = pkijs.Certificate.fromBER(cert.rawData);
    const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest();
    // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }; ESSCertIDv2 ::= SEQUENCE { certHash }
    // (its hashAlgorithm is SHA-256, the default, so DER leaves it out: RFC 5035).
    const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: sha256(new Uint8Array(cert.rawData)) })] });
    const signingCertificateV2 = new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
    const signerInfo = new pkijs.SignerInfo({
      version: 1,
      sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
      signedAttrs: new pkijs.SignedAndUnsignedAttributes({
        type: 0,
        attributes: [
          new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
          new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: sha256(data) })] }),
          new pkijs.Attribute({ type: OID.signingCertificateV2, values: [signingCertificateV2] }),
        ],
      }),
    });
    const signedData = new pkijs.SignedData({
      version: 1,
      encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
      signerInfos: [signerInfo],
      certificates: [certificate],
    });
    await signedData.sign(privateKey, 0, 'SHA-256');
    const contentInfo = new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signedData.toSchema(true) });
    return Buffer.from(contentInfo.toSchema().toBER(false));
  }
}

/** Fills the placeholder of a finished PDF with the installation's signature over every byte but the signature's own. */
export async function signPdf(pdf: Buffer, key: ReportSigningKey, signingTime: Date): Promise<Buffer> {
  return new SignPdf().sign(pdf, new InstallationSigner(key), signingTime);
}

/** The name a signature states: the certificate's common name. */
export const signerName = (key: ReportSigningKey) => /(?:^|,\s*)CN=([^,]+)/.exec(key.certificate.subject)?.[1] ?? key.certificate.subject;
