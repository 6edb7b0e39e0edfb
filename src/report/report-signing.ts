// The signature on every case report PDF (issue 24, item 6), so anyone can check with standard tools (Acrobat,
// pdfsig) that a report was not altered after export. The C2PA library has no PDF support, so a report is signed as
// a PDF digital signature, PAdES baseline B (B-B): a detached CMS SignedData (SubFilter ETSI.CAdES.detached) whose
// signed attributes are the content type, the message digest and the ESS signing-certificate-v2 attribute, with no
// signing-time attribute (the signature dictionary's /M holds the time, as ETSI EN 319 142-1 asks). The PDF
// placeholder and byte range are @signpdf's; the CMS is pkijs's; the key is the installation's (signing-key.ts).
// Runs in the report process (src/jobs/report-process.ts).
import crypto from 'node:crypto';
import { pdfkitAddPlaceholder } from '@signpdf/placeholder-pdfkit';
import { SignPdf } from '@signpdf/signpdf';
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { KEY_ALGORITHM, signingKeyParts, type ReportSigningKey } from './signing-key.js';

const { subtle } = crypto.webcrypto;

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
    const { key, cert } = signingKeyParts(this.key.pem, 'the report signing key');
    const privateKey = await subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), KEY_ALGORITHM, false, ['sign']);
    const certificate = pkijs.Certificate.fromBER(cert.raw);
    const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest();
    // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }; ESSCertIDv2 ::= SEQUENCE { certHash }
    // (its hashAlgorithm is SHA-256, the default, so DER leaves it out: RFC 5035).
    const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: sha256(cert.raw) })] });
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
