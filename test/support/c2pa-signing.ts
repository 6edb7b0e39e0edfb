// Content Credentials the tests make themselves: a certificate authority and signers issued by openssl in a temp
// dir (a valid signer, an expired one, one from another authority), and files signed with the C2PA library's own
// signing API (@trustnxt/c2pa-ts: manifest building, data hash, COSE signature), then tampered with byte by byte.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { X509Certificate } from '@peculiar/x509';
import { BMFF, JPEG, PNG, type Asset } from '@trustnxt/c2pa-ts/asset';
import { CoseAlgorithmIdentifier, LocalSigner } from '@trustnxt/c2pa-ts/cose';
import { SuperBox } from '@trustnxt/c2pa-ts/jumbf';
import { ActionAssertion, AssertionLabels, BMFFHashAssertion, ClaimVersion, DataHashAssertion, IngredientAssertion, ManifestStore, RelationshipType, ValidationStatusCode, type Action, type ActionType, type DigitalSourceType, type Manifest } from '@trustnxt/c2pa-ts/manifest';
import { LocalTimestampProvider } from '@trustnxt/c2pa-ts/rfc3161';

const EXTENSIONS = `[ca_ext]
basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign
subjectKeyIdentifier=hash
[signer_ext]
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=emailProtection
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
[tsa_ext]
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=critical,timeStamping
subjectKeyIdentifier=hash
authorityKeyIdentifier=keyid
`;

const caConfig = (dir: string) => `[ca]
default_ca = ca_default
[ca_default]
dir = ${dir}
database = ${dir}/index.txt
new_certs_dir = ${dir}
serial = ${dir}/serial
default_md = sha256
policy = policy_any
unique_subject = no
copy_extensions = none
[policy_any]
commonName = supplied
organizationName = optional
`;

export interface TestAuthority {
  name: string;
  dir: string;
  certPem: string;
}

export interface TestSigner {
  certPem: string;
  /** The private key, PKCS#8 DER (what the library's LocalSigner takes). */
  key: Uint8Array;
}

/** A temp dir for one test file's PKI; remove it with `cleanup`. */
export function pkiDir(): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'veracity-pki-'));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const openssl = (cwd: string, ...args: string[]) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

/** A self-signed root (P-256, ten years) in its own folder under `root`. */
export function makeAuthority(root: string, name: string): TestAuthority {
  const dir = path.join(root, name.replace(/\W+/g, '-'));
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'ext.cnf'), EXTENSIONS);
  fs.writeFileSync(path.join(dir, 'ca.cnf'), caConfig(dir));
  fs.writeFileSync(path.join(dir, 'index.txt'), '');
  fs.writeFileSync(path.join(dir, 'serial'), '1000\n');
  openssl(dir, 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650',
    '-subj', `/CN=${name}/O=Veracity tests`, '-config', 'ext.cnf', '-extensions', 'ca_ext');
  return { name, dir, certPem: fs.readFileSync(path.join(dir, 'ca.pem'), 'utf8') };
}

/**
 * A signing certificate issued by `ca` (C2PA profile: digitalSignature, emailProtection; `tsa`: a time-stamp
 * authority's, timeStamping only; `eku`: other extended key usages), valid from `start` to `end` (openssl's YYYYMMDDHHMMSSZ; default: from yesterday
 * for a year).
 */
export function issueSigner(ca: TestAuthority, commonName: string, validity: { start?: string; end?: string; tsa?: boolean; eku?: string } = {}): TestSigner {
  const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  const start = validity.start ?? stamp(new Date(Date.now() - 86_400_000));
  const end = validity.end ?? stamp(new Date(Date.now() + 365 * 86_400_000));
  const base = commonName.replace(/\W+/g, '-');
  openssl(ca.dir, 'req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${commonName}/O=Veracity tests`);
  // `eku`: the signer's extended key usages instead of emailProtection (openssl's names or OIDs, comma-separated)
  if (validity.eku) {
    fs.writeFileSync(path.join(ca.dir, `${base}.ext.cnf`), `[custom_ext]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=${validity.eku}\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n`);
  }
  openssl(ca.dir, 'ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-in', `${base}.csr`, '-out', `${base}.pem`,
    '-startdate', start, '-enddate', end, '-extfile', validity.eku ? `${base}.ext.cnf` : 'ext.cnf', '-extensions', validity.eku ? 'custom_ext' : validity.tsa ? 'tsa_ext' : 'signer_ext', '-notext');
  openssl(ca.dir, 'pkcs8', '-topk8', '-nocrypt', '-in', `${base}.key`, '-outform', 'DER', '-out', `${base}.p8`);
  return { certPem: fs.readFileSync(path.join(ca.dir, `${base}.pem`), 'utf8'), key: new Uint8Array(fs.readFileSync(path.join(ca.dir, `${base}.p8`))) };
}

export interface ManifestSpec {
  claimGenerator: string;
  /** Actions with IPTC digital source types by their code (`digitalCapture`, `trainedAlgorithmicMedia`). */
  actions: Array<{ action: string; digitalSourceType?: string; softwareAgent?: string }>;
  /**
   * The claim's C2PA version: 2 (`c2pa.claim.v2`, `c2pa.actions.v2`; the default) or 1 (`c2pa.claim`, `c2pa.actions`),
   * as C2PA 1.x tools wrote them (the public test files of 2022-2024 are all 1.x claims).
   */
  claimVersion?: 1 | 2;
}

const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

/**
 * `bytes` (JPEG, PNG or HEIF) with a C2PA manifest store signed by `signer`: the actions, and a hard binding of the
 * file (a data hash; for HEIF a BMFF v3 hash); with `timeStamper`, an RFC 3161 time-stamp made with its certificate.
 */
export async function signC2pa(bytes: Buffer, signer: TestSigner, spec: ManifestSpec, timeStamper?: TestSigner): Promise<Buffer> {
  const bmff = BMFF.canRead(bytes);
  const asset = JPEG.canRead(bytes) ? new JPEG(bytes) : bmff ? new BMFF(bytes) : new PNG(bytes);
  const claim = newClaim(new ManifestStore(), asset.mimeType, signer, spec);
  const actions = new ActionAssertion();
  if (spec.claimVersion === 1) actions.label = AssertionLabels.actions;
  actions.actions = spec.actions.map(specAction);
  claim.manifest.addAssertion(actions);
  const binding = bmff ? BMFFHashAssertion.createV3('jumbf manifest', 'SHA-256') : DataHashAssertion.create('SHA-256');
  const tsa = timeStamper && new LocalTimestampProvider(new X509Certificate(timeStamper.certPem), timeStamper.key);
  return bindAndSign(claim, asset, binding, tsa);
}

/** A manifest being made: its store, the manifest, and the library's signer it is to be signed with. */
interface Claim {
  store: ManifestStore;
  manifest: Manifest;
  local: LocalSigner;
}

/** A new manifest in `store` for an asset of `assetFormat`, claimed by `spec.claimGenerator` and to be signed by `signer`. */
function newClaim(store: ManifestStore, assetFormat: string, signer: TestSigner, spec: ManifestSpec): Claim {
  const local = new LocalSigner(signer.key, CoseAlgorithmIdentifier.ES256, new X509Certificate(signer.certPem));
  const claimVersion = spec.claimVersion === 1 ? ClaimVersion.V1 : ClaimVersion.V2;
  const manifest = store.createManifest({ claimVersion, assetFormat, instanceID: `xmp:iid:${crypto.randomUUID()}`, defaultHashAlgorithm: 'SHA-256', signer: local });
  manifest.claim!.claimGeneratorName = spec.claimGenerator;
  manifest.claim!.claimGeneratorVersion = undefined;
  return { store, manifest, local };
}

/** One action of a spec as the library writes it: the IPTC source type and the software agent only where given. */
function specAction(a: ManifestSpec['actions'][number]): Action {
  return {
    action: a.action as ActionType,
    ...(a.digitalSourceType ? { digitalSourceType: `${IPTC}${a.digitalSourceType}` as DigitalSourceType } : {}),
    ...(a.softwareAgent ? { softwareAgent: { name: a.softwareAgent } } : {}),
  };
}

/**
 * The last steps of every signed test file: the hard binding added (a data hash unless `binding` says otherwise),
 * room made in `asset` for the store, the binding hashed, the manifest signed (time-stamped by `tsa` where given) and
 * the store written into the asset: the asset's bytes.
 */
async function bindAndSign({ store, manifest, local }: Claim, asset: Asset, binding: DataHashAssertion | BMFFHashAssertion = DataHashAssertion.create('SHA-256'), tsa?: LocalTimestampProvider): Promise<Buffer> {
  manifest.addAssertion(binding);
  await asset.ensureManifestSpace(store.measureSize());
  await binding.updateWithAsset(asset);
  await manifest.sign(local, tsa);
  await asset.writeManifestJUMBF(store.getBytes());
  return Buffer.from(await asset.getDataRange());
}

/**
 * An edit of a signed JPEG, as an editor that keeps Content Credentials writes it: `edited` (new pixels, no store of its
 * own) carries the original's manifests and a new active manifest signed by `signer`, whose `c2pa.opened` /
 * `c2pa.edited` actions name the original as its parent ingredient (`title`), with a hashed link to the original's
 * active manifest. `spec.actions` follow the opening action. `options.recordedFailures`: the codes the editor found
 * failing in the original's manifest when it took it in, recorded with the link (`validationResults`); without them
 * it records the manifest as validated. `options.dropParent`: the store keeps the new manifest only, so its link names
 * a manifest the store does not hold (as a tool that lost it would write). `options.tamperLink`: the link no longer
 * names the manifest it was made from, while every signature stays valid: `'hash'`, the hash the link records is
 * altered before the edit is signed (a link that never matched); `'manifest'`, the original's manifest box changes
 * after the link was hashed, outside anything its own signature covers (its JUMBF description box gains an ID), as
 * when a manifest is swapped for another of the same label.
 */
export async function signC2paEdit(
  edited: Buffer,
  original: Buffer,
  title: string,
  signer: TestSigner,
  spec: ManifestSpec,
  options: { recordedFailures?: string[]; dropParent?: boolean; tamperLink?: 'hash' | 'manifest' } = {},
): Promise<Buffer> {
  const store = ManifestStore.read(SuperBox.fromBuffer(new JPEG(original).getManifestJUMBF()! as Uint8Array<ArrayBuffer>));
  const parent = store.getActiveManifest()!;
  const asset = new JPEG(edited);
  const claim = newClaim(store, asset.mimeType, signer, spec);
  const { manifest } = claim;
  // A 2.x claim links with a v3 ingredient's `activeManifest`; a 1.x claim with a v2 ingredient's `c2pa_manifest`.
  const v1 = spec.claimVersion === 1;
  const ingredient = v1 ? IngredientAssertion.createV2(title, 'image/jpeg') : IngredientAssertion.createV3(RelationshipType.ParentOf);
  ingredient.relationship = RelationshipType.ParentOf;
  ingredient.title = title;
  ingredient.format = 'image/jpeg';
  const link = { uri: `self#jumbf=/c2pa/${parent.label}`, hash: new Uint8Array(32), algorithm: 'SHA-256' as const };
  await manifest.updateHashedReference(link);
  if (options.tamperLink === 'hash') link.hash[0] ^= 0xff;
  if (options.tamperLink === 'manifest') parent.sourceBox!.descriptionBox!.id = 0x7e57;
  if (v1) ingredient.c2pa_manifest = link;
  else ingredient.activeManifest = link;
  // What the editor saw when it opened the original: its manifest validated (C2PA 2.x records it with the link).
  const failure = (options.recordedFailures ?? []).map((code) => ({ code: code as ValidationStatusCode, url: `self#jumbf=/c2pa/${parent.label}` }));
  if (!v1) ingredient.validationResults = { activeManifest: { success: failure.length ? [] : [{ code: ValidationStatusCode.ClaimSignatureValidated }], informational: [], failure } };
  else if (failure.length) ingredient.validationStatus = failure.map((f) => f.code);
  manifest.addAssertion(ingredient);
  if (options.dropParent) store.manifests.splice(store.manifests.indexOf(parent), 1);
  const actions = new ActionAssertion();
  if (v1) actions.label = AssertionLabels.actions;
  const opened: Action = { action: 'c2pa.opened' as ActionType, parameters: { ingredients: [manifest.createAssertionReference(ingredient)] } };
  actions.actions = [opened, ...spec.actions.map(specAction)];
  manifest.addAssertion(actions);
  return bindAndSign(claim, asset);
}

/** `bytes` with the first occurrence of `from` replaced by `to` (same length): a change made after signing. */
export function replaceOnce(bytes: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('replaceOnce keeps the length');
  const at = bytes.indexOf(from, 0, 'latin1');
  if (at < 0) throw new Error(`"${from}" is not in the file`);
  const out = Buffer.from(bytes);
  out.write(to, at, 'latin1');
  return out;
}

/** A signed manifest store on its own (made for a throwaway JPEG, so its data hash binds nothing else). */
export async function signedStore(signer: TestSigner, spec: ManifestSpec): Promise<Buffer> {
  const carrier = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#777777' } }).jpeg().toBuffer();
  return Buffer.from(new JPEG(await signC2pa(carrier, signer, spec)).getManifestJUMBF()!);
}

/**
 * What the two writable PDF assets below share: the document's bytes as the library reads them, and the byte range of
 * the store's stream as stored (the data hash's exclusion).
 */
abstract class WritablePdf {
  readonly mimeType = 'application/pdf';
  protected data: Uint8Array;
  protected start = 0;
  protected length = 0;
  constructor(protected readonly pdf: Buffer) {
    this.data = new Uint8Array(pdf);
  }
  getDataLength(): number {
    return this.data.length;
  }
  getDataRange(start = 0, length?: number): Promise<Uint8Array> {
    return Promise.resolve(this.data.subarray(start, length === undefined ? undefined : start + length));
  }
  getHashExclusionRange(): { start: number; length: number } {
    return { start: this.start, length: this.length };
  }
}

/**
 * A PDF as a writable asset for the library's signer, test-only: the manifest store goes in an uncompressed stream
 * object appended after the document (`/Type /EmbeddedFile /Subtype /application#2Fc2pa`), and the data hash
 * excludes exactly the store's bytes. This is the smallest layout the product reads (no catalog names the store: it
 * is found as the newest stream whose subtype is the C2PA media type); EmbeddedStorePdf writes the specification's
 * form (an incremental update whose catalog lists the store as an associated file), which c2pa-ts does not write.
 */
class AppendedStorePdf extends WritablePdf {
  getManifestJUMBF(): Uint8Array | undefined {
    return this.length ? this.data.subarray(this.start, this.start + this.length) : undefined;
  }
  dumpInfo(): string {
    return `PDF with an appended C2PA store, ${this.data.length} bytes`;
  }
  ensureManifestSpace(length: number): Promise<void> {
    const head = Buffer.from(`\n9999 0 obj\n<< /Type /EmbeddedFile /Subtype /application#2Fc2pa /Length ${length} >>\nstream\n`, 'latin1');
    const tail = Buffer.from('\nendstream\nendobj\n', 'latin1');
    this.data = new Uint8Array(Buffer.concat([this.pdf, head, Buffer.alloc(length), tail]));
    this.start = this.pdf.length + head.length;
    this.length = length;
    return Promise.resolve();
  }
  writeManifestJUMBF(jumbf: Uint8Array): Promise<void> {
    if (jumbf.length !== this.length) return Promise.reject(new Error(`store is ${jumbf.length} bytes, ${this.length} reserved`));
    this.data.set(jumbf, this.start);
    return Promise.resolve();
  }
}

/** How an embedded-file stream's bytes are encoded: FlateDecode, optionally after a PNG Up predictor (/DecodeParms). */
export interface StreamEncoding {
  /** PNG predictor 12 (Up) over rows of this many bytes before deflating, declared in /DecodeParms. */
  pngUpColumns?: number;
}

/** `data` PNG-Up filtered in rows of `columns` bytes: each row a filter-type byte (2) and its differences from the row above. */
function pngUp(data: Uint8Array, columns: number): Buffer {
  const rows = Math.ceil(data.length / columns);
  const out = Buffer.alloc(rows * (columns + 1));
  for (let r = 0; r < rows; r++) {
    out[r * (columns + 1)] = 2;
    for (let c = 0; c < columns; c++) {
      const i = r * columns + c;
      const cur = i < data.length ? data[i] : 0;
      const up = r > 0 ? data[i - columns] : 0;
      out[r * (columns + 1) + 1 + c] = (cur - up) & 0xff;
    }
  }
  return out;
}

/** The stream's stored bytes for `store`: deflated (after the PNG predictor where `encoding` names one). */
export function encodeStream(store: Uint8Array, encoding: StreamEncoding = {}): Buffer {
  return zlib.deflateSync(encoding.pngUpColumns ? pngUp(store, encoding.pngUpColumns) : store);
}

/**
 * `pdf` with an incremental update that embeds `stored` as the C2PA specification places a manifest store: an
 * embedded file stream (`/Type /EmbeddedFile /Subtype /application#2Fc2pa`, its dictionary completed by
 * `streamDict`, e.g. `/Filter /FlateDecode`), a file specification with `/AFRelationship /C2PA_Manifest` listed in
 * the catalog's `/AF` array and its `/Names /EmbeddedFiles` tree, a cross-reference section and a trailer chained to
 * the previous one by `/Prev`. Returns the file and where the stream's stored bytes are in it.
 */
export function withEmbeddedStore(pdf: Buffer, stored: Uint8Array, streamDict = ''): { pdf: Buffer; start: number; length: number } {
  const text = pdf.toString('latin1');
  const size = Number(/\/Size\s+(\d+)(?![\s\S]*\/Size)/.exec(text)![1]);
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  const catalog = [...text.matchAll(/(\d+) 0 obj\s*(<<(?:(?!endobj)[\s\S])*?\/Type\s*\/Catalog(?:(?!endobj)[\s\S])*?)>>\s*endobj/g)].at(-1)!;
  const [streamNum, specNum, catalogNum] = [size, size + 1, Number(catalog[1])];
  const parts: Buffer[] = [pdf];
  const offsets = new Map<number, number>();
  let off = pdf.length;
  const add = (num: number, ...chunks: Array<string | Uint8Array>) => {
    offsets.set(num, off);
    for (const c of chunks) {
      const b = typeof c === 'string' ? Buffer.from(c, 'latin1') : Buffer.from(c);
      parts.push(b);
      off += b.length;
    }
  };
  const head = `${streamNum} 0 obj\n<< /Type /EmbeddedFile /Subtype /application#2Fc2pa ${streamDict} /Length ${stored.length} >>\nstream\n`;
  const start = off + head.length;
  add(streamNum, head, stored, '\nendstream\nendobj\n');
  add(specNum, `${specNum} 0 obj\n<< /Type /Filespec /F (manifest.c2pa) /UF (manifest.c2pa) /Desc (Content Credentials) /AFRelationship /C2PA_Manifest /EF << /F ${streamNum} 0 R >> >>\nendobj\n`);
  add(catalogNum, `${catalogNum} 0 obj\n${catalog[2]}/AF [${specNum} 0 R] /Names << /EmbeddedFiles << /Names [(Content Credentials) ${specNum} 0 R] >> >> >>\nendobj\n`);
  const entry = (num: number) => `${num} 1\n${String(offsets.get(num)).padStart(10, '0')} 00000 n \n`;
  const xref = `xref\n${entry(catalogNum)}${streamNum} 2\n${String(offsets.get(streamNum)).padStart(10, '0')} 00000 n \n${String(offsets.get(specNum)).padStart(10, '0')} 00000 n \n`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${size + 2} /Root ${catalogNum} 0 R /Prev ${prev} >>\nstartxref\n${off}\n%%EOF\n`, 'latin1'));
  return { pdf: Buffer.concat(parts), start, length: stored.length };
}

/**
 * A PDF as a writable asset for the library's signer, test-only, with the store embedded as the C2PA specification
 * describes (withEmbeddedStore) and compressed: FlateDecode, optionally over a PNG predictor. The compressed size is
 * known only once the store is signed, and the data hash (which excludes the stream's stored bytes, as a data hash
 * excludes ranges of the file as stored) must be made before: so the stream reserves room for the worst case and
 * the deflated store is followed, inside the stream, by zeros after the end of its zlib data, which inflating stops at.
 */
class EmbeddedStorePdf extends WritablePdf {
  private jumbf: Uint8Array | undefined;
  constructor(
    pdf: Buffer,
    private readonly encoding: StreamEncoding,
  ) {
    super(pdf);
  }
  getManifestJUMBF(): Uint8Array | undefined {
    return this.jumbf;
  }
  dumpInfo(): string {
    return `PDF with a compressed embedded C2PA store, ${this.data.length} bytes`;
  }
  ensureManifestSpace(length: number): Promise<void> {
    const room = length + (length >> 2) + 64;
    const params = this.encoding.pngUpColumns ? ` /DecodeParms << /Predictor 12 /Columns ${this.encoding.pngUpColumns} >>` : '';
    const placed = withEmbeddedStore(this.pdf, new Uint8Array(room), `/Filter /FlateDecode${params}`);
    this.data = new Uint8Array(placed.pdf);
    this.start = placed.start;
    this.length = placed.length;
    this.jumbf = new Uint8Array(length);
    return Promise.resolve();
  }
  writeManifestJUMBF(jumbf: Uint8Array): Promise<void> {
    const stored = encodeStream(jumbf, this.encoding);
    if (stored.length > this.length) return Promise.reject(new Error(`compressed store is ${stored.length} bytes, ${this.length} reserved`));
    this.data.set(stored, this.start);
    this.jumbf = jumbf;
    return Promise.resolve();
  }
}

/**
 * `pdf` with a C2PA manifest store signed by `signer` and a data hash of the document. By default the store is an
 * uncompressed stream appended after the document (AppendedStorePdf); `form.compressed` embeds it as the C2PA
 * specification does, FlateDecode-compressed, in an incremental update (EmbeddedStorePdf).
 */
export async function signPdfC2pa(pdf: Buffer, signer: TestSigner, spec: ManifestSpec, form: { compressed?: StreamEncoding } = {}): Promise<Buffer> {
  const asset = form.compressed ? new EmbeddedStorePdf(pdf, form.compressed) : new AppendedStorePdf(pdf);
  const claim = newClaim(new ManifestStore(), asset.mimeType, signer, spec);
  const actions = new ActionAssertion();
  actions.actions = spec.actions.map(specAction);
  claim.manifest.addAssertion(actions);
  return bindAndSign(claim, asset);
}
